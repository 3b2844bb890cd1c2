package kube

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
)

// Check names an item with generateName as the API server names objects: the prefix
// and 5 random characters, the prefix cut only where the name would exceed the
// server's 253 characters.
func TestGeneratedItemName(t *testing.T) {
	t.Parallel()
	long, longest := strings.Repeat("a", 100), strings.Repeat("a", 253)
	tests := []struct{ prefix, wantPrefix string }{
		{"web-", "web-"},
		{long, long},
		{longest, longest[:248]},
	}
	for _, tt := range tests {
		name, err := generatedItemName([]byte("seed"), tt.prefix)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(name, tt.wantPrefix) || len(name) != len(tt.wantPrefix)+5 ||
			strings.Trim(name[len(tt.wantPrefix):], string(generatedNameChars)) != "" {
			t.Errorf("generatedItemName(%q) = %q, want %q and 5 random characters", tt.prefix, name, tt.wantPrefix)
		}
		if again, _ := generatedItemName([]byte("seed"), tt.prefix); again != name {
			t.Errorf("generatedItemName(%q) = %q, then %q from the same seed", tt.prefix, name, again)
		}
	}
}

// An autoname depends on the URN alone: the same on every run (the run after an
// interrupted create finds the object under it), another for another stack or resource,
// and a replacement's is another name again, the same on every run too. A name the
// engine proposes wins.
func TestAutonameIsDerivedFromTheURN(t *testing.T) {
	t.Parallel()
	const typ = "endpoints:discovery.k8s.io/v1:EndpointSlice"
	web := resource.NewURN("dev", "shop", "", typ, "web")
	first, _ := autoname(t.Context(), web, "", false)
	replacement, _ := autoname(t.Context(), web, first, true)
	propose := WithAutonaming(t.Context(), &Autonaming{
		Mode: AutonamePropose, ProposedName: "web-proposed",
	})
	tests := []struct {
		name      string
		ctx       context.Context
		urn       resource.URN
		old       string
		replacing bool
		want      func(string) bool
	}{
		{"a new resource, again", t.Context(), web, "", false, func(n string) bool { return n == first }},
		{"another stack", t.Context(), resource.NewURN("prod", "shop", "", typ, "web"), "", false,
			func(n string) bool { return n != first && strings.HasPrefix(n, "web-") }},
		{"another resource", t.Context(), resource.NewURN("dev", "shop", "", typ, "api"), "", false,
			func(n string) bool { return strings.HasPrefix(n, "api-") }},
		{"kept", t.Context(), web, first, false, func(n string) bool { return n == first }},
		{"a replacement, again", t.Context(), web, first, true, func(n string) bool { return n == replacement }},
		{"the replacement's replacement", t.Context(), web, replacement, true,
			func(n string) bool { return n != replacement && n != first && strings.HasPrefix(n, "web-") }},
		{"the engine's proposal", propose, web, "", false, func(n string) bool { return n == "web-proposed" }},
	}
	if len(first) != len("web-")+autonameSuffix || !strings.HasPrefix(first, "web-") || replacement == first {
		t.Fatalf("autonames %q, then %q for its replacement; want web-<8 hex>, two different names", first, replacement)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, reason := autoname(tt.ctx, tt.urn, tt.old, tt.replacing)
			if reason != "" || !tt.want(got) {
				t.Errorf("autoname(%s, %q, replacing %v) = %q, %q (the first autoname %q, its replacement %q)",
					tt.urn, tt.old, tt.replacing, got, reason, first, replacement)
			}
		})
	}
}

// derivedName skips the names taken, and says so when every name it draws is taken.
func TestDerivedNameSkipsTakenNames(t *testing.T) {
	t.Parallel()
	u := resource.NewURN("dev", "shop", "", "endpoints:core/v1:EndpointsList", "list")
	draw := func(seed []byte) (string, error) { return generatedItemName(seed, "web-") }
	first, err := derivedName(draw, u, "0", func(string) bool { return false })
	if err != nil {
		t.Fatal(err)
	}
	second, err := derivedName(draw, u, "0", func(n string) bool { return n == first })
	if err != nil || second == first || !strings.HasPrefix(second, "web-") {
		t.Errorf("with %q taken: %q, %v; want another name", first, second, err)
	}
	if again, _ := derivedName(draw, u, "0", func(string) bool { return false }); again != first {
		t.Errorf("derivedName = %q, then %q for the same URN and salt", first, again)
	}
	if n, err := derivedName(draw, u, "0", func(string) bool { return true }); err == nil {
		t.Errorf("every name taken: got %q, want an error", n)
	}
}

// Items with generateName get the same names from the same URN on every run, each
// another name, and none a name the previous inputs gave.
func TestItemNamesAreDerivedFromTheURN(t *testing.T) {
	t.Parallel()
	u := resource.NewURN("dev", "shop", "", "endpoints:core/v1:EndpointsList", "list")
	meta := map[string]any{"generateName": "web-"}
	names := func(taken map[string]bool) []string {
		var out []string
		for i := range 3 {
			name, err := itemName(meta, map[string][]string{}, taken, u, i)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, name)
		}
		return out
	}
	first := names(map[string]bool{})
	if d := cmp.Diff(first, names(map[string]bool{})); d != "" {
		t.Errorf("a second run names the items otherwise (-first +second):\n%s", d)
	}
	if first[0] == first[1] || first[1] == first[2] || first[0] == first[2] {
		t.Errorf("item names %v: want three different names", first)
	}
	again := names(map[string]bool{first[1]: true})
	if slices.Contains(again, first[1]) || len(slices.Compact(slices.Sorted(slices.Values(again)))) != 3 {
		t.Errorf("with %q taken, the items are named %v", first[1], again)
	}
}

// The engine checks a replacement twice: with the previous inputs, then without them.
// The second Check names the replacement after the object the first one saw, so the
// replacement never gets the name of the object it replaces.
func TestRecheckedReplacementGetsANameOfItsOwn(t *testing.T) {
	t.Parallel()
	u := resource.NewURN("dev", "shop", "", "endpoints:discovery.k8s.io/v1:EndpointSlice", "web")
	r := newClusterResource(New(Config{}), endpointSliceKind)
	news := func(addressType string) property.Map {
		return inputsOf(t, `{"addressType":"`+addressType+`","endpoints":[{"addresses":["10.0.0.1"]}]}`)
	}
	assign := func(news property.Map, olds decoded, replaced string) decoded {
		set, _, _ := assignMetadata(t.Context(), endpointSliceKind, u, decode(news), olds, "apps", replaced)
		return decode(withMetadata(news, set))
	}
	first := assign(news("IPv4"), decoded{}, "")
	if ids := r.inState.of(u); len(ids) != 0 {
		t.Fatalf("recorded %v before any previous inputs were seen", ids)
	}
	r.inState.note(u, first)
	if d := cmp.Diff([]objectID{idOfInputs(first.fields)}, r.inState.of(u), cmp.AllowUnexported(objectID{})); d != "" {
		t.Errorf("recorded (-want +got):\n%s", d)
	}
	second := assign(news("IPv6"), decoded{}, idOfInputs(first.fields).name)
	withOlds := assign(news("IPv6"), first, "")
	if a, b, c := idOfInputs(first.fields).name, idOfInputs(second.fields).name, idOfInputs(withOlds.fields).name; a == b || b != c {
		t.Errorf("names %q, then %q when checked again without the previous inputs, %q with them; "+
			"want the last two the same and another than the first", a, b, c)
	}
}
