package e2e

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/controlplane"
)

// importOptionGuide is the guide whose program TestImportResourceOption runs.
const importOptionGuide = "docs/guides/import-option.md"

// importOptions matches the `import` option of a resource of a YAML program.
var importOptions = regexp.MustCompile(`(?m)^    options:\n      import: .*\n`)

// importOptionProgram is the guide's program, as written but in the namespace ns and
// with the slice's port.
func importOptionProgram(t *testing.T, ns string, port int) string {
	t.Helper()
	program := guideProgram(t, importOptionGuide, "# Importing with the `import` resource option")
	for _, want := range []string{"namespace: apps\n", "import: apps/web-a\n", "import: \"apps?", "port: 8080\n"} {
		if !strings.Contains(program, want) {
			t.Fatalf("%s's program has no %q:\n%s", importOptionGuide, want, program)
		}
	}
	return "name: docs-import-option\nruntime: yaml\n" + strings.NewReplacer(
		"namespace: apps\n", "namespace: "+ns+"\n",
		"import: apps/", "import: "+ns+"/",
		"import: \"apps?", "import: \""+ns+"?",
		"port: 8080\n", fmt.Sprintf("port: %d\n", port),
	).Replace(program)
}

// The `import` resource option adopts objects made outside Pulumi in the `pulumi up`
// of the program that describes them, keeping their UIDs. Where the program differs
// from the object (here the slice's port), the preview shows the import and then an
// update, and the up makes the object the program's; once imported, the option
// changes nothing more, nor does dropping it, and destroy deletes the objects.
func TestImportResourceOption(t *testing.T) {
	t.Parallel()
	cp := controlplane.Shared(t)
	ns := cp.Namespace(t, "e2e")
	uids := createOutsidePulumi(t, cp, ns)
	s := newStack(t, cp.KubeconfigPath())
	s.init(importOptionProgram(t, ns, 8081))

	ops := s.previewOps()
	if !slices.Equal(ops["webA"], []string{"import", "update"}) || !slices.Equal(ops["legacy"], []string{"import"}) {
		t.Errorf("preview: %v; want webA imported then updated (its port), legacy imported", ops)
	}
	if out := s.Run("up", "--yes", "--non-interactive"); !strings.Contains(out, "2 imported") {
		t.Errorf("up with the import option reports no imports:\n%s", out)
	}
	if got := liveUIDs(t, cp, ns); !maps.Equal(got, uids) {
		t.Errorf("objects after the import: %v; want the ones made outside Pulumi, %v", got, uids)
	}
	slice, err := cp.Clientset().DiscoveryV1().EndpointSlices(ns).Get(t.Context(), "web-a", metav1.GetOptions{})
	if err != nil || *slice.Ports[0].Port != 8081 {
		t.Errorf("web-a after the up: %v, %+v; want the program's port 8081", err, slice)
	}
	s.expectQuiet()
	without := importOptions.ReplaceAllString(importOptionProgram(t, ns, 8081), "")
	if strings.Contains(without, "import:") {
		t.Fatalf("the program still has an import option:\n%s", without)
	}
	s.WriteProject(without)
	s.Run("preview", "--non-interactive", "--expect-no-changes")
	s.Run("destroy", "--yes", "--non-interactive")
	if left := liveUIDs(t, cp, ns); len(left) != 0 {
		t.Errorf("after destroy the namespace still holds %v", left)
	}
}

// createOutsidePulumi creates, as kubectl would, the slice web-a and the Endpoints
// legacy the program describes, and returns their UIDs by kind and name.
func createOutsidePulumi(t *testing.T, cp *controlplane.ControlPlane, ns string) map[string]string {
	t.Helper()
	port, name := int32(8080), "http"
	slice, err := cp.Clientset().DiscoveryV1().EndpointSlices(ns).Create(t.Context(), &discoveryv1.EndpointSlice{
		ObjectMeta:  metav1.ObjectMeta{Name: "web-a", Labels: map[string]string{"kubernetes.io/service-name": "web"}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{"10.0.0.10"}}},
		Ports:       []discoveryv1.EndpointPort{{Name: &name, Port: &port}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ep, err := cp.Clientset().CoreV1().Endpoints(ns).Create(t.Context(), &corev1.Endpoints{
		ObjectMeta: metav1.ObjectMeta{Name: "legacy", Labels: map[string]string{"app.kubernetes.io/part-of": "legacy"}},
		Subsets: []corev1.EndpointSubset{{
			Addresses: []corev1.EndpointAddress{{IP: "10.0.0.20"}},
			Ports:     []corev1.EndpointPort{{Name: "http", Port: 80}},
		}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return map[string]string{"EndpointSlice/web-a": string(slice.UID), "Endpoints/legacy": string(ep.UID)}
}

// liveUIDs returns the UIDs of the namespace's slices and Endpoints by kind and name.
func liveUIDs(t *testing.T, cp *controlplane.ControlPlane, ns string) map[string]string {
	t.Helper()
	out := map[string]string{}
	sl, err := cp.Clientset().DiscoveryV1().EndpointSlices(ns).List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sl.Items {
		out["EndpointSlice/"+s.Name] = string(s.UID)
	}
	ep, err := cp.Clientset().CoreV1().Endpoints(ns).List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ep.Items {
		out["Endpoints/"+e.Name] = string(e.UID)
	}
	return out
}
