package lifecycle_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi-go-provider/integration"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
	discoveryv1 "k8s.io/api/discovery/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/controlplane"
)

// createdSlices are n slices named s-00 ... created in ns through the provider, and
// the refresh requests for them (their recorded state).
func createdSlices(t *testing.T, srv integration.Server, ns string, n int) []p.ReadRequest {
	t.Helper()
	reqs := make([]p.ReadRequest, n)
	for i := range n {
		name := fmt.Sprintf("s-%02d", i)
		u := urn(spec.EndpointSliceToken, name+"-"+ns)
		in := sliceInputs(ns, "IPv4", fmt.Sprintf("10.0.12.%d", i+1), 80)
		in = in.Set("metadata", property.New(obj("namespace", ns, "name", name)))
		inputs := check(t, srv, u, property.Map{}, in)
		created, err := srv.Create(p.CreateRequest{Urn: u, Properties: inputs})
		if err != nil {
			t.Fatal(err)
		}
		reqs[i] = p.ReadRequest{ID: created.ID, Urn: u, Properties: created.Properties, Inputs: inputs}
	}
	return reqs
}

// refreshAll sends the Reads 8 at a time, as the engine does.
func refreshAll(t *testing.T, srv integration.Server, reqs []p.ReadRequest) []p.ReadResponse {
	t.Helper()
	out := make([]p.ReadResponse, len(reqs))
	errs := make([]error, len(reqs))
	next := make(chan int)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for i := range next {
				out[i], errs[i] = srv.Read(reqs[i])
			}
		})
	}
	for i := range reqs {
		next <- i
	}
	close(next)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("Read %s: %v", reqs[i].ID, err)
		}
	}
	return out
}

// sliceRequests counts a refresh's requests for slices: GETs of one slice, and lists.
func sliceRequests(px *apiProxy) (gets, lists int) {
	for _, r := range px.take("/endpointslices") {
		switch {
		case strings.HasPrefix(r, "GET ") && strings.HasSuffix(r, "/endpointslices"):
			lists++
		case strings.HasPrefix(r, "GET "):
			gets++
		}
	}
	return gets, lists
}

// The Reads of a refresh of many slices in one namespace share lists of the namespace:
// a few requests, not a GET per slice. They answer as GETs do: a slice deleted outside
// Pulumi is gone, one edited outside Pulumi shows the drift.
func TestSliceRefreshListsTheNamespace(t *testing.T) {
	t.Parallel()
	px, srv := newProxiedProvider(t)
	ns := newNamespace(t)
	const n = 60
	reqs := createdSlices(t, srv, ns, n)
	api := clientset(t).DiscoveryV1().EndpointSlices(ns)
	if err := api.Delete(t.Context(), "s-03", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	edited, err := api.Get(t.Context(), "s-05", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	port := int32(8080)
	edited.Ports[0].Port = &port
	if _, err := api.Update(t.Context(), edited, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}

	px.take("")
	read := refreshAll(t, srv, reqs)
	// 7 GETs before the 8th Read probes the namespace (a list of one) and lists it.
	if gets, lists := sliceRequests(px); gets > 7 || lists > 2 {
		t.Errorf("a refresh of %d slices sent %d GETs and %d lists, want at most 7 and 2", n, gets, lists)
	}
	for i, r := range read {
		switch {
		case i == 3 && r.ID != "":
			t.Errorf("s-03, deleted outside Pulumi, refreshed as %q, want gone", r.ID)
		case i == 3:
		case r.ID != reqs[i].ID:
			t.Errorf("s-%02d refreshed as %q, want %q", i, r.ID, reqs[i].ID)
		case i == 5 && getFloat(r.Inputs, "ports", "port") != 8080:
			t.Errorf("s-05, edited outside Pulumi, refreshed with inputs' port %v, want 8080", getFloat(r.Inputs, "ports", "port"))
		case i != 5 && !r.Inputs.Equals(reqs[i].Inputs):
			t.Errorf("s-%02d, unchanged, refreshed with inputs %v, want %v", i, r.Inputs, reqs[i].Inputs)
		}
	}
}

// getFloat reads m[array][0][key].
func getFloat(m property.Map, array, key string) float64 {
	v := m.Get(array)
	if !v.IsArray() || v.AsArray().Len() == 0 {
		return 0
	}
	if x := v.AsArray().Get(0).AsMap().Get(key); x.IsNumber() {
		return x.AsNumber()
	}
	return 0
}

// A namespace that holds many more slices than the stack reads is read one by one:
// the probe of its size is the one list.
func TestSliceRefreshInACrowdedNamespaceGetsEach(t *testing.T) {
	t.Parallel()
	px, srv := newProxiedProvider(t)
	ns := newNamespace(t)
	api := clientset(t).DiscoveryV1().EndpointSlices(ns)
	for i := range 400 {
		other := &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("other-%03d", i)},
			AddressType: discoveryv1.AddressTypeIPv4}
		if _, err := api.Create(t.Context(), other, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	const n = 12
	reqs := createdSlices(t, srv, ns, n)
	px.take("")
	read := refreshAll(t, srv, reqs)
	if gets, lists := sliceRequests(px); gets != n || lists != 1 {
		t.Errorf("a refresh of %d slices among 400 others sent %d GETs and %d lists, want %d and 1 (the probe)",
			n, gets, lists, n)
	}
	for i, r := range read {
		if r.ID != reqs[i].ID {
			t.Errorf("s-%02d refreshed as %q, want %q", i, r.ID, reqs[i].ID)
		}
	}
}

// A client that may not list slices refreshes them with GETs, with the same answers.
func TestSliceRefreshWithoutListPermission(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	kubeconfig, err := controlplane.Shared(t).MintIdentity(t.Context(), "no-list-slices", ns, []rbacv1.PolicyRule{{
		APIGroups: []string{"discovery.k8s.io"}, Resources: []string{"endpointslices"},
		Verbs: []string{"get", "create", "update", "delete"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	srv := newProvider(t, kubeconfig, nil)
	const n = 20
	reqs := createdSlices(t, srv, ns, n)
	if err := clientset(t).DiscoveryV1().EndpointSlices(ns).Delete(t.Context(), "s-07", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	for i, r := range refreshAll(t, srv, reqs) {
		want := reqs[i].ID
		if i == 7 {
			want = ""
		}
		if r.ID != want {
			t.Errorf("s-%02d refreshed without permission to list as %q, want %q", i, r.ID, want)
		}
	}
}
