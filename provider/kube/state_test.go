package kube

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
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
			if diff := cmp.Diff(toObject(inputsOf(t, tt.want)), toObject(got)); diff != "" {
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
