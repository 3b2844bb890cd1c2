package lifecycle_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi-go-provider/integration"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/controlplane"
)

// The lifecycle on both ends of the window of Kubernetes minors the provider supports
// (validate.OldestMinor to validate.NewestMinor): every test here runs once against
// the newest minor's control plane and once against the oldest minor's API server
// (onBothEnds), with inputs as users write them.

// userSlice is an autonamed slice as users write it: endpoints of one address each,
// without conditions, and no ports.
func userSlice(ns, addressType string, addresses ...string) property.Map {
	endpoints := make([]any, len(addresses))
	for i, a := range addresses {
		endpoints[i] = obj("addresses", list(a))
	}
	return obj("metadata", obj("namespace", ns), "addressType", addressType, "endpoints", endpoints)
}

// userEndpoints is an EndpointsList item as users write it: one address, by its ip
// alone, and one port, by its number alone.
func userEndpoints(ns, name, ip string, port int) property.Map {
	return obj("metadata", obj("namespace", ns, "name", name),
		"subsets", list(obj("addresses", list(obj("ip", ip)), "ports", list(obj("port", port)))))
}

// previewAfterRefresh refreshes a resource (Read with its state and inputs) and
// previews the program after it as the engine does: Check with the read-back inputs
// as the olds, then Diff against the read-back state. It fails the test unless the
// object is still there and the preview shows no change; it returns the Read.
func previewAfterRefresh(t *testing.T, srv integration.Server, u resource.URN, id string, state, inputs,
	program property.Map,
) p.ReadResponse {
	t.Helper()
	read, err := srv.Read(p.ReadRequest{ID: id, Urn: u, Properties: state, Inputs: inputs})
	if err != nil || read.ID != id {
		t.Fatalf("refresh: Read = ID %q, %v; want %q", read.ID, err, id)
	}
	if d, err := srv.Diff(p.DiffRequest{ID: id, Urn: u, OldInputs: read.Inputs, State: read.Properties,
		Inputs: inputs}); err != nil || d.HasChanges {
		t.Errorf("the read-back state against the inputs: a diff %+v, %v; want none", d.DetailedDiff, err)
	}
	news := check(t, srv, u, read.Inputs, program)
	if d, err := srv.Diff(p.DiffRequest{ID: id, Urn: u, OldInputs: read.Inputs, State: read.Properties,
		Inputs: news}); err != nil || d.HasChanges {
		t.Errorf("the preview after the refresh: a diff %+v, %v; want none", d.DetailedDiff, err)
	}
	return read
}

// importQuietly imports the object id by its ID alone, as `pulumi import` does, and
// fails the test unless its inputs check cleanly and show no diff.
func importQuietly(t *testing.T, srv integration.Server, u resource.URN, id string) p.ReadResponse {
	t.Helper()
	imported, err := srv.Read(p.ReadRequest{ID: id, Urn: u})
	if err != nil || imported.ID != id {
		t.Fatalf("import: Read = ID %q, %v; want %q", imported.ID, err, id)
	}
	rechecked := check(t, srv, u, imported.Inputs, imported.Inputs)
	if d, err := srv.Diff(p.DiffRequest{ID: id, Urn: u, OldInputs: imported.Inputs, State: imported.Properties,
		Inputs: rechecked}); err != nil || d.HasChanges {
		t.Errorf("imported inputs checked again: a diff %+v, %v; want none", d.DetailedDiff, err)
	}
	return imported
}

// noReplacement fails the test if a Diff replaces the object.
func noReplacement(t *testing.T, d p.DiffResponse) {
	t.Helper()
	for path, change := range d.DetailedDiff {
		if change.Kind == p.AddReplace || change.Kind == p.UpdateReplace || change.Kind == p.DeleteReplace {
			t.Errorf("the change of %s replaces the object: %+v", path, d.DetailedDiff)
		}
	}
	if d.DeleteBeforeReplace {
		t.Errorf("an in-place change deletes before replacing: %+v", d)
	}
}

// Create, update, replace on addressType (slices), refresh with a quiet preview after
// it, import by ID alone and delete, for an EndpointSlice and an EndpointsList, on the
// newest and the oldest minor.
func TestLifecycleOnBothEnds(t *testing.T) {
	t.Parallel()
	onBothEnds(t, func(t *testing.T, cp *controlplane.ControlPlane) {
		t.Run("EndpointSlice", func(t *testing.T) {
			t.Parallel()
			sliceLifecycle(t, cp)
		})
		t.Run("EndpointsList", func(t *testing.T) {
			t.Parallel()
			listLifecycle(t, cp)
		})
	})
}

func sliceLifecycle(t *testing.T, cp *controlplane.ControlPlane) {
	srv, ns, api := newProviderOn(t, cp, nil), newNamespaceOn(t, cp), cp.Clientset().DiscoveryV1()
	u := urnOn(cp, spec.EndpointSliceToken, "webBackends")

	// Create.
	program := userSlice(ns, "IPv4", "10.0.0.1")
	inputs := check(t, srv, u, property.Map{}, program)
	name := getString(t, inputs, "metadata.name")
	if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 || !strings.HasPrefix(name, "webbackends-") {
		t.Errorf("the autoname of webBackends is %q, want webbackends-<suffix>, a valid object name: %v", name, errs)
	}
	created, err := srv.Create(p.CreateRequest{Urn: u, Properties: inputs})
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	if created.ID != ns+"/"+name {
		t.Errorf("ID = %q, want %s/%s", created.ID, ns, name)
	}
	live, err := api.EndpointSlices(ns).Get(t.Context(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("the slice is not on the server: %v", err)
	}
	if len(live.Endpoints) != 1 || !slices.Equal(live.Endpoints[0].Addresses, []string{"10.0.0.1"}) ||
		len(live.Ports) != 0 || live.AddressType != discoveryv1.AddressTypeIPv4 {
		t.Errorf("the server holds %+v, want one IPv4 endpoint 10.0.0.1 and no ports", live)
	}
	if got := getString(t, created.Properties, "metadata.uid"); got != string(live.UID) {
		t.Errorf("output uid %q, the server's %q", got, live.UID)
	}
	read := previewAfterRefresh(t, srv, u, created.ID, created.Properties, inputs, program)

	// Update in place: an endpoint and a port more.
	program = userSlice(ns, "IPv4", "10.0.0.1", "10.0.0.2").Set("ports", property.New([]property.Value{val(obj("port", 8080))}))
	newInputs := check(t, srv, u, read.Inputs, program)
	if got := getString(t, newInputs, "metadata.name"); got != name {
		t.Errorf("an update renames the slice %q to %q", name, got)
	}
	d, err := srv.Diff(p.DiffRequest{ID: created.ID, Urn: u, OldInputs: read.Inputs, State: read.Properties, Inputs: newInputs})
	if err != nil || !d.HasChanges || d.DetailedDiff["endpoints"].Kind != p.Update {
		t.Fatalf("Diff of an endpoint and a port more = %+v, %v; want an update of endpoints", d, err)
	}
	noReplacement(t, d)
	updated, err := srv.Update(p.UpdateRequest{ID: created.ID, Urn: u, State: read.Properties, OldInputs: read.Inputs,
		Inputs: newInputs})
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	live2, err := api.EndpointSlices(ns).Get(t.Context(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if live2.UID != live.UID || len(live2.Endpoints) != 2 || len(live2.Ports) != 1 || *live2.Ports[0].Port != 8080 {
		t.Errorf("after Update the server holds %+v (uid %s, was %s), want the same slice with 2 endpoints and port 8080",
			live2, live2.UID, live.UID)
	}
	read = previewAfterRefresh(t, srv, u, created.ID, updated.Properties, newInputs, program)

	// Replace on addressType: an autonamed slice is created first, under a new name,
	// and then the old one is deleted.
	program = userSlice(ns, "IPv6", "fd00::1")
	replacedInputs := check(t, srv, u, read.Inputs, program)
	d, err = srv.Diff(p.DiffRequest{ID: created.ID, Urn: u, OldInputs: read.Inputs, State: read.Properties,
		Inputs: replacedInputs})
	if err != nil || d.DetailedDiff["addressType"].Kind != p.UpdateReplace || d.DeleteBeforeReplace {
		t.Fatalf("Diff of a new addressType = %+v, %v; want a replacement, created first", d, err)
	}
	newName := getString(t, replacedInputs, "metadata.name")
	if newName == name {
		t.Fatalf("the replacement keeps the name %q of the slice it replaces", name)
	}
	replacement, err := srv.Create(p.CreateRequest{Urn: u, Properties: replacedInputs})
	if err != nil {
		t.Fatalf("Create of the replacement: %v", err)
	}
	if err := srv.Delete(p.DeleteRequest{ID: created.ID, Urn: u, Properties: read.Properties}); err != nil {
		t.Fatalf("Delete of the replaced slice: %v", err)
	}
	if _, err := api.EndpointSlices(ns).Get(t.Context(), name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the replaced slice %s: %v, want it gone", name, err)
	}
	live3, err := api.EndpointSlices(ns).Get(t.Context(), newName, metav1.GetOptions{})
	if err != nil || live3.AddressType != discoveryv1.AddressTypeIPv6 || live3.Endpoints[0].Addresses[0] != "fd00::1" {
		t.Fatalf("the replacement on the server: %+v, %v; want an IPv6 slice of fd00::1", live3, err)
	}
	read = previewAfterRefresh(t, srv, u, replacement.ID, replacement.Properties, replacedInputs, program)

	// Import by ID alone, under another name.
	imported := importQuietly(t, srv, urnOn(cp, spec.EndpointSliceToken, "importedBackends"), replacement.ID)
	if got := getString(t, imported.Inputs, "endpoints[0].addresses[0]"); got != "fd00::1" ||
		getString(t, imported.Inputs, "addressType") != "IPv6" {
		t.Errorf("imported inputs %v, want the IPv6 slice of fd00::1", imported.Inputs)
	}

	// Delete.
	if err := srv.Delete(p.DeleteRequest{ID: replacement.ID, Urn: u, Properties: read.Properties}); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	left, err := api.EndpointSlices(ns).List(t.Context(), metav1.ListOptions{})
	if err != nil || len(left.Items) != 0 {
		t.Errorf("after Delete the namespace holds %d slices (%v), want none", len(left.Items), err)
	}
	if gone, err := srv.Read(p.ReadRequest{ID: replacement.ID, Urn: u, Properties: read.Properties}); err != nil || gone.ID != "" {
		t.Errorf("Read of the deleted slice = ID %q, %v; want no ID, no error", gone.ID, err)
	}
}

func listLifecycle(t *testing.T, cp *controlplane.ControlPlane) {
	srv, ns, cs := newProviderOn(t, cp, nil), newNamespaceOn(t, cp), cp.Clientset()
	u := urnOn(cp, spec.EndpointsListToken, "legacyApi")
	liveIs := func(when string, want ...string) {
		t.Helper()
		if got := liveEndpointsIn(t, cs, ns); !slices.Equal(got, want) {
			t.Errorf("%s the server holds %v, want %v", when, got, want)
		}
	}

	// Create.
	program := items(userEndpoints(ns, "api", "10.0.1.1", 80), userEndpoints(ns, "db", "10.0.1.2", 5432))
	inputs := check(t, srv, u, property.Map{}, program)
	created, err := srv.Create(p.CreateRequest{Urn: u, Properties: inputs})
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	liveIs("after Create", ns+"/api=10.0.1.1:80", ns+"/db=10.0.1.2:5432")
	read := previewAfterRefresh(t, srv, u, created.ID, created.Properties, inputs, program)

	// Update in place, by identity: one item changes, one goes, one comes.
	program = items(userEndpoints(ns, "api", "10.0.1.1", 8080), userEndpoints(ns, "cache", "10.0.1.3", 6379))
	newInputs := check(t, srv, u, read.Inputs, program)
	d, err := srv.Diff(p.DiffRequest{ID: created.ID, Urn: u, OldInputs: read.Inputs, State: read.Properties, Inputs: newInputs})
	if err != nil || !d.HasChanges {
		t.Fatalf("Diff of changed items = %+v, %v; want changes", d, err)
	}
	noReplacement(t, d)
	updated, err := srv.Update(p.UpdateRequest{ID: created.ID, Urn: u, State: read.Properties, OldInputs: read.Inputs,
		Inputs: newInputs})
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	liveIs("after Update", ns+"/api=10.0.1.1:8080", ns+"/cache=10.0.1.3:6379")
	read = previewAfterRefresh(t, srv, u, created.ID, updated.Properties, newInputs, program)

	// Import by ID alone (every Endpoints of the namespace), under another name.
	imported := importQuietly(t, srv, urnOn(cp, spec.EndpointsListToken, "importedLegacyApi"), ns)
	if got := recordedEndpoints(t, imported.Inputs); !slices.Equal(got, []string{ns + "/api=10.0.1.1:8080", ns + "/cache=10.0.1.3:6379"}) {
		t.Errorf("imported items %v, want the two the list holds", got)
	}

	// Delete.
	if err := srv.Delete(p.DeleteRequest{ID: created.ID, Urn: u, Properties: read.Properties}); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	liveIs("after Delete")
}

// The v1 Endpoints deprecation is the API server's: shown (once per provider) where the
// server sends it, from 1.33, and hidden there by suppressDeprecationWarnings; on 1.32,
// which sends none, the provider shows none. The server's other warnings (an FQDN
// slice's) are shown on both ends, with suppressDeprecationWarnings too, so the
// warnings of either server do reach the provider's log.
func TestEndpointsDeprecationOnBothEnds(t *testing.T) {
	t.Parallel()
	onBothEnds(t, func(t *testing.T, cp *controlplane.ControlPlane) {
		minor, version := cp.Version()
		ns := newNamespaceOn(t, cp)
		for _, tc := range []struct {
			name     string
			suppress bool
		}{{"legacyApi", false}, {"quietLegacyApi", true}} {
			srv := newProviderOn(t, cp, map[string]property.Value{"suppressDeprecationWarnings": property.New(tc.suppress)})
			lu := urnOn(cp, spec.EndpointsListToken, tc.name)
			inputs := check(t, srv, lu, property.Map{}, items(
				userEndpoints(ns, strings.ToLower(tc.name)+"-a", "10.0.2.1", 80),
				userEndpoints(ns, strings.ToLower(tc.name)+"-b", "10.0.2.2", 80)))
			created, err := srv.Create(p.CreateRequest{Urn: lu, Properties: inputs})
			if err != nil {
				t.Fatalf("%s: Create: %v", tc.name, err)
			}
			if _, err := srv.Read(p.ReadRequest{ID: created.ID, Urn: lu, Properties: created.Properties, Inputs: inputs}); err != nil {
				t.Fatalf("%s: Read: %v", tc.name, err)
			}
			want := 0
			if minor >= 33 && !tc.suppress {
				want = 1
			}
			if n := deprecations(lu); n != want {
				t.Errorf("%s (suppressDeprecationWarnings %t) on Kubernetes %s: a create and a read showed the v1 "+
					"Endpoints deprecation %d times, want %d", tc.name, tc.suppress, version, n, want)
			}

			su := urnOn(cp, spec.EndpointSliceToken, tc.name+"Edge")
			sliceInputs := check(t, srv, su, property.Map{}, userSlice(ns, "FQDN", "edge.example.com"))
			if _, err := srv.Create(p.CreateRequest{Urn: su, Properties: sliceInputs}); err != nil {
				t.Fatalf("%s: Create of an FQDN slice: %v", tc.name, err)
			}
			if got := logs.Lines("WARN", "kubernetes API server: ", "FQDN endpoints are deprecated", string(su)); len(got) != 1 {
				t.Errorf("%s (suppressDeprecationWarnings %t) on Kubernetes %s: the server's FQDN warning shown %d times, "+
					"want once", tc.name, tc.suppress, version, len(got))
			}
		}
	})
}

// Node hints (hints.forNodes) where the server keeps them (1.34 and later) go to the
// server as written; where it drops them (1.32 does not know the field), Check leaves
// them out with a warning naming the field and the server's version, the slice is
// created without them (an endpoint whose hints were node hints alone has none), and a
// refresh, and the preview after it, show no change.
func TestEndpointSliceNodeHintsOnBothEnds(t *testing.T) {
	t.Parallel()
	onBothEnds(t, func(t *testing.T, cp *controlplane.ControlPlane) {
		minor, version := cp.Version()
		kept := minor >= 34
		srv, ns, api := newProviderOn(t, cp, nil), newNamespaceOn(t, cp), cp.Clientset().DiscoveryV1()
		u := urnOn(cp, spec.EndpointSliceToken, "nodeLocal")
		program := obj("metadata", obj("namespace", ns), "addressType", "IPv4", "endpoints", list(
			obj("addresses", list("10.0.0.40"), "nodeName", "node-a", "hints", obj(
				"forZones", list(obj("name", "zone-a")), "forNodes", list(obj("name", "node-a"), obj("name", "node-b")))),
			obj("addresses", list("10.0.0.41"), "nodeName", "node-b", "hints", obj(
				"forNodes", list(obj("name", "node-b")))),
		))
		inputs := check(t, srv, u, property.Map{}, program)
		warnings := logs.Warnings(u)
		for i := range 2 {
			field := fmt.Sprintf("endpoints[%d].hints.forNodes", i)
			warned := 0
			for _, w := range warnings {
				if strings.HasPrefix(w, field+": ") && strings.Contains(w, "Kubernetes "+version+" ") {
					warned++
				}
			}
			want := 1 // where the server drops them
			if kept {
				want = 0
			}
			if warned != want {
				t.Errorf("Check on Kubernetes %s: %d warnings on %s naming the server's version, want %d; "+
					"all the warnings: %q", version, warned, field, want, warnings)
			}
			if got := getPath(t, inputs, field); got.IsNull() == kept {
				t.Errorf("Check on Kubernetes %s: %s is in the inputs it returns: %t, want %t", version, field,
					!got.IsNull(), kept)
			}
		}
		if kept && len(warnings) != 0 {
			t.Errorf("Check on Kubernetes %s warned: %q, want no warning", version, warnings)
		}
		if got := getString(t, inputs, "endpoints[0].hints.forZones[0].name"); got != "zone-a" {
			t.Errorf("Check returns endpoints[0].hints.forZones[0].name = %q, want zone-a", got)
		}

		created, err := srv.Create(p.CreateRequest{Urn: u, Properties: inputs})
		if err != nil {
			t.Fatalf("Create: %v", err)
		}
		name := getString(t, inputs, "metadata.name")
		live, err := api.EndpointSlices(ns).Get(t.Context(), name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		want := []*discoveryv1.EndpointHints{
			{ForZones: []discoveryv1.ForZone{{Name: "zone-a"}}, ForNodes: []discoveryv1.ForNode{{Name: "node-a"}, {Name: "node-b"}}},
			{ForNodes: []discoveryv1.ForNode{{Name: "node-b"}}},
		}
		if !kept {
			want = []*discoveryv1.EndpointHints{{ForZones: []discoveryv1.ForZone{{Name: "zone-a"}}}, nil}
		}
		var got []*discoveryv1.EndpointHints
		for _, e := range live.Endpoints {
			if h := e.Hints; h != nil && len(h.ForZones) == 0 && len(h.ForNodes) == 0 {
				e.Hints = nil // empty hints are no hints
			}
			got = append(got, e.Hints)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("the hints the server holds on Kubernetes %s (-want +got):\n%s", version, diff)
		}
		if got := getPath(t, created.Properties, "endpoints[0].hints.forNodes"); got.IsNull() == kept {
			t.Errorf("outputs on Kubernetes %s: endpoints[0].hints.forNodes is there: %t, want %t", version, !got.IsNull(), kept)
		}

		read := previewAfterRefresh(t, srv, u, created.ID, created.Properties, inputs, program)
		if err := srv.Delete(p.DeleteRequest{ID: created.ID, Urn: u, Properties: read.Properties}); err != nil {
			t.Fatal(err)
		}
	})
}
