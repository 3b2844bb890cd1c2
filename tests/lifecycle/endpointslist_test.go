package lifecycle_test

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi-go-provider/integration"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
)

func endpointsItem(namespace, name, ip string, port int, labels ...string) property.Map {
	meta := obj("name", name)
	if namespace != "" {
		meta = meta.Set("namespace", property.New(namespace))
	}
	if len(labels) > 0 {
		l := map[string]property.Value{}
		for i := 0; i < len(labels); i += 2 {
			l[labels[i]] = property.New(labels[i+1])
		}
		meta = meta.Set("labels", property.New(l))
	}
	return obj("metadata", meta,
		"subsets", list(obj("addresses", list(obj("ip", ip)), "ports", list(obj("name", "http", "port", port)))))
}

func items(ms ...property.Map) property.Map {
	arr := make([]any, len(ms))
	for i, m := range ms {
		arr[i] = m
	}
	return obj("items", arr)
}

// liveEndpoints lists the Endpoints objects in the namespaces of the shared control
// plane, sorted, each as namespace/name=ip:port (its first address and port).
func liveEndpoints(t *testing.T, namespaces ...string) []string {
	t.Helper()
	return liveEndpointsIn(t, clientset(t), namespaces...)
}

// liveEndpointsIn is liveEndpoints on the API server of cs.
func liveEndpointsIn(t *testing.T, cs kubernetes.Interface, namespaces ...string) []string {
	t.Helper()
	var out []string
	for _, ns := range namespaces {
		l, err := cs.CoreV1().Endpoints(ns).List(t.Context(), metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range l.Items {
			out = append(out, fmt.Sprintf("%s/%s=%s:%d", ns, e.Name, e.Subsets[0].Addresses[0].IP, e.Subsets[0].Ports[0].Port))
		}
	}
	sort.Strings(out)
	return out
}

func TestEndpointsListLifecycle(t *testing.T) {
	t.Parallel()
	a, b := newNamespace(t), newNamespace(t)
	srv := newProvider(t, nil, map[string]property.Value{"namespace": property.New(a)})
	u := urn(spec.EndpointsListToken, "set")

	// Items without a namespace land in the provider's namespace.
	inputs := check(t, srv, u, property.Map{}, items(
		endpointsItem("", "one", "10.0.1.1", 80),
		endpointsItem(b, "two", "10.0.1.2", 80),
	))
	if got := getString(t, inputs, "items[0].metadata.namespace"); got != a {
		t.Errorf("item namespace defaulted to %q, want the provider's %q", got, a)
	}
	created, err := srv.Create(p.CreateRequest{Urn: u, Properties: inputs})
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	want := []string{a + "/one=10.0.1.1:80", b + "/two=10.0.1.2:80"}
	sort.Strings(want)
	if got := liveEndpoints(t, a, b); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("after Create the cluster has %v, want %v", got, want)
	}

	// Update by identity: change one, drop one, add one.
	newInputs := check(t, srv, u, inputs, items(
		endpointsItem("", "one", "10.0.1.1", 8080),
		endpointsItem(b, "three", "10.0.1.3", 80),
	))
	updated, err := srv.Update(p.UpdateRequest{ID: created.ID, Urn: u, State: created.Properties,
		OldInputs: inputs, Inputs: newInputs})
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	want = []string{a + "/one=10.0.1.1:8080", b + "/three=10.0.1.3:80"}
	sort.Strings(want)
	if got := liveEndpoints(t, a, b); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("after Update the cluster has %v, want %v", got, want)
	}

	// Refresh: an item deleted behind our back leaves the set.
	if err := clientset(t).CoreV1().Endpoints(b).Delete(t.Context(), "three", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	read, err := srv.Read(p.ReadRequest{ID: created.ID, Urn: u, Properties: updated.Properties, Inputs: newInputs})
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	if n := read.Properties.Get("items").AsArray().Len(); n != 1 {
		t.Errorf("refreshed state has %d items, want 1", n)
	}

	if err := srv.Delete(p.DeleteRequest{ID: created.ID, Urn: u, Properties: read.Properties}); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if got := liveEndpoints(t, a, b); len(got) != 0 {
		t.Errorf("after Delete the cluster still has %v", got)
	}
}

// numberedItems is an EndpointsList's items item-000 to item-<n-1> in namespace ns, each
// with its own address and the port, but those at the indexes missingAt, which are in
// namespace missing.
func numberedItems(n, port int, ns, missing string, missingAt ...int) property.Map {
	all := make([]property.Map, n)
	for i := range n {
		itemNS := ns
		if slices.Contains(missingAt, i) {
			itemNS = missing
		}
		all[i] = endpointsItem(itemNS, fmt.Sprintf("item-%03d", i), fmt.Sprintf("10.0.%d.%d", 5+i/250, i%250+1), port)
	}
	return items(all...)
}

// stateIsCluster fails the test unless a list's state records exactly the items the
// cluster has in the namespaces (each as written: namespace/name=ip:port), and returns
// them.
func stateIsCluster(t *testing.T, state property.Map, namespaces ...string) []string {
	t.Helper()
	recorded, live := recordedEndpoints(t, state), liveEndpoints(t, namespaces...)
	if !slices.Equal(recorded, live) {
		t.Fatalf("the state records %d items, the cluster has %d: every item written must be recorded as written, "+
			"and no other\nstate:   %v\ncluster: %v", len(recorded), len(live), recorded, live)
	}
	return live
}

// deleteList deletes a list and fails the test if any of its items is left in the
// namespaces.
func deleteList(t *testing.T, srv integration.Server, req p.DeleteRequest, namespaces ...string) {
	t.Helper()
	if err := srv.Delete(req); err != nil {
		t.Fatal(err)
	}
	if got := liveEndpoints(t, namespaces...); len(got) != 0 {
		t.Errorf("orphans after Delete: %v", got)
	}
}

// recordedEndpoints lists namespace/name=ip:port of the items a list's state records,
// in the form liveEndpoints uses.
func recordedEndpoints(t *testing.T, state property.Map) []string {
	t.Helper()
	var out []string
	for _, it := range state.Get("items").AsArray().All {
		meta := it.AsMap().Get("metadata").AsMap()
		subset := it.AsMap().Get("subsets").AsArray().Get(0).AsMap()
		out = append(out, fmt.Sprintf("%s/%s=%s:%.0f", meta.Get("namespace").AsString(), meta.Get("name").AsString(),
			subset.Get("addresses").AsArray().Get(0).AsMap().Get("ip").AsString(),
			subset.Get("ports").AsArray().Get(0).AsMap().Get("port").AsNumber()))
	}
	sort.Strings(out)
	return out
}

// A failure part-way through Create records what was written (the first item, and
// those written alongside the failing one); the next update finishes the set; nothing
// is left untracked.
func TestEndpointsListPartialCreate(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	srv := newProvider(t, nil, nil)
	u := urn(spec.EndpointsListToken, "partial")
	missing := ns + "-missing"
	inputs := check(t, srv, u, property.Map{}, items(
		endpointsItem(ns, "first", "10.0.2.1", 80),
		endpointsItem(missing, "second", "10.0.2.2", 80),
		endpointsItem(ns, "third", "10.0.2.3", 80),
	))
	created, err := srv.Create(p.CreateRequest{Urn: u, Properties: inputs})
	if err == nil || !strings.Contains(err.Error(), "items[1]") {
		t.Errorf("Create's error = %v, want one naming items[1]", err)
	}
	if created.PartialState == nil || created.ID == "" {
		t.Fatalf("Create = %+v, want an ID and partial state", created)
	}
	reason := strings.Join(created.PartialState.Reasons, " ")
	if !strings.Contains(reason, "items[1]") || !strings.Contains(reason, fmt.Sprintf("namespace %q does not exist", missing)) {
		t.Errorf("partial-state reason %q does not say which item failed and why", reason)
	}
	recorded := stateIsCluster(t, created.Properties, ns, missing)
	if !slices.Contains(recorded, ns+"/first=10.0.2.1:80") {
		t.Errorf("partial state %v lacks the first item", recorded)
	}

	// The namespace appears; the next update completes the set from the partial state.
	createNamespace(t, missing)
	updated, err := srv.Update(p.UpdateRequest{ID: created.ID, Urn: u, State: created.Properties,
		OldInputs: inputs, Inputs: inputs})
	if err != nil || updated.PartialState != nil {
		t.Fatalf("Update after the fix = %+v, %v", updated.PartialState, err)
	}
	if got := liveEndpoints(t, ns, missing); len(got) != 3 {
		t.Errorf("after the update the cluster has %v, want 3 items", got)
	}
	deleteList(t, srv, p.DeleteRequest{ID: created.ID, Urn: u, Properties: updated.Properties}, ns, missing)
}

// A large list is written many items at a time. Failures among them (items whose
// namespace does not exist yet) stop what is not yet sent; the state records exactly
// the items written, in the order of the inputs; the next update creates the rest and
// the state ends equal to the cluster.
func TestEndpointsListConcurrentCreateFailures(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	srv := newProvider(t, nil, nil)
	u := urn(spec.EndpointsListToken, "many")
	missing := ns + "-missing"
	const n = 300
	inputs := check(t, srv, u, property.Map{}, numberedItems(n, 80, ns, missing, 17, n-20))
	created, err := srv.Create(p.CreateRequest{Urn: u, Properties: inputs})
	if err == nil || !strings.Contains(err.Error(), "items[17]") {
		t.Fatalf("Create's error = %v, want one naming items[17], the first that failed", err)
	}
	// The API server holds a create in a missing namespace for a moment (in case the
	// namespace is on its way), and creates go on meanwhile; once the failure is seen
	// no further create is sent, so the item far past it never fails.
	if strings.Contains(err.Error(), "more item(s) failed") {
		t.Errorf("Create's error = %v: items[%d] was sent after the failure of items[17] was seen", err, n-20)
	}
	if created.PartialState == nil {
		t.Fatalf("Create = %+v, want partial state", created)
	}
	live := stateIsCluster(t, created.Properties, ns, missing)
	if len(live) < 17 || len(live) >= n-2 {
		t.Errorf("%d items written, want the 17 before the failure and not every item after it", len(live))
	}
	var order []string
	for _, it := range created.Properties.Get("items").AsArray().All {
		order = append(order, it.AsMap().Get("metadata").AsMap().Get("name").AsString())
	}
	if !slices.IsSorted(order) {
		t.Errorf("partial state records the items in the order %v, want the order of the inputs", order)
	}

	createNamespace(t, missing)
	updated, err := srv.Update(p.UpdateRequest{ID: created.ID, Urn: u, State: created.Properties,
		OldInputs: inputs, Inputs: inputs})
	if err != nil || updated.PartialState != nil {
		t.Fatalf("Update after the fix = %+v, %v", updated.PartialState, err)
	}
	if live := stateIsCluster(t, updated.Properties, ns, missing); len(live) != n {
		t.Errorf("after the update the cluster has %d items, want %d", len(live), n)
	}
	deleteList(t, srv, p.DeleteRequest{ID: created.ID, Urn: u, Properties: updated.Properties}, ns, missing)
}

// An update that adds and changes many items writes them many at a time; a failure
// among them stops what is not yet sent, and the state records the set as it is: the
// items written, updated or created, and the items kept. The next update finishes.
func TestEndpointsListConcurrentUpdateFailures(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	srv := newProvider(t, nil, nil)
	u := urn(spec.EndpointsListToken, "grow")
	missing := ns + "-missing"
	olds := check(t, srv, u, property.Map{}, numberedItems(3, 80, ns, missing, 150))
	created, err := srv.Create(p.CreateRequest{Urn: u, Properties: olds})
	if err != nil {
		t.Fatal(err)
	}
	// Three items change their port, 297 are new; items[150] is in a missing namespace.
	news := check(t, srv, u, olds, numberedItems(300, 8080, ns, missing, 150))
	updated, err := srv.Update(p.UpdateRequest{ID: created.ID, Urn: u, State: created.Properties, OldInputs: olds, Inputs: news})
	if err == nil || !strings.Contains(err.Error(), "items[150]") || updated.PartialState == nil {
		t.Fatalf("Update = partial state %+v, error %v; want partial state and an error naming items[150]", updated.PartialState, err)
	}
	live := stateIsCluster(t, updated.Properties, ns, missing)
	if len(live) < 150 || len(live) >= 299 {
		t.Errorf("%d items in the cluster, want the 150 before the failure and not every item after it", len(live))
	}

	createNamespace(t, missing)
	final, err := srv.Update(p.UpdateRequest{ID: created.ID, Urn: u, State: updated.Properties, OldInputs: news, Inputs: news})
	if err != nil || final.PartialState != nil {
		t.Fatalf("Update after the fix = %+v, %v", final.PartialState, err)
	}
	live = stateIsCluster(t, final.Properties, ns, missing)
	if len(live) != 300 {
		t.Errorf("after the update the cluster has %d items, want 300", len(live))
	}
	for _, item := range live {
		if !strings.HasSuffix(item, ":8080") {
			t.Errorf("item %s, want port 8080", item)
		}
	}
	deleteList(t, srv, p.DeleteRequest{ID: created.ID, Urn: u, Properties: final.Properties}, ns, missing)
}

// A Create whose first item fails for sure wrote nothing: it records nothing (no ID,
// no partial state), so the stack holds no empty list that claims to be half made.
func TestEndpointsListFirstItemFails(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	srv := newProvider(t, nil, nil)
	u := urn(spec.EndpointsListToken, "nothing")
	missing := ns + "-missing"
	inputs := check(t, srv, u, property.Map{}, items(
		endpointsItem(missing, "first", "10.0.4.1", 80),
		endpointsItem(ns, "second", "10.0.4.2", 80),
	))
	created, err := srv.Create(p.CreateRequest{Urn: u, Properties: inputs})
	if err == nil || !strings.Contains(err.Error(), "items[0]") ||
		!strings.Contains(err.Error(), fmt.Sprintf("namespace %q does not exist", missing)) {
		t.Errorf("Create's error = %v, want one naming items[0] and the missing namespace", err)
	}
	if created.ID != "" || created.PartialState != nil {
		t.Errorf("Create = ID %q, partial state %+v; want nothing recorded", created.ID, created.PartialState)
	}
	if got := liveEndpoints(t, ns, missing); len(got) != 0 {
		t.Errorf("cluster has %v, want nothing written", got)
	}
}

// Import by namespace and label selector, following continue tokens page by page.
func TestEndpointsListImportBySelector(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	srv := newProvider(t, nil, nil)
	seed := urn(spec.EndpointsListToken, "seed")
	var all []property.Map
	for i := range 5 {
		all = append(all, endpointsItem(ns, fmt.Sprintf("web-%d", i), fmt.Sprintf("10.0.3.%d", i+1), 80, "app", "web"))
	}
	all = append(all, endpointsItem(ns, "other", "10.0.3.9", 80, "app", "db"))
	seedInputs := check(t, srv, seed, property.Map{}, items(all...))
	if _, err := srv.Create(p.CreateRequest{Urn: seed, Properties: seedInputs}); err != nil {
		t.Fatal(err)
	}

	u := urn(spec.EndpointsListToken, "imported")
	id := ns + "?labelSelector=app%3Dweb&limit=2"
	read, err := srv.Read(p.ReadRequest{ID: id, Urn: u})
	if err != nil {
		t.Fatalf("import Read: %v", err)
	}
	got := read.Inputs.Get("items").AsArray()
	if got.Len() != 5 {
		t.Fatalf("imported %d items, want the 5 labelled app=web (paged 2 at a time)", got.Len())
	}
	for i := range got.Len() {
		if name := getString(t, read.Inputs, fmt.Sprintf("items[%d].metadata.name", i)); !strings.HasPrefix(name, "web-") {
			t.Errorf("imported item %s does not match the selector", name)
		}
	}
	if getString(t, read.Properties, "metadata.resourceVersion") == "" {
		t.Error("imported list metadata has no resourceVersion")
	}
	rechecked := check(t, srv, u, read.Inputs, read.Inputs)
	if d, _ := srv.Diff(p.DiffRequest{ID: id, Urn: u, OldInputs: read.Inputs, Inputs: rechecked}); d.HasChanges {
		t.Errorf("imported inputs checked again show a diff: %+v", d.DetailedDiff)
	}
	if _, err := srv.Read(p.ReadRequest{ID: ns + "?labelSelector=app%3Dnone", Urn: u}); err == nil ||
		!strings.Contains(err.Error(), "no Endpoints") {
		t.Errorf("import of an empty selection: err = %v, want a clear error", err)
	}
}
