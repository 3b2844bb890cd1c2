package lifecycle_test

import (
	"strings"
	"testing"

	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/endpoints-provider/pulumi-endpoints/provider/kube"
	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
)

func sliceInputs(namespace, addressType, address string, port int) property.Map {
	meta := obj()
	if namespace != "" {
		meta = obj("namespace", namespace)
	}
	return obj(
		"metadata", meta,
		"addressType", addressType,
		"endpoints", list(obj("addresses", list(address), "conditions", obj("ready", true))),
		"ports", list(obj("name", "http", "port", port)),
	)
}

// The whole life of an autonamed slice: preview, create, read, update in place,
// refresh with drift, replace on addressType, delete.
func TestEndpointSliceLifecycle(t *testing.T) {
	t.Parallel()
	srv := newProvider(t, nil, nil)
	ns := newNamespace(t)
	cs := clientset(t)
	u := urn(spec.EndpointSliceToken, "web")

	inputs := check(t, srv, u, property.Map{}, sliceInputs(ns, "IPv4", "10.0.0.1", 80))
	name := getString(t, inputs, "metadata.name")
	if !strings.HasPrefix(name, "web-") || len(name) != len("web-")+8 {
		t.Errorf("autoname = %q, want web-<8 hex>", name)
	}
	if got := getString(t, inputs, "ports[0].protocol"); got != "TCP" {
		t.Errorf("Check did not default the protocol: %q", got)
	}

	// Preview: a server-side dry run creates nothing.
	preview, err := srv.Create(p.CreateRequest{Urn: u, Properties: inputs, DryRun: true})
	if err != nil {
		t.Fatalf("preview Create: %v", err)
	}
	if !getPath(t, preview.Properties, "metadata.uid").IsComputed() {
		t.Error("preview: uid should be unknown")
	}
	if _, err := cs.DiscoveryV1().EndpointSlices(ns).Get(t.Context(), name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("preview created the object (err=%v)", err)
	}

	created, err := srv.Create(p.CreateRequest{Urn: u, Properties: inputs})
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	if created.ID != ns+"/"+name {
		t.Errorf("ID = %q, want %s/%s", created.ID, ns, name)
	}
	live, err := cs.DiscoveryV1().EndpointSlices(ns).Get(t.Context(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("the slice is not in the cluster: %v", err)
	}
	for _, f := range []string{"uid", "resourceVersion", "creationTimestamp"} {
		if getString(t, created.Properties, "metadata."+f) == "" {
			t.Errorf("output metadata.%s is empty", f)
		}
	}
	if getString(t, created.Properties, "metadata.uid") != string(live.UID) {
		t.Error("output uid differs from the live object's")
	}

	// No spurious diff after a refresh of an unchanged object.
	read, err := srv.Read(p.ReadRequest{ID: created.ID, Urn: u, Properties: created.Properties, Inputs: inputs})
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	if d, _ := srv.Diff(p.DiffRequest{ID: created.ID, Urn: u, OldInputs: read.Inputs, State: read.Properties,
		Inputs: inputs}); d.HasChanges {
		t.Errorf("refresh of an unchanged object shows a diff: %+v", d.DetailedDiff)
	}

	// Update a port in place.
	updatedInputs := check(t, srv, u, inputs, sliceInputs(ns, "IPv4", "10.0.0.1", 8080))
	diff, err := srv.Diff(p.DiffRequest{ID: created.ID, Urn: u, OldInputs: inputs, State: created.Properties,
		Inputs: updatedInputs})
	if err != nil || !diff.HasChanges || diff.DetailedDiff["ports"].Kind != p.Update {
		t.Fatalf("Diff of a port change = %+v, %v; want an in-place update of ports", diff, err)
	}
	updated, err := srv.Update(p.UpdateRequest{ID: created.ID, Urn: u, State: created.Properties,
		OldInputs: inputs, Inputs: updatedInputs})
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	live2, _ := cs.DiscoveryV1().EndpointSlices(ns).Get(t.Context(), name, metav1.GetOptions{})
	if live2.UID != live.UID || *live2.Ports[0].Port != 8080 {
		t.Errorf("after Update: uid %s->%s, port %d; want same uid, port 8080", live.UID, live2.UID, *live2.Ports[0].Port)
	}

	// Drift: someone edits the slice; refresh shows it as a diff against the program.
	live2.Endpoints[0].Addresses = []string{"10.9.9.9"}
	if _, err := cs.DiscoveryV1().EndpointSlices(ns).Update(t.Context(), live2, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	refreshed, err := srv.Read(p.ReadRequest{ID: created.ID, Urn: u, Properties: updated.Properties, Inputs: updatedInputs})
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	if got := getString(t, refreshed.Inputs, "endpoints[0].addresses[0]"); got != "10.9.9.9" {
		t.Errorf("refreshed inputs show address %q, want the drifted 10.9.9.9", got)
	}
	drift, _ := srv.Diff(p.DiffRequest{ID: created.ID, Urn: u, OldInputs: refreshed.Inputs,
		State: refreshed.Properties, Inputs: updatedInputs})
	if drift.DetailedDiff["endpoints"].Kind != p.Update {
		t.Errorf("drift not shown as an update of endpoints: %+v", drift.DetailedDiff)
	}

	// addressType change replaces; an autonamed slice gets a new name, created first.
	replacedInputs := check(t, srv, u, updatedInputs, sliceInputs(ns, "IPv6", "fd00::1", 8080))
	replaceDiff, _ := srv.Diff(p.DiffRequest{ID: created.ID, Urn: u, OldInputs: updatedInputs,
		State: updated.Properties, Inputs: replacedInputs})
	if replaceDiff.DetailedDiff["addressType"].Kind != p.UpdateReplace || replaceDiff.DeleteBeforeReplace {
		t.Errorf("addressType diff = %+v (deleteBeforeReplace %v), want update&replace, create first",
			replaceDiff.DetailedDiff, replaceDiff.DeleteBeforeReplace)
	}
	newName := getString(t, replacedInputs, "metadata.name")
	if newName == name {
		t.Errorf("the replacement kept the name %q; it would collide with the object it replaces", name)
	}
	replacement, err := srv.Create(p.CreateRequest{Urn: u, Properties: replacedInputs})
	if err != nil {
		t.Fatalf("Create of the replacement: %v", err)
	}

	// Delete both, each with its own state (the delete is of the object with the
	// state's UID); each delete waits until the object is gone.
	for _, r := range []struct {
		id    string
		state property.Map
	}{{created.ID, updated.Properties}, {replacement.ID, replacement.Properties}} {
		if err := srv.Delete(p.DeleteRequest{ID: r.id, Urn: u, Properties: r.state}); err != nil {
			t.Fatalf("Delete %s: %v", r.id, err)
		}
	}
	slices, _ := cs.DiscoveryV1().EndpointSlices(ns).List(t.Context(), metav1.ListOptions{})
	if len(slices.Items) != 0 {
		t.Errorf("%d slices left after Delete", len(slices.Items))
	}
	// A vanished object reads as an empty ID, and deleting it again succeeds.
	gone, err := srv.Read(p.ReadRequest{ID: created.ID, Urn: u, Properties: created.Properties})
	if err != nil || gone.ID != "" {
		t.Errorf("Read of a deleted slice = %q, %v; want empty ID, no error", gone.ID, err)
	}
	if err := srv.Delete(p.DeleteRequest{ID: created.ID, Urn: u}); err != nil {
		t.Errorf("Delete of a missing slice: %v", err)
	}
}

// A fixed name can't be created before the old object is deleted, and the Diff (so the
// preview and the up) says what that costs and how to avoid it; a replacement under a
// new name says nothing.
func TestEndpointSliceFixedNameReplacesDeleteFirst(t *testing.T) {
	t.Parallel()
	srv := newProvider(t, nil, nil)
	ns := newNamespace(t)
	u := urn(spec.EndpointSliceToken, "dbSlice-"+ns)
	withName := func(in property.Map, name string) property.Map {
		return in.Set("metadata", property.New(obj("namespace", ns, "name", name)))
	}
	olds := check(t, srv, u, property.Map{}, withName(sliceInputs(ns, "IPv4", "10.0.0.1", 80), "db"))
	news := check(t, srv, u, olds, withName(sliceInputs(ns, "IPv6", "fd00::1", 80), "db"))
	d, _ := srv.Diff(p.DiffRequest{Urn: u, OldInputs: olds, Inputs: news})
	if !d.DeleteBeforeReplace {
		t.Errorf("DeleteBeforeReplace = false for a fixed-name replacement: %+v", d)
	}
	want := "EndpointSlice " + ns + "/db is replaced (addressType changes) and keeps its name, so the old slice " +
		"is deleted before the new one is created"
	if got := logs.Lines("WARN", string(u), want, "give it a new metadata.name", kube.ReplacingASliceGuide); len(got) != 1 {
		t.Errorf("%d warnings %q naming the guide, want 1; all for the resource:\n%s", len(got), want,
			strings.Join(logs.Lines("WARN", string(u)), "\n"))
	}

	renamed := check(t, srv, u, olds, withName(sliceInputs(ns, "IPv6", "fd00::1", 80), "db-v6"))
	if d, _ := srv.Diff(p.DiffRequest{Urn: u, OldInputs: olds, Inputs: renamed}); d.DeleteBeforeReplace || !d.HasChanges {
		t.Errorf("a replacement with a new name: %+v, want create-first", d)
	}
	if got := logs.Lines("WARN", string(u), "keeps its name"); len(got) != 1 {
		t.Errorf("a replacement with a new name warned; all the warnings:\n%s", strings.Join(got, "\n"))
	}
}

func TestEndpointSliceNeverAdoptsAndImports(t *testing.T) {
	t.Parallel()
	srv := newProvider(t, nil, nil)
	ns := newNamespace(t)
	cs := clientset(t)
	port, proto, portName := int32(443), corev1.ProtocolTCP, ""
	existing := &discoveryv1.EndpointSlice{
		ObjectMeta:  metav1.ObjectMeta{Name: "outside", Namespace: ns, Labels: map[string]string{"team": "a"}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{"10.1.1.1"}}},
		Ports:       []discoveryv1.EndpointPort{{Name: &portName, Port: &port, Protocol: &proto}},
	}
	if _, err := cs.DiscoveryV1().EndpointSlices(ns).Create(t.Context(), existing, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	u := urn(spec.EndpointSliceToken, "outside")
	inputs := check(t, srv, u, property.Map{},
		sliceInputs(ns, "IPv4", "10.0.0.1", 80).Set("metadata", property.New(obj("namespace", ns, "name", "outside"))))
	_, err := srv.Create(p.CreateRequest{Urn: u, Properties: inputs})
	if err == nil || !strings.Contains(err.Error(), "EndpointSlice "+ns+"/outside already exists") ||
		!strings.Contains(err.Error(), "pulumi import") {
		t.Errorf("Create over an existing object: err = %v, want a clear 'already exists' naming it", err)
	}

	// Import by namespace/name: the inputs describe the object, and checking them back
	// gives no diff.
	imported, err := srv.Read(p.ReadRequest{ID: ns + "/outside", Urn: u})
	if err != nil || imported.ID != ns+"/outside" {
		t.Fatalf("import Read = %q, %v", imported.ID, err)
	}
	if got := getString(t, imported.Inputs, "metadata.labels.team"); got != "a" {
		t.Errorf("imported label team = %q", got)
	}
	if imported.Inputs.Get("metadata").AsMap().Get("uid").IsString() {
		t.Error("imported inputs carry the server-owned uid")
	}
	rechecked := check(t, srv, u, imported.Inputs, imported.Inputs)
	if d, _ := srv.Diff(p.DiffRequest{ID: imported.ID, Urn: u, OldInputs: imported.Inputs, Inputs: rechecked}); d.HasChanges {
		t.Errorf("imported inputs checked again show a diff: %+v", d.DetailedDiff)
	}
}

// generateName: the server picks the name; the resource's ID and outputs carry it.
func TestEndpointSliceGenerateName(t *testing.T) {
	t.Parallel()
	srv := newProvider(t, nil, nil)
	ns := newNamespace(t)
	u := urn(spec.EndpointSliceToken, "generated")
	inputs := check(t, srv, u, property.Map{},
		sliceInputs(ns, "IPv4", "10.0.0.8", 80).Set("metadata", property.New(obj("namespace", ns, "generateName", "gen-"))))
	if getPath(t, inputs, "metadata.name").IsString() {
		t.Fatalf("Check assigned a name although generateName is set: %v", inputs)
	}
	created, err := srv.Create(p.CreateRequest{Urn: u, Properties: inputs})
	if err != nil {
		t.Fatal(err)
	}
	name := getString(t, created.Properties, "metadata.name")
	if !strings.HasPrefix(name, "gen-") || created.ID != ns+"/"+name {
		t.Errorf("generated name %q, ID %q", name, created.ID)
	}
	if _, err := clientset(t).DiscoveryV1().EndpointSlices(ns).Get(t.Context(), name, metav1.GetOptions{}); err != nil {
		t.Errorf("the generated slice is not in the cluster: %v", err)
	}
	// An update keeps the generated name; no diff on the name.
	again := check(t, srv, u, inputs, sliceInputs(ns, "IPv4", "10.0.0.9", 80).Set("metadata",
		property.New(obj("namespace", ns, "generateName", "gen-"))))
	d, _ := srv.Diff(p.DiffRequest{ID: created.ID, Urn: u, OldInputs: inputs, State: created.Properties, Inputs: again})
	if _, replaces := d.DetailedDiff["metadata.name"]; replaces || d.DeleteBeforeReplace {
		t.Errorf("diff after an address change touches the name: %+v", d.DetailedDiff)
	}
	if err := srv.Delete(p.DeleteRequest{ID: created.ID, Urn: u, Properties: created.Properties}); err != nil {
		t.Fatal(err)
	}
}
