package lifecycle_test

import (
	"fmt"
	"strings"
	"testing"

	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi-go-provider/integration"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/controlplane"
)

// plainAt lists the paths at which m holds the string s outside a secret.
func plainAt(m property.Map, s string) []string {
	var out []string
	var walk func(v property.Value, path string)
	walk = func(v property.Value, path string) {
		switch {
		case v.Secret():
		case v.IsString() && v.AsString() == s:
			out = append(out, path)
		case v.IsMap():
			for k, e := range v.AsMap().All {
				walk(e, path+"."+k)
			}
		case v.IsArray():
			for i, e := range v.AsArray().All {
				walk(e, fmt.Sprintf("%s[%d]", path, i))
			}
		}
	}
	walk(property.New(m), "")
	return out
}

// holdsSecretly tells whether m holds the string s, inside a secret.
func holdsSecretly(m property.Map, s string) bool {
	found := false
	var walk func(v property.Value)
	walk = func(v property.Value) {
		switch {
		case v.IsString() && v.AsString() == s:
			found = true
		case v.IsMap():
			for _, e := range v.AsMap().All {
				walk(e)
			}
		case v.IsArray():
			for _, e := range v.AsArray().All {
				walk(e)
			}
		}
	}
	walk(property.New(m))
	return found && len(plainAt(m, s)) == 0
}

// The case, as a user meets it: a slice whose second endpoint's address is
// secret, and a list whose items are secret, created; then another client removes the
// slice's first endpoint (kubectl patch --type=json, remove /endpoints/0) and adds an
// address to the list's Endpoints, and the user refreshes. The refreshed state and
// inputs hold the secret address, and the list's, only inside a secret (they held them
// in plain text, at endpoints[0].addresses[0] and in items[0]).
func TestSecretsStaySecretAfterAnotherClientsEdit(t *testing.T) {
	t.Parallel()
	onBothEnds(t, func(t *testing.T, cp *controlplane.ControlPlane) {
		srv := newProviderOn(t, cp, nil)
		ns := newNamespaceOn(t, cp)
		secretSliceRefreshed(t, srv, cp, ns)
		secretListRefreshed(t, srv, cp, ns)
	})
}

// secretSliceRefreshed is the slice of TestSecretsStaySecretAfterAnotherClientsEdit.
func secretSliceRefreshed(t *testing.T, srv integration.Server, cp *controlplane.ControlPlane, ns string) {
	t.Helper()
	const hidden = "10.0.0.2"
	su := urnOn(cp, spec.EndpointSliceToken, "secret-web")
	sliceIn := check(t, srv, su, property.Map{}, obj(
		"metadata", obj("name", "secret-web", "namespace", ns),
		"addressType", "IPv4",
		"endpoints", list(obj("addresses", list("10.0.0.1")), obj("addresses", list(property.New(hidden).WithSecret(true)))),
		"ports", list(obj("name", "http", "port", 80)),
	))
	slice, err := srv.Create(p.CreateRequest{Urn: su, Properties: sliceIn})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cp.Clientset().DiscoveryV1().EndpointSlices(ns).Patch(t.Context(), "secret-web", types.JSONPatchType,
		[]byte(`[{"op":"remove","path":"/endpoints/0"}]`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	read, err := srv.Read(p.ReadRequest{ID: slice.ID, Urn: su, Properties: slice.Properties, Inputs: sliceIn})
	if err != nil {
		t.Fatal(err)
	}
	for name, m := range map[string]property.Map{"created state": slice.Properties,
		"refreshed state": read.Properties, "refreshed inputs": read.Inputs} {
		if !holdsSecretly(m, hidden) {
			t.Errorf("slice: the %s holds %s in plain text at %v; want it inside a secret", name, hidden,
				plainAt(m, hidden))
		}
	}
}

// secretListRefreshed is the list of TestSecretsStaySecretAfterAnotherClientsEdit:
// its items are secret, and another client adds an address before its own.
func secretListRefreshed(t *testing.T, srv integration.Server, cp *controlplane.ControlPlane, ns string) {
	t.Helper()
	const listed = "10.0.1.1"
	lu := urnOn(cp, spec.EndpointsListToken, "secret-set")
	listIn := check(t, srv, lu, property.Map{}, obj("items",
		property.New([]property.Value{property.New(endpointsItem(ns, "db", listed, 5432))}).WithSecret(true)))
	set, err := srv.Create(p.CreateRequest{Urn: lu, Properties: listIn})
	if err != nil {
		t.Fatal(err)
	}
	api := cp.Clientset().CoreV1().Endpoints(ns)
	live, err := api.Get(t.Context(), "db", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	live.Subsets[0].Addresses = append([]corev1.EndpointAddress{{IP: "10.0.1.9"}}, live.Subsets[0].Addresses...)
	if _, err := api.Update(t.Context(), live, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	refreshed, err := srv.Read(p.ReadRequest{ID: set.ID, Urn: lu, Properties: set.Properties, Inputs: listIn})
	if err != nil {
		t.Fatal(err)
	}
	for name, m := range map[string]property.Map{"created state": set.Properties,
		"refreshed state": refreshed.Properties, "refreshed inputs": refreshed.Inputs} {
		if !holdsSecretly(m, listed) {
			t.Errorf("list: the %s holds %s in plain text at %v; want it inside a secret", name, listed,
				plainAt(m, listed))
		}
	}
}

// The API server's warnings quote the address they warn of (an IPv6 address not in
// RFC 5952's form, in an Endpoints object, draws one on the newest minor); a secret
// address is logged as [secret], and so is the canonical form the warning suggests.
func TestServerWarningsSayNoSecret(t *testing.T) {
	t.Parallel()
	srv := newProvider(t, nil, nil)
	ns := newNamespace(t)
	const hidden, canonical = "2001:db8:0:0::1", "2001:db8::1"
	u := urn(spec.EndpointsListToken, "warned-"+ns)
	item := obj("metadata", obj("name", "v6", "namespace", ns), "subsets", list(obj(
		"addresses", list(obj("ip", property.New(hidden).WithSecret(true))),
		"ports", list(obj("name", "http", "port", 80)))))
	inputs := check(t, srv, u, property.Map{}, items(item))
	if _, err := srv.Create(p.CreateRequest{Urn: u, Properties: inputs}); err != nil {
		t.Fatal(err)
	}
	var quoted, server []string
	for _, w := range logs.Warnings(u) {
		if strings.Contains(w, hidden) || strings.Contains(w, canonical) {
			quoted = append(quoted, w)
		}
		if strings.Contains(w, "kubernetes API server:") && strings.Contains(w, "[secret]") {
			server = append(server, w)
		}
	}
	if len(quoted) > 0 || len(server) == 0 {
		t.Errorf("warnings quoting the secret address: %q; server warnings saying [secret]: %q; want none and "+
			"some; the resource's warnings: %q", quoted, server, logs.Warnings(u))
	}
	if lines := logs.Lines(hidden); len(lines) > 0 {
		t.Errorf("the log quotes the secret address: %q", lines)
	}
}
