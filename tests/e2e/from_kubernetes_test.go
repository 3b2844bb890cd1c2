package e2e

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/controlplane"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/toolchain"
)

// oldProgram is a pulumi-kubernetes program in namespace ns: two selectorless
// Services, an autonamed EndpointSlice and the Endpoints "web-legacy" written with
// server-side apply (pulumi-kubernetes' default), and the slice "web-b" written by a
// provider with enableServerSideApply false. retain sets retainOnDelete on the three,
// and without leaves them out of the program.
func oldProgram(ns string, retain, without bool) string {
	options := func(extra string) string {
		if !retain && extra == "" {
			return ""
		}
		s := "    options:\n"
		if retain {
			s += "      retainOnDelete: true\n"
		}
		return s + extra
	}
	p := fmt.Sprintf(`name: old
runtime: yaml
resources:
  csa:
    type: pulumi:providers:kubernetes
    properties:
      enableServerSideApply: false
  web:
    type: kubernetes:core/v1:Service
    properties:
      metadata: {name: web, namespace: %[1]s}
      spec: {ports: [{name: http, port: 80, targetPort: 8080}]}
  web-legacy:
    type: kubernetes:core/v1:Service
    properties:
      metadata: {name: web-legacy, namespace: %[1]s}
      spec: {ports: [{name: http, port: 80, targetPort: 8080}]}
`, ns)
	if without {
		return p
	}
	return p + fmt.Sprintf(`  web-auto:
    type: kubernetes:discovery.k8s.io/v1:EndpointSlice
    properties:
      metadata: {namespace: %[1]s, labels: {kubernetes.io/service-name: web}}
      addressType: IPv4
      endpoints: [{addresses: [10.40.0.1], conditions: {ready: true}}]
      ports: [{name: http, port: 8080}]
%[2]s  web-b:
    type: kubernetes:discovery.k8s.io/v1:EndpointSlice
    properties:
      metadata: {name: web-b, namespace: %[1]s, labels: {kubernetes.io/service-name: web}}
      addressType: IPv4
      endpoints: [{addresses: [10.40.0.2], conditions: {ready: true}}]
      ports: [{name: http, port: 8080}]
%[3]s  web-legacy-endpoints:
    type: kubernetes:core/v1:Endpoints
    properties:
      metadata: {name: web-legacy, namespace: %[1]s, labels: {app.kubernetes.io/part-of: legacy}}
      subsets: [{addresses: [{ip: 10.40.1.1}], ports: [{name: http, port: 8080}]}]
%[2]s`, ns, options(""), options("      provider: ${csa}\n"))
}

// manager is an entry of an object's managedFields: the field manager and its
// operation.
type manager struct{ name, operation string }

// managers returns the field managers of obj, a live object.
func managers(t *testing.T, obj runtime.Object) []manager {
	t.Helper()
	accessor, err := meta.Accessor(obj)
	if err != nil {
		t.Fatal(err)
	}
	var out []manager
	for _, m := range accessor.GetManagedFields() {
		out = append(out, manager{name: m.Manager, operation: string(m.Operation)})
	}
	return out
}

// hasManager tells whether ms holds a manager whose name starts with prefix (is the
// whole name when exact) and whose operation is op (any when op is "").
func hasManager(ms []manager, prefix string, exact bool, op string) bool {
	for _, m := range ms {
		if (m.name == prefix || !exact && strings.HasPrefix(m.name, prefix)) && (op == "" || m.operation == op) {
			return true
		}
	}
	return false
}

// TestFromPulumiKubernetes runs what docs/guides/migrating.md says of the objects
// pulumi-kubernetes wrote: what it leaves on them (its field manager, operation Apply
// with server-side apply and Update without; pulumi.com/autonamed on an autonamed
// object; app.kubernetes.io/managed-by: pulumi without server-side apply); that a
// program of this provider that names one of them without an import is refused with
// the import hint and changes nothing; that an import leaves pulumi.com/autonamed out
// of the code and keeps the managed-by label; that pulumi-kubernetes forgets them with
// retainOnDelete without deleting them; and that this provider's first update writes
// under its own field manager, adds its managed-by label to the slices, leaves
// pulumi-kubernetes' annotation on the object, and is followed by a quiet refresh.
func TestFromPulumiKubernetes(t *testing.T) {
	t.Parallel()
	cp := controlplane.Shared(t)
	ns := cp.Namespace(t, "from-kubernetes")
	old := newStack(t, cp.KubeconfigPath())
	old.InstallKubernetes()
	old.init(oldProgram(ns, false, false))
	old.Run("up", "--yes", "--non-interactive", "--skip-preview")
	auto := checkLeftByPulumiKubernetes(t, cp, ns)
	uids := liveObjects(t, cp, ns)

	checkClaimRefused(t, cp, ns, uids)

	s := newStack(t, cp.KubeconfigPath())
	s.init(migrationProject)
	importFile, err := json.Marshal(map[string]any{"resources": []map[string]string{
		{"type": spec.EndpointSliceToken, "name": "web-auto", "id": ns + "/" + auto},
		{"type": spec.EndpointSliceToken, "name": "web-b", "id": ns + "/web-b"},
		{"type": spec.EndpointsListToken, "name": "legacy", "id": ns + "?labelSelector=app.kubernetes.io/part-of%3Dlegacy"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	toolchain.WriteFile(t, filepath.Join(s.Dir, "import.json"), string(importFile))
	s.Run("import", "--file", "import.json", "--yes", "--non-interactive", "--out", "imported.yaml")
	code := importedCode(t, s, "imported.yaml")
	if strings.Contains(code, "pulumi.com/autonamed") || !strings.Contains(code, "app.kubernetes.io/managed-by: pulumi\n") {
		t.Errorf("the imported code should leave pulumi.com/autonamed out and keep app.kubernetes.io/managed-by: pulumi:\n%s", code)
	}
	program := pasteImported(t, s, "imported.yaml")
	s.expectQuiet()

	// pulumi-kubernetes forgets them, the program's way: retainOnDelete, up, remove, up.
	old.WriteProject(oldProgram(ns, true, false))
	old.Run("up", "--yes", "--non-interactive")
	old.WriteProject(oldProgram(ns, true, true))
	old.Run("up", "--yes", "--non-interactive")
	old.Run("preview", "--non-interactive", "--expect-no-changes")
	checkUIDs(t, cp, ns, uids, "after pulumi-kubernetes forgot them")

	s.WriteProject(strings.NewReplacer("- 10.40.0.1\n", "- 10.40.0.9\n", "- 10.40.0.2\n", "- 10.40.0.8\n",
		"ip: 10.40.1.1\n", "ip: 10.40.1.9\n").Replace(program))
	s.upWithPreview()
	checkUIDs(t, cp, ns, uids, "after the first update here")
	checkWrittenHere(t, cp, ns, auto)
	s.expectQuiet()
}

// checkLeftByPulumiKubernetes checks what pulumi-kubernetes left on the objects of
// oldProgram, and returns the name it gave the autonamed slice.
func checkLeftByPulumiKubernetes(t *testing.T, cp *controlplane.ControlPlane, ns string) string {
	t.Helper()
	ctx := t.Context()
	slices, err := cp.Clientset().DiscoveryV1().EndpointSlices(ns).List(ctx, metav1.ListOptions{LabelSelector: "kubernetes.io/service-name=web"})
	if err != nil {
		t.Fatal(err)
	}
	auto := ""
	for i := range slices.Items {
		sl := &slices.Items[i]
		ms := managers(t, sl)
		t.Logf("EndpointSlice %s: labels %v, annotations %v, managers %v", sl.Name, sl.Labels, sl.Annotations, ms)
		switch {
		case sl.Name == "web-b":
			if sl.Labels["app.kubernetes.io/managed-by"] != "pulumi" || !hasManager(ms, "pulumi-kubernetes", true, "Update") {
				t.Errorf("web-b (enableServerSideApply false) lacks app.kubernetes.io/managed-by: pulumi or the manager "+
					"pulumi-kubernetes (Update): labels %v, managers %v", sl.Labels, ms)
			}
		case strings.HasPrefix(sl.Name, "web-auto-"):
			auto = sl.Name
			if sl.Annotations["pulumi.com/autonamed"] != "true" || !hasManager(ms, "pulumi-kubernetes-", false, "Apply") ||
				sl.Labels["app.kubernetes.io/managed-by"] != "" {
				t.Errorf("%s (autonamed, server-side apply) lacks pulumi.com/autonamed or the manager pulumi-kubernetes-* "+
					"(Apply), or has a managed-by label: annotations %v, labels %v, managers %v", sl.Name, sl.Annotations, sl.Labels, ms)
			}
		}
	}
	if auto == "" {
		t.Fatalf("no slice web-auto-* of pulumi-kubernetes in %s", ns)
	}
	ep, err := cp.Clientset().CoreV1().Endpoints(ns).Get(ctx, "web-legacy", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ms := managers(t, ep); !hasManager(ms, "pulumi-kubernetes-", false, "Apply") {
		t.Errorf("Endpoints web-legacy lacks the manager pulumi-kubernetes-* (Apply): %v", ms)
	}
	return auto
}

// checkClaimRefused declares the slice web-b and the Endpoints web-legacy of
// pulumi-kubernetes in a program of this provider, without an import: preview and up
// fail with the 409 and the import command, and the objects stay as they were.
func checkClaimRefused(t *testing.T, cp *controlplane.ControlPlane, ns string, uids map[string]types.UID) {
	t.Helper()
	claim := newStack(t, cp.KubeconfigPath())
	claim.init(fmt.Sprintf(`name: claim
runtime: yaml
resources:
  web-b:
    type: endpoints:discovery.k8s.io/v1:EndpointSlice
    properties:
      metadata: {name: web-b, namespace: %[1]s, labels: {kubernetes.io/service-name: web}}
      addressType: IPv4
      endpoints: [{addresses: [10.40.0.7], conditions: {ready: true}}]
      ports: [{name: http, port: 8080}]
  legacy:
    type: endpoints:core/v1:EndpointsList
    properties:
      items:
        - metadata: {name: web-legacy, namespace: %[1]s}
          subsets: [{addresses: [{ip: 10.40.1.7}], ports: [{name: http, port: 8080}]}]
`, ns))
	for _, args := range [][]string{{"preview", "--non-interactive"}, {"up", "--yes", "--non-interactive", "--skip-preview"}} {
		out, err := claim.Try(args...)
		for _, want := range []string{
			"EndpointSlice " + ns + "/web-b already exists (409)",
			"pulumi import " + spec.EndpointSliceToken + " <name> " + ns + "/web-b",
		} {
			if err == nil || !strings.Contains(out, want) {
				t.Errorf("pulumi %s of a program that claims pulumi-kubernetes' web-b: %v; want %q:\n%s", args[0], err, want, out)
			}
		}
		legacyHint := "pulumi import " + spec.EndpointsListToken + " <name> '" + ns + "?fieldSelector=metadata.name%3Dweb-legacy'"
		if args[0] == "up" && (!strings.Contains(out, "Endpoints "+ns+"/web-legacy already exists (409)") ||
			!strings.Contains(out, legacyHint)) {
			t.Errorf("pulumi up of a program that claims pulumi-kubernetes' Endpoints web-legacy: want the 409 and %q:\n%s",
				legacyHint, out)
		}
	}
	checkUIDs(t, cp, ns, uids, "after a program here claimed them without an import")
	sl, err := cp.Clientset().DiscoveryV1().EndpointSlices(ns).Get(t.Context(), "web-b", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if hasManager(managers(t, sl), "pulumi-resource-endpoints", true, "") || sl.Endpoints[0].Addresses[0] != "10.40.0.2" {
		t.Errorf("a refused claim wrote web-b: %v", sl)
	}
}

// checkWrittenHere checks the slices after this provider's first update: its field
// manager wrote them beside pulumi-kubernetes', its managed-by label is on them, and the
// autonamed slice keeps pulumi-kubernetes' annotation.
func checkWrittenHere(t *testing.T, cp *controlplane.ControlPlane, ns, auto string) {
	t.Helper()
	for _, name := range []string{auto, "web-b"} {
		sl, err := cp.Clientset().DiscoveryV1().EndpointSlices(ns).Get(t.Context(), name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ms := managers(t, sl)
		t.Logf("EndpointSlice %s after the first update here: labels %v, annotations %v, managers %v", name, sl.Labels, sl.Annotations, ms)
		if !hasManager(ms, "pulumi-resource-endpoints", true, "Update") || !hasManager(ms, "pulumi-kubernetes", false, "") {
			t.Errorf("%s: want the managers pulumi-resource-endpoints (Update) and pulumi-kubernetes': %v", name, ms)
		}
		if sl.Labels["endpointslice.kubernetes.io/managed-by"] != "pulumi-endpoints" {
			t.Errorf("%s: the first update here did not add endpointslice.kubernetes.io/managed-by: pulumi-endpoints: %v", name, sl.Labels)
		}
	}
	sl, err := cp.Clientset().DiscoveryV1().EndpointSlices(ns).Get(t.Context(), auto, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if sl.Annotations["pulumi.com/autonamed"] != "true" {
		t.Errorf("%s: the update here removed pulumi-kubernetes' pulumi.com/autonamed: %v", auto, sl.Annotations)
	}
}
