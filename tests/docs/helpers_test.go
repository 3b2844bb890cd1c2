package docs_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/snippets"
)

// broken returns the snippet of token among examples with old replaced by new: a
// mistake the language's check must report.
func broken(t *testing.T, examples []snippets.Example, token, old, replacement string) snippets.Example {
	t.Helper()
	for _, e := range examples {
		if e.Token == token {
			if !strings.Contains(e.Code, old) {
				t.Fatalf("%s does not contain %q, which the test breaks", e, old)
			}
			e.Code = strings.Replace(e.Code, old, replacement, 1)
			e.Name = "broken"
			return e
		}
	}
	t.Fatalf("no snippet of %s", token)
	return snippets.Example{}
}

// checkReports checks the output of a checker run over every snippet plus the broken
// one (each in its own file, named by the example's Name and ext): it must fail, and
// report errors in the broken file only. errorLine matches one reported error and
// captures its file name.
func checkReports(t *testing.T, checker, out string, err error, examples []snippets.Example, ext string, errorLine *regexp.Regexp) {
	t.Helper()
	byFile := map[string]snippets.Example{}
	for _, e := range examples {
		byFile[e.Name+ext] = e
	}
	brokenReported := false
	for _, m := range errorLine.FindAllStringSubmatch(out, -1) {
		if m[1] == "broken"+ext {
			brokenReported = true
			continue
		}
		if e, ok := byFile[m[1]]; ok {
			t.Errorf("%s rejects the example %s: %s", checker, e, m[0])
		} else {
			t.Errorf("%s reports an error outside the examples: %s", checker, m[0])
		}
	}
	if err == nil || !brokenReported {
		t.Errorf("%s did not reject the broken snippet broken%s (err %v):\n%s", checker, ext, err, out)
	}
	if t.Failed() {
		t.Logf("%s output:\n%s", checker, out)
	}
}
