package lifecycle_test

import (
	"context"
	"strings"
	"testing"
	"time"

	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
)

// posts counts the creates the proxy has passed on whose path starts with prefix.
func posts(px *apiProxy, prefix string) int {
	n := 0
	for _, r := range px.Requests() {
		if r.Method == "POST" && strings.HasPrefix(r.Path, prefix) {
			n++
		}
	}
	return n
}

// The engine cancels (the user's Ctrl-C) while a list of 100 items is being created
// on a slow cluster: the creates already sent finish and are recorded, no further item
// is sent, and the error says they were not started, with no error for an item that
// landed. A create that arrives after the cancel sends nothing at all.
func TestCancelLetsCreatesInFlightLand(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	px, srv := newProxiedProvider(t)
	u := urn(spec.EndpointsListToken, "interrupted")
	const n = 100
	inputs := check(t, srv, u, property.Map{}, numberedItems(n, 80, ns, ""))
	px.SetDelay(300 * time.Millisecond) // each create takes 600 ms: the cancel lands among them
	endpoints := "/api/v1/namespaces/" + ns + "/endpoints"

	type answer struct {
		resp p.CreateResponse
		err  error
	}
	done := make(chan answer, 1)
	go func() {
		resp, err := srv.Create(p.CreateRequest{Urn: u, Properties: inputs})
		done <- answer{resp, err}
	}()
	for deadline := time.Now().Add(time.Minute); posts(px, endpoints) < 2; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the list's creates never reached the API server")
		}
	}
	if err := srv.Cancel(); err != nil {
		t.Fatal(err)
	}
	got := <-done

	if got.err == nil {
		t.Fatal("the create of the list succeeded although the engine cancelled it part way")
	}
	msg := got.err.Error()
	if !strings.Contains(msg, "were not started: the engine is cancelling") {
		t.Errorf("Create's error does not say the rest was not started because the engine is cancelling:\n%v", msg)
	}
	for _, bad := range []string{"context canceled", "may or may not exist", "canceled by the engine"} {
		if strings.Contains(msg, bad) {
			t.Errorf("Create's error says %q: a create in flight was cut off:\n%v", bad, msg)
		}
	}
	if got.resp.PartialState == nil {
		t.Fatalf("Create = %+v, want partial state", got.resp)
	}
	live := stateIsCluster(t, got.resp.Properties, ns)
	if sent := posts(px, endpoints); len(live) != sent || sent < 2 || sent >= n {
		t.Errorf("%d creates sent, %d items in the cluster (and state), of %d: want every create sent to land "+
			"and be recorded, and not every item sent", sent, len(live), n)
	}

	// After the cancel nothing new starts: a slice's create sends no request.
	before := len(px.Requests())
	su := urn(spec.EndpointSliceToken, "late")
	_, err := srv.Create(p.CreateRequest{Urn: su, Properties: sliceInputs(ns, "IPv4", "10.0.9.1", 80)})
	if err == nil || !strings.Contains(err.Error(), "the create of EndpointSlice late was not started") {
		t.Errorf("a create after the cancel: %v, want it not started", err)
	}
	if after := px.Requests(); len(after) != before {
		t.Errorf("a create after the cancel sent %d request(s): %v", len(after)-before, after[before:])
	}
}

// The engine cancels while a delete waits for a finalizer to let its slice go: the
// wait, which is not a request, ends at once, and the error says the delete was sent.
func TestCancelEndsTheWaitOfADelete(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	px, srv := newProxiedProvider(t)
	u := urn(spec.EndpointSliceToken, "held")
	inputs := check(t, srv, u, property.Map{}, sliceInputs(ns, "IPv4", "10.0.9.2", 80).Set("metadata",
		property.New(obj("namespace", ns, "name", "held", "finalizers", list(holdFinalizer)))))
	created, err := srv.Create(p.CreateRequest{Urn: u, Properties: inputs})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = clientset(t).DiscoveryV1().EndpointSlices(ns).Patch(context.WithoutCancel(t.Context()), "held",
			types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{})
	})
	done := make(chan error, 1)
	req := p.DeleteRequest{ID: created.ID, Urn: u, Properties: created.Properties, Timeout: 300}
	go func() { done <- srv.Delete(req) }()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		if requested(px, "DELETE") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the delete never reached the API server")
		}
	}
	canceled := time.Now()
	if err := srv.Cancel(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		want := "the delete of EndpointSlice " + ns + "/held was sent and accepted, but the engine is cancelling"
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), holdFinalizer) {
			t.Errorf("Delete's error = %v\nwant it to say %q and name the finalizer", err, want)
		}
		if took := time.Since(canceled); took > 5*time.Second {
			t.Errorf("the delete returned %s after the cancel, want promptly", took)
		}
	case <-time.After(time.Minute):
		t.Fatal("the delete still waits a minute after the cancel")
	}
}

// requested tells whether the proxy has passed on a request of the method.
func requested(px *apiProxy, method string) bool {
	for _, r := range px.Requests() {
		if r.Method == method {
			return true
		}
	}
	return false
}
