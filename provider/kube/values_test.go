package kube

import (
	"encoding/json"
	"os"
	"slices"
	"testing"

	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/common/tokens"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
	"sigs.k8s.io/yaml"

	"github.com/endpoints-provider/pulumi-endpoints/provider/internal/propertytest"
)

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

// secretFields are the top-level fields of m that are secret, and the metadata keys
// ("metadata.labels"), sorted.
func secretFields(m property.Map) map[string]bool {
	out := map[string]bool{}
	for k, v := range m.All {
		if v.Secret() {
			out[k] = true
		} else if k == "metadata" && v.IsMap() {
			for mk, mv := range v.AsMap().All {
				if mv.Secret() {
					out["metadata."+mk] = true
				}
			}
		}
	}
	return out
}

// editManifest changes the manifest at path as another client would.
func editManifest(t *testing.T, path string, edit func(obj map[string]any)) {
	t.Helper()
	data, err := os.ReadFile(path) //nolint:gosec // the test's own directory
	if err != nil {
		t.Fatal(err)
	}
	var obj map[string]any
	if err := yaml.Unmarshal(data, &obj); err != nil {
		t.Fatal(err)
	}
	edit(obj)
	if data, err = yaml.Marshal(obj); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// A program's secret values stay secret past the lifecycle's edge, by field: a secret
// anywhere in a field (endpoints, a metadata key, a list's items) makes the whole field
// secret in the outputs, the state and the inputs a refresh reads back, whatever
// another client did to the positions in between (the first endpoint removed, so the
// secret address is the first; the items read back in another order). A manifest
// that holds secrets is its owner's alone to read.
func TestSecretsStaySecret(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	k := New(Config{RenderDirectory: dir})
	ctx := t.Context()

	sliceURN := resource.NewURN("dev", "p", "", tokens.Type(endpointSliceKind.token), "web")
	inputs := inputsWithSecrets(t, `{"metadata":{"name":"web","namespace":"n","labels":{"team":{"$secret":"a"},"app":"w"},`+
		`"annotations":{"note":"plain"}},"addressType":"IPv4","endpoints":[{"addresses":["10.0.0.1"]},`+
		`{"addresses":[{"$secret":"10.0.0.2"}]}]}`)
	created, err := k.EndpointSlice().Create(ctx, p.CreateRequest{Urn: sliceURN, Properties: inputs})
	if err != nil {
		t.Fatal(err)
	}
	manifest := RenderTarget{Directory: dir}.file(endpointSliceKind, objectID{namespace: "n", name: "web"})
	if info, err := os.Stat(manifest); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("the manifest of a slice with secrets: %v, %v; want it readable by its owner alone (0600)", info, err)
	}
	editManifest(t, manifest, func(obj map[string]any) {
		obj["endpoints"] = obj["endpoints"].([]any)[1:]
	})
	read, err := k.EndpointSlice().Read(ctx, p.ReadRequest{ID: created.ID, Urn: sliceURN,
		Properties: created.Properties, Inputs: inputs})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"endpoints": true, "metadata.labels": true}
	for name, m := range map[string]property.Map{"outputs": created.Properties, "refreshed state": read.Properties,
		"refreshed inputs": read.Inputs} {
		if got := secretFields(m); !equalSets(got, want) {
			t.Errorf("%s: the secret fields are %v, want %v", name, got, want)
		}
	}

	listURN := resource.NewURN("dev", "p", "", tokens.Type(endpointsKind.token), "set")
	items := inputsWithSecrets(t, `{"items":{"$secret":[`+
		`{"metadata":{"name":"zeta","namespace":"n"},"subsets":[{"addresses":[{"ip":"10.0.1.1"}]}]},`+
		`{"metadata":{"name":"alpha","namespace":"n"},"subsets":[{"addresses":[{"ip":"10.0.1.2"}]}]}]}}`)
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
		if got := secretFields(m); !equalSets(got, map[string]bool{"items": true}) {
			t.Errorf("%s: the secret fields are %v, want items alone", name, got)
		}
	}
}

func equalSets(a, b map[string]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}

// A slice's ID spells out its name and namespace, which nothing marks secret: Check
// warns when the program marks either secret.
func TestSecretInID(t *testing.T) {
	t.Parallel()
	tests := map[string][]string{
		`{"metadata":{"name":"web","namespace":"n"}}`:                            nil,
		`{"metadata":{"name":{"$secret":"web"},"namespace":"n"}}`:                {"metadata.name"},
		`{"metadata":{"$secret":{"generateName":"web-","namespace":"n"}}}`:       {"metadata.namespace", "metadata.generateName"},
		`{"metadata":{"name":"web","labels":{"$secret":{"a":"b"}}}}`:             nil,
		`{"metadata":{"name":"web"},"endpoints":{"$secret":[{"addresses":[]}]}}`: nil,
	}
	for doc, want := range tests {
		if got := secretInID(inputsWithSecrets(t, doc)); !slices.Equal(got, want) {
			t.Errorf("secretInID(%s) = %v, want %v", doc, got, want)
		}
	}
}
