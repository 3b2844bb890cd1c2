package kube

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/endpoints-provider/pulumi-endpoints/provider/validate"
)

func liveObject(t *testing.T, doc string) *unstructured.Unstructured {
	t.Helper()
	var obj map[string]any
	if err := json.Unmarshal([]byte(doc), &obj); err != nil {
		t.Fatal(err)
	}
	return &unstructured.Unstructured{Object: obj}
}

func inputsOf(t *testing.T, doc string) property.Map {
	t.Helper()
	var obj map[string]any
	if err := json.Unmarshal([]byte(doc), &obj); err != nil {
		t.Fatal(err)
	}
	return fromObject(obj)
}

// TestLiveInputsProjection: on refresh, what the server defaulted stays as the program
// wrote it; what changed out of band shows, without server defaults.
func TestLiveInputsProjection(t *testing.T) {
	t.Parallel()
	const meta = `"metadata":{"name":"web","namespace":"n"}`
	tests := []struct {
		name      string
		k         kind
		old, live string
		want      string
	}{
		{
			name: "server defaults stay left out",
			k:    endpointSliceKind,
			old:  `{` + meta + `,"addressType":"IPv4","endpoints":[{"addresses":["10.0.0.1"]}]}`,
			live: `{"metadata":{"name":"web","namespace":"n","uid":"u","resourceVersion":"7"},"addressType":"IPv4",` +
				`"endpoints":[{"addresses":["10.0.0.1"],"conditions":{}}],"ports":null}`,
			want: `{` + meta + `,"addressType":"IPv4","endpoints":[{"addresses":["10.0.0.1"]}]}`,
		},
		{
			name: "drift shows without server defaults",
			k:    endpointSliceKind,
			old:  `{` + meta + `,"addressType":"IPv4","endpoints":[{"addresses":["10.0.0.1"]}],"ports":[{"port":80}]}`,
			live: `{` + meta + `,"addressType":"IPv4","endpoints":[{"addresses":["10.0.0.1"],"conditions":{}}],` +
				`"ports":[{"port":81,"name":"","protocol":"TCP"}]}`,
			want: `{` + meta + `,"addressType":"IPv4","endpoints":[{"addresses":["10.0.0.1"]}],"ports":[{"port":81}]}`,
		},
		{
			name: "Endpoints packing kept as written",
			k:    endpointsKind,
			old: `{` + meta + `,"subsets":[{"addresses":[{"ip":"10.0.0.2"}],"ports":[{"port":80}]},` +
				`{"addresses":[{"ip":"10.0.0.1"}],"ports":[{"port":80}]}]}`,
			live: `{` + meta + `,"subsets":[{"addresses":[{"ip":"10.0.0.1"},{"ip":"10.0.0.2"}],` +
				`"ports":[{"port":80,"protocol":"TCP"}]}]}`,
			want: `{` + meta + `,"subsets":[{"addresses":[{"ip":"10.0.0.2"}],"ports":[{"port":80}]},` +
				`{"addresses":[{"ip":"10.0.0.1"}],"ports":[{"port":80}]}]}`,
		},
		{
			name: "import leaves server defaults out",
			k:    endpointSliceKind,
			old:  `{}`,
			live: `{"metadata":{"name":"web","namespace":"n","uid":"u"},"addressType":"IPv4",` +
				`"endpoints":[{"addresses":["10.0.0.1"],"conditions":{}}],"ports":null}`,
			want: `{` + meta + `,"addressType":"IPv4","endpoints":[{"addresses":["10.0.0.1"]}]}`,
		},
		{
			name: "refresh keeps only the labels and annotations the program wrote",
			k:    endpointsKind,
			old:  `{"metadata":{"name":"web","namespace":"n","labels":{"app":"web"},"annotations":{"a":"1"}}}`,
			live: `{"metadata":{"name":"web","namespace":"n","labels":{"app":"web","` + ManagedByLabel + `":"` + ManagedBy + `",` +
				`"endpointslice.kubernetes.io/skip-mirror":"true"},"annotations":{"a":"1",` +
				`"endpoints.kubernetes.io/last-change-trigger-time":"2026-01-01T00:00:00Z"}}}`,
			want: `{"metadata":{"name":"web","namespace":"n","labels":{"app":"web"},"annotations":{"a":"1"}}}`,
		},
		{
			name: "import leaves the provider's managed-by label and the controllers' annotations out",
			k:    endpointSliceKind,
			old:  `{}`,
			live: `{"metadata":{"name":"web","namespace":"n","labels":{"app":"web","` + ManagedByLabel + `":"` + ManagedBy + `"},` +
				`"annotations":{"endpoints.kubernetes.io/last-change-trigger-time":"2026-01-01T00:00:00Z"}},"addressType":"IPv4"}`,
			want: `{"metadata":{"name":"web","namespace":"n","labels":{"app":"web"}},"addressType":"IPv4"}`,
		},
		{
			name: "import keeps another manager's managed-by label",
			k:    endpointSliceKind,
			old:  `{}`,
			live: `{"metadata":{"name":"web","namespace":"n","labels":{"` + ManagedByLabel + `":"` + mirroringController + `"}},` +
				`"addressType":"IPv4"}`,
			want: `{"metadata":{"name":"web","namespace":"n","labels":{"` + ManagedByLabel + `":"` + mirroringController + `"}},` +
				`"addressType":"IPv4"}`,
		},
		{
			name: "a name picked by Check stays with generateName",
			k:    endpointsKind,
			old:  `{"metadata":{"generateName":"web-","name":"web-x2b4c","namespace":"n"}}`,
			live: `{"metadata":{"generateName":"web-","name":"web-x2b4c","namespace":"n"}}`,
			want: `{"metadata":{"generateName":"web-","name":"web-x2b4c","namespace":"n"}}`,
		},
		{
			name: "a name picked by the server does not",
			k:    endpointSliceKind,
			old:  `{"metadata":{"generateName":"web-","namespace":"n"},"addressType":"IPv4"}`,
			live: `{"metadata":{"generateName":"web-","name":"web-x2b4c","namespace":"n"},"addressType":"IPv4"}`,
			want: `{"metadata":{"generateName":"web-","namespace":"n"},"addressType":"IPv4"}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := liveInputs(tt.k, liveObject(t, tt.live), inputsOf(t, tt.old))
			if diff := cmp.Diff(validate.PlainMap(inputsOf(t, tt.want)), validate.PlainMap(got)); diff != "" {
				t.Errorf("liveInputs (-want +got):\n%s", diff)
			}
			if tt.old != `{}` {
				return
			}
			// Imported inputs, written into a program, show no change.
			if d := diffInputs(tt.k, got, inputsOf(t, tt.want)); d.HasChanges {
				t.Errorf("imported inputs differ from the program: %v", d.DetailedDiff)
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
			d := diffInputs(endpointSliceKind, tt.olds, tt.news)
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

func TestOutputsLeaveOutTheOwnersURN(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		annotations map[string]any
		want        map[string]any
	}{
		{"the URN alone: no annotations", map[string]any{OwnerAnnotation: "urn:pulumi:dev::p::t::web"}, nil},
		{"the program's kept", map[string]any{OwnerAnnotation: "urn:pulumi:dev::p::t::web", "team": "a"},
			map[string]any{"team": "a"}},
		{"none", nil, nil},
	}
	for _, tt := range tests {
		meta := map[string]any{"name": "web", "namespace": "apps", "managedFields": []any{map[string]any{"manager": "x"}}}
		if tt.annotations != nil {
			meta["annotations"] = tt.annotations
		}
		obj := &unstructured.Unstructured{Object: map[string]any{"metadata": meta, "addressType": "IPv4"}}
		got := validate.Plain(outputs(endpointSliceKind, obj).Get("metadata")).(map[string]any)
		want := map[string]any{"name": "web", "namespace": "apps"}
		if tt.want != nil {
			want["annotations"] = tt.want
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%s: outputs' metadata (-want +got):\n%s", tt.name, d)
		}
		if _, kept := tt.annotations[OwnerAnnotation]; kept && obj.GetAnnotations()[OwnerAnnotation] == "" {
			t.Errorf("%s: outputs changed the live object", tt.name)
		}
	}
}
