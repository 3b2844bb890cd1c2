package lifecycle_test

import (
	"context"
	"path"
	"slices"
	"strings"
	"testing"
	"time"

	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
)

const holdFinalizer = "example.com/hold"

// A slice recreated under the same name while its delete waits (here: a finalizer held
// it, and as soon as it is removed somebody creates the name again) does not keep the
// delete waiting: the object with the state's UID is gone, and the new one stays.
func TestDeleteEndsWhenTheNameIsTakenAgain(t *testing.T) {
	t.Parallel()
	px, srv := newProxiedProvider(t)
	ns := newNamespace(t)
	cs := clientset(t)
	u := urn(spec.EndpointSliceToken, "recreated")
	in := sliceInputs(ns, "IPv4", "10.0.0.20", 80).Set("metadata",
		property.New(obj("namespace", ns, "name", "recreated", "finalizers", list(holdFinalizer))))
	inputs := check(t, srv, u, property.Map{}, in)
	created, err := srv.Create(p.CreateRequest{Urn: u, Properties: inputs})
	if err != nil {
		t.Fatal(err)
	}
	api := cs.DiscoveryV1().EndpointSlices(ns)
	var newUID types.UID
	// Once the server has answered the DELETE (the finalizer holds the slice), the
	// finalizer is removed, so the slice goes, and the name is taken again, all before
	// the provider sees the answer: when it looks, the name holds another object.
	px.onDelete(func(string) {
		px.onDelete(nil)
		patch := []byte(`{"metadata":{"finalizers":null}}`)
		if _, err := api.Patch(t.Context(), "recreated", types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			t.Errorf("removing the finalizer: %v", err)
			return
		}
		again, err := api.Create(t.Context(), &discoveryv1.EndpointSlice{
			ObjectMeta:  metav1.ObjectMeta{Name: "recreated", Namespace: ns},
			AddressType: discoveryv1.AddressTypeIPv4,
			Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{"10.0.0.21"}}},
		}, metav1.CreateOptions{})
		if err != nil {
			t.Errorf("recreating the slice: %v", err)
			return
		}
		newUID = again.UID
	})
	start := time.Now()
	err = srv.Delete(p.DeleteRequest{ID: created.ID, Urn: u, Properties: created.Properties, Timeout: 30})
	if elapsed := time.Since(start); err != nil || elapsed > 10*time.Second {
		t.Fatalf("Delete = %v after %s, want it to return at once once the object with its UID was gone", err, elapsed)
	}
	if newUID == "" {
		t.Fatal("the slice was not recreated during the delete")
	}
	live, err := api.Get(t.Context(), "recreated", metav1.GetOptions{})
	if err != nil || live.UID != newUID || live.DeletionTimestamp != nil {
		t.Errorf("the recreated slice was touched by the delete (err=%v)", err)
	}
}

// A delete whose wait ran out is not reported as failed when the read it makes to tell
// what holds the object finds it gone: the finalizer went just after the deadline.
func TestDeleteGoneJustAfterItsTimeoutSucceeds(t *testing.T) {
	t.Parallel()
	px, srv := newProxiedProvider(t)
	ns := newNamespace(t)
	api := clientset(t).DiscoveryV1().EndpointSlices(ns)
	u := urn(spec.EndpointSliceToken, "late")
	in := sliceInputs(ns, "IPv4", "10.0.0.24", 80).Set("metadata",
		property.New(obj("namespace", ns, "name", "late", "finalizers", list(holdFinalizer))))
	created, err := srv.Create(p.CreateRequest{Urn: u, Properties: check(t, srv, u, property.Map{}, in)})
	if err != nil {
		t.Fatal(err)
	}
	const timeout = 2 * time.Second
	deadline := time.Now().Add(timeout)
	released := false
	// The first read of the slice after the deadline is the one that looks for what
	// holds it: the finalizer is removed just before it reaches the server.
	px.onGet(func(p string) {
		if released || !strings.HasSuffix(p, "/endpointslices/late") || time.Now().Before(deadline) {
			return
		}
		released = true
		patch := []byte(`{"metadata":{"finalizers":null}}`)
		if _, err := api.Patch(context.WithoutCancel(t.Context()), "late", types.MergePatchType, patch,
			metav1.PatchOptions{}); err != nil {
			t.Errorf("removing the finalizer: %v", err)
		}
		if _, err := api.Get(t.Context(), "late", metav1.GetOptions{}); err == nil {
			t.Error("the slice is still there once its finalizer is gone")
		}
	})
	err = srv.Delete(p.DeleteRequest{ID: created.ID, Urn: u, Properties: created.Properties,
		Timeout: timeout.Seconds()})
	if !released {
		t.Fatalf("the delete made no read after its deadline (err=%v)", err)
	}
	if err != nil {
		t.Errorf("Delete = %v; want success, the slice was gone when it last looked", err)
	}
}

// The state's UID guards the delete: an EndpointsList whose item was replaced out of
// band (deleted and created again under its name) deletes its own objects and leaves
// the replacement alone (the UID precondition answers 409, which counts as gone). The
// items belong to selectorless Services: Endpoints of no Service are the endpoints
// controller's to delete, and it does once Endpoints of their name are deleted.
func TestDeleteLeavesAReplacedObjectAlone(t *testing.T) {
	t.Parallel()
	srv := newProvider(t, nil, nil)
	ns := newNamespace(t)
	cs := clientset(t)
	createService(t, ns, "kept", nil)
	createService(t, ns, "swapped", nil)
	u := urn(spec.EndpointsListToken, "replaced")
	inputs := check(t, srv, u, property.Map{}, items(endpointsItem(ns, "kept", "10.0.0.22", 80),
		endpointsItem(ns, "swapped", "10.0.0.23", 80)))
	created, err := srv.Create(p.CreateRequest{Urn: u, Properties: inputs})
	if err != nil {
		t.Fatal(err)
	}
	endpoints := cs.CoreV1().Endpoints(ns)
	if err := endpoints.Delete(t.Context(), "swapped", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	replacement, err := endpoints.Create(t.Context(), &corev1.Endpoints{
		ObjectMeta: metav1.ObjectMeta{Name: "swapped", Namespace: ns},
		Subsets: []corev1.EndpointSubset{{
			Addresses: []corev1.EndpointAddress{{IP: "10.0.0.99"}}, Ports: []corev1.EndpointPort{{Port: 81}},
		}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Delete(p.DeleteRequest{ID: created.ID, Urn: u, Properties: created.Properties, Timeout: 30}); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	left := liveEndpoints(t, ns)
	if !slices.Equal(left, []string{ns + "/swapped=10.0.0.99:81"}) {
		t.Fatalf("left after the delete: %v, want only the replacement", left)
	}
	live, err := endpoints.Get(t.Context(), "swapped", metav1.GetOptions{})
	if err != nil || live.UID != replacement.UID {
		t.Errorf("the replacement is not the object left (err=%v)", err)
	}
}

// A delete that nothing holds is confirmed by the server's answer to the DELETE: one
// request per object, no read and no watch after it. A delete that a finalizer holds
// waits on a watch, and returns once the finalizer is gone.
func TestDeleteWithoutFinalizersSendsOnlyTheDelete(t *testing.T) {
	t.Parallel()
	px, srv := newProxiedProvider(t)
	ns := newNamespace(t)

	su := urn(spec.EndpointSliceToken, "free")
	slice, err := srv.Create(p.CreateRequest{Urn: su, Properties: check(t, srv, su, property.Map{},
		sliceInputs(ns, "IPv4", "10.0.0.24", 80))})
	if err != nil {
		t.Fatal(err)
	}
	lu := urn(spec.EndpointsListToken, "free")
	set, err := srv.Create(p.CreateRequest{Urn: lu, Properties: check(t, srv, lu, property.Map{},
		items(endpointsItem(ns, "a", "10.0.0.25", 80), endpointsItem(ns, "b", "10.0.0.26", 80)))})
	if err != nil {
		t.Fatal(err)
	}
	nsPath := "/namespaces/" + ns + "/"
	px.take(nsPath)
	if err := srv.Delete(p.DeleteRequest{ID: slice.ID, Urn: su, Properties: slice.Properties}); err != nil {
		t.Fatal(err)
	}
	if err := srv.Delete(p.DeleteRequest{ID: set.ID, Urn: lu, Properties: set.Properties}); err != nil {
		t.Fatal(err)
	}
	got := px.take(nsPath)
	slices.Sort(got)
	want := []string{
		"DELETE /api/v1/namespaces/" + ns + "/endpoints/a",
		"DELETE /api/v1/namespaces/" + ns + "/endpoints/b",
		"DELETE /apis/discovery.k8s.io/v1/namespaces/" + ns + "/endpointslices/" + path.Base(slice.ID),
	}
	if !slices.Equal(got, want) {
		t.Errorf("requests of the deletes:\n%s\nwant only:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if live := liveEndpoints(t, ns); len(live) != 0 {
		t.Errorf("left after the deletes: %v", live)
	}

	// Held by a finalizer: the delete watches until it is removed.
	hu := urn(spec.EndpointSliceToken, "held")
	held, err := srv.Create(p.CreateRequest{Urn: hu, Properties: check(t, srv, hu, property.Map{},
		sliceInputs(ns, "IPv4", "10.0.0.27", 80).Set("metadata",
			property.New(obj("namespace", ns, "name", "held", "finalizers", list(holdFinalizer)))))})
	if err != nil {
		t.Fatal(err)
	}
	released := make(chan error, 1)
	px.onDelete(func(string) {
		px.onDelete(nil)
		go func() {
			time.Sleep(time.Second)
			patch := []byte(`{"metadata":{"finalizers":null}}`)
			_, err := clientset(t).DiscoveryV1().EndpointSlices(ns).Patch(context.WithoutCancel(t.Context()), "held",
				types.MergePatchType, patch, metav1.PatchOptions{})
			released <- err
		}()
	})
	px.take(nsPath)
	if err := srv.Delete(p.DeleteRequest{ID: held.ID, Urn: hu, Properties: held.Properties, Timeout: 30}); err != nil {
		t.Fatal(err)
	}
	if err := <-released; err != nil {
		t.Errorf("removing the finalizer: %v", err)
	}
	if watches := px.take("WATCH /apis/discovery.k8s.io/v1" + nsPath); len(watches) == 0 {
		t.Error("a delete held by a finalizer returned without watching the object")
	}
}
