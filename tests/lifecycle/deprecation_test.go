package lifecycle_test

import (
	"strings"
	"testing"

	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi-go-provider/integration"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/property"

	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
)

const endpointsDeprecation = "kubernetes API server: v1 Endpoints is deprecated"

// endpointsList returns the checked inputs of an EndpointsList of two items in ns.
func endpointsList(t *testing.T, srv integration.Server, u resource.URN, ns string) property.Map {
	t.Helper()
	item := func(name string) property.Map {
		return obj("metadata", obj("namespace", ns, "name", name),
			"subsets", list(obj("addresses", list(obj("ip", "10.0.0.8")), "ports", list(obj("port", 80)))))
	}
	return check(t, srv, u, property.Map{}, obj("items", list(item("a"), item("b"))))
}

// deprecations counts the v1 Endpoints deprecation warnings shown for any of urns.
func deprecations(urns ...resource.URN) int {
	n := 0
	for _, line := range logs.Lines("WARN", endpointsDeprecation) {
		for _, u := range urns {
			if strings.Contains(line, string(u)+" ") || strings.HasSuffix(line, string(u)) {
				n++
				break
			}
		}
	}
	return n
}

// A provider says the v1 Endpoints deprecation once in its life, however many
// resources and operations draw it, not in a preview and never in a delete; another
// provider says it once too.
func TestDeprecationWarningOncePerProvider(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	first, second := urn(spec.EndpointsListToken, "first-"+ns), urn(spec.EndpointsListToken, "second-"+ns)
	srv := newProvider(t, nil, nil)

	inputs := endpointsList(t, srv, first, ns)
	if _, err := srv.Create(p.CreateRequest{Urn: first, Properties: inputs, DryRun: true}); err != nil {
		t.Fatal(err)
	}
	if n := deprecations(first); n != 0 {
		t.Errorf("a preview showed the deprecation %d times, want none", n)
	}
	created, err := srv.Create(p.CreateRequest{Urn: first, Properties: inputs})
	if err != nil {
		t.Fatal(err)
	}
	if n := deprecations(first); n != 1 {
		t.Errorf("the create showed the deprecation %d times, want once", n)
	}
	if _, err := srv.Read(p.ReadRequest{ID: created.ID, Urn: first, Properties: created.Properties, Inputs: inputs}); err != nil {
		t.Fatal(err)
	}
	inputs2 := check(t, srv, second, property.Map{}, obj("items", list(obj("metadata", obj("namespace", ns, "name", "c"),
		"subsets", list(obj("addresses", list(obj("ip", "10.0.0.9")), "ports", list(obj("port", 80))))))))
	if _, err := srv.Create(p.CreateRequest{Urn: second, Properties: inputs2}); err != nil {
		t.Fatal(err)
	}
	if n := deprecations(first, second); n != 1 {
		t.Errorf("a read and another create by the same provider: the deprecation shown %d times in all, want once", n)
	}

	// Another provider (another command, or another explicit provider) says it once.
	other := newProvider(t, nil, nil)
	if err := other.Delete(p.DeleteRequest{ID: created.ID, Urn: first, Properties: created.Properties}); err != nil {
		t.Fatal(err)
	}
	if n := deprecations(first, second); n != 1 {
		t.Errorf("a delete showed the deprecation (%d in all, want the first provider's one)", n)
	}
	if _, err := other.Read(p.ReadRequest{ID: ns + "/c", Urn: second, Properties: inputs2, Inputs: inputs2}); err != nil {
		t.Fatal(err)
	}
	if n := deprecations(first, second); n != 2 {
		t.Errorf("another provider's read: the deprecation shown %d times in all, want 2 (once per provider)", n)
	}
}

// suppressDeprecationWarnings hides the v1 Endpoints deprecation; the API server's
// other warnings are still shown.
func TestDeprecationWarningSuppressed(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	srv := newProvider(t, nil, map[string]property.Value{"suppressDeprecationWarnings": property.New(true)})
	list := urn(spec.EndpointsListToken, "suppressed-"+ns)
	if _, err := srv.Create(p.CreateRequest{Urn: list, Properties: endpointsList(t, srv, list, ns)}); err != nil {
		t.Fatal(err)
	}
	if n := deprecations(list); n != 0 {
		t.Errorf("with suppressDeprecationWarnings the deprecation was shown %d times", n)
	}
	slice := urn(spec.EndpointSliceToken, "fqdn-"+ns)
	inputs := check(t, srv, slice, property.Map{}, sliceInputs(ns, "FQDN", "web.example.com", 80))
	if _, err := srv.Create(p.CreateRequest{Urn: slice, Properties: inputs}); err != nil {
		t.Fatal(err)
	}
	if got := logs.Lines("WARN", "kubernetes API server: ", "FQDN endpoints are deprecated", string(slice)); len(got) != 1 {
		t.Errorf("with suppressDeprecationWarnings the server's FQDN warning was shown %d times, want once", len(got))
	}
}

// A replacement shows the warnings of its inputs once, though the engine checks it
// twice: with the previous inputs, then again without them.
func TestReplacementWarnsOnce(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	srv := newProvider(t, nil, nil)
	u := urn(spec.EndpointSliceToken, "toFqdn-"+ns)
	inputs := check(t, srv, u, property.Map{}, sliceInputs(ns, "IPv4", "10.0.0.1", 80))
	created, err := srv.Create(p.CreateRequest{Urn: u, Properties: inputs})
	if err != nil {
		t.Fatal(err)
	}
	fqdn := sliceInputs(ns, "FQDN", "web.example.com", 80)
	news := check(t, srv, u, inputs, fqdn)
	d, err := srv.Diff(p.DiffRequest{ID: created.ID, Urn: u, OldInputs: inputs, State: created.Properties, Inputs: news})
	if err != nil || d.DetailedDiff["addressType"].Kind != p.UpdateReplace {
		t.Fatalf("Diff of a new addressType: %+v, %v; want a replacement", d, err)
	}
	replacement := check(t, srv, u, property.Map{}, fqdn)
	if replacement.Get("metadata").AsMap().Get("name").AsString() == created.Properties.Get("metadata").AsMap().Get("name").AsString() {
		t.Fatal("the second Check kept the replaced object's name")
	}
	if got := logs.Lines("WARN", "FQDN endpoints are deprecated by Kubernetes", string(u)); len(got) != 1 {
		t.Errorf("the replacement's Checks showed the FQDN warning %d times, want once:\n%s", len(got), strings.Join(got, "\n"))
	}
}

// Check warns of what a change brings: a program left as it is previews quietly, and a
// change that adds something to warn of draws that warning alone.
func TestCheckWarnsOfWhatTheChangeBrings(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	srv := newProvider(t, nil, nil)
	u := urn(spec.EndpointSliceToken, "cdnEdge-"+ns)
	fqdn := "FQDN endpoints are deprecated by Kubernetes"
	first := check(t, srv, u, property.Map{}, sliceInputs(ns, "FQDN", "edge.example.com", 80))
	if got := logs.Lines("WARN", string(u), fqdn); len(got) != 1 {
		t.Fatalf("the first Check: %d FQDN warnings, want 1", len(got))
	}
	again := check(t, srv, u, first, sliceInputs(ns, "FQDN", "edge.example.com", 80))
	if got := logs.Lines("WARN", string(u)); len(got) != 1 {
		t.Errorf("a Check of the same inputs warned again:\n%s", strings.Join(got, "\n"))
	}
	grown := sliceInputs(ns, "FQDN", "edge.example.com", 80)
	grown = grown.Set("ports", property.New([]property.Value{val(obj("name", "http", "port", 80)),
		val(obj("name", "grpc", "port", 8080, "appProtocol", "kubernetes.io/grpc"))}))
	check(t, srv, u, again, grown)
	got := logs.Lines("WARN", string(u))
	if len(got) != 2 || !strings.Contains(got[1], "ports[1].appProtocol") || strings.Contains(got[1], fqdn) {
		t.Errorf("a change adding a port with a reserved appProtocol: warnings %q, want the FQDN one, then one for "+
			"ports[1].appProtocol", got)
	}

	// An EndpointsList likewise.
	lu := urn(spec.EndpointsListToken, "legacyApi-"+ns)
	both := obj("items", list(obj("metadata", obj("namespace", ns, "name", "legacy-api"),
		"subsets", list(obj("addresses", list(obj("ip", "10.0.9.1")), "notReadyAddresses", list(obj("ip", "10.0.9.1")),
			"ports", list(obj("port", 80)))))))
	listed := check(t, srv, lu, property.Map{}, both)
	check(t, srv, lu, listed, both)
	if got := logs.Lines("WARN", string(lu), "is also listed as ready"); len(got) != 1 {
		t.Errorf("an EndpointsList checked twice as it is: %d warnings, want 1 (the first Check's)", len(got))
	}
}
