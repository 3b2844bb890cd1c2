package kube

import (
	"encoding/json"
	"testing"

	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/common/tokens"
	"github.com/pulumi/pulumi/sdk/v3/go/property"

	"github.com/endpoints-provider/pulumi-endpoints/provider/internal/propertytest"
)

// field is the value under keys in x, a value propertytest.Marked gave, where an int
// key indexes a list (nil when there is none).
func field(x any, keys ...any) any {
	for _, k := range keys {
		if i, ok := k.(int); ok {
			list, _ := x.([]any)
			x = list[i]
			continue
		}
		if m, ok := x.(map[string]any); ok && propertytest.IsSecret(m) {
			x = m["$secret"]
		}
		m, _ := x.(map[string]any)
		x = m[k.(string)]
	}
	return x
}

// inputsWithSecrets are the property values of doc, JSON whose {"$secret": v} are
// secrets (see propertytest).
func inputsWithSecrets(t *testing.T, doc string) property.Map {
	t.Helper()
	var x any
	if err := json.Unmarshal([]byte(doc), &x); err != nil {
		t.Fatal(err)
	}
	v, err := propertytest.FromJSON(x)
	if err != nil {
		t.Fatal(err)
	}
	return v.AsMap()
}

// A program's secret values stay secret past the lifecycle's edge, where the inputs
// are decoded: in a slice's outputs, in the state and inputs a refresh reads back, and
// in a list's state and inputs, each item's own, whatever order the items come in.
func TestSecretsStaySecret(t *testing.T) {
	t.Parallel()
	k := New(Config{RenderDirectory: t.TempDir()})
	ctx := t.Context()

	sliceURN := resource.NewURN("dev", "p", "", tokens.Type(endpointSliceKind.token), "web")
	inputs := inputsWithSecrets(t, `{"metadata":{"name":"web","namespace":"n","labels":{"team":{"$secret":"a"},"app":"w"}},`+
		`"addressType":"IPv4","endpoints":[{"addresses":[{"$secret":"10.0.0.1"}]}]}`)
	created, err := k.EndpointSlice().Create(ctx, p.CreateRequest{Urn: sliceURN, Properties: inputs})
	if err != nil {
		t.Fatal(err)
	}
	read, err := k.EndpointSlice().Read(ctx, p.ReadRequest{ID: created.ID, Urn: sliceURN,
		Properties: created.Properties, Inputs: inputs})
	if err != nil {
		t.Fatal(err)
	}
	for name, m := range map[string]property.Map{"outputs": created.Properties, "refreshed state": read.Properties,
		"refreshed inputs": read.Inputs} {
		marked := propertytest.MarkedMap(m)
		if v := field(marked, "metadata", "labels", "team"); !propertytest.IsSecret(v) {
			t.Errorf("%s: metadata.labels.team = %v, want a secret", name, v)
		}
		if v := field(marked, "endpoints", 0, "addresses", 0); !propertytest.IsSecret(v) {
			t.Errorf("%s: endpoints[0].addresses[0] = %v, want a secret", name, v)
		}
		if v := field(marked, "metadata", "labels", "app"); v != "w" {
			t.Errorf("%s: metadata.labels.app = %v, want \"w\" as the program gave it", name, v)
		}
	}

	listURN := resource.NewURN("dev", "p", "", tokens.Type(endpointsKind.token), "set")
	items := inputsWithSecrets(t, `{"items":[`+
		`{"metadata":{"name":"zeta","namespace":"n"},"subsets":[{"addresses":[{"ip":"10.0.0.1"}]}]},`+
		`{"metadata":{"name":"alpha","namespace":"n","annotations":{"token":{"$secret":"t"}}},`+
		`"subsets":[{"addresses":[{"ip":"10.0.0.2"}]}]}]}`)
	list, err := k.EndpointsList().Create(ctx, p.CreateRequest{Urn: listURN, Properties: items})
	if err != nil {
		t.Fatal(err)
	}
	refreshed, err := k.EndpointsList().Read(ctx, p.ReadRequest{ID: list.ID, Urn: listURN, Properties: list.Properties,
		Inputs: items})
	if err != nil {
		t.Fatal(err)
	}
	for name, m := range map[string]property.Map{"state": list.Properties, "refreshed state": refreshed.Properties,
		"refreshed inputs": refreshed.Inputs} {
		marked := propertytest.MarkedMap(m)
		for i := range 2 {
			token := field(marked, "items", i, "metadata", "annotations", "token")
			if named := field(marked, "items", i, "metadata", "name"); (named == "alpha") != propertytest.IsSecret(token) {
				t.Errorf("%s: items[%d] (%s) has token %v: want a secret on alpha alone", name, i, named, token)
			}
		}
	}
}
