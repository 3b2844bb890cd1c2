package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/pulumi/pulumi/sdk/v3/go/property"
)

// keys lists a map's keys, sorted.
func keys(m property.Map) []string {
	var ks []string
	for k := range m.All {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// The shaped floor must leave what the provider's EndpointSlice leaves for the bench's
// slices: the inputs with the generated name and default protocol, and outputs with
// the server's metadata, the managed-by label, the URN annotation and endpoint
// conditions.
func TestShapedStateIsTheProviderShape(t *testing.T) {
	t.Parallel()
	in := property.NewMap(map[string]property.Value{
		"metadata":    property.New(property.NewMap(map[string]property.Value{"namespace": property.New("bench-x")})),
		"addressType": property.New("IPv4"),
		"endpoints": property.New(property.NewArray([]property.Value{property.New(property.NewMap(map[string]property.Value{
			"addresses": property.New(property.NewArray([]property.Value{property.New("10.3.0.1")})),
		}))})),
		"ports": property.New(property.NewArray([]property.Value{property.New(property.NewMap(map[string]property.Value{
			"name": property.New("http"), "port": property.New(80.0),
		}))})),
	})
	checked := shapedInputs("s0001", in)
	name := checked.Get("metadata").AsMap().Get("name").AsString()
	if !strings.HasPrefix(name, "s0001-") || len(name) != len("s0001-")+8 {
		t.Errorf("generated name %q, want s0001- and 8 hexadecimal digits", name)
	}
	if again := shapedInputs("s0001", in).Get("metadata").AsMap().Get("name").AsString(); again != name {
		t.Errorf("the generated name changed between checks: %q, then %q", name, again)
	}
	if got := checked.Get("ports").AsArray().Get(0).AsMap().Get("protocol"); !got.IsString() || got.AsString() != "TCP" {
		t.Errorf("port protocol %v, want the default TCP", got)
	}

	out := shapedOutputs(checked)
	meta := out.Get("metadata").AsMap()
	want := []string{"creationTimestamp", "generation", "labels", "name", "namespace", "resourceVersion", "uid"}
	if got := keys(meta); !slices.Equal(got, want) {
		t.Errorf("output metadata keys %v, want %v", got, want)
	}
	if got := keys(out.Get("endpoints").AsArray().Get(0).AsMap()); !slices.Equal(got, []string{"addresses", "conditions"}) {
		t.Errorf("output endpoint keys %v, want addresses and conditions", got)
	}
	if again := shapedOutputs(checked).Get("metadata").AsMap(); again.Get("uid").Equals(meta.Get("uid")) ||
		again.Get("resourceVersion").Equals(meta.Get("resourceVersion")) {
		t.Error("two creates got the same uid or resourceVersion")
	}
}
