package lifecycle_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
)

// hints.forNodes (Kubernetes 1.34) goes to the server as written, refreshes without a
// diff, and a slice the EndpointSlice controller wrote with node hints imports into
// inputs that check cleanly and show no diff.
func TestEndpointSliceNodeHints(t *testing.T) {
	t.Parallel()
	srv := newProvider(t, nil, nil)
	ns := newNamespace(t)
	cs := clientset(t)
	u := urn(spec.EndpointSliceToken, "node-local")
	in := obj(
		"metadata", obj("namespace", ns, "name", "node-local"),
		"addressType", "IPv4",
		"endpoints", list(obj("addresses", list("10.0.0.40"), "nodeName", "node-a",
			"hints", obj("forZones", list(obj("name", "zone-a")), "forNodes", list(obj("name", "node-a"), obj("name", "node-b"))))),
	)
	inputs := check(t, srv, u, property.Map{}, in)
	created, err := srv.Create(p.CreateRequest{Urn: u, Properties: inputs})
	if err != nil {
		t.Fatal(err)
	}
	live, err := cs.DiscoveryV1().EndpointSlices(ns).Get(t.Context(), "node-local", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := &discoveryv1.EndpointHints{
		ForZones: []discoveryv1.ForZone{{Name: "zone-a"}},
		ForNodes: []discoveryv1.ForNode{{Name: "node-a"}, {Name: "node-b"}},
	}
	if diff := cmp.Diff(want, live.Endpoints[0].Hints); diff != "" {
		t.Errorf("hints stored by the server (-want +got):\n%s", diff)
	}
	if got := getString(t, created.Properties, "endpoints[0].hints.forNodes[1].name"); got != "node-b" {
		t.Errorf("outputs: forNodes[1].name = %q", got)
	}

	read, err := srv.Read(p.ReadRequest{ID: created.ID, Urn: u, Properties: created.Properties, Inputs: inputs})
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := srv.Diff(p.DiffRequest{ID: created.ID, Urn: u, OldInputs: read.Inputs, State: read.Properties,
		Inputs: inputs}); d.HasChanges {
		t.Errorf("refresh shows a diff: %+v", d.DetailedDiff)
	}

	// A slice as the EndpointSlice controller writes it for trafficDistribution:
	// PreferSameNode.
	port, portName := int32(8080), "http"
	ready := true
	made := &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{Name: "web-x7k2p", Namespace: ns, Labels: map[string]string{
			discoveryv1.LabelServiceName: "web", discoveryv1.LabelManagedBy: "endpointslice-controller.k8s.io",
		}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints: []discoveryv1.Endpoint{{
			Addresses: []string{"10.0.0.41"}, Conditions: discoveryv1.EndpointConditions{Ready: &ready},
			NodeName: ptr("node-c"), Zone: ptr("zone-c"),
			Hints: &discoveryv1.EndpointHints{ForZones: []discoveryv1.ForZone{{Name: "zone-c"}},
				ForNodes: []discoveryv1.ForNode{{Name: "node-c"}}},
		}},
		Ports: []discoveryv1.EndpointPort{{Name: &portName, Port: &port}},
	}
	if _, err := cs.DiscoveryV1().EndpointSlices(ns).Create(t.Context(), made, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	iu := urn(spec.EndpointSliceToken, "web")
	imported, err := srv.Read(p.ReadRequest{ID: ns + "/web-x7k2p", Urn: iu})
	if err != nil {
		t.Fatal(err)
	}
	if got := getString(t, imported.Inputs, "endpoints[0].hints.forNodes[0].name"); got != "node-c" {
		t.Errorf("imported forNodes[0].name = %q", got)
	}
	rechecked := check(t, srv, iu, imported.Inputs, imported.Inputs)
	if d, _ := srv.Diff(p.DiffRequest{ID: imported.ID, Urn: iu, OldInputs: imported.Inputs, State: imported.Properties,
		Inputs: rechecked}); d.HasChanges {
		t.Errorf("imported inputs checked again show a diff: %+v", d.DetailedDiff)
	}
	if err := srv.Delete(p.DeleteRequest{ID: created.ID, Urn: u, Properties: created.Properties}); err != nil {
		t.Fatal(err)
	}
}

func ptr[T any](v T) *T { return &v }
