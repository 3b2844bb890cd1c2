package kube

import (
	"strings"
	"testing"

	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
	"k8s.io/client-go/rest"
)

func TestLookupTellsGetAndImportFromRefresh(t *testing.T) {
	t.Parallel()
	null := property.New(property.Null)
	recorded := property.NewMap(map[string]property.Value{
		"metadata": property.New(map[string]property.Value{"name": property.New("web")}),
	})
	tests := []struct {
		name string
		req  p.ReadRequest
		want bool
	}{
		{"import: the ID alone", p.ReadRequest{ID: "apps/web"}, true},
		{"get with null properties", p.ReadRequest{ID: "apps/web",
			Properties: property.NewMap(map[string]property.Value{"metadata": null, "items": null}),
			Inputs:     property.NewMap(map[string]property.Value{"metadata": null, "items": null})}, true},
		{"refresh: the recorded state", p.ReadRequest{ID: "apps/web", Properties: recorded, Inputs: recorded}, false},
		{"refresh of a got resource: state, no inputs", p.ReadRequest{ID: "apps/web", Properties: recorded}, false},
	}
	for _, tt := range tests {
		if got := lookup(tt.req); got != tt.want {
			t.Errorf("%s: lookup = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestNotFoundNamesTheObjectAndTheCluster(t *testing.T) {
	t.Parallel()
	o := kindClient{kind: endpointSliceKind, client: &Client{REST: &rest.Config{Host: "https://10.9.8.7:6443"}, Namespace: "apps"}}
	for raw, want := range map[string][]string{
		"apps/web": {"EndpointSlice apps/web does not exist on the Kubernetes API server https://10.9.8.7:6443 (404)"},
		"web": {"EndpointSlice apps/web does not exist", `the ID "web" names no namespace`,
			`provider's namespace "apps"`},
	} {
		id, err := parseObjectID(endpointSliceKind, raw, o.client.Namespace)
		if err != nil {
			t.Fatal(err)
		}
		msg := o.notFound(raw, id).Error()
		for _, w := range want {
			if !strings.Contains(msg, w) {
				t.Errorf("notFound(%q) = %q, want it to contain %q", raw, msg, w)
			}
		}
	}
}
