package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/controlplane"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/toolchain"
)

// driftProgram is a named slice with two endpoints and a port, and an EndpointsList of
// one item, each with a label and an annotation of the program's; %[1]s is the
// namespace.
const driftProgram = `name: e2e-drift
runtime: yaml
resources:
  slice:
    type: endpoints:discovery.k8s.io/v1:EndpointSlice
    properties:
      metadata:
        name: web-1
        namespace: %[1]s
        labels:
          app: web
        annotations:
          owner: program
      addressType: IPv4
      endpoints:
        - addresses: ["10.0.0.1"]
        - addresses: ["10.0.0.2"]
      ports:
        - name: http
          port: 80
  list:
    type: endpoints:core/v1:EndpointsList
    properties:
      items:
        - metadata:
            name: legacy
            namespace: %[1]s
            labels:
              app: legacy
          subsets:
            - addresses:
                - ip: 10.0.1.1
              ports:
                - name: http
                  port: 8080
`

// With refreshBeforeUpdate on (here in the stack's configuration), a change another
// client makes is put back by a plain `pulumi up`, with no --refresh anywhere: the
// preview shows it as the update that puts it back, and up does, for a slice's port
// and endpoint, a deleted slice and an EndpointsList item. What the other client adds
// beside the program's (labels, annotations) stays and shows no diff. After each,
// refresh, preview and up find nothing to do.
func TestDriftPutBackByPlainUp(t *testing.T) {
	t.Parallel()
	cp := controlplane.Shared(t)
	ns := cp.Namespace(t, "drift")
	s := newStack(t, cp.KubeconfigPath())
	s.init(fmt.Sprintf(driftProgram, ns), "endpoints:refreshBeforeUpdate", "true")
	s.Run("up", "--yes", "--non-interactive")
	if marked := refreshMarked(t, s); !slices.Equal(marked, []string{"list", "slice"}) {
		t.Fatalf("the state marks %v for refresh before update, want list and slice", marked)
	}
	sliceAPI, endpointsAPI := cp.Clientset().DiscoveryV1().EndpointSlices(ns), cp.Clientset().CoreV1().Endpoints(ns)

	phase(t, "a port changed and an endpoint removed are previewed as the update that puts them back", func() {
		editObject(t, sliceAPI, "web-1", func(slice *discoveryv1.EndpointSlice) {
			*slice.Ports[0].Port = 81
			slice.Endpoints = slice.Endpoints[:1]
		})
		diffs := previewDiffs(s)
		if got := diffs["slice"]; !got.refreshed || !slices.Equal(got.ops, []string{"update"}) ||
			!hasPrefixes(got.paths, "ports", "endpoints") {
			t.Errorf("preview: the slice %+v, want it read back and an update of ports and endpoints", got)
		}
		if got := diffs["list"]; !got.refreshed || len(got.ops) != 0 {
			t.Errorf("preview: the untouched list %+v, want it read back and nothing else", got)
		}
		s.Run("up", "--yes", "--non-interactive")
		slice, err := sliceAPI.Get(t.Context(), "web-1", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if port := *slice.Ports[0].Port; port != 80 || len(slice.Endpoints) != 2 {
			t.Errorf("after up, the slice has port %d and %d endpoints, want port 80 and two endpoints",
				port, len(slice.Endpoints))
		}
		expectQuietUp(s)
	})

	phase(t, "a deleted slice is created again", func() {
		if err := sliceAPI.Delete(t.Context(), "web-1", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		if got := previewDiffs(s)["slice"]; !slices.Equal(got.ops, []string{"create"}) {
			t.Errorf("preview: the deleted slice %+v, want it created", got)
		}
		s.Run("up", "--yes", "--non-interactive")
		if _, err := sliceAPI.Get(t.Context(), "web-1", metav1.GetOptions{}); err != nil {
			t.Errorf("after up, the deleted slice: %v", err)
		}
		expectQuietUp(s)
	})

	phase(t, "an EndpointsList item edited by hand is put back", func() {
		editObject(t, endpointsAPI, "legacy", func(item *corev1.Endpoints) { item.Subsets[0].Addresses[0].IP = "10.0.1.9" })
		s.Run("up", "--yes", "--non-interactive")
		item, err := endpointsAPI.Get(t.Context(), "legacy", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if ip := item.Subsets[0].Addresses[0].IP; ip != "10.0.1.1" {
			t.Errorf("after up, the item's address is %s, want 10.0.1.1", ip)
		}
		expectQuietUp(s)
	})

	phase(t, "labels and annotations another client added stay and show no diff", func() {
		editObject(t, sliceAPI, "web-1", func(slice *discoveryv1.EndpointSlice) { addOthers(&slice.ObjectMeta) })
		editObject(t, endpointsAPI, "legacy", func(item *corev1.Endpoints) { addOthers(&item.ObjectMeta) })
		s.Run("preview", "--non-interactive", "--diff", "--expect-no-changes")
		s.Run("up", "--yes", "--non-interactive", "--expect-no-changes")
		slice, err := sliceAPI.Get(t.Context(), "web-1", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		item, err := endpointsAPI.Get(t.Context(), "legacy", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, meta := range []metav1.ObjectMeta{slice.ObjectMeta, item.ObjectMeta} {
			if meta.Labels["other.example/team"] != "ops" || meta.Annotations["other.example/note"] != "kept" {
				t.Errorf("after up, %s has labels %v and annotations %v, want the other client's kept",
					meta.Name, meta.Labels, meta.Annotations)
			}
		}
		expectQuietUp(s)
	})
	s.Run("destroy", "--yes", "--non-interactive")
}

// In render mode, with refreshBeforeUpdate on (here by its environment variable), a
// hand edit of a manifest is put back by a plain `pulumi up`.
func TestDriftPutBackInRenderDirectory(t *testing.T) {
	t.Parallel()
	s := newStack(t, filepath.Join(t.TempDir(), "no-such-kubeconfig"), "PULUMI_ENDPOINTS_REFRESH_BEFORE_UPDATE=true")
	s.init(fmt.Sprintf(driftProgram, "apps"), "endpoints:renderDirectory", "manifests")
	s.Run("up", "--yes", "--non-interactive")
	file := filepath.Join(s.Dir, "manifests", "discovery.k8s.io_v1-EndpointSlice-apps-web-1.yaml")
	edited := strings.Replace(toolchain.ReadFile(t, file), "port: 80", "port: 81", 1)
	if err := os.WriteFile(file, []byte(edited), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := previewDiffs(s)["slice"]; !slices.Equal(got.ops, []string{"update"}) || !hasPrefixes(got.paths, "ports") {
		t.Errorf("preview: the edited manifest's slice %+v, want an update of ports", got)
	}
	s.Run("up", "--yes", "--non-interactive")
	if text := toolchain.ReadFile(t, file); strings.Contains(text, "port: 81") || !strings.Contains(text, "port: 80") {
		t.Errorf("up did not put the manifest back:\n%s", text)
	}
	expectQuietUp(s)
	s.Run("destroy", "--yes", "--non-interactive")
}

// With refreshBeforeUpdate off (the default), drift stays through a plain `pulumi up`:
// nothing is marked, the preview finds nothing to do, and only a refresh brings the
// change into the state, for the next up to put back. Turned on as the docs say, a
// plain up puts drift back; turned off again, the marks go as the docs say.
func TestDriftStaysWithRefreshBeforeUpdateOff(t *testing.T) {
	t.Parallel()
	cp := controlplane.Shared(t)
	ns := cp.Namespace(t, "drift")
	s := newStack(t, cp.KubeconfigPath())
	s.init(fmt.Sprintf(driftProgram, ns))
	s.Run("up", "--yes", "--non-interactive")
	if marked := refreshMarked(t, s); len(marked) != 0 {
		t.Errorf("with the setting off, the state marks %v for refresh before update", marked)
	}
	sliceAPI := cp.Clientset().DiscoveryV1().EndpointSlices(ns)
	port := func() int32 {
		slice, err := sliceAPI.Get(t.Context(), "web-1", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return *slice.Ports[0].Port
	}
	editObject(t, sliceAPI, "web-1", func(slice *discoveryv1.EndpointSlice) { *slice.Ports[0].Port = 81 })
	s.Run("preview", "--non-interactive", "--expect-no-changes")
	s.Run("up", "--yes", "--non-interactive", "--expect-no-changes")
	if got := port(); got != 81 {
		t.Errorf("with the setting off, a plain up changed the port to %d", got)
	}
	s.Run("refresh", "--yes", "--non-interactive")
	s.Run("up", "--yes", "--non-interactive")
	if got := port(); got != 80 {
		t.Errorf("after refresh and up, the port is %d, want 80", got)
	}
	expectQuietUp(s)

	phase(t, "turned on for a stack, as the docs say: config set, up, refresh", func() {
		s.Run("config", "set", "endpoints:refreshBeforeUpdate", "true")
		s.Run("up", "--yes", "--non-interactive")
		s.Run("refresh", "--yes", "--non-interactive")
		if marked := refreshMarked(t, s); !slices.Equal(marked, []string{"list", "slice"}) {
			t.Fatalf("after turning the setting on, the state marks %v, want list and slice", marked)
		}
		editObject(t, sliceAPI, "web-1", func(slice *discoveryv1.EndpointSlice) { *slice.Ports[0].Port = 81 })
		s.Run("up", "--yes", "--non-interactive")
		if got := port(); got != 80 {
			t.Errorf("with the setting turned on, a plain up left the port at %d, want 80", got)
		}
	})

	phase(t, "turned off again, as the docs say: config set, then the second up drops the marks", func() {
		s.Run("config", "set", "endpoints:refreshBeforeUpdate", "false")
		s.Run("up", "--yes", "--non-interactive")
		// Its read-back used the settings of the last update, which still had it on.
		if marked := refreshMarked(t, s); !slices.Equal(marked, []string{"list", "slice"}) {
			t.Errorf("after turning the setting off and one up, the state marks %v, want list and slice still", marked)
		}
		s.Run("up", "--yes", "--non-interactive")
		if marked := refreshMarked(t, s); len(marked) != 0 {
			t.Errorf("after turning the setting off and two ups, the state still marks %v", marked)
		}
	})
	s.Run("destroy", "--yes", "--non-interactive")
}

// With refreshBeforeUpdate on and the cluster gone, the read-back that opens `pulumi
// up` fails with the ways out; with PULUMI_ENDPOINTS_SKIP_UPDATE_UNREACHABLE it keeps the
// last state with a warning, so preview and up go on as without the setting.
func TestDriftReadBackOfUnreachableCluster(t *testing.T) {
	t.Parallel()
	s, _ := goneStack(t, goneProgram, "endpoints:refreshBeforeUpdate", "true")
	if marked := refreshMarked(t, s); !slices.Equal(marked, []string{"list", "slice"}) {
		t.Fatalf("the state marks %v for refresh before update, want list and slice", marked)
	}
	hinted(t, s, []string{"is unreachable", dropEnv, skipEnv}, upCmd...)
	if out := s.runEnv([]string{skipEnv}, "preview", "--non-interactive"); !strings.Contains(out, keptWarning) {
		t.Errorf("the preview with %s does not keep the last state:\n%s", skipEnv, out)
	}
	if out := s.runEnv([]string{skipEnv}, upCmd...); !strings.Contains(out, keptWarning) {
		t.Errorf("the up with %s does not keep the last state:\n%s", skipEnv, out)
	}
	if n := resources(t, s, kubeTypes[0]) + resources(t, s, kubeTypes[1]); n != 2 {
		t.Errorf("after the up with %s, the state has %d Kubernetes resources, want 2", skipEnv, n)
	}
}

// expectQuietUp checks that refresh, preview and then a plain up find nothing to do.
func expectQuietUp(s *stack) {
	s.t.Helper()
	s.expectQuiet()
	s.Run("up", "--yes", "--non-interactive", "--diff", "--expect-no-changes")
}

// objectAPI reads and writes objects of one kind, as client-go's typed clients do.
type objectAPI[T any] interface {
	Get(ctx context.Context, name string, opts metav1.GetOptions) (T, error)
	Update(ctx context.Context, obj T, opts metav1.UpdateOptions) (T, error)
}

// editObject reads the object name, changes it and writes it back, failing the test if
// either request fails.
func editObject[T any](t *testing.T, api objectAPI[T], name string, change func(T)) {
	t.Helper()
	obj, err := api.Get(t.Context(), name, metav1.GetOptions{})
	if err == nil {
		change(obj)
		_, err = api.Update(t.Context(), obj, metav1.UpdateOptions{})
	}
	if err != nil {
		t.Fatalf("another client's change of %s: %v", name, err)
	}
}

// addOthers adds a label and an annotation that the program does not set.
func addOthers(meta *metav1.ObjectMeta) {
	if meta.Labels == nil {
		meta.Labels = map[string]string{}
	}
	if meta.Annotations == nil {
		meta.Annotations = map[string]string{}
	}
	meta.Labels["other.example/team"] = "ops"
	meta.Annotations["other.example/note"] = "kept"
}

// resourceDiff is what a preview plans for one resource: whether it reads the
// resource back first, its operations other than same and refresh, and the property
// paths its detailed diff names.
type resourceDiff struct {
	refreshed bool
	ops       []string
	paths     []string
}

// previewDiffs runs `pulumi preview --json` and returns each resource's plan by name.
func previewDiffs(s *stack) map[string]resourceDiff {
	s.t.Helper()
	var doc struct {
		Steps []struct {
			Op           string         `json:"op"`
			URN          string         `json:"urn"`
			DetailedDiff map[string]any `json:"detailedDiff"`
		} `json:"steps"`
	}
	s.previewJSON(&doc)
	diffs := map[string]resourceDiff{}
	for _, step := range doc.Steps {
		name := logicalName(step.URN)
		d := diffs[name]
		switch step.Op {
		case "same":
			continue
		case "refresh":
			d.refreshed = true
		default:
			d.ops = append(d.ops, step.Op)
		}
		for path := range step.DetailedDiff {
			d.paths = append(d.paths, path)
		}
		diffs[name] = d
	}
	return diffs
}

// hasPrefixes tells whether, for each prefix, some path starts with it.
func hasPrefixes(paths []string, prefixes ...string) bool {
	for _, prefix := range prefixes {
		if !slices.ContainsFunc(paths, func(p string) bool { return strings.HasPrefix(p, prefix) }) {
			return false
		}
	}
	return true
}

// refreshMarked returns the names of the stack's resources that the state marks for
// refresh before update, sorted.
func refreshMarked(t *testing.T, s *stack) []string {
	t.Helper()
	var marked []string
	for _, r := range stateResources(t, s) {
		if r.RefreshBeforeUpdate {
			marked = append(marked, logicalName(r.URN))
		}
	}
	slices.Sort(marked)
	return marked
}
