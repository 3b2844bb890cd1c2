package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/endpoints-provider/pulumi-endpoints/tests/controlplane"
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

// start runs a pulumi command in the background; wait returns its output and error.
func (s *stack) start(args ...string) (cmd *exec.Cmd, wait func() (string, error)) {
	s.t.Helper()
	cmd = exec.Command(pulumiCLI(s.t), args...)
	cmd.Dir = s.dir
	cmd.Env = append(os.Environ(), "PULUMI_SKIP_UPDATE_CHECK=true", "PULUMI_DIY_BACKEND_NO_LEGACY_WARNING=true", "NO_COLOR=1")
	cmd.Env = append(cmd.Env, s.env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	s.t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
		}
	})
	return cmd, func() (string, error) {
		select {
		case err := <-done:
			return out.String(), err
		case <-time.After(5 * time.Minute):
			_ = cmd.Process.Kill()
			return out.String(), fmt.Errorf("pulumi %s did not finish within 5 minutes", strings.Join(args, " "))
		}
	}
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
	if err := json.Unmarshal([]byte(s.run("stack", "export")), &state); err != nil {
		t.Fatal(err)
	}
	var inState []string
	for _, r := range state.Deployment.Resources {
		if r.Type == "endpoints:discovery.k8s.io/v1:EndpointSlice" {
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

// The API server goes away in the middle of an up of 50 slices and comes back; the
// next up converges, with nothing orphaned in the cluster or lost from the state.
func TestAPIServerOutageDuringUp(t *testing.T) {
	t.Parallel()
	cp := controlplane.StartT(t) // its own: this test stops the API server
	ns := newTestNamespace(t, cp)
	s := newStack(t, cp.KubeconfigPath())
	s.write(manySlices(ns, 50))
	s.run("stack", "init", "dev")

	_, wait := s.start("up", "--yes", "--skip-preview", "--non-interactive", "--parallel", "4")
	waitForSlices(t, cp, ns, 5)
	cp.StopAPIServer()
	out, err := wait()
	if err == nil {
		t.Fatalf("the first up succeeded although the API server went away during it:\n%s", out)
	}
	if !strings.Contains(out, "connection refused") && !strings.Contains(out, "may or may not exist") {
		t.Errorf("the failed up does not say what happened:\n%s", out)
	}
	if err := cp.StartAPIServer(t.Context()); err != nil {
		t.Fatal(err)
	}
	s.run("up", "--yes", "--skip-preview", "--non-interactive")
	converged(t, s, cp, ns, 50)
	s.run("destroy", "--yes", "--skip-preview", "--non-interactive")
	converged(t, s, cp, ns, 0)
}

// An interrupt (SIGINT, as Ctrl-C sends) in the middle of an up lets the operations in
// flight finish; the next up converges.
func TestInterruptDuringUp(t *testing.T) {
	t.Parallel()
	cp := controlplane.Shared(t)
	ns := newTestNamespace(t, cp)
	s := newStack(t, cp.KubeconfigPath())
	s.write(manySlices(ns, 50))
	s.run("stack", "init", "dev")

	cmd, wait := s.start("up", "--yes", "--skip-preview", "--non-interactive", "--parallel", "4")
	waitForSlices(t, cp, ns, 5)
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if out, err := wait(); err == nil {
		t.Fatalf("the interrupted up succeeded; the interrupt was not exercised:\n%s", out)
	} else if !strings.Contains(out, "received; cancelling") {
		t.Errorf("the interrupted up does not say it was interrupted:\n%s", out)
	}
	s.run("up", "--yes", "--skip-preview", "--non-interactive")
	converged(t, s, cp, ns, 50)
	s.run("destroy", "--yes", "--skip-preview", "--non-interactive")
	converged(t, s, cp, ns, 0)
}
