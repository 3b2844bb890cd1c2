package kube

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/endpoints-provider/pulumi-endpoints/provider/validate"
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
