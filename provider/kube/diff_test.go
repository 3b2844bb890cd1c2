package kube

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
)

// Check keeps an autoname exactly when Diff finds no replacement: both ask replacedBy.
func TestCheckKeepsAnAutonameUnlessTheChangeReplaces(t *testing.T) {
	t.Parallel()
	const urn = resource.URN("urn:pulumi:dev::proj::endpoints:discovery.k8s.io/v1:EndpointSlice::web")
	const autoname = "web-0a1b2c3d"
	olds := inputsOf(t, `{"metadata":{"name":"`+autoname+`","namespace":"apps","labels":{"a":"1"}},`+
		`"addressType":"IPv4","endpoints":[{"addresses":["10.0.0.1"]}],"ports":[{"port":80}]}`)
	tests := []struct {
		name, news string
		keep       bool
	}{
		{"no change", `{"addressType":"IPv4","endpoints":[{"addresses":["10.0.0.1"]}],"ports":[{"port":80}]}`, true},
		{"a port and a label", `{"metadata":{"labels":{"a":"2"}},"addressType":"IPv4","ports":[{"port":81}]}`, true},
		{"the namespace spelled out", `{"metadata":{"namespace":"apps"},"addressType":"IPv4"}`, true},
		{"the address type", `{"addressType":"IPv6","endpoints":[{"addresses":["::1"]}],"ports":[{"port":80}]}`, false},
		{"the namespace", `{"metadata":{"namespace":"web"},"addressType":"IPv4"}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			set, _, failures := assignMetadata(t.Context(), endpointSliceKind, urn, decodedOf(t, tt.news), decode(olds),
				"apps", "")
			if len(failures) > 0 {
				t.Fatalf("failures: %v", failures)
			}
			news := decode(withMetadata(inputsOf(t, tt.news), set)).fields
			name := set["name"]
			if kept := name == autoname; kept != tt.keep {
				t.Errorf("name %q: kept %v, want %v", name, kept, tt.keep)
			}
			replaced := false
			for _, c := range diffInputs(endpointSliceKind, decode(olds).fields, news).DetailedDiff {
				replaced = replaced || Replaces(c.Kind)
			}
			if replaced == tt.keep {
				t.Errorf("Diff replaces: %v, but Check kept the name: %v", replaced, tt.keep)
			}
		})
	}
}

func TestDiffInputs(t *testing.T) {
	t.Parallel()
	slice := func(addressType, name, port string) property.Map {
		return property.NewMap(map[string]property.Value{
			"addressType": property.New(addressType),
			"metadata": property.New(map[string]property.Value{
				"name": property.New(name), "namespace": property.New("default"),
			}),
			"ports": property.New([]property.Value{property.New(port)}),
		})
	}
	tests := []struct {
		name       string
		olds, news property.Map
		want       map[string]p.DiffKind
		dbr        bool
	}{
		{"no change", slice("IPv4", "a", "80"), slice("IPv4", "a", "80"), map[string]p.DiffKind{}, false},
		{"port", slice("IPv4", "a", "80"), slice("IPv4", "a", "81"), map[string]p.DiffKind{"ports": p.Update}, false},
		{"address type, same fixed name", slice("IPv4", "a", "80"), slice("IPv6", "a", "80"),
			map[string]p.DiffKind{"addressType": p.UpdateReplace}, true},
		{"address type and a new name", slice("IPv4", "a", "80"), slice("IPv6", "b", "80"),
			map[string]p.DiffKind{"addressType": p.UpdateReplace, "metadata.name": p.UpdateReplace}, false},
		{"secret and plain values compare by value", slice("IPv4", "a", "80"),
			slice("IPv4", "a", "80").Set("addressType", property.New("IPv4").WithSecret(true)), map[string]p.DiffKind{}, false},
		{"server defaults are no change", slice("IPv4", "a", "80").Delete("ports"),
			slice("IPv4", "a", "80").Set("ports", property.New(property.Null)), map[string]p.DiffKind{}, false},
		{"empty labels are no change", slice("IPv4", "a", "80"),
			slice("IPv4", "a", "80").Set("metadata", property.New(property.NewMap(map[string]property.Value{
				"name": property.New("a"), "namespace": property.New("default"), "labels": property.New(property.Map{}),
			}))), map[string]p.DiffKind{}, false},
		{"ports removed", slice("IPv4", "a", "80"), slice("IPv4", "a", "80").Delete("ports"),
			map[string]p.DiffKind{"ports": p.Delete}, false},
		{"ports added", slice("IPv4", "a", "80").Delete("ports"), slice("IPv4", "a", "80"),
			map[string]p.DiffKind{"ports": p.Add}, false},
		{"unknown is a change", slice("IPv4", "a", "80"),
			slice("IPv4", "a", "80").Set("ports", property.New(property.Computed)), map[string]p.DiffKind{"ports": p.Update}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := diffInputs(endpointSliceKind, decode(tt.olds).fields, decode(tt.news).fields)
			got := map[string]p.DiffKind{}
			for k, v := range d.DetailedDiff {
				got[k] = v.Kind
			}
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("detailed diff (-want +got):\n%s", diff)
			}
			if d.HasChanges != (len(tt.want) > 0) || d.DeleteBeforeReplace != tt.dbr {
				t.Errorf("HasChanges %v, DeleteBeforeReplace %v; want %v, %v", d.HasChanges, d.DeleteBeforeReplace,
					len(tt.want) > 0, tt.dbr)
			}
		})
	}
}
