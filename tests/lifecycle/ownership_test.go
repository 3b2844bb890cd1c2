package lifecycle_test

import (
	"net/http"
	"testing"

	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/endpoints-provider/pulumi-endpoints/provider/kube"
	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/apiproxy"
)

// Ownership: an object is a resource's when it is the one its state records, by UID
// where the state has one, whatever labels another client removes; under the recorded
// name, an object that carries the resource's URN is its own too (its create made it
// after the recorded one was deleted, see lost_test.go).

// A slice whose name the server generated stays the resource's when another client
// removes its create-ID label (a `kubectl apply` of an exported manifest, a GitOps
// sync): a refresh keeps it, and an update writes it, creating no second slice.
func TestServerNamedSliceKeepsItsOwnerWithoutItsCreateID(t *testing.T) {
	t.Parallel()
	srv := newProvider(t, nil, nil)
	ns := newNamespace(t)
	slices := clientset(t).DiscoveryV1().EndpointSlices(ns)
	u := urn(spec.EndpointSliceToken, "generated")
	inputs := sliceInputs(ns, "IPv4", "10.0.0.1", 80).Set("metadata",
		property.New(obj("namespace", ns, "generateName", "web-")))
	inputs = check(t, srv, u, property.Map{}, inputs)
	created, err := srv.Create(p.CreateRequest{Urn: u, Properties: inputs})
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	name := getString(t, created.Properties, "metadata.name")
	patch := []byte(`{"metadata":{"labels":{"` + kube.CreateIDLabel + `":null}}}`)
	if _, err := slices.Patch(t.Context(), name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatalf("removing the create-ID label: %v", err)
	}

	read, err := srv.Read(p.ReadRequest{ID: created.ID, Urn: u, Properties: created.Properties, Inputs: inputs})
	if err != nil || read.ID != created.ID {
		t.Errorf("refresh = %q, %v; want the slice kept as %q", read.ID, err, created.ID)
		read = p.ReadResponse{ID: created.ID, Properties: created.Properties, Inputs: inputs} // update the state as it was
	}
	news := check(t, srv, u, read.Inputs, sliceInputs(ns, "IPv4", "10.0.0.1", 8080).Set("metadata",
		property.New(obj("namespace", ns, "generateName", "web-"))))
	updated, err := srv.Update(p.UpdateRequest{ID: created.ID, Urn: u, State: read.Properties,
		OldInputs: read.Inputs, Inputs: news})
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	if got := getString(t, updated.Properties, "metadata.name"); got != name {
		t.Errorf("the update wrote %s, want the slice %s", got, name)
	}
	if live := liveObjectsIn(t, ns); len(live) != 1 || live["EndpointSlice "+name] != 8080 {
		t.Errorf("the namespace holds %v; want the one slice %s with port 8080", live, name)
	}
}

// A create whose name another stack's object holds, and whose 409 is lost on the way
// back, is recorded as partial state by name; the object under that name is the other
// stack's (it carries the other URN), so the next update does not write it, a destroy
// does not delete it, and a refresh drops the resource rather than record it.
func TestLostRefusalLeavesAnotherStacksObjectAlone(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	inputs := func(port int) property.Map {
		return sliceInputs(ns, "IPv4", "10.0.0.1", port).Set("metadata", property.New(obj("namespace", ns, "name", "web")))
	}
	prod := newProvider(t, nil, nil)
	theirs, err := createFresh(t, prod, stackURN("prod", spec.EndpointSliceToken, "web"), inputs(80))
	if err != nil {
		t.Fatalf("the other stack's create: %v", err)
	}
	px, dev := newProxiedProvider(t)
	px.DropAnswers(&apiproxy.Rule{Method: http.MethodPost,
		PathPrefix: "/apis/discovery.k8s.io/v1/namespaces/" + ns + "/endpointslices", Times: 1})
	u := stackURN("dev", spec.EndpointSliceToken, "web")
	created, err := createFresh(t, dev, u, inputs(8080))
	if err == nil || created.PartialState == nil || created.ID != ns+"/web" {
		t.Fatalf("the create whose 409 was lost = %q, %v, %v; want its ID recorded as partial state",
			created.ID, created.PartialState, err)
	}
	state := created.Properties
	if _, err := dev.Update(p.UpdateRequest{ID: created.ID, Urn: u, State: state, OldInputs: state,
		Inputs: inputs(9090)}); err == nil {
		t.Error("the update succeeded; want the 409 of the name the other stack's slice holds")
	}
	read, err := dev.Read(p.ReadRequest{ID: created.ID, Urn: u, Properties: state, Inputs: state})
	if err != nil || read.ID != "" {
		t.Errorf("refresh = %q, %v; want the resource gone", read.ID, err)
	}
	if err := dev.Delete(p.DeleteRequest{ID: created.ID, Urn: u, Properties: state}); err != nil {
		t.Errorf("destroy: %v; want nothing to delete", err)
	}
	live, err := clientset(t).DiscoveryV1().EndpointSlices(ns).Get(t.Context(), "web", metav1.GetOptions{})
	switch {
	case err != nil:
		t.Fatalf("the other stack's slice: %v", err)
	case string(live.UID) != getString(t, theirs.Properties, "metadata.uid") || *live.Ports[0].Port != 80:
		t.Errorf("the other stack's slice was replaced or written: UID %s, port %d", live.UID, *live.Ports[0].Port)
	}
}
