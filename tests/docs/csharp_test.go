package docs_test

import (
	"path/filepath"
	"regexp"
	"testing"

	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/snippets"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/toolchain"
)

// TestCSharpExamples parses every C# snippet of the docs with tree-sitter-c-sharp,
// the check the C# SDK gets (tests/sdk/testdata/dotnet/parse_cs.py): no .NET
// toolchain exists here to compile them. A snippet missing a parenthesis must fail.
func TestCSharpExamples(t *testing.T) {
	t.Parallel()
	examples := snippets.Examples(t, "csharp")
	bad := broken(t, examples, spec.EndpointSliceToken, "    });\n\n    return new Dictionary", "    }\n\n    return new Dictionary")
	parser := toolchain.CSharpParser(t)

	dir := t.TempDir()
	args := parser[1:]
	for _, e := range append(examples, bad) {
		toolchain.WriteFile(t, filepath.Join(dir, e.Name+".cs"), e.Code)
		args = append(args, e.Name+".cs")
	}
	out, err := toolchain.Command(t.Context(), dir, nil, parser[0], args...)
	checkReports(t, "the C# parser", out, err, examples, ".cs", regexp.MustCompile(`(?m)^([^\s:]+):\d+:\d+: syntax error.*$`))
}
