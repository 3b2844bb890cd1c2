package lifecycle_test

import (
	"slices"
	"testing"

	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/endpoints-provider/pulumi-endpoints/provider/kube"
	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
)

// An update whose state is the live object writes it at once, guarded by the state's
// resourceVersion; when another client wrote the object since, or deleted it, the
// write fails and the update reads the object and goes on from what it finds: the
// other client's labels are kept, a deleted object is created again.
func TestUpdateReadsOnlyWhenTheStateIsStale(t *testing.T) {
	t.Parallel()
	px, srv := newProxiedProvider(t)
	ns := newNamespace(t)
	api := clientset(t).DiscoveryV1().EndpointSlices(ns)
	u := urn(spec.EndpointSliceToken, "stale")
	withLabel := func(in property.Map, value string) property.Map {
		return in.Set("metadata", property.New(obj("namespace", ns, "name", "stale", "labels", obj("app", value))))
	}
	inputs := check(t, srv, u, property.Map{}, withLabel(sliceInputs(ns, "IPv4", "10.0.0.30", 80), "a"))
	created, err := srv.Create(p.CreateRequest{Urn: u, Properties: inputs})
	if err != nil {
		t.Fatal(err)
	}
	path := "/apis/discovery.k8s.io/v1/namespaces/" + ns + "/endpointslices/stale"
	update := func(state, olds, news property.Map) property.Map {
		t.Helper()
		resp, err := srv.Update(p.UpdateRequest{ID: created.ID, Urn: u, State: state, OldInputs: olds, Inputs: news})
		if err != nil {
			t.Fatalf("Update: %v", err)
		}
		return resp.Properties
	}

	// The state is the live object: one write, no read.
	px.take("")
	second := check(t, srv, u, inputs, withLabel(sliceInputs(ns, "IPv4", "10.0.0.30", 8080), "a"))
	updated := update(created.Properties, inputs, second)
	if got, want := px.take("/endpointslices"), []string{"PUT " + path}; !slices.Equal(got, want) {
		t.Errorf("requests of an update from a current state = %q, want %q", got, want)
	}
	live, err := api.Get(t.Context(), "stale", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if *live.Ports[0].Port != 8080 {
		t.Errorf("port after the update = %d, want 8080", *live.Ports[0].Port)
	}
	// The state leaves the resource's URN out; the slice keeps carrying it.
	if got := live.Annotations[kube.OwnerAnnotation]; got != string(u) {
		t.Errorf("%s after an update from the state = %q, want %q", kube.OwnerAnnotation, got, u)
	}
	for what, state := range map[string]property.Map{"Create": created.Properties, "Update": updated} {
		if v, ok := state.Get("metadata").AsMap().GetOk("annotations"); ok {
			t.Errorf("%s's outputs carry annotations %v, want none (the URN is the state's own)", what, v)
		}
	}

	// Another client labels the slice: the recorded resourceVersion is stale, so the
	// write conflicts; the update reads the slice and keeps the other client's label.
	live.Labels["other"] = "x"
	if _, err := api.Update(t.Context(), live, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	third := check(t, srv, u, second, withLabel(sliceInputs(ns, "IPv4", "10.0.0.30", 9090), "b"))
	px.take("")
	updated = update(updated, second, third)
	if got, want := px.take("/endpointslices"), []string{"PUT " + path, "GET " + path, "PUT " + path}; !slices.Equal(got, want) {
		t.Errorf("requests of an update from a stale state = %q, want %q", got, want)
	}
	live, err = api.Get(t.Context(), "stale", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if *live.Ports[0].Port != 9090 || live.Labels["other"] != "x" || live.Labels["app"] != "b" {
		t.Errorf("after an update from a stale state: port %d, labels %v; want 9090, other=x kept, app=b",
			*live.Ports[0].Port, live.Labels)
	}
	if getString(t, updated, "metadata.resourceVersion") != live.ResourceVersion {
		t.Errorf("the state records resourceVersion %s, the slice is at %s",
			getString(t, updated, "metadata.resourceVersion"), live.ResourceVersion)
	}

	// Deleted out of band: the write finds nothing, the read confirms it, and the
	// update creates the slice again.
	if err := api.Delete(t.Context(), "stale", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	fourth := check(t, srv, u, third, withLabel(sliceInputs(ns, "IPv4", "10.0.0.30", 9091), "b"))
	px.take("")
	again := update(updated, third, fourth)
	if got, want := px.take("/endpointslices"), []string{"PUT " + path, "GET " + path,
		"POST /apis/discovery.k8s.io/v1/namespaces/" + ns + "/endpointslices"}; !slices.Equal(got, want) {
		t.Errorf("requests of an update of a deleted slice = %q, want %q", got, want)
	}
	live, err = api.Get(t.Context(), "stale", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("the update did not create the deleted slice again: %v", err)
	}
	if *live.Ports[0].Port != 9091 || getString(t, again, "metadata.uid") != string(live.UID) {
		t.Errorf("recreated slice: port %d, uid %s (state %s); want 9091 and the state's uid",
			*live.Ports[0].Port, live.UID, getString(t, again, "metadata.uid"))
	}
}

// The items an EndpointsList keeps are updated the same way: one write each while
// nobody else wrote them, a read before the write of one that somebody did.
func TestListUpdateReadsOnlyStaleItems(t *testing.T) {
	t.Parallel()
	px, srv := newProxiedProvider(t)
	ns := newNamespace(t)
	api := clientset(t).CoreV1().Endpoints(ns)
	u := urn(spec.EndpointsListToken, "stale-"+ns)
	inputs := check(t, srv, u, property.Map{}, items(
		endpointsItem(ns, "one", "10.0.2.1", 80), endpointsItem(ns, "two", "10.0.2.2", 80)))
	created, err := srv.Create(p.CreateRequest{Urn: u, Properties: inputs})
	if err != nil {
		t.Fatal(err)
	}
	path := "/api/v1/namespaces/" + ns + "/endpoints/"

	// Another client labels "two" since the state recorded it.
	two, err := api.Get(t.Context(), "two", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	two.Labels = map[string]string{"other": "x"}
	if _, err := api.Update(t.Context(), two, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	news := check(t, srv, u, inputs, items(
		endpointsItem(ns, "one", "10.0.2.1", 8080), endpointsItem(ns, "two", "10.0.2.2", 8080)))
	px.take("")
	if _, err := srv.Update(p.UpdateRequest{ID: created.ID, Urn: u, State: created.Properties,
		OldInputs: inputs, Inputs: news}); err != nil {
		t.Fatalf("Update: %v", err)
	}
	want := []string{"PUT " + path + "one", "PUT " + path + "two", "GET " + path + "two", "PUT " + path + "two"}
	if got := px.take("/endpoints/"); !slices.Equal(got, want) {
		t.Errorf("requests of the list's update = %q, want %q", got, want)
	}
	for _, name := range []string{"one", "two"} {
		live, err := api.Get(t.Context(), name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if port := live.Subsets[0].Ports[0].Port; port != 8080 {
			t.Errorf("%s: port %d after the update, want 8080", name, port)
		}
		if name == "two" && live.Labels["other"] != "x" {
			t.Errorf("the update dropped the label another client set: %v", live.Labels)
		}
	}
}

// An update of a list writes only the items whose inputs changed: the items it keeps
// as they were are neither read nor written, and their state stays as recorded. After
// another client changed a kept item and a refresh recorded that, the item is written
// again.
func TestListUpdateWritesOnlyChangedItems(t *testing.T) {
	t.Parallel()
	px, srv := newProxiedProvider(t)
	ns := newNamespace(t)
	api := clientset(t).CoreV1().Endpoints(ns)
	u := urn(spec.EndpointsListToken, "changed-"+ns)
	inputs := check(t, srv, u, property.Map{}, items(
		endpointsItem(ns, "one", "10.0.3.1", 80), endpointsItem(ns, "two", "10.0.3.2", 80),
		endpointsItem(ns, "three", "10.0.3.3", 80)))
	created, err := srv.Create(p.CreateRequest{Urn: u, Properties: inputs})
	if err != nil {
		t.Fatal(err)
	}
	path := "/api/v1/namespaces/" + ns + "/endpoints/"

	news := check(t, srv, u, inputs, items(
		endpointsItem(ns, "one", "10.0.3.1", 80), endpointsItem(ns, "two", "10.0.3.2", 8080),
		endpointsItem(ns, "three", "10.0.3.3", 80)))
	px.take("")
	updated, err := srv.Update(p.UpdateRequest{ID: created.ID, Urn: u, State: created.Properties, OldInputs: inputs, Inputs: news})
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	if got, want := px.take("/endpoints/"), []string{"PUT " + path + "two"}; !slices.Equal(got, want) {
		t.Errorf("requests of an update that changes one item of three = %q, want %q", got, want)
	}
	if got, want := updated.Properties.Get("items").AsArray().Get(0), created.Properties.Get("items").AsArray().Get(0); !got.Equals(want) {
		t.Errorf("a kept item's state changed:\n got %v\nwant %v", got, want)
	}
	if port := updated.Properties.Get("items").AsArray().Get(1).AsMap().Get("subsets").AsArray().Get(0).AsMap().
		Get("ports").AsArray().Get(0).AsMap().Get("port").AsNumber(); port != 8080 {
		t.Errorf("the changed item's state has port %v, want 8080", port)
	}

	// Another client changes "three"; a refresh records it; the next update, with the
	// program unchanged, writes "three" back.
	three, err := api.Get(t.Context(), "three", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	three.Subsets[0].Ports[0].Port = 9090
	if _, err := api.Update(t.Context(), three, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	read, err := srv.Read(p.ReadRequest{ID: created.ID, Urn: u, Properties: updated.Properties, Inputs: news})
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	px.take("")
	if _, err := srv.Update(p.UpdateRequest{ID: created.ID, Urn: u, State: read.Properties, OldInputs: read.Inputs,
		Inputs: news}); err != nil {
		t.Fatalf("Update after the refresh: %v", err)
	}
	if got, want := px.take("/endpoints/"), []string{"PUT " + path + "three"}; !slices.Equal(got, want) {
		t.Errorf("requests of the update after the refresh = %q, want %q", got, want)
	}
	live, err := api.Get(t.Context(), "three", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if port := live.Subsets[0].Ports[0].Port; port != 80 {
		t.Errorf("three has port %d after the update, want 80 back", port)
	}
}
