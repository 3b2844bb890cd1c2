package lifecycle_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/apiproxy"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/controlplane"
)

// A finalizer that outlives the delete's timeout is named in the error.
func TestDeleteNamesBlockingFinalizers(t *testing.T) {
	t.Parallel()
	srv := newProvider(t, nil, nil)
	ns := newNamespace(t)
	cs := clientset(t)
	u := urn(spec.EndpointSliceToken, "held")
	in := sliceInputs(ns, "IPv4", "10.0.0.2", 80)
	in = in.Set("metadata", property.New(obj("namespace", ns, "finalizers", list("example.com/hold"))))
	inputs := check(t, srv, u, property.Map{}, in)
	created, err := srv.Create(p.CreateRequest{Urn: u, Properties: inputs})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	err = srv.Delete(p.DeleteRequest{ID: created.ID, Urn: u, Properties: created.Properties, Timeout: 2})
	if err == nil {
		t.Fatal("Delete returned while a finalizer holds the object")
	}
	if !strings.Contains(err.Error(), `"example.com/hold"`) || !strings.Contains(err.Error(), "was not deleted within 2s") {
		t.Errorf("Delete error does not name the finalizer and the timeout: %v", err)
	}
	if elapsed := time.Since(start); elapsed > 10*time.Second {
		t.Errorf("Delete with a 2s timeout took %s", elapsed)
	}

	// Once the finalizer goes, a retried delete completes.
	name := getString(t, inputs, "metadata.name")
	patch := []byte(`{"metadata":{"finalizers":null}}`)
	if _, err := cs.DiscoveryV1().EndpointSlices(ns).Patch(t.Context(), name, "application/merge-patch+json", patch,
		metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := srv.Delete(p.DeleteRequest{ID: created.ID, Urn: u, Properties: created.Properties, Timeout: 30}); err != nil {
		t.Errorf("Delete after the finalizer was removed: %v", err)
	}
}

// An EndpointSlice owned by another object is collected when its owner goes, and the
// next refresh drops it from the state.
func TestOwnedSliceCollectedWithItsOwner(t *testing.T) {
	t.Parallel()
	srv := newProvider(t, nil, nil)
	ns := newNamespace(t)
	cs := clientset(t)
	owner, err := cs.CoreV1().ConfigMaps(ns).Create(t.Context(),
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "owner"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	u := urn(spec.EndpointSliceToken, "owned")
	in := sliceInputs(ns, "IPv4", "10.0.0.3", 80).Set("metadata", property.New(obj(
		"namespace", ns,
		"ownerReferences", list(obj("apiVersion", "v1", "kind", "ConfigMap", "name", "owner", "uid", string(owner.UID))),
	)))
	inputs := check(t, srv, u, property.Map{}, in)
	created, err := srv.Create(p.CreateRequest{Urn: u, Properties: inputs})
	if err != nil {
		t.Fatal(err)
	}
	if err := cs.CoreV1().ConfigMaps(ns).Delete(t.Context(), "owner", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		read, err := srv.Read(p.ReadRequest{ID: created.ID, Urn: u, Properties: created.Properties, Inputs: inputs})
		if err != nil {
			t.Fatalf("Read: %v", err)
		}
		if read.ID == "" {
			return // collected, and refresh drops it
		}
		if time.Now().After(deadline) {
			t.Fatal("the owned slice was not garbage collected within 30s of its owner's deletion")
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// blockOwnerDeletion needs permission to set finalizers on the owner; the server's
// refusal reaches the user as a clear message naming the object.
func TestBlockOwnerDeletionWithoutPermission(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	cs := clientset(t)
	kubeconfig, err := controlplane.Shared(t).MintIdentity(t.Context(), "restricted", ns, []rbacv1.PolicyRule{{
		APIGroups: []string{"discovery.k8s.io"}, Resources: []string{"endpointslices"},
		Verbs: []string{"get", "list", "create", "update", "delete"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	owner, err := cs.CoreV1().ConfigMaps(ns).Create(t.Context(),
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "owner"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	srv := newProvider(t, kubeconfig, nil)
	u := urn(spec.EndpointSliceToken, "blocking")
	in := sliceInputs(ns, "IPv4", "10.0.0.4", 80).Set("metadata", property.New(obj(
		"namespace", ns, "name", "blocking",
		"ownerReferences", list(obj("apiVersion", "v1", "kind", "ConfigMap", "name", "owner",
			"uid", string(owner.UID), "blockOwnerDeletion", true)),
	)))
	inputs := check(t, srv, u, property.Map{}, in)
	_, err = srv.Create(p.CreateRequest{Urn: u, Properties: inputs})
	if err == nil {
		t.Fatal("Create with blockOwnerDeletion succeeded without permission on the owner")
	}
	for _, want := range []string{"not allowed to create EndpointSlice " + ns + "/blocking", "blockOwnerDeletion"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
}

// API-server warnings reach the user, attached to the resource.
func TestServerWarningsReachTheUser(t *testing.T) {
	t.Parallel()
	srv := newProvider(t, nil, nil)
	ns := newNamespace(t)
	u := urn(spec.EndpointsListToken, "warned-"+ns) // unique, so repeated runs (-count) count apart
	item := func(name string) property.Map {
		return obj("metadata", obj("namespace", ns, "name", name),
			"subsets", list(obj("addresses", list(obj("ip", "10.0.0.5")), "ports", list(obj("port", 80)))))
	}
	// Two items draw the same warning twice in one operation.
	inputs := check(t, srv, u, property.Map{}, obj("items", list(item("svc"), item("svc2"))))
	if _, err := srv.Create(p.CreateRequest{Urn: u, Properties: inputs}); err != nil {
		t.Fatal(err)
	}
	if got := logs.Lines("WARN", "kubernetes API server: v1 Endpoints is deprecated", string(u)); len(got) != 1 {
		t.Errorf("the API server's deprecation warning was shown %d times for %s, want once:\n%s",
			len(got), u, strings.Join(got, "\n"))
	}
}

// A create whose answer never comes is recorded, not forgotten: the next update
// finds the object it made (or creates it), so an outage leaves nothing orphaned.
func TestUnansweredCreateIsRecordedAndCompleted(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	px, down := newProxiedProvider(t)
	px.DropAnswers(&apiproxy.Rule{Method: http.MethodPost,
		PathPrefix: "/apis/discovery.k8s.io/v1/namespaces/" + ns + "/endpointslices"})
	u := urn(spec.EndpointSliceToken, "outage")
	inputs := check(t, down, u, property.Map{}, sliceInputs(ns, "IPv4", "10.0.0.6", 80))
	created, err := down.Create(p.CreateRequest{Urn: u, Properties: inputs})
	if err == nil {
		t.Fatal("Create whose answer was lost succeeded")
	}
	name := getString(t, inputs, "metadata.name")
	if created.ID != ns+"/"+name || created.PartialState == nil {
		t.Fatalf("Create = %q %+v, want the ID recorded with partial state", created.ID, created.PartialState)
	}
	if reason := strings.Join(created.PartialState.Reasons, " "); !strings.Contains(reason, "may have taken effect") {
		t.Errorf("partial-state reason does not explain the unknown outcome: %s", reason)
	}
	live, err := clientset(t).DiscoveryV1().EndpointSlices(ns).Get(t.Context(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("the create whose answer was lost made no slice: %v", err)
	}

	up := newProvider(t, nil, nil)
	if _, err := up.Update(p.UpdateRequest{ID: created.ID, Urn: u, State: created.Properties,
		OldInputs: inputs, Inputs: inputs}); err != nil {
		t.Fatalf("Update after the outage: %v", err)
	}
	after, err := clientset(t).DiscoveryV1().EndpointSlices(ns).Get(t.Context(), name, metav1.GetOptions{})
	if err != nil || after.UID != live.UID {
		t.Errorf("after the update, the slice is %v (err %v); want the one the lost create made (uid %s)",
			after, err, live.UID)
	}
}

// A create whose connection cannot be made was never sent: nothing is recorded (no
// ID, no partial state), so the next `pulumi up` creates the object, and a destroy in
// between has nothing to delete on a cluster that does not answer.
func TestRefusedCreateRecordsNothing(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	refused := []byte(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1", insecure-skip-tls-verify: true}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c
`)
	down := newProvider(t, refused, nil)
	for _, tc := range []struct {
		name   string
		inputs property.Map
	}{
		{"named", sliceInputs(ns, "IPv4", "10.0.0.7", 80)},
		{"generateName", sliceInputs(ns, "IPv4", "10.0.0.8", 80).Set("metadata",
			property.New(obj("namespace", ns, "generateName", "refused-")))},
	} {
		u := urn(spec.EndpointSliceToken, "refused-"+tc.name)
		inputs := check(t, down, u, property.Map{}, tc.inputs)
		created, err := down.Create(p.CreateRequest{Urn: u, Properties: inputs})
		if err == nil {
			t.Fatalf("%s: Create against a server that refuses connections succeeded", tc.name)
		}
		if created.ID != "" || created.PartialState != nil {
			t.Errorf("%s: Create = %q %+v, want nothing recorded: the request was never sent", tc.name, created.ID,
				created.PartialState)
		}
		if msg := err.Error(); !strings.Contains(msg, "is unreachable") || !strings.Contains(msg, "retried by the next") ||
			strings.Contains(msg, "may or may not exist") {
			t.Errorf("%s: the error does not say that the create was not sent and is retried: %v", tc.name, err)
		}
		// The next up, the cluster back, creates the object.
		if _, err := newProvider(t, nil, nil).Create(p.CreateRequest{Urn: u, Properties: inputs}); err != nil {
			t.Errorf("%s: the create once the cluster is back: %v", tc.name, err)
		}
	}
}

// deletePropagationPolicy Foreground: a delete returns only once the object's
// dependents are gone too; the default (Background) returns as soon as the object is.
func TestForegroundDeleteWaitsForDependents(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	cs := clientset(t)
	srv := newProvider(t, nil, map[string]property.Value{"deletePropagationPolicy": property.New("Foreground")})
	u := urn(spec.EndpointSliceToken, "parent")
	inputs := check(t, srv, u, property.Map{}, sliceInputs(ns, "IPv4", "10.0.0.7", 80))
	created, err := srv.Create(p.CreateRequest{Urn: u, Properties: inputs})
	if err != nil {
		t.Fatal(err)
	}
	name := getString(t, inputs, "metadata.name")
	uid := getString(t, created.Properties, "metadata.uid")
	blocking := true
	if _, err := cs.CoreV1().ConfigMaps(ns).Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
		Name: "dependent",
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "discovery.k8s.io/v1", Kind: "EndpointSlice",
			Name: name, UID: types.UID(uid), BlockOwnerDeletion: &blocking}},
	}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := srv.Delete(p.DeleteRequest{ID: created.ID, Urn: u, Properties: created.Properties, Timeout: 60}); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if _, err := cs.CoreV1().ConfigMaps(ns).Get(t.Context(), "dependent", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("a Foreground delete returned while its dependent still exists (err=%v)", err)
	}
}
