package lifecycle_test

import (
	"strings"
	"testing"

	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
)

// Preview never fails for what `up` would do: where the server cannot judge the object
// yet, the preview relies on Check's verdict; where it can, its verdict shows.
func TestPreviewWhereTheServerCannotJudgeYet(t *testing.T) {
	t.Parallel()
	srv := newProvider(t, nil, nil)
	ns := newNamespace(t)
	named := func(namespace, name, addressType, address string) property.Map {
		in := sliceInputs(namespace, addressType, address, 80)
		return in.Set("metadata", val(obj("namespace", namespace, "name", name)))
	}

	t.Run("a namespace the program creates", func(t *testing.T) {
		t.Parallel()
		missing := "not-yet-" + strings.ToLower(ns)
		for _, token := range []string{spec.EndpointSliceToken, spec.EndpointsListToken} {
			u := urn(token, "web")
			in := named(missing, "web", "IPv4", "10.0.0.1")
			if token == spec.EndpointsListToken {
				in = obj("items", list(obj("metadata", obj("name", "web", "namespace", missing),
					"subsets", list(obj("addresses", list(obj("ip", "10.0.0.1")))))))
			}
			inputs := check(t, srv, u, property.Map{}, in)
			if _, err := srv.Create(p.CreateRequest{Urn: u, Properties: inputs, DryRun: true}); err != nil {
				t.Errorf("%s: preview of a create in a namespace that does not exist yet: %v", token, err)
			}
			if _, err := srv.Create(p.CreateRequest{Urn: u, Properties: inputs}); err == nil ||
				!strings.Contains(err.Error(), "does not exist") {
				t.Errorf("%s: create in a missing namespace: err = %v, want the namespace named as missing", token, err)
			}
		}
	})

	t.Run("the replacement of a named slice", func(t *testing.T) {
		t.Parallel()
		u := urn(spec.EndpointSliceToken, "fixed")
		old := check(t, srv, u, property.Map{}, named(ns, "fixed", "IPv4", "10.0.0.1"))
		created, err := srv.Create(p.CreateRequest{Urn: u, Properties: old})
		if err != nil {
			t.Fatal(err)
		}
		news := check(t, srv, u, old, named(ns, "fixed", "IPv6", "fd00::1"))
		diff, err := srv.Diff(p.DiffRequest{Urn: u, ID: created.ID, OldInputs: old, State: created.Properties, Inputs: news})
		if err != nil || !diff.DeleteBeforeReplace {
			t.Fatalf("Diff = %+v, %v; want a delete-before-replace", diff, err)
		}
		// The engine previews the create of the replacement while the old slice holds
		// the name.
		preview, err := srv.Create(p.CreateRequest{Urn: u, Properties: news, DryRun: true})
		if err != nil {
			t.Fatalf("preview of the replacement: %v", err)
		}
		if got := getString(t, preview.Properties, "addressType"); got != "IPv6" {
			t.Errorf("preview addressType = %q, want IPv6", got)
		}
	})

	t.Run("a name held by somebody else's object", func(t *testing.T) {
		t.Parallel()
		if _, err := clientset(t).DiscoveryV1().EndpointSlices(ns).Create(t.Context(), &discoveryv1.EndpointSlice{
			ObjectMeta:  metav1.ObjectMeta{Name: "theirs"},
			AddressType: discoveryv1.AddressTypeIPv4,
		}, metav1.CreateOptions{FieldManager: "someone-else"}); err != nil {
			t.Fatal(err)
		}
		u := urn(spec.EndpointSliceToken, "theirs")
		inputs := check(t, srv, u, property.Map{}, named(ns, "theirs", "IPv4", "10.0.0.1"))
		_, err := srv.Create(p.CreateRequest{Urn: u, Properties: inputs, DryRun: true})
		if err == nil || !strings.Contains(err.Error(), "already exists") {
			t.Fatalf("preview over somebody else's object: err = %v, want the 409 up would meet", err)
		}
	})
}
