package lifecycle_test

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi-go-provider/integration"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/endpoints-provider/pulumi-endpoints/provider/kube"
	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
	"github.com/endpoints-provider/pulumi-endpoints/provider/validate"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/controlplane"
)

// These tests run on the package's control plane with every controller of
// kube-controller-manager (see TestMain): the endpoints, EndpointSlice and
// EndpointSlice mirroring controllers act on the objects the provider writes.

const (
	mirroringManager = "endpointslicemirroring-controller.k8s.io"
	sliceManager     = "endpointslice-controller.k8s.io"
	// controllerTimeout bounds every wait for a controller to act.
	controllerTimeout = 30 * time.Second
)

// createService creates a ClusterIP Service with one TCP port 80 named http; selector
// nil makes it selectorless.
func createService(t *testing.T, ns, name string, selector map[string]string) *corev1.Service {
	t.Helper()
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: corev1.ServiceSpec{
			Selector: selector,
			Ports:    []corev1.ServicePort{{Name: "http", Port: 80, Protocol: corev1.ProtocolTCP}},
		},
	}
	out, err := clientset(t).CoreV1().Services(ns).Create(t.Context(), svc, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create Service %s/%s: %v", ns, name, err)
	}
	return out
}

// slicesOf lists the EndpointSlices of Service name in ns, as the controllers label them.
func slicesOf(ctx context.Context, t *testing.T, ns, name string) []discoveryv1.EndpointSlice {
	t.Helper()
	l, err := clientset(t).DiscoveryV1().EndpointSlices(ns).List(ctx, metav1.ListOptions{
		LabelSelector: discoveryv1.LabelServiceName + "=" + name,
	})
	if err != nil {
		t.Fatalf("list the slices of Service %s/%s: %v", ns, name, err)
	}
	return l.Items
}

// describeSlices is "manager: addresses ports" per slice, sorted.
func describeSlices(ss []discoveryv1.EndpointSlice) []string {
	out := make([]string, 0, len(ss))
	for _, s := range ss {
		var addrs, ports []string
		for _, e := range s.Endpoints {
			addrs = append(addrs, e.Addresses...)
		}
		for _, port := range s.Ports {
			if port.Port != nil {
				ports = append(ports, strings.TrimSpace(ptrString(port.Name)+":"+strconv.Itoa(int(*port.Port))))
			}
		}
		slices.Sort(addrs)
		out = append(out, s.Labels[discoveryv1.LabelManagedBy]+": "+strings.Join(addrs, ",")+" "+strings.Join(ports, ","))
	}
	slices.Sort(out)
	return out
}

// hasKey tells whether v is a map with key.
func hasKey(v property.Value, key string) bool {
	if !v.IsMap() {
		return false
	}
	_, ok := v.AsMap().GetOk(key)
	return ok
}

func ptrString(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// waitUntil polls cond until it holds or controllerTimeout passes; then it fails
// the test with what cond last said.
func waitUntil(t *testing.T, what string, cond func(ctx context.Context) (bool, string)) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), controllerTimeout)
	defer cancel()
	last := ""
	for {
		ok, state := cond(ctx)
		if ok {
			return
		}
		last = state
		select {
		case <-ctx.Done():
			t.Fatalf("waited %v for %s; last seen: %s", controllerTimeout, what, last)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// wantQuietRefresh refreshes a resource (Read with its state and inputs) and checks
// that nothing shows: the refreshed inputs are the inputs, and a preview of the same
// program finds no change.
func wantQuietRefresh(t *testing.T, srv integration.Server, id string, u resource.URN, state, inputs property.Map,
	step string,
) p.ReadResponse {
	t.Helper()
	read, err := srv.Read(p.ReadRequest{ID: id, Urn: u, Properties: state, Inputs: inputs})
	if err != nil {
		t.Fatalf("%s: refresh: %v", step, err)
	}
	if diff := cmp.Diff(validate.PlainMap(inputs), validate.PlainMap(read.Inputs)); diff != "" {
		t.Errorf("%s: refresh changed the inputs (-before +after):\n%s", step, diff)
	}
	d, err := srv.Diff(p.DiffRequest{ID: id, Urn: u, OldInputs: read.Inputs, State: read.Properties, Inputs: inputs})
	if err != nil || d.HasChanges {
		t.Errorf("%s: preview after refresh = %+v, %v; want no changes", step, d.DetailedDiff, err)
	}
	return read
}

// TestEndpointsMirroredIntoSlices: the Endpoints of a selectorless Service that an
// EndpointsList writes are mirrored into EndpointSlices by the mirroring controller;
// the skip-mirror label stops it; refresh stays quiet once the controllers have acted;
// the mirrored slices follow an update and go when the list is destroyed.
func TestEndpointsMirroredIntoSlices(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	srv := newProvider(t, nil, nil)
	u := urn(spec.EndpointsListToken, "mirrored-"+ns)
	createService(t, ns, "web", nil)
	createService(t, ns, "quiet", nil)

	program := func(ip string) property.Map {
		return items(
			endpointsItem(ns, "web", ip, 80, "app", "web"),
			endpointsItem(ns, "quiet", "10.0.3.1", 80, "endpointslice.kubernetes.io/skip-mirror", "true"),
		)
	}
	inputs := check(t, srv, u, property.Map{}, program("10.0.2.1"))
	created, err := srv.Create(p.CreateRequest{Urn: u, Properties: inputs})
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	want := []string{mirroringManager + ": 10.0.2.1 http:80"}
	waitUntil(t, "the mirroring controller to mirror Endpoints "+ns+"/web", func(ctx context.Context) (bool, string) {
		got := describeSlices(slicesOf(ctx, t, ns, "web"))
		return slices.Equal(got, want), strings.Join(got, "; ")
	})
	mirrored := slicesOf(t.Context(), t, ns, "web")
	if got := mirrored[0].Labels["app"]; got != "web" {
		t.Errorf("the mirrored slice has labels %v, want the Endpoints' app=web copied", mirrored[0].Labels)
	}
	if got := slicesOf(t.Context(), t, ns, "quiet"); len(got) != 0 {
		t.Errorf("Endpoints %s/quiet carry skip-mirror=true, yet were mirrored: %v", ns, describeSlices(got))
	}
	if got := logs.Lines("WARN", string(u), "controller"); len(got) != 0 {
		t.Errorf("Endpoints of selectorless Services drew controller warnings:\n%s", strings.Join(got, "\n"))
	}

	// The controllers have acted: refresh shows nothing, and writes nothing.
	before, err := clientset(t).CoreV1().Endpoints(ns).Get(t.Context(), "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	read := wantQuietRefresh(t, srv, created.ID, u, created.Properties, inputs, "after the mirroring")
	after, err := clientset(t).CoreV1().Endpoints(ns).Get(t.Context(), "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if after.ResourceVersion != before.ResourceVersion {
		t.Errorf("refresh wrote Endpoints %s/web", ns)
	}

	// An update is mirrored too.
	newInputs := check(t, srv, u, inputs, program("10.0.2.2"))
	updated, err := srv.Update(p.UpdateRequest{ID: created.ID, Urn: u, State: read.Properties, OldInputs: read.Inputs,
		Inputs: newInputs})
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	want = []string{mirroringManager + ": 10.0.2.2 http:80"}
	waitUntil(t, "the mirrored slice to follow the update", func(ctx context.Context) (bool, string) {
		got := describeSlices(slicesOf(ctx, t, ns, "web"))
		return slices.Equal(got, want), strings.Join(got, "; ")
	})
	wantQuietRefresh(t, srv, created.ID, u, updated.Properties, newInputs, "after the mirrored update")

	// Destroy: the Endpoints go, and the mirroring controller removes their slices.
	if err := srv.Delete(p.DeleteRequest{ID: created.ID, Urn: u, Properties: updated.Properties}); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	waitUntil(t, "the mirrored slices to go with the Endpoints", func(ctx context.Context) (bool, string) {
		got := describeSlices(slicesOf(ctx, t, ns, "web"))
		return len(got) == 0, strings.Join(got, "; ")
	})
}

// TestControllerOwnedEndpointsAreWarnedAbout: an EndpointsList item named after a
// Service that has a selector draws a warning at preview and at up (the endpoints
// controller owns those Endpoints), found by looking the Service up; so does an item
// that changes after such a Service appears. A failed lookup is silent.
func TestControllerOwnedEndpointsAreWarnedAbout(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	srv := newProvider(t, nil, nil)
	createService(t, ns, "api", map[string]string{"app": "api"})
	const warning = "has a selector, so the Kubernetes endpoints controller manages its Endpoints"

	// The endpoints controller writes the Service's Endpoints at once.
	waitUntil(t, "the endpoints controller to write Endpoints "+ns+"/api", func(ctx context.Context) (bool, string) {
		_, err := clientset(t).CoreV1().Endpoints(ns).Get(ctx, "api", metav1.GetOptions{})
		return err == nil, "not there"
	})

	u := urn(spec.EndpointsListToken, "owned-"+ns)
	inputs := check(t, srv, u, property.Map{}, items(endpointsItem(ns, "api", "10.0.4.1", 80)))
	if got := logs.Lines("WARN", string(u), warning); len(got) != 0 {
		t.Errorf("Check looked the cluster up and warned:\n%s", strings.Join(got, "\n"))
	}
	_, err := srv.Create(p.CreateRequest{Urn: u, Properties: inputs, DryRun: true})
	if err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("preview over the controller's Endpoints: err = %v, want 'already exists'", err)
	}
	if got := logs.Lines("WARN", string(u), warning, "Endpoints "+ns+"/api"); len(got) != 1 {
		t.Errorf("preview: %d warnings naming Endpoints %s/api, want 1", len(got), ns)
	}
	if _, err := srv.Create(p.CreateRequest{Urn: u, Properties: inputs}); err == nil {
		t.Error("up over the controller's Endpoints succeeded")
	}
	if got := logs.Lines("WARN", string(u), warning, "Endpoints "+ns+"/api"); len(got) != 2 {
		t.Errorf("up: %d warnings naming Endpoints %s/api in all, want 2 (preview and up)", len(got), ns)
	}

	// Endpoints written first, then a Service with a selector takes the name: the next
	// change warns at preview (the Update the engine previews).
	u2 := urn(spec.EndpointsListToken, "later-"+ns)
	olds := check(t, srv, u2, property.Map{}, items(endpointsItem(ns, "late", "10.0.4.2", 80)))
	noService := "there is no Service " + ns + "/late (yet), and the Kubernetes endpoints controller deletes"
	// The preview does not warn of the missing Service: the program may create it.
	if _, err := srv.Create(p.CreateRequest{Urn: u2, Properties: olds, DryRun: true}); err != nil {
		t.Fatalf("preview Create: %v", err)
	}
	if got := logs.Lines("WARN", string(u2), noService); len(got) != 0 {
		t.Errorf("preview of Endpoints with no Service (yet) warned: %q", got)
	}
	created, err := srv.Create(p.CreateRequest{Urn: u2, Properties: olds})
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	if got := logs.Lines("WARN", string(u2), warning); len(got) != 0 {
		t.Errorf("Endpoints of no Service drew the selector warning:\n%s", strings.Join(got, "\n"))
	}
	if got := logs.Lines("WARN", string(u2), noService); len(got) != 1 {
		t.Errorf("up of Endpoints with no Service: %d warnings saying %q, want 1", len(got), noService)
	}
	createService(t, ns, "late", map[string]string{"app": "late"})
	news := check(t, srv, u2, olds, items(endpointsItem(ns, "late", "10.0.4.3", 80)))
	d, err := srv.Diff(p.DiffRequest{ID: created.ID, Urn: u2, OldInputs: olds, State: created.Properties, Inputs: news})
	if err != nil || !d.HasChanges {
		t.Fatalf("Diff = %+v, %v; want changes", d, err)
	}
	change := p.UpdateRequest{ID: created.ID, Urn: u2, State: created.Properties, OldInputs: olds, Inputs: news, DryRun: true}
	if _, err := srv.Update(change); err != nil {
		t.Logf("preview Update (the controller may have written Endpoints late): %v", err)
	}
	if got := logs.Lines("WARN", string(u2), warning, "Endpoints "+ns+"/late"); len(got) != 1 {
		t.Errorf("preview of a change: %d warnings naming Endpoints %s/late, want 1", len(got), ns)
	}

	// An identity that may not read Services gets no warning and no error.
	kubeconfig, err := controlplane.Shared(t).MintIdentity(t.Context(), "no-services", ns, []rbacv1.PolicyRule{{
		APIGroups: []string{""}, Resources: []string{"endpoints"}, Verbs: []string{"get", "list", "create", "update", "delete"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	limited := newProvider(t, kubeconfig, nil)
	u3 := urn(spec.EndpointsListToken, "unlooked-"+ns)
	change.Urn = u3
	if _, err := limited.Update(change); err != nil {
		t.Errorf("preview Update with no right to read Services: %v", err)
	}
	if got := logs.Lines("WARN", string(u3)); len(got) != 0 {
		t.Errorf("a failed Service lookup was not silent:\n%s", strings.Join(got, "\n"))
	}
}

// TestControllerLabelledSlicesAreWarnedAbout: a slice labelled as the EndpointSlice
// controller's or the mirroring controller's own draws a warning at preview and at up,
// and the warning is right: the mirroring controller deletes a slice it did not mirror.
func TestControllerLabelledSlicesAreWarnedAbout(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	srv := newProvider(t, nil, nil)
	for _, manager := range []string{sliceManager, mirroringManager} {
		u := urn(spec.EndpointSliceToken, "claimed-"+ns+"-"+strings.Split(manager, ".")[0])
		inputs := check(t, srv, u, property.Map{}, sliceInputs(ns, "IPv4", "10.0.5.1", 80).Set("metadata",
			property.New(obj("namespace", ns, "generateName", "claimed-",
				"labels", obj(kube.ManagedByLabel, manager, discoveryv1.LabelServiceName, "ghost")))))
		if got := logs.Lines("WARN", string(u)); len(got) != 0 {
			t.Errorf("Check warned:\n%s", strings.Join(got, "\n"))
		}
		if _, err := srv.Create(p.CreateRequest{Urn: u, Properties: inputs, DryRun: true}); err != nil {
			t.Fatalf("preview: %v", err)
		}
		warning := kube.ManagedByLabel + "=" + manager
		if got := logs.Lines("WARN", string(u), warning, "will overwrite or delete it"); len(got) != 1 {
			t.Errorf("preview of a slice labelled %s: %d warnings, want 1", manager, len(got))
		}
		created, err := srv.Create(p.CreateRequest{Urn: u, Properties: inputs})
		if err != nil {
			t.Fatalf("Create: %v", err)
		}
		if got := logs.Lines("WARN", string(u), warning, "will overwrite or delete it"); len(got) != 2 {
			t.Errorf("up of a slice labelled %s: %d warnings in all, want 2 (preview and up)", manager, len(got))
		}
		name := getString(t, created.Properties, "metadata.name")
		if manager != mirroringManager {
			continue
		}
		// Service ghost does not exist: the mirroring controller removes the slice.
		waitUntil(t, "the mirroring controller to delete slice "+ns+"/"+name, func(ctx context.Context) (bool, string) {
			_, err := clientset(t).DiscoveryV1().EndpointSlices(ns).Get(ctx, name, metav1.GetOptions{})
			return apierrors.IsNotFound(err), "still there"
		})
	}
}

// TestSlicesCarryTheProviderAsManager: a slice the provider writes names it in
// endpointslice.kubernetes.io/managed-by (unless the program sets the label), which
// keeps the EndpointSlice controller's hands off it even beside a Service with a
// selector; the label shows in the outputs but never as a change: refresh and preview
// stay quiet, and import leaves it out of the inputs.
func TestSlicesCarryTheProviderAsManager(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	srv := newProvider(t, nil, nil)
	cs := clientset(t)
	createService(t, ns, "shop", map[string]string{"app": "shop"})

	u := urn(spec.EndpointSliceToken, "managed-"+ns)
	inputs := check(t, srv, u, property.Map{}, sliceInputs(ns, "IPv4", "10.0.6.1", 80).Set("metadata",
		property.New(obj("namespace", ns, "labels", obj(discoveryv1.LabelServiceName, "shop")))))
	if hasKey(getPath(t, inputs, "metadata.labels"), kube.ManagedByLabel) {
		t.Errorf("Check put the managed-by label into the inputs: %v", inputs)
	}
	preview, err := srv.Create(p.CreateRequest{Urn: u, Properties: inputs, DryRun: true})
	if err != nil {
		t.Fatalf("preview: %v", err)
	}
	if got := getString(t, preview.Properties, "metadata.labels[\""+kube.ManagedByLabel+"\"]"); got != kube.ManagedBy {
		t.Errorf("preview outputs: managed-by %q, want %q", got, kube.ManagedBy)
	}
	created, err := srv.Create(p.CreateRequest{Urn: u, Properties: inputs})
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	name := getString(t, created.Properties, "metadata.name")
	live, err := cs.DiscoveryV1().EndpointSlices(ns).Get(t.Context(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := live.Labels[kube.ManagedByLabel]; got != kube.ManagedBy {
		t.Errorf("live slice: managed-by %q, want %q (labels %v)", got, kube.ManagedBy, live.Labels)
	}
	if got := getString(t, created.Properties, "metadata.labels[\""+kube.ManagedByLabel+"\"]"); got != kube.ManagedBy {
		t.Errorf("outputs: managed-by %q, want %q", got, kube.ManagedBy)
	}

	// The EndpointSlice controller writes the Service's own slice and leaves ours be.
	waitUntil(t, "the EndpointSlice controller to write Service "+ns+"/shop's slice", func(ctx context.Context) (bool, string) {
		got := describeSlices(slicesOf(ctx, t, ns, "shop"))
		return len(got) == 2, strings.Join(got, "; ")
	})
	if got := describeSlices(slicesOf(t.Context(), t, ns, "shop")); !slices.Contains(got, kube.ManagedBy+": 10.0.6.1 http:80") {
		t.Errorf("the slices of Service shop are %v, want ours among them unchanged", got)
	}
	read := wantQuietRefresh(t, srv, created.ID, u, created.Properties, inputs, "after create")

	// An update keeps the label.
	newInputs := check(t, srv, u, inputs, sliceInputs(ns, "IPv4", "10.0.6.2", 80).Set("metadata",
		property.New(obj("namespace", ns, "labels", obj(discoveryv1.LabelServiceName, "shop")))))
	updated, err := srv.Update(p.UpdateRequest{ID: created.ID, Urn: u, State: read.Properties, OldInputs: read.Inputs,
		Inputs: newInputs})
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	if got := getString(t, updated.Properties, "metadata.labels[\""+kube.ManagedByLabel+"\"]"); got != kube.ManagedBy {
		t.Errorf("after Update: managed-by %q, want %q", got, kube.ManagedBy)
	}
	wantQuietRefresh(t, srv, created.ID, u, updated.Properties, newInputs, "after update")

	// Import: the inputs are what a program writes, without the label.
	imported, err := srv.Read(p.ReadRequest{ID: created.ID, Urn: u})
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	if labels := getPath(t, imported.Inputs, "metadata.labels"); hasKey(labels, kube.ManagedByLabel) {
		t.Errorf("imported inputs carry the provider's own label: %v", labels)
	}
	if got := getString(t, imported.Inputs, "metadata.labels[\""+discoveryv1.LabelServiceName+"\"]"); got != "shop" {
		t.Errorf("imported inputs lost the program's label: service-name %q", got)
	}
	rechecked := check(t, srv, u, imported.Inputs, imported.Inputs)
	if d, _ := srv.Diff(p.DiffRequest{ID: created.ID, Urn: u, OldInputs: imported.Inputs, Inputs: rechecked}); d.HasChanges {
		t.Errorf("imported inputs checked again show a diff: %+v", d.DetailedDiff)
	}
	if d, _ := srv.Diff(p.DiffRequest{ID: created.ID, Urn: u, OldInputs: imported.Inputs, Inputs: newInputs}); d.HasChanges {
		t.Errorf("the program after import shows a diff: %+v", d.DetailedDiff)
	}

	// The program's own manager wins.
	u2 := urn(spec.EndpointSliceToken, "own-manager-"+ns)
	own := check(t, srv, u2, property.Map{}, sliceInputs(ns, "IPv4", "10.0.6.3", 80).Set("metadata",
		property.New(obj("namespace", ns, "labels", obj(kube.ManagedByLabel, "my-tool")))))
	ownCreated, err := srv.Create(p.CreateRequest{Urn: u2, Properties: own})
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	ownLive, err := cs.DiscoveryV1().EndpointSlices(ns).Get(t.Context(), getString(t, ownCreated.Properties, "metadata.name"),
		metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := ownLive.Labels[kube.ManagedByLabel]; got != "my-tool" {
		t.Errorf("a slice whose program sets managed-by=my-tool has managed-by=%q", got)
	}
	wantQuietRefresh(t, srv, ownCreated.ID, u2, ownCreated.Properties, own, "a program's own manager")
}

// TestListItemWarningsFromOneServiceList: the Service lookups behind an EndpointsList's
// warnings list a namespace's Services in one request when many items share it,
// instead of one request per item, and warn exactly as the lookups one by one do.
func TestListItemWarningsFromOneServiceList(t *testing.T) {
	t.Parallel()
	px, srv := newProxiedProvider(t)
	ns := newNamespace(t)
	createService(t, ns, "api", map[string]string{"app": "api"})
	var all []property.Map
	for i := range 8 {
		name := fmt.Sprintf("plain-%d", i)
		createService(t, ns, name, nil)
		all = append(all, endpointsItem(ns, name, fmt.Sprintf("10.0.6.%d", i+1), 80))
	}
	all = append(all, endpointsItem(ns, "api", "10.0.6.20", 80), endpointsItem(ns, "orphan", "10.0.6.21", 80))
	u := urn(spec.EndpointsListToken, "many-"+ns)
	inputs := check(t, srv, u, property.Map{}, items(all...))

	px.take("")
	// The endpoints controller may have written Endpoints api already: the preview
	// then fails on it, after the warnings.
	if _, err := srv.Create(p.CreateRequest{Urn: u, Properties: inputs, DryRun: true}); err != nil &&
		!strings.Contains(err.Error(), "already exists") {
		t.Errorf("preview: %v", err)
	}
	if got := px.take("/services"); len(got) != 1 || !strings.HasPrefix(got[0], "GET /api/v1/namespaces/"+ns+"/services") {
		t.Errorf("Service requests of the preview = %q, want one list of the namespace's Services", got)
	}
	selector := logs.Lines("WARN", string(u), "has a selector, so the Kubernetes endpoints controller manages its Endpoints")
	if len(selector) != 1 || !strings.Contains(selector[0], "Endpoints "+ns+"/api") {
		t.Errorf("selector warnings %q, want one, for Endpoints %s/api", selector, ns)
	}
	// The preview leaves the missing Service out (the program may create it); the
	// update's create says it.
	if got := logs.Lines("WARN", string(u), "WARN Endpoints "); len(got) != 1 {
		t.Errorf("%d warnings about items in the preview, want the one above:\n%s", len(got), strings.Join(got, "\n"))
	}
	if _, err := srv.Create(p.CreateRequest{Urn: u, Properties: inputs}); err != nil &&
		!strings.Contains(err.Error(), "already exists") {
		t.Errorf("up: %v", err)
	}
	if got := px.take("/services"); len(got) != 1 || !strings.HasPrefix(got[0], "GET /api/v1/namespaces/"+ns+"/services") {
		t.Errorf("Service requests of the up = %q, want one list of the namespace's Services", got)
	}
	noService := logs.Lines("WARN", string(u), "there is no Service")
	if len(noService) != 1 || !strings.Contains(noService[0], "Endpoints "+ns+"/orphan") {
		t.Errorf("no-Service warnings %q, want one, for Endpoints %s/orphan", noService, ns)
	}
	if got := logs.Lines("WARN", string(u), "WARN Endpoints "); len(got) != 3 {
		t.Errorf("%d warnings about items in all, want the selector's twice and the missing Service's once:\n%s",
			len(got), strings.Join(got, "\n"))
	}
}

// TestListItemWarningsInACrowdedNamespace: when the namespace holds many more Services
// than there are items (here 8 items among 170 Services), the first page of the list
// says so and the items' Services are looked up one by one instead.
func TestListItemWarningsInACrowdedNamespace(t *testing.T) {
	t.Parallel()
	px, srv := newProxiedProvider(t)
	ns := newNamespace(t)
	// Headless, so that they take no addresses from the control plane's small Service
	// range, which the package's other tests share.
	for i := range 170 {
		svc := &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("svc-%03d", i), Namespace: ns},
			Spec: corev1.ServiceSpec{
				ClusterIP: corev1.ClusterIPNone,
				Ports:     []corev1.ServicePort{{Name: "http", Port: 80, Protocol: corev1.ProtocolTCP}},
			},
		}
		if _, err := clientset(t).CoreV1().Services(ns).Create(t.Context(), svc, metav1.CreateOptions{}); err != nil {
			t.Fatalf("create Service %s/%s: %v", ns, svc.Name, err)
		}
	}
	var all []property.Map
	for i := range 7 {
		all = append(all, endpointsItem(ns, fmt.Sprintf("svc-%03d", i), fmt.Sprintf("10.0.7.%d", i+1), 80))
	}
	all = append(all, endpointsItem(ns, "orphan", "10.0.7.20", 80))
	u := urn(spec.EndpointsListToken, "crowded-"+ns)
	inputs := check(t, srv, u, property.Map{}, items(all...))

	px.take("")
	if _, err := srv.Create(p.CreateRequest{Urn: u, Properties: inputs, DryRun: true}); err != nil {
		t.Fatalf("preview: %v", err)
	}
	var gets int
	for _, r := range px.take("/services") {
		if strings.HasPrefix(r, "GET /api/v1/namespaces/"+ns+"/services/") {
			gets++
		}
	}
	if gets != len(all) {
		t.Errorf("%d Services looked up one by one, want %d", gets, len(all))
	}
	if got := logs.Lines("WARN", string(u), "WARN Endpoints "); len(got) != 0 {
		t.Errorf("the preview warned about items %q; want none (the missing Service may come with the program)", got)
	}
	if _, err := srv.Create(p.CreateRequest{Urn: u, Properties: inputs}); err != nil {
		t.Fatalf("up: %v", err)
	}
	if got := logs.Lines("WARN", string(u), "WARN Endpoints "); len(got) != 1 || !strings.Contains(got[0], "there is no Service "+ns+"/orphan") {
		t.Errorf("warnings about items %q, want one, that there is no Service %s/orphan", got, ns)
	}
}

// TestListUpdateWarnsOfAMissingServiceAtUpOnly: an item added by a change, whose
// Service the program may create in the same run, draws no warning at preview (Diff,
// then the Update the engine previews) and one at the update of `pulumi up`.
func TestListUpdateWarnsOfAMissingServiceAtUpOnly(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	srv := newProvider(t, nil, nil)
	createService(t, ns, "web", nil)
	u := urn(spec.EndpointsListToken, "addedItem-"+ns)
	olds := check(t, srv, u, property.Map{}, items(endpointsItem(ns, "web", "10.0.8.1", 80)))
	created, err := srv.Create(p.CreateRequest{Urn: u, Properties: olds})
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	news := check(t, srv, u, olds, items(endpointsItem(ns, "web", "10.0.8.1", 80), endpointsItem(ns, "api", "10.0.8.2", 80)))
	noService := "there is no Service " + ns + "/api (yet)"
	update := p.UpdateRequest{ID: created.ID, Urn: u, State: created.Properties, OldInputs: olds, Inputs: news, DryRun: true}
	for _, phase := range []string{"preview", "up"} {
		d, err := srv.Diff(p.DiffRequest{ID: created.ID, Urn: u, OldInputs: olds, State: created.Properties, Inputs: news})
		if err != nil || !d.HasChanges {
			t.Fatalf("%s: Diff = %+v, %v; want changes", phase, d, err)
		}
		update.DryRun = phase == "preview"
		if _, err := srv.Update(update); err != nil {
			t.Fatalf("%s: Update: %v", phase, err)
		}
		want := map[string]int{"preview": 0, "up": 1}[phase]
		if got := logs.Lines("WARN", string(u), noService); len(got) != want {
			t.Errorf("after the %s: %d warnings saying %q, want %d", phase, len(got), noService, want)
		}
	}
	if got := logs.Lines("WARN", string(u), "Endpoints "+ns+"/web"); len(got) != 0 {
		t.Errorf("the item with its Service drew warnings: %q", got)
	}
}

// TestRenderModeWarnsOfNoControllers: a render directory reaches no cluster, so a slice
// labelled as a controller's own draws no controller warning there, at its create nor
// at a change (Diff).
func TestRenderModeWarnsOfNoControllers(t *testing.T) {
	t.Parallel()
	srv := renderProvider(t, t.TempDir(), nil)
	u := urn(spec.EndpointSliceToken, "claimedRender")
	labelled := func(address string) property.Map {
		return sliceInputs("apps", "IPv4", address, 80).Set("metadata", property.New(obj("namespace", "apps",
			"name", "claimed", "labels", obj(kube.ManagedByLabel, sliceManager, discoveryv1.LabelServiceName, "web"))))
	}
	olds := check(t, srv, u, property.Map{}, labelled("10.0.5.1"))
	created, err := srv.Create(p.CreateRequest{Urn: u, Properties: olds})
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	news := check(t, srv, u, olds, labelled("10.0.5.2"))
	d, err := srv.Diff(p.DiffRequest{ID: created.ID, Urn: u, OldInputs: olds, State: created.Properties, Inputs: news})
	if err != nil || !d.HasChanges {
		t.Fatalf("Diff = %+v, %v; want changes", d, err)
	}
	if got := logs.Lines("WARN", string(u), "will overwrite or delete it"); len(got) != 0 {
		t.Errorf("render mode warned about controllers:\n%s", strings.Join(got, "\n"))
	}
}
