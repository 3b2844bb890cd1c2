package e2e

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"

	"github.com/endpoints-provider/pulumi-endpoints/provider/kube"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/controlplane"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/toolchain"
)

// renderedProgram is the program of TestRenderedManifestIsTheClusterWrite: a named
// slice, a slice whose name the server generates and an EndpointsList item, every
// field the server would default given.
const renderedProgram = `name: docs-render
runtime: yaml
resources:
  named:
    type: endpoints:discovery.k8s.io/v1:EndpointSlice
    properties:
      metadata:
        namespace: %[1]s
        name: docs-render-named
        labels:
          kubernetes.io/service-name: web
      addressType: IPv4
      endpoints:
        - addresses: ["10.0.0.1"]
          conditions: {ready: true}
      ports:
        - name: http
          port: 80
          protocol: TCP
  generated:
    type: endpoints:discovery.k8s.io/v1:EndpointSlice
    properties:
      metadata:
        namespace: %[1]s
        generateName: docs-render-gen-
      addressType: IPv4
      endpoints:
        - addresses: ["10.0.0.2"]
          conditions: {ready: true}
  list:
    type: endpoints:core/v1:EndpointsList
    properties:
      items:
        - metadata:
            namespace: %[1]s
            name: docs-render-item
          subsets:
            - addresses:
                - ip: 10.0.0.3
              ports:
                - name: http
                  port: 80
                  protocol: TCP
`

// The render guide (docs/guides/render.md, "Files"): a manifest is the object the
// provider writes to a cluster less the URN annotation, on every object, and the
// create-id label, on a create whose name the server generates. The same program runs
// once rendering and once against the cluster; each manifest is compared with the
// live object, the fields only the server sets left out.
func TestRenderedManifestIsTheClusterWrite(t *testing.T) {
	t.Parallel()
	cp := controlplane.Shared(t)
	ns := cp.Namespace(t, "e2e")
	program := fmt.Sprintf(renderedProgram, ns)
	dir := t.TempDir()
	rendering := newStack(t, filepath.Join(t.TempDir(), "no-such-kubeconfig"), "PULUMI_ENDPOINTS_RENDER_DIRECTORY="+dir)
	rendering.init(program)
	rendering.Run("up", "--yes", "--non-interactive")
	onCluster := newStack(t, cp.KubeconfigPath())
	onCluster.init(program)
	onCluster.Run("up", "--yes", "--non-interactive")

	dyn, err := dynamic.NewForConfig(cp.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	slices := schema.GroupVersionResource{Group: "discovery.k8s.io", Version: "v1", Resource: "endpointslices"}
	endpoints := schema.GroupVersionResource{Version: "v1", Resource: "endpoints"}
	generated := liveGenerated(t, dyn.Resource(slices).Namespace(ns), "docs-render-gen-")
	for _, c := range []struct {
		file      string
		live      *unstructured.Unstructured
		clusterOf []string // the keys only the cluster write adds: label or annotation
	}{
		{"discovery.k8s.io_v1-EndpointSlice-" + ns + "-docs-render-named.yaml",
			liveObject(t, dyn.Resource(slices).Namespace(ns), "docs-render-named"), []string{"annotation " + kube.OwnerAnnotation}},
		{"discovery.k8s.io_v1-EndpointSlice-" + ns + "-" + renderedName(t, dir, ns) + ".yaml",
			generated, []string{"annotation " + kube.OwnerAnnotation, "label " + kube.CreateIDLabel}},
		{"v1-Endpoints-" + ns + "-docs-render-item.yaml",
			liveObject(t, dyn.Resource(endpoints).Namespace(ns), "docs-render-item"), []string{"annotation " + kube.OwnerAnnotation}},
	} {
		var manifest map[string]any
		if err := yaml.Unmarshal([]byte(toolchain.ReadFile(t, filepath.Join(dir, c.file))), &manifest); err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		live := writtenFields(t, c.live.Object)
		for _, key := range c.clusterOf {
			where, name, _ := strings.Cut(key, " ")
			field := map[string]string{"annotation": "annotations", "label": "labels"}[where]
			if _, ok := nestedMap(live, "metadata", field)[name]; !ok {
				t.Errorf("%s: the object on the cluster has no %s", c.file, key)
			}
			if _, ok := nestedMap(manifest, "metadata", field)[name]; ok {
				t.Errorf("%s: the manifest has the %s", c.file, key)
			}
			delete(nestedMap(live, "metadata", field), name)
		}
		dropEmpty(live)
		if c.live == generated { // the server picked one name, render mode another
			delete(nestedMap(live, "metadata"), "name")
			delete(nestedMap(manifest, "metadata"), "name")
		}
		if diff := cmp.Diff(live, manifest); diff != "" {
			t.Errorf("%s against the object on the cluster, the cluster's own keys left out (-cluster +manifest):\n%s", c.file, diff)
		}
	}
	onCluster.Run("destroy", "--yes", "--non-interactive")
}

// liveObject reads the object of that name.
func liveObject(t *testing.T, api dynamic.ResourceInterface, name string) *unstructured.Unstructured {
	t.Helper()
	obj, err := api.Get(t.Context(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return obj
}

// liveGenerated reads the one object whose name the server generated from prefix.
func liveGenerated(t *testing.T, api dynamic.ResourceInterface, prefix string) *unstructured.Unstructured {
	t.Helper()
	list, err := api.List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var found []unstructured.Unstructured
	for _, obj := range list.Items {
		if strings.HasPrefix(obj.GetName(), prefix) {
			found = append(found, obj)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d objects named %s*, want 1", len(found), prefix)
	}
	return &found[0]
}

// renderedName is the name render mode picked for the generated slice, from its file.
func renderedName(t *testing.T, dir, ns string) string {
	t.Helper()
	prefix := "discovery.k8s.io_v1-EndpointSlice-" + ns + "-"
	for _, f := range toolchain.FileNames(t, dir) {
		if name, ok := strings.CutPrefix(f, prefix+"docs-render-gen-"); ok {
			return "docs-render-gen-" + strings.TrimSuffix(name, ".yaml")
		}
	}
	t.Fatalf("no manifest of the generated slice in %v", toolchain.FileNames(t, dir))
	return ""
}

// writtenFields is a copy of a live object, numbers as YAML decodes them, without the
// fields only the server sets and the null fields it spells out (a slice's `ports`).
func writtenFields(t *testing.T, obj map[string]any) map[string]any {
	t.Helper()
	data, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	meta := nestedMap(out, "metadata")
	for _, k := range []string{"uid", "resourceVersion", "creationTimestamp", "generation", "managedFields"} {
		delete(meta, k)
	}
	for k, v := range out {
		if v == nil {
			delete(out, k)
		}
	}
	return out
}

// nestedMap returns the map at path in obj, or an empty map that is not part of obj.
func nestedMap(obj map[string]any, path ...string) map[string]any {
	for _, k := range path {
		next, _ := obj[k].(map[string]any)
		if next == nil {
			return map[string]any{}
		}
		obj = next
	}
	return obj
}

// dropEmpty removes the metadata's labels and annotations once nothing is left in them.
func dropEmpty(obj map[string]any) {
	meta := nestedMap(obj, "metadata")
	for _, k := range []string{"labels", "annotations"} {
		if m, ok := meta[k].(map[string]any); ok && len(m) == 0 {
			delete(meta, k)
		}
	}
}
