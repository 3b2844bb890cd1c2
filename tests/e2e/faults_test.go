package e2e

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/controlplane"
)

// manySlices is a YAML program of n autonamed EndpointSlices in a namespace.
func manySlices(namespace string, n int) string {
	var b strings.Builder
	b.WriteString("name: e2e-many\nruntime: yaml\nresources:\n")
	for i := range n {
		fmt.Fprintf(&b, `  s%02d:
    type: endpoints:discovery.k8s.io/v1:EndpointSlice
    properties:
      metadata:
        namespace: %s
      addressType: IPv4
      endpoints:
        - addresses: ["10.1.%d.%d"]
      ports:
        - name: http
          port: 80
`, i, namespace, i/200, i%200+1)
	}
	return b.String()
}

// waitForSlices waits until the namespace holds at least n slices.
func waitForSlices(t *testing.T, cp *controlplane.ControlPlane, ns string, n int) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		l, err := cp.Clientset().DiscoveryV1().EndpointSlices(ns).List(t.Context(), metav1.ListOptions{})
		if err == nil && len(l.Items) >= n {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("fewer than %d slices in %s after 2 minutes", n, ns)
}

// recovers checks what follows a fault: the next up converges on all outageSlices
// slices, refresh and preview then find nothing to change, and destroy leaves none.
func recovers(t *testing.T, s *stack, cp *controlplane.ControlPlane, ns string) {
	t.Helper()
	s.Run("up", "--yes", "--skip-preview", "--non-interactive")
	converged(t, s, cp, ns, outageSlices)
	quiet(s)
	s.Run("destroy", "--yes", "--skip-preview", "--non-interactive")
	converged(t, s, cp, ns, 0)
}

// converged checks that the cluster and the state agree: every resource in the
// state exists once in the cluster, and every object in the namespace is in the state.
func converged(t *testing.T, s *stack, cp *controlplane.ControlPlane, ns string, want int) {
	t.Helper()
	var state struct {
		Deployment struct {
			Resources []struct {
				Type string `json:"type"`
				ID   string `json:"id"`
			} `json:"resources"`
			PendingOperations []json.RawMessage `json:"pending_operations"`
		} `json:"deployment"`
	}
	if err := json.Unmarshal([]byte(s.Run("stack", "export")), &state); err != nil {
		t.Fatal(err)
	}
	var inState []string
	for _, r := range state.Deployment.Resources {
		if r.Type == spec.EndpointSliceToken {
			inState = append(inState, r.ID)
		}
	}
	l, err := cp.Clientset().DiscoveryV1().EndpointSlices(ns).List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var inCluster []string
	for _, o := range l.Items {
		inCluster = append(inCluster, ns+"/"+o.Name)
	}
	sort.Strings(inState)
	sort.Strings(inCluster)
	if len(inState) != want || strings.Join(inState, ",") != strings.Join(inCluster, ",") {
		t.Errorf("state and cluster disagree:\nstate   (%d): %v\ncluster (%d): %v", len(inState), inState,
			len(inCluster), inCluster)
	}
	if len(state.Deployment.PendingOperations) > 0 {
		t.Errorf("the state has %d pending operations", len(state.Deployment.PendingOperations))
	}
}

// countSlices counts the namespace's slices on the API server.
func countSlices(t *testing.T, cp *controlplane.ControlPlane, ns string) int {
	t.Helper()
	l, err := cp.Clientset().DiscoveryV1().EndpointSlices(ns).List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return len(l.Items)
}

// outageSlices is how many slices the outage tests' ups create.
const outageSlices = 120

// The API server is killed (SIGKILL) in the middle of an up of 120 slices and started
// again; the next up converges: every slice exists once, the state records exactly
// the slices on the server, and refresh and preview find nothing to change.
func TestAPIServerKilledDuringUp(t *testing.T) {
	t.Parallel()
	cp := controlplane.StartT(t) // its own: this test kills its API server
	ns := cp.Namespace(t, "e2e")
	s := newStack(t, cp.KubeconfigPath())
	s.init(manySlices(ns, outageSlices))

	up := s.start("up", "--yes", "--skip-preview", "--non-interactive", "--parallel", "4")
	waitForSlices(t, cp, ns, 10)
	if !up.running() {
		t.Fatal("the up finished before the API server was killed: the fault did not land mid-run")
	}
	if err := cp.Kill(controlplane.APIServer); err != nil {
		t.Fatal(err)
	}
	out, err := up.wait()
	if err == nil {
		t.Fatalf("the up succeeded although the API server was killed during it:\n%s", out)
	}
	if !strings.Contains(out, "connection refused") && !strings.Contains(out, "may or may not exist") {
		t.Errorf("the failed up does not say what happened:\n%s", out)
	}
	if err := cp.Restart(t.Context(), controlplane.APIServer); err != nil {
		t.Fatal(err)
	}
	if n := countSlices(t, cp, ns); n >= outageSlices {
		t.Fatalf("all %d slices exist after the interrupted up: the fault did not land mid-run", n)
	}
	recovers(t, s, cp, ns)
}

// etcd is killed (SIGKILL) in the middle of an up of 120 slices and started again on
// its data 2 seconds later; the up goes on or fails, and the next up converges.
func TestEtcdRestartedDuringUp(t *testing.T) {
	t.Parallel()
	cp := controlplane.StartT(t) // its own: this test kills its etcd
	ns := cp.Namespace(t, "e2e")
	s := newStack(t, cp.KubeconfigPath())
	s.init(manySlices(ns, outageSlices))

	up := s.start("up", "--yes", "--skip-preview", "--non-interactive", "--parallel", "4")
	waitForSlices(t, cp, ns, 10)
	before := countSlices(t, cp, ns)
	if !up.running() || before >= outageSlices {
		t.Fatalf("the up finished (%d slices) before etcd was killed: the fault did not land mid-run", before)
	}
	if err := cp.Kill(controlplane.Etcd); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Second) // an outage: the API server's writes wait for etcd
	if err := cp.Restart(t.Context(), controlplane.Etcd); err != nil {
		t.Fatal(err)
	}
	out, err := up.wait()
	t.Logf("the up during which etcd restarted: %v (%d slices before the kill, %d after the up)", err, before,
		countSlices(t, cp, ns))
	if err != nil && !strings.Contains(out, "may or may not exist") && !strings.Contains(out, "etcd") &&
		!strings.Contains(out, "timeout") && !strings.Contains(out, "Timeout") {
		t.Errorf("the failed up does not say what happened:\n%s", out)
	}
	recovers(t, s, cp, ns)
}

// interruptSlices is how many slices the interrupted up declares.
const interruptSlices = 300

// An interrupt (SIGINT, as Ctrl-C sends) in the middle of an up of 300 slices on a
// slow cluster (each request and each answer held 250 ms): the engine asks the
// provider to cancel and waits for the creates in flight, which finish and are
// recorded, so the interrupted up reports no error for any slice that exists, and its
// state records exactly the slices on the server (none orphaned, none twice, no
// pending operation). The next up converges and a preview then finds nothing to do.
func TestInterruptDuringUp(t *testing.T) {
	t.Parallel()
	cp := controlplane.Shared(t)
	ns := cp.Namespace(t, "e2e")
	proxy, s := proxied(t, cp)
	s.init(manySlices(ns, interruptSlices))

	proxy.SetDelay(250 * time.Millisecond)
	up := s.start("up", "--yes", "--skip-preview", "--non-interactive")
	waitForSlices(t, cp, ns, 20)
	if err := up.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	out, err := up.wait()
	if err == nil {
		t.Fatalf("the interrupted up succeeded; the interrupt was not exercised:\n%s", out)
	}
	if !strings.Contains(out, "received; cancelling") {
		t.Errorf("the interrupted up does not say it was interrupted:\n%s", out)
	}
	live := countSlices(t, cp, ns)
	if live >= interruptSlices {
		t.Fatalf("all %d slices exist after the interrupted up: the interrupt did not land mid-run", live)
	}
	failed := failedResources(out)
	var wrong []string
	for _, name := range sliceNames(t, cp, ns) {
		resource := name[:strings.LastIndex(name, "-")] // autonamed: <resource>-<8 hex>
		if failed[spec.EndpointSliceToken+" ("+resource+"):"] != "" {
			wrong = append(wrong, resource)
		}
	}
	if len(wrong) > 0 {
		t.Errorf("the interrupted up reports errors for %v, which exist:\n%s", wrong, out)
	}
	converged(t, s, cp, ns, live)

	proxy.SetDelay(0)
	s.Run("up", "--yes", "--skip-preview", "--non-interactive")
	converged(t, s, cp, ns, interruptSlices)
	s.Run("preview", "--non-interactive", "--expect-no-changes")
	s.Run("destroy", "--yes", "--skip-preview", "--non-interactive")
	converged(t, s, cp, ns, 0)
}

// sliceNames are the names of the namespace's slices on the API server.
func sliceNames(t *testing.T, cp *controlplane.ControlPlane, ns string) []string {
	t.Helper()
	l, err := cp.Clientset().DiscoveryV1().EndpointSlices(ns).List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, 0, len(l.Items))
	for _, o := range l.Items {
		names = append(names, o.Name)
	}
	return names
}
