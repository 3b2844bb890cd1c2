package kube

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

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
