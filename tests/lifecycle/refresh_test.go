package lifecycle_test

import (
	"fmt"
	"slices"
	"testing"

	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi-go-provider/integration"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/controlplane"
)

// wantRefreshRequests refreshes with req and checks that the refresh's requests for
// Endpoints are want, in any order.
func wantRefreshRequests(t *testing.T, px *apiProxy, srv integration.Server, req p.ReadRequest, want ...string) p.ReadResponse {
	t.Helper()
	px.take("")
	read, err := srv.Read(req)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	got := px.take("/endpoints")
	slices.Sort(got)
	want = slices.Sorted(slices.Values(want))
	if !slices.Equal(got, want) {
		t.Errorf("requests of the refresh = %q, want %q", got, want)
	}
	return read
}

// The refresh of an EndpointsList lists the Endpoints of a namespace that holds 8 of
// its items or more in one request, instead of one read per item (a round trip per 16
// items against a cluster far away), and reads the items of a namespace that holds
// fewer one by one. What it records is the same: an item deleted outside Pulumi leaves
// the state, one changed outside Pulumi is recorded as it is.
func TestListRefreshListsEachNamespaceOnce(t *testing.T) {
	t.Parallel()
	px, srv := newProxiedProvider(t)
	many, few := newNamespace(t), newNamespace(t)
	var all []property.Map
	for i := range 12 {
		all = append(all, endpointsItem(many, fmt.Sprintf("e-%02d", i), fmt.Sprintf("10.0.8.%d", i+1), 80))
	}
	all = append(all, endpointsItem(few, "x", "10.0.9.1", 80), endpointsItem(few, "y", "10.0.9.2", 80))
	u := urn(spec.EndpointsListToken, "refresh-"+many)
	inputs := check(t, srv, u, property.Map{}, items(all...))
	created, err := srv.Create(p.CreateRequest{Urn: u, Properties: inputs})
	if err != nil {
		t.Fatal(err)
	}
	api := clientset(t).CoreV1().Endpoints(many)
	if err := api.Delete(t.Context(), "e-03", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	changed, err := api.Get(t.Context(), "e-05", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	changed.Subsets[0].Addresses = []corev1.EndpointAddress{{IP: "10.0.8.99"}}
	if _, err := api.Update(t.Context(), changed, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}

	read := wantRefreshRequests(t, px, srv,
		p.ReadRequest{ID: created.ID, Urn: u, Properties: created.Properties, Inputs: inputs},
		"GET /api/v1/namespaces/"+few+"/endpoints/x", "GET /api/v1/namespaces/"+few+"/endpoints/y",
		"GET /api/v1/namespaces/"+many+"/endpoints")
	var names, ips []string
	for _, it := range read.Properties.Get("items").AsArray().All {
		meta := it.AsMap().Get("metadata").AsMap()
		names = append(names, meta.Get("namespace").AsString()+"/"+meta.Get("name").AsString())
		subsets := it.AsMap().Get("subsets").AsArray()
		ips = append(ips, subsets.Get(0).AsMap().Get("addresses").AsArray().Get(0).AsMap().Get("ip").AsString())
	}
	if len(names) != 13 || slices.Contains(names, many+"/e-03") || !slices.Contains(ips, "10.0.8.99") ||
		names[12] != few+"/y" || names[4] != many+"/e-05" || ips[4] != "10.0.8.99" {
		t.Errorf("refreshed items %q with addresses %q; want the 14 created but e-03, e-05 at 10.0.8.99", names, ips)
	}
	if got := read.Inputs.Get("items").AsArray().Len(); got != 13 {
		t.Errorf("refreshed inputs hold %d items, want 13", got)
	}
}

// In a namespace that holds more than 20 Endpoints per item of the list, the refresh
// reads its items one by one: the first page of the list, at most that many, shows
// more remain, and listing them all would cost more than the reads.
func TestListRefreshInACrowdedNamespaceReadsItemByItem(t *testing.T) {
	t.Parallel()
	px, srv := newProxiedProvider(t)
	ns := newNamespace(t)
	api := clientset(t).CoreV1().Endpoints(ns)
	for i := range 161 - 8 {
		other := &corev1.Endpoints{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("other-%03d", i), Namespace: ns}}
		if _, err := api.Create(t.Context(), other, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	var all []property.Map
	for i := range 8 {
		all = append(all, endpointsItem(ns, fmt.Sprintf("e-%d", i), fmt.Sprintf("10.0.10.%d", i+1), 80))
	}
	u := urn(spec.EndpointsListToken, "crowded-refresh-"+ns)
	inputs := check(t, srv, u, property.Map{}, items(all...))
	created, err := srv.Create(p.CreateRequest{Urn: u, Properties: inputs})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"GET /api/v1/namespaces/" + ns + "/endpoints"} // the first page, 160 of 161
	for i := range 8 {
		want = append(want, fmt.Sprintf("GET /api/v1/namespaces/%s/endpoints/e-%d", ns, i))
	}
	read := wantRefreshRequests(t, px, srv,
		p.ReadRequest{ID: created.ID, Urn: u, Properties: created.Properties, Inputs: inputs}, want...)
	if n := read.Properties.Get("items").AsArray().Len(); n != 8 {
		t.Errorf("%d items refreshed, want 8", n)
	}
}

// A client that may read the items but not list the namespace's Endpoints (a role
// that grants get and not list) still refreshes the list, reading its items one by
// one.
func TestListRefreshWithoutListPermission(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	kubeconfig, err := controlplane.Shared(t).MintIdentity(t.Context(), "no-list", ns, []rbacv1.PolicyRule{{
		APIGroups: []string{""}, Resources: []string{"endpoints"}, Verbs: []string{"get", "create", "update", "delete"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	srv := newProvider(t, kubeconfig, nil)
	var all []property.Map
	for i := range 8 {
		all = append(all, endpointsItem(ns, fmt.Sprintf("e-%d", i), fmt.Sprintf("10.0.11.%d", i+1), 80))
	}
	u := urn(spec.EndpointsListToken, "no-list-"+ns)
	inputs := check(t, srv, u, property.Map{}, items(all...))
	created, err := srv.Create(p.CreateRequest{Urn: u, Properties: inputs})
	if err != nil {
		t.Fatal(err)
	}
	if err := clientset(t).CoreV1().Endpoints(ns).Delete(t.Context(), "e-2", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	read, err := srv.Read(p.ReadRequest{ID: created.ID, Urn: u, Properties: created.Properties, Inputs: inputs})
	if err != nil {
		t.Fatalf("Read without permission to list: %v", err)
	}
	if n := read.Properties.Get("items").AsArray().Len(); n != 7 {
		t.Errorf("%d items refreshed, want the 7 left", n)
	}
}
