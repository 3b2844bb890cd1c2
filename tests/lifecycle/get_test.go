package lifecycle_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi-go-provider/integration"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"

	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
	"github.com/endpoints-provider/pulumi-endpoints/provider/validate"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/controlplane"
)

// A get (`EndpointSlice.get(name, id)`, `EndpointsList.get(name, id)` in a program)
// is a Read with the ID alone: no state, no inputs (or null ones, which say nothing). It
// reads what the cluster has, here the objects the EndpointSlice and endpoints
// controllers made for a Service with a selector, with every output; an object that
// does not exist is an error naming it, while a refresh of a vanished object still
// answers an empty ID.

// wantGot reads id with no state and compares the outputs with the live object
// (read again after the Read: a controller may write it in between, then the Read is
// tried again).
func wantGot(t *testing.T, srv integration.Server, req p.ReadRequest, wantID string, live func() map[string]any) p.ReadResponse {
	t.Helper()
	var diff string
	for range 3 {
		read, err := srv.Read(req)
		if err != nil {
			t.Fatalf("get %s: %v", req.ID, err)
		}
		if read.ID != wantID {
			t.Errorf("get %s: ID %q, want %q", req.ID, read.ID, wantID)
		}
		got := controlplane.Plain(t, validate.PlainMap(read.Properties))
		if _, list := got["items"]; list {
			// A list's resourceVersion is the cluster's when it was read, which other
			// writes move on.
			if rv, _ := got["metadata"].(map[string]any)["resourceVersion"].(string); rv == "" {
				t.Errorf("get %s: no metadata.resourceVersion: %v", req.ID, got["metadata"])
			}
			delete(got, "metadata")
		}
		if diff = cmp.Diff(live(), got); diff == "" {
			return read
		}
	}
	t.Errorf("get %s: outputs differ from the live object (-live +outputs):\n%s", req.ID, diff)
	return p.ReadResponse{}
}

func TestGetEndpointSlice(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	slice := controlplane.Shared(t).SelectedService(t, ns, "web")
	srv := newProvider(t, nil, map[string]property.Value{"namespace": property.New(ns)})
	u := urn(spec.EndpointSliceToken, "existing")
	id := ns + "/" + slice.Name
	live := func() map[string]any {
		return controlplane.Shared(t).LiveOutputs(t, controlplane.SlicesResource, ns, slice.Name)
	}

	read := wantGot(t, srv, p.ReadRequest{ID: id, Urn: u}, id, live)
	for path, want := range map[string]string{
		"metadata.labels[\"kubernetes.io/service-name\"]":             "web",
		"metadata.labels[\"endpointslice.kubernetes.io/managed-by\"]": sliceManager,
		"metadata.uid":                     string(slice.UID),
		"addressType":                      "IPv4",
		"metadata.ownerReferences[0].name": "web",
	} {
		if got := getString(t, read.Properties, path); got != want {
			t.Errorf("get %s: %s = %q, want %q", id, path, got, want)
		}
	}
	// A bare name is in the provider's namespace; the ID read is namespace/name.
	wantGot(t, srv, p.ReadRequest{ID: slice.Name, Urn: u}, id, live)
	// Null properties carry no state: still a get.
	nulls := property.NewMap(map[string]property.Value{
		"metadata": property.New(property.Null), "addressType": property.New(property.Null),
		"endpoints": property.New(property.Null), "ports": property.New(property.Null),
	})
	wantGot(t, srv, p.ReadRequest{ID: id, Urn: u, Properties: nulls, Inputs: nulls}, id, live)

	// A missing slice: an error naming it and the cluster.
	server := controlplane.Shared(t).RESTConfig().Host
	for _, missing := range []string{ns + "/missing", "missing"} {
		_, err := srv.Read(p.ReadRequest{ID: missing, Urn: u})
		want := fmt.Sprintf("EndpointSlice %s/missing does not exist on the Kubernetes API server %s", ns, server)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("get %s: err = %v, want one containing %q", missing, err, want)
		}
	}
	// A refresh of a slice that has vanished still answers an empty ID.
	state := read.Properties.Set("metadata", property.New(obj("namespace", ns, "name", "missing")))
	gone, err := srv.Read(p.ReadRequest{ID: ns + "/missing", Urn: u, Properties: state})
	if err != nil || gone.ID != "" {
		t.Errorf("refresh of a vanished slice = %q, %v; want an empty ID and no error", gone.ID, err)
	}
}

func TestGetEndpointsList(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	controlplane.Shared(t).SelectedService(t, ns, "web")
	srv := newProvider(t, nil, nil)
	u := urn(spec.EndpointsListToken, "existing")
	id := ns + "?labelSelector=app%3Dweb"
	live := func() map[string]any {
		got, err := dynamic.NewForConfigOrDie(controlplane.Shared(t).RESTConfig()).Resource(controlplane.EndpointsResource).
			Namespace(ns).List(t.Context(), metav1.ListOptions{LabelSelector: "app=web"})
		if err != nil {
			t.Fatal(err)
		}
		items := []any{}
		for i := range got.Items {
			items = append(items, controlplane.ObjectOutputs(t, &got.Items[i]))
		}
		return map[string]any{"items": items}
	}

	read := wantGot(t, srv, p.ReadRequest{ID: id, Urn: u}, id, live)
	if got := getString(t, read.Properties, "items[0].metadata.name"); got != "web" {
		t.Errorf("get %s: items[0].metadata.name = %q, want the Service's Endpoints web", id, got)
	}
	nulls := property.NewMap(map[string]property.Value{
		"metadata": property.New(property.Null), "items": property.New(property.Null),
	})
	wantGot(t, srv, p.ReadRequest{ID: id, Urn: u, Properties: nulls, Inputs: nulls}, id, live)

	// A selection of nothing: an error naming the namespace, the selector and the cluster.
	server := controlplane.Shared(t).RESTConfig().Host
	_, err := srv.Read(p.ReadRequest{ID: ns + "?labelSelector=app%3Dnone", Urn: u})
	want := fmt.Sprintf(`no Endpoints in namespace %s match the label selector "app=none" on the Kubernetes API server %s`, ns, server)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("get of an empty selection: err = %v, want one containing %q", err, want)
	}
	// A refresh of a list whose items have all vanished still answers an empty ID.
	gone := read.Properties.Set("items", property.New([]property.Value{property.New(obj(
		"metadata", obj("namespace", ns, "name", "vanished")))}))
	refreshed, err := srv.Read(p.ReadRequest{ID: id, Urn: u, Properties: gone})
	if err != nil || refreshed.ID != "" {
		t.Errorf("refresh of a vanished list = %q, %v; want an empty ID and no error", refreshed.ID, err)
	}
}
