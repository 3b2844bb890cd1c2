package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/controlplane"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/snippets"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/toolchain"
)

// TestMigrationGuide follows docs/guides/migrating.md with the real CLI and YAML
// language host: EndpointSlices and Endpoints of selectorless Services that another
// client created (client-go, as kubectl would, with the labels and annotation
// pulumi-kubernetes and `kubectl apply` leave) are imported by ID and by an import
// file, and the program takes the code each import generated, as it is. Then preview
// and refresh find nothing to change, an edit of the program updates the objects in
// place, and no object is recreated: the UIDs on the server stay those the other
// client's creates returned.
func TestMigrationGuide(t *testing.T) {
	t.Parallel()
	cp := controlplane.Shared(t)
	ns := cp.Namespace(t, "migrate")
	uids := createByAnotherClient(t, cp, ns)

	s := newStack(t, cp.KubeconfigPath())
	s.init(migrationProject)

	// Import by ID: a slice by namespace/name, the Endpoints by namespace and
	// (URL-encoded) label selector, read 2 per request.
	s.Run("import", spec.EndpointSliceToken, "web-a", ns+"/web-a", "--yes", "--non-interactive", "--out", "web-a.yaml")
	s.Run("import", spec.EndpointsListToken, "legacy", ns+"?labelSelector=app.kubernetes.io/part-of%3Dlegacy&limit=2",
		"--yes", "--non-interactive", "--out", "legacy.yaml")

	// Many objects: an import file, the selector as it is.
	importFile, err := json.Marshal(map[string]any{"resources": []map[string]string{
		{"type": spec.EndpointSliceToken, "name": "web-b", "id": ns + "/web-b"},
		{"type": spec.EndpointSliceToken, "name": "api-a", "id": ns + "/api-a"},
		{"type": spec.EndpointsListToken, "name": "batch", "id": ns + "?labelSelector=app.kubernetes.io/part-of=batch"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	toolchain.WriteFile(t, filepath.Join(s.Dir, "import.json"), string(importFile))
	s.Run("import", "--file", "import.json", "--yes", "--non-interactive", "--out", "many.yaml")

	// The program holds what the imports generated; the guide shows web-a's code.
	program := pasteImported(t, s, "web-a.yaml", "legacy.yaml", "many.yaml")
	checkGuideCode(t, s, "web-a.yaml", ns)
	checkImportedItems(t, s, map[string][]string{
		"legacy": {"cache-legacy", "db-legacy", "web-legacy"},
		"batch":  {"batch"},
	})
	checkUIDs(t, cp, ns, uids, "after the imports")

	// Nothing to change, nothing recreated.
	s.expectQuiet()
	s.Run("up", "--yes", "--non-interactive", "--expect-no-changes")
	checkUIDs(t, cp, ns, uids, "after pulumi up")

	editInPlace(t, s, cp, ns, program)
	checkUIDs(t, cp, ns, uids, "after pulumi up of the edited program")
	s.expectQuiet()
}

// editInPlace edits an address of the slice web-a and of the Endpoints web-legacy in
// the program, and checks that the preview plans an update of those two resources
// only and that `pulumi up` writes the new address.
func editInPlace(t *testing.T, s *stack, cp *controlplane.ControlPlane, ns, program string) {
	t.Helper()
	s.WriteProject(strings.NewReplacer("- 10.20.0.1\n", "- 10.20.0.9\n", "ip: 10.30.0.1\n", "ip: 10.30.0.9\n").Replace(program))
	ops := s.previewOps()
	for _, name := range []string{"web-b", "api-a", "batch"} {
		if ops[name] != nil {
			t.Errorf("preview after the edit plans %v for %s, which the edit left alone", ops[name], name)
		}
	}
	for _, name := range []string{"web-a", "legacy"} {
		if !slices.Equal(ops[name], []string{"update"}) {
			t.Errorf("preview after the edit plans %v for %s, want [update]", ops[name], name)
		}
	}
	s.upWithPreview()
	if got := cp.LiveOutputs(t, controlplane.SlicesResource, ns, "web-a")["endpoints"]; !strings.Contains(toJSON(t, got), "10.20.0.9") {
		t.Errorf("the slice web-a does not carry the edited address 10.20.0.9: %s", toJSON(t, got))
	}
}

// migrationProject is the stack's project before the imports: a YAML program with
// no resources yet.
const migrationProject = "name: migrate\nruntime: yaml\n"

// pasteImported makes the project's program the resources of the code files
// `pulumi import --out` wrote, pasted under one `resources:` as the guide says, and
// returns the program.
func pasteImported(t *testing.T, s *stack, files ...string) string {
	t.Helper()
	program := migrationProject + "resources:\n"
	for _, f := range files {
		code := importedCode(t, s, f)
		entries, ok := strings.CutPrefix(code, "resources:\n")
		if !ok || !strings.Contains(entries, "protect: true") {
			t.Fatalf("%s is not the resources of an import, protected:\n%s", f, code)
		}
		program += entries
	}
	s.WriteProject(program)
	return program
}

// importedCode returns the code `pulumi import --out file` wrote.
func importedCode(t *testing.T, s *stack, file string) string {
	t.Helper()
	code, err := os.ReadFile(filepath.Clean(filepath.Join(s.Dir, file)))
	if err != nil {
		t.Fatalf("the code pulumi import wrote: %v", err)
	}
	return string(code)
}

// checkGuideCode checks that the code pulumi import wrote into file is the YAML the
// guide shows, with the guide's namespace for ns.
func checkGuideCode(t *testing.T, s *stack, file, ns string) {
	t.Helper()
	page, err := os.ReadFile(filepath.Join(toolchain.RepoRoot(t), migrationGuide))
	if err != nil {
		t.Fatal(err)
	}
	var shown []string
	for _, e := range snippets.ParsePage(migrationGuide, string(page)) {
		if e.Lang == "yaml" && strings.Contains(e.Code, "type: "+spec.EndpointSliceToken+"\n") {
			shown = append(shown, e.Code)
		}
	}
	generated := strings.ReplaceAll(importedCode(t, s, file), "namespace: "+ns+"\n", "namespace: apps\n")
	if len(shown) != 1 {
		t.Fatalf("%s shows %d YAML blocks of this provider's EndpointSlice, want 1: the code of the import of web-a", migrationGuide, len(shown))
	}
	if diff := cmp.Diff(strings.Split(shown[0], "\n"), strings.Split(generated, "\n")); diff != "" {
		t.Errorf("%s shows other code than pulumi import generates for web-a (-guide +generated):\n%s", migrationGuide, diff)
	}
}

// migrationGuide is the guide TestMigrationGuide follows.
const migrationGuide = "docs/guides/migrating.md"

// checkImportedItems checks that each imported EndpointsList holds the Endpoints of
// its selector, by name.
func checkImportedItems(t *testing.T, s *stack, want map[string][]string) {
	t.Helper()
	got := map[string][]string{}
	for name, r := range stackResources(t, s) {
		if r.Type != spec.EndpointsListToken {
			continue
		}
		items, _ := r.Outputs["items"].([]any)
		for _, item := range items {
			meta, _ := item.(map[string]any)["metadata"].(map[string]any)
			got[name] = append(got[name], meta["name"].(string))
		}
		slices.Sort(got[name])
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("imported items by list (-want +got):\n%s", diff)
	}
}

// createByAnotherClient creates, with client-go as kubectl would, selectorless
// Services with EndpointSlices and Endpoints of their own, and returns the UIDs of
// the slices and Endpoints, keyed as liveObjects keys them.
func createByAnotherClient(t *testing.T, cp *controlplane.ControlPlane, ns string) map[string]types.UID {
	t.Helper()
	createSelectorlessServices(t, cp, ns, "web", "api", "web-legacy", "db-legacy", "cache-legacy", "batch")
	ctx, clients, uids := t.Context(), cp.Clientset(), map[string]types.UID{}
	port, proto, portName, ready := int32(8080), corev1.ProtocolTCP, "http", true
	for _, sl := range []struct {
		name, service, ip   string
		labels, annotations map[string]string
	}{
		{name: "web-a", service: "web", ip: "10.20.0.1"},
		// pulumi-kubernetes labels what it creates.
		{name: "web-b", service: "web", ip: "10.20.0.2", labels: map[string]string{"app.kubernetes.io/managed-by": "pulumi"}},
		// `kubectl apply` records what it applied.
		{name: "api-a", service: "api", ip: "10.20.1.1", annotations: map[string]string{
			"kubectl.kubernetes.io/last-applied-configuration": `{"apiVersion":"discovery.k8s.io/v1","kind":"EndpointSlice"}`,
		}},
	} {
		labels := map[string]string{discoveryv1.LabelServiceName: sl.service}
		for k, v := range sl.labels {
			labels[k] = v
		}
		obj := &discoveryv1.EndpointSlice{
			ObjectMeta:  metav1.ObjectMeta{Name: sl.name, Labels: labels, Annotations: sl.annotations},
			AddressType: discoveryv1.AddressTypeIPv4,
			Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{sl.ip}, Conditions: discoveryv1.EndpointConditions{Ready: &ready}}},
			Ports:       []discoveryv1.EndpointPort{{Name: &portName, Port: &port, Protocol: &proto}},
		}
		created, err := clients.DiscoveryV1().EndpointSlices(ns).Create(ctx, obj, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("create EndpointSlice %s/%s: %v", ns, sl.name, err)
		}
		uids["EndpointSlice "+sl.name] = created.UID
	}
	for _, ep := range []struct{ name, partOf, ip string }{
		{"web-legacy", "legacy", "10.30.0.1"}, {"db-legacy", "legacy", "10.30.0.2"},
		{"cache-legacy", "legacy", "10.30.0.3"}, {"batch", "batch", "10.30.1.1"},
	} {
		obj := &corev1.Endpoints{
			ObjectMeta: metav1.ObjectMeta{Name: ep.name, Labels: map[string]string{"app.kubernetes.io/part-of": ep.partOf}},
			Subsets: []corev1.EndpointSubset{{
				Addresses: []corev1.EndpointAddress{{IP: ep.ip}},
				Ports:     []corev1.EndpointPort{{Name: "http", Port: 8080, Protocol: corev1.ProtocolTCP}},
			}},
		}
		created, err := clients.CoreV1().Endpoints(ns).Create(ctx, obj, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("create Endpoints %s/%s: %v", ns, ep.name, err)
		}
		uids["Endpoints "+ep.name] = created.UID
	}
	return uids
}

// createSelectorlessServices creates Services without a selector, whose endpoints
// are their users' to write.
func createSelectorlessServices(t *testing.T, cp *controlplane.ControlPlane, ns string, names ...string) {
	t.Helper()
	for _, name := range names {
		svc := &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec:       corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "http", Port: 80}}},
		}
		if _, err := cp.Clientset().CoreV1().Services(ns).Create(t.Context(), svc, metav1.CreateOptions{}); err != nil {
			t.Fatalf("create Service %s/%s: %v", ns, name, err)
		}
	}
}

// checkUIDs checks that the objects the other client created are there with the UIDs
// it got: none was deleted or recreated.
func checkUIDs(t *testing.T, cp *controlplane.ControlPlane, ns string, want map[string]types.UID, when string) {
	t.Helper()
	live := liveObjects(t, cp, ns)
	got := map[string]types.UID{}
	for key := range want {
		got[key] = live[key]
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("objects deleted or recreated %s (UIDs, -created +live):\n%s", when, diff)
	}
}

// toJSON writes v as JSON, for messages.
func toJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
