package kube

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

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
			got := mapOf(metadataOf(liveInputs(endpointsKind, live, decoded{}).fields)[k.in])
			if diff := cmp.Diff(keys(k.onImport == asSet), got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("import (-want +got):\n%s", diff)
			}
			got = mapOf(metadataOf(liveInputs(endpointsKind, live, plain(object(true))).fields)[k.in])
			if diff := cmp.Diff(keys(k.onRefresh == asSet), got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("refresh of inputs that set it (-want +got):\n%s", diff)
			}
		})
	}
}

// Check rejects a program that sets a reserved key, naming it, and only those.
func TestReservedKeyFailures(t *testing.T) {
	t.Parallel()
	for _, k := range ownKeys {
		t.Run(k.in+"/"+k.key, func(t *testing.T) {
			t.Parallel()
			inputs := map[string]any{"metadata": map[string]any{k.in: map[string]any{k.key: "x", "app": "web"}}}
			var want []p.CheckFailure
			if k.reserved != "" {
				want = []p.CheckFailure{{Property: fmt.Sprintf("metadata.%s[%q]", k.in, k.key), Reason: k.reserved}}
			}
			if d := cmp.Diff(want, reservedKeyFailures(inputs)); d != "" {
				t.Errorf("failures (-want +got):\n%s", d)
			}
		})
	}
}

// An EndpointsList's Check rejects an item that sets a reserved key, naming the item,
// as an EndpointSlice's does: items carry the URN annotation that the run after an
// interrupted create trusts, so a program must not set another resource's URN on one.
func TestEndpointsListCheckRejectsReservedKeys(t *testing.T) {
	t.Parallel()
	const urn = resource.URN("urn:pulumi:dev::proj::endpoints:core/v1:EndpointsList::list")
	list := New(Config{Kubeconfig: filepath.Join(t.TempDir(), "no-kubeconfig")}).EndpointsList()
	other := "urn:pulumi:dev::proj::endpoints:core/v1:EndpointsList::other"
	inputs := inputsOf(t, `{"items":[`+
		`{"metadata":{"name":"a"},"subsets":[{"addresses":[{"ip":"10.0.0.1"}]}]},`+
		`{"metadata":{"name":"b","annotations":{"`+OwnerAnnotation+`":"`+other+`"},`+
		`"labels":{"`+CreateIDLabel+`":"x"}},"subsets":[{"addresses":[{"ip":"10.0.0.2"}]}]}]}`)
	resp, err := list.Check(t.Context(), p.CheckRequest{Urn: urn, Inputs: inputs})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range resp.Failures {
		got = append(got, f.Property)
	}
	want := []string{
		fmt.Sprintf("items[1].metadata.labels[%q]", CreateIDLabel),
		fmt.Sprintf("items[1].metadata.annotations[%q]", OwnerAnnotation),
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("failures (-want +got):\n%s", d)
	}
}

// An import of an object that pulumi-kubernetes wrote leaves out its autonamed
// annotation, which only pulumi-kubernetes reads, and keeps its managed-by label
// (client-side apply mode) and the labels and annotations its program set, as the
// object's own; a refresh after it keeps what the import kept.
func TestImportLeavesPulumiKubernetesBookkeeping(t *testing.T) {
	t.Parallel()
	live := &unstructured.Unstructured{Object: map[string]any{"metadata": map[string]any{
		"name": "web-a-1b2c3d4e", "namespace": "apps",
		"labels": map[string]any{"kubernetes.io/service-name": "web", "app.kubernetes.io/managed-by": "pulumi"},
		"annotations": map[string]any{
			"pulumi.com/autonamed":  "true",
			"pulumi.com/patchForce": "true",
			"example.com/owner":     "team-a",
		},
	}}}
	wantLabels := map[string]any{"kubernetes.io/service-name": "web", "app.kubernetes.io/managed-by": "pulumi"}
	wantAnnotations := map[string]any{"pulumi.com/patchForce": "true", "example.com/owner": "team-a"}
	imported := liveInputs(endpointSliceKind, live, decoded{})
	refreshed := liveInputs(endpointSliceKind, live, imported)
	for name, inputs := range map[string]decoded{"import": imported, "refresh after the import": refreshed} {
		meta := metadataOf(inputs.fields)
		if diff := cmp.Diff(wantLabels, meta["labels"]); diff != "" {
			t.Errorf("%s: labels (-want +got):\n%s", name, diff)
		}
		if diff := cmp.Diff(wantAnnotations, meta["annotations"]); diff != "" {
			t.Errorf("%s: annotations (-want +got):\n%s", name, diff)
		}
	}
}
