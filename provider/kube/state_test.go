package kube

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
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

// TestDefaultLabels: slices are written with the provider's managed-by label unless the
// inputs set one; Endpoints get none.
func TestDefaultLabels(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		k      kind
		inputs string
		want   map[string]string
	}{
		{name: "slice without labels", k: endpointSliceKind, inputs: `{"metadata":{"name":"a"}}`,
			want: map[string]string{ManagedByLabel: ManagedBy}},
		{name: "slice with other labels", k: endpointSliceKind, inputs: `{"metadata":{"labels":{"app":"web"}}}`,
			want: map[string]string{"app": "web", ManagedByLabel: ManagedBy}},
		{name: "slice without metadata", k: endpointSliceKind, inputs: `{"addressType":"IPv4"}`,
			want: map[string]string{ManagedByLabel: ManagedBy}},
		{name: "the user's manager wins", k: endpointSliceKind,
			inputs: `{"metadata":{"labels":{"` + ManagedByLabel + `":"my-controller"}}}`,
			want:   map[string]string{ManagedByLabel: "my-controller"}},
		{name: "Endpoints", k: endpointsKind, inputs: `{"metadata":{"labels":{"app":"web"}}}`,
			want: map[string]string{"app": "web"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			obj := tt.k.object(inputsOf(t, tt.inputs))
			if diff := cmp.Diff(tt.want, obj.GetLabels()); diff != "" {
				t.Errorf("labels (-want +got):\n%s", diff)
			}
		})
	}
}

// TestManagedByWarning: a slice labelled as a controller's own draws a warning naming
// the controller; any other manager none.
func TestManagedByWarning(t *testing.T) {
	t.Parallel()
	tests := []struct {
		manager string
		want    string // part of the warning; "" for none
	}{
		{manager: endpointSliceController, want: "the EndpointSlice controller takes it for one of its own"},
		{manager: mirroringController, want: "the EndpointSlice mirroring controller takes it for one of its own"},
		{manager: ManagedBy},
		{manager: "my-controller"},
	}
	for _, tt := range tests {
		t.Run(tt.manager, func(t *testing.T) {
			t.Parallel()
			obj := endpointSliceKind.object(inputsOf(t,
				`{"metadata":{"namespace":"n","generateName":"web-","labels":{"`+ManagedByLabel+`":"`+tt.manager+`"}}}`))
			got := managedByWarning(obj)
			switch {
			case tt.want == "" && got != "":
				t.Errorf("warning %q, want none", got)
			case tt.want != "" && !strings.Contains(got, tt.want):
				t.Errorf("warning %q, want one saying %q", got, tt.want)
			case tt.want != "" && !strings.Contains(got, "EndpointSlice n/web-*"):
				t.Errorf("warning %q does not name the slice n/web-*", got)
			}
		})
	}
}

// Every key of ownKeys is what the table says on import and on refresh; the program's
// own keys beside it are kept.
func TestOwnKeysReadBack(t *testing.T) {
	t.Parallel()
	for _, k := range ownKeys {
		t.Run(k.in+"/"+k.key, func(t *testing.T) {
			t.Parallel()
			value := k.value
			if value == "" {
				value = "x"
			}
			keys := func(own bool) map[string]any {
				m := map[string]any{"app": "web"}
				if own {
					m[k.key] = value
				}
				return m
			}
			object := func(own bool) map[string]any {
				return map[string]any{"metadata": map[string]any{"name": "web", "namespace": "n", k.in: keys(own)}}
			}
			live := &unstructured.Unstructured{Object: object(true)}
			got := mapField(mapField(liveInputs(endpointsKind, live, property.Map{}), "metadata"), k.in)
			if diff := cmp.Diff(keys(k.onImport == asSet), validate.PlainMap(got)); diff != "" {
				t.Errorf("import (-want +got):\n%s", diff)
			}
			got = mapField(mapField(liveInputs(endpointsKind, live, fromObject(object(true))), "metadata"), k.in)
			if diff := cmp.Diff(keys(k.onRefresh == asSet), validate.PlainMap(got)); diff != "" {
				t.Errorf("refresh of inputs that set it (-want +got):\n%s", diff)
			}
		})
	}
}
