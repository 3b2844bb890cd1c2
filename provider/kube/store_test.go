package kube

import (
	"encoding/json"
	"testing"

	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/google/go-cmp/cmp"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/endpoints-provider/pulumi-endpoints/provider/validate"
)

// TestInvalidIDsSayTheForm checks that an ID of the wrong form names the kind and
// shows the right form with an example.
func TestInvalidIDsSayTheForm(t *testing.T) {
	t.Parallel()
	sliceForm := "an EndpointSlice ID is <namespace>/<name>, such as default/web-1a2b3c (a bare name means the provider's namespace); " +
		"an EndpointsList's ID is <namespace>?labelSelector=<selector>, such as default?labelSelector=app%3Dweb"
	tests := []struct {
		name, id string
		parse    func(id string) error
		want     string
	}{
		{"slice ID with two slashes", "apps/web/1", sliceID, `invalid EndpointSlice ID "apps/web/1": ` + sliceForm},
		{"slice ID without a name", "apps/", sliceID, `invalid EndpointSlice ID "apps/": ` + sliceForm},
		{"slice ID without a namespace", "/web", sliceID, `invalid EndpointSlice ID "/web": ` + sliceForm},
		{"list ID of a slice's form", "apps/web", listID, `invalid EndpointsList ID "apps/web": an EndpointsList's ID is ` +
			"<namespace>?labelSelector=<selector>, such as default?labelSelector=app%3Dweb (every Endpoints of the namespace " +
			"that the selector matches); <namespace>/<name> is one EndpointSlice's ID"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := tt.parse(tt.id)
			if err == nil || err.Error() != tt.want {
				t.Errorf("parsing %q: error %v, want %s", tt.id, err, tt.want)
			}
		})
	}
}

func sliceID(id string) error {
	_, err := parseObjectID(endpointSliceKind, id, "fallback")
	return err
}

func listID(id string) error {
	_, _, err := parseImportID(id, "fallback")
	return err
}

// liveObject is the object of doc as client-go decodes an answer (integers as int64).
func liveObject(t *testing.T, doc string) *unstructured.Unstructured {
	t.Helper()
	var obj map[string]any
	if err := utiljson.Unmarshal([]byte(doc), &obj); err != nil {
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

// fromObject is an object as the engine's property values.
func fromObject(obj map[string]any) property.Map { return validate.EncodeMap(obj) }

// fieldsOf is doc decoded as a lifecycle decodes its inputs.
func fieldsOf(t *testing.T, doc string) map[string]any {
	t.Helper()
	return decode(inputsOf(t, doc)).fields
}

// decodedOf is doc decoded as a lifecycle decodes its inputs, with its secrets.
func decodedOf(t *testing.T, doc string) decoded {
	t.Helper()
	return decode(inputsOf(t, doc))
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
			got := liveInputs(tt.k, liveObject(t, tt.live), decodedOf(t, tt.old)).fields
			if diff := cmp.Diff(fieldsOf(t, tt.want), got); diff != "" {
				t.Errorf("liveInputs (-want +got):\n%s", diff)
			}
			if tt.old != `{}` {
				return
			}
			// Imported inputs, written into a program, show no change.
			if d := diffInputs(tt.k, got, fieldsOf(t, tt.want)); d.HasChanges {
				t.Errorf("imported inputs differ from the program: %v", d.DetailedDiff)
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
		got := metadataOf(outputs(endpointSliceKind, obj))
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

// TestTheStoreIsChosenAtEachCall checks that render mode is the choice of store, made
// from the settings in force at each call: a render directory's store has no cluster
// layer, never reports the cluster down and builds no client; a cluster's has one.
func TestTheStoreIsChosenAtEachCall(t *testing.T) {
	t.Parallel()
	k := New(Config{RenderDirectory: t.TempDir(), Namespace: "rendered"})
	st := k.slice.open("urn")
	if _, ok := onCluster(st); ok {
		t.Fatalf("open with a render directory = %T, want the render directory's store", st)
	}
	if ns, err := st.ready(t.Context()); err != nil || ns != "rendered" {
		t.Errorf("ready = %q, %v, want the settings' namespace", ns, err)
	}
	r := Wrap(k.slice).(reachability)
	if r.down(t.Context()) {
		t.Error("a render directory is down")
	}
	k.Configure(Config{Kubeconfig: "/nonexistent/kubeconfig"})
	st = k.slice.open("urn")
	if _, ok := onCluster(st); !ok {
		t.Fatalf("open without a render directory = %T, want the cluster's store", st)
	}
	if _, err := st.ready(t.Context()); err == nil {
		t.Error("the cluster's store is ready without a kubeconfig")
	}
}
