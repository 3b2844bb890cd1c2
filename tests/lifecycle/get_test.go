package lifecycle_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi-go-provider/integration"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/endpoints-provider/pulumi-endpoints/provider/validate"
	"github.com/endpoints-provider/pulumi-endpoints/tests/controlplane"
)

// A get (`EndpointSlice.get(name, id)`, `EndpointsList.get(name, id)` in a program)
// is a Read with the ID alone: no state, no inputs (or null ones, which say nothing). It
// reads what the cluster has, here the objects the EndpointSlice and endpoints
// controllers made for a Service with a selector, with every output; an object that
// does not exist is an error naming it, while a refresh of a vanished object still
// answers an empty ID.

var (
	slicesResource    = schema.GroupVersionResource{Group: "discovery.k8s.io", Version: "v1", Resource: "endpointslices"}
	endpointsResource = schema.GroupVersionResource{Version: "v1", Resource: "endpoints"}
)

// liveOutputs is the object as the provider's outputs show it: the server's JSON
// without apiVersion, kind and metadata.managedFields.
func liveOutputs(t *testing.T, gvr schema.GroupVersionResource, ns, name string) map[string]any {
	t.Helper()
	obj, err := dynamic.NewForConfigOrDie(controlplane.Shared(t).RESTConfig()).Resource(gvr).Namespace(ns).
		Get(t.Context(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get %s %s/%s: %v", gvr.Resource, ns, name, err)
	}
	return outputsOf(t, obj)
}

func outputsOf(t *testing.T, obj *unstructured.Unstructured) map[string]any {
	t.Helper()
	m := obj.DeepCopy().Object
	delete(m, "apiVersion")
	delete(m, "kind")
	unstructured.RemoveNestedField(m, "metadata", "managedFields")
	return jsonRoundTrip(t, m)
}

// jsonRoundTrip gives numbers one type (float64), as property values have, and
// leaves out null fields, which outputs do not carry (the EndpointSlice controller's
// placeholder slice has "endpoints": null).
func jsonRoundTrip(t *testing.T, v any) map[string]any {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	dropNulls(out)
	return out
}

func dropNulls(v any) {
	switch v := v.(type) {
	case map[string]any:
		for key, e := range v {
			if e == nil {
				delete(v, key)
			} else {
				dropNulls(e)
			}
		}
	case []any:
		for _, e := range v {
			dropNulls(e)
		}
	}
}

// createSelectedService creates a Service with a selector and the label app=<name>,
// which the endpoints controller copies onto its Endpoints, and waits until both
// controllers have written their objects for it; it returns the controller's slice.
func createSelectedService(t *testing.T, ns, name string) discoveryv1.EndpointSlice {
	t.Helper()
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{"app": name}},
		Spec: corev1.ServiceSpec{
			Selector: map[string]string{"app": name},
			Ports:    []corev1.ServicePort{{Name: "http", Port: 80, Protocol: corev1.ProtocolTCP}},
		},
	}
	if _, err := clientset(t).CoreV1().Services(ns).Create(t.Context(), svc, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create Service %s/%s: %v", ns, name, err)
	}
	var slice discoveryv1.EndpointSlice
	waitUntil(t, "the EndpointSlice controller's slice and the endpoints controller's Endpoints", func(ctx context.Context) (bool, string) {
		ss := slicesOf(ctx, t, ns, name)
		if len(ss) != 1 || ss[0].Labels[discoveryv1.LabelManagedBy] != sliceManager {
			return false, fmt.Sprintf("slices %v", describeSlices(ss))
		}
		slice = ss[0]
		_, err := clientset(t).CoreV1().Endpoints(ns).Get(ctx, name, metav1.GetOptions{})
		return err == nil, fmt.Sprintf("Endpoints: %v", err)
	})
	return slice
}

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
		got := jsonRoundTrip(t, validate.PlainMap(read.Properties))
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
	slice := createSelectedService(t, ns, "web")
	srv := newProvider(t, nil, map[string]property.Value{"namespace": property.New(ns)})
	u := urn(sliceType, "existing")
	id := ns + "/" + slice.Name
	live := func() map[string]any { return liveOutputs(t, slicesResource, ns, slice.Name) }

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
	createSelectedService(t, ns, "web")
	srv := newProvider(t, nil, nil)
	u := urn(listType, "existing")
	id := ns + "?labelSelector=app%3Dweb"
	live := func() map[string]any {
		got, err := dynamic.NewForConfigOrDie(controlplane.Shared(t).RESTConfig()).Resource(endpointsResource).
			Namespace(ns).List(t.Context(), metav1.ListOptions{LabelSelector: "app=web"})
		if err != nil {
			t.Fatal(err)
		}
		items := []any{}
		for i := range got.Items {
			items = append(items, outputsOf(t, &got.Items[i]))
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
