package validate

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/property"

	"github.com/endpoints-provider/pulumi-endpoints/provider/internal/propertytest"
)

// Test helpers: inputs are written as JSON, with the markers of package
// propertytest for what JSON cannot say: the string "$unknown" is an unknown
// (computed) value, and {"$secret": v} is the secret value v.

// inputs decodes a JSON document to a property map.
func inputs(tb testing.TB, doc string) property.Map {
	tb.Helper()
	var v any
	if err := json.Unmarshal([]byte(doc), &v); err != nil {
		tb.Fatalf("bad test input %s: %v", doc, err)
	}
	p, err := propertytest.FromJSON(v)
	if err != nil {
		tb.Fatalf("bad test input %s: %v", doc, err)
	}
	if !p.IsMap() {
		tb.Fatalf("bad test input %s: not an object", doc)
	}
	return p.AsMap()
}

// want describes an expected failure or warning: its exact path, and a part of its
// text.
type want struct {
	path, text string
}

// checkResult compares r's failures and warnings with the expected ones, in order.
func checkResult(t *testing.T, r Result, failures, warnings []want) {
	t.Helper()
	gotFailures := make([]want, len(r.Failures))
	for i, f := range r.Failures {
		gotFailures[i] = want{f.Path, f.Reason}
	}
	gotWarnings := make([]want, len(r.Warnings))
	for i, w := range r.Warnings {
		p, text, ok := strings.Cut(w, ": ")
		if !ok {
			p, text = "", w
		}
		gotWarnings[i] = want{p, text}
	}
	contains := cmp.Comparer(func(a, b want) bool {
		return a.path == b.path && (strings.Contains(a.text, b.text) || strings.Contains(b.text, a.text))
	})
	if diff := cmp.Diff(failures, gotFailures, contains, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("failures (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(warnings, gotWarnings, contains, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}

func TestPathString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		path segments
		want string
	}{
		{segments{"endpoints", 3, "addresses", 0}, "endpoints[3].addresses[0]"},
		{segments{"metadata", "labels", "app.kubernetes.io/name"}, `metadata.labels["app.kubernetes.io/name"]`},
		{segments{"metadata", "labels", ""}, `metadata.labels[""]`},
		{segments{"metadata", "labels", `a"b`}, `metadata.labels["a\"b"]`},
		{segments{"metadata", "labels", "under_score9"}, "metadata.labels.under_score9"},
		{segments{"weird key"}, `["weird key"]`},
		{segments{"items", 10, "subsets", 2, "ports", 1, "name"}, "items[10].subsets[2].ports[1].name"},
		{nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			t.Parallel()
			if got := tt.path.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
			parsed, err := resource.ParsePropertyPath(tt.want)
			if err != nil {
				t.Fatalf("the engine cannot parse %q: %v", tt.want, err)
			}
			if diff := cmp.Diff([]any(tt.path), []any(parsed), cmp.Comparer(func(a, b []any) bool {
				return fmt.Sprint(a) == fmt.Sprint(b)
			})); diff != "" && len(tt.path) > 0 {
				t.Errorf("the engine reads %q back differently (-want +got):\n%s", tt.want, diff)
			}
		})
	}
}

func TestUnexpressibleKeyMovesToParent(t *testing.T) {
	t.Parallel()
	// The engine's path grammar cannot express a key that ends in a backslash.
	n := expressible(segments{"metadata", "labels", `a\`}, "bad")
	if diff := cmp.Diff(want{"metadata.labels", `at key "a\\": bad`}, want{n.path.String(), n.text},
		cmp.AllowUnexported(want{})); diff != "" {
		t.Errorf("expressible (-want +got):\n%s", diff)
	}
}

func TestComparePaths(t *testing.T) {
	t.Parallel()
	ordered := []segments{
		nil,
		{"endpoints"},
		{"endpoints", 2},
		{"endpoints", 2, "addresses"},
		{"endpoints", 10},
		{"endpoints", "x"},
		{"metadata"},
		{"metadata", "labels", "a"},
		{"metadata", "labels", "b"},
	}
	for i := range ordered {
		for j := range ordered {
			got := comparePaths(ordered[i], ordered[j])
			want := 0
			if i < j {
				want = -1
			} else if i > j {
				want = 1
			}
			if got != want {
				t.Errorf("comparePaths(%v, %v) = %d, want %d", ordered[i], ordered[j], got, want)
			}
		}
	}
}

func TestFailuresSortedNumerically(t *testing.T) {
	t.Parallel()
	eps := make([]string, 12)
	for i := range eps {
		eps[i] = `{"addresses":["127.0.0.1"]}`
	}
	r := EndpointSlice(inputs(t, `{"addressType":"IPv4","endpoints":[`+strings.Join(eps, ",")+`]}`), nil, Written{})
	var paths []string
	for _, f := range r.Failures {
		paths = append(paths, f.Path)
	}
	var want []string
	for i := range eps {
		want = append(want, fmt.Sprintf("endpoints[%d].addresses[0]", i))
	}
	if diff := cmp.Diff(want, paths); diff != "" {
		t.Errorf("failure paths (-want +got):\n%s", diff)
	}
}

func TestDeterministic(t *testing.T) {
	t.Parallel()
	doc := `{"metadata":{"name":"X","labels":{"b":"x y","a":"-"},"annotations":{"bad key":"1","also bad":"2"}},
		"addressType":"IPv4","endpoints":[{"addresses":["127.0.0.1","0.0.0.0"],"zz":1,"aa":2}],
		"ports":[{"port":1.5},{"protocol":"x"}],"extra":true}`
	first := EndpointSlice(inputs(t, doc), nil, Written{})
	for range 20 {
		again := EndpointSlice(inputs(t, doc), nil, Written{})
		if diff := cmp.Diff(first.Failures, again.Failures); diff != "" {
			t.Fatalf("failures differ between runs (-first +again):\n%s", diff)
		}
		if diff := cmp.Diff(first.Warnings, again.Warnings); diff != "" {
			t.Fatalf("warnings differ between runs (-first +again):\n%s", diff)
		}
	}
}

// Extending a path never changes the path it extends, and spells out in order.
func TestPathExtensionsShareTheirPrefix(t *testing.T) {
	t.Parallel()
	base := path{}.key("endpoints").index(3)
	a, b := base.key("addresses").index(0), base.key("hostname")
	for _, tt := range []struct {
		p    path
		want string
	}{{base, "endpoints[3]"}, {a, "endpoints[3].addresses[0]"}, {b, "endpoints[3].hostname"}, {path{}, ""}} {
		if got := tt.p.String(); got != tt.want {
			t.Errorf("String() = %q, want %q", got, tt.want)
		}
	}
}

// minorOr is the Server of a test case's minor; 0 is Newest.
func minorOr(minor int) Server {
	if minor == 0 {
		return Newest
	}
	return Minor(minor)
}
