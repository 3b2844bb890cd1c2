package e2e

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/controlplane"
)

const (
	// haSlices and haItems are the sizes of the HA faults' program: that many
	// slices and an EndpointsList of that many items.
	haSlices = 300
	haItems  = 200
)

// haUp and haDestroy are the commands the HA faults run in the background.
var (
	haUp      = []string{"up", "--yes", "--skip-preview", "--non-interactive", "--parallel", "8"}
	haDestroy = []string{"destroy", "--yes", "--skip-preview", "--non-interactive", "--parallel", "8"}
)

// haProgram is manySlices with an EndpointsList of n items first, so that the engine
// creates it alongside the first slices.
func haProgram(ns string, slices, n int) string {
	header, sliceResources, _ := strings.Cut(manySlices(ns, slices), "resources:\n")
	var b strings.Builder
	b.WriteString(header + "resources:\n")
	b.WriteString("  list:\n    type: endpoints:core/v1:EndpointsList\n    properties:\n      items:\n")
	for i := range n {
		fmt.Fprintf(&b, `        - metadata:
            name: item-%03d
            namespace: %s
          subsets:
            - addresses:
                - ip: 10.2.%d.%d
              ports:
                - name: http
                  port: 80
`, i, ns, i/200, i%200+1)
	}
	b.WriteString(sliceResources)
	return b.String()
}

// haStack starts an HA control plane (every controller on) and a stack of
// haProgram in a namespace of it whose provider reaches the API servers through the
// load balancer.
func haStack(t *testing.T) (*controlplane.HA, string, *stack) {
	t.Helper()
	controlplane.SkipHAIfAsked(t)
	h := controlplane.StartHAT(t, controlplane.Options{AllControllers: true})
	ns := h.Namespace(t, "ha")
	s := newStack(t, h.KubeconfigPath())
	s.init(haProgram(ns, haSlices, haItems))
	return h, ns, s
}

// providerAPIServer returns the API server that the connections opened since
// before (h.Connections() then) went to: the one the provider talks to.
func providerAPIServer(t *testing.T, h *controlplane.HA, before map[controlplane.Component]int) controlplane.Component {
	t.Helper()
	var busiest controlplane.Component
	most := 0
	for comp, n := range h.Connections() {
		if n-before[comp] > most {
			busiest, most = comp, n-before[comp]
		}
	}
	t.Logf("connections through the load balancer before the command %v, now %v", before, h.Connections())
	if busiest == "" {
		t.Fatalf("the provider holds no connection through the load balancer (before %v, now %v)", before,
			h.Connections())
	}
	return busiest
}

// kill ends comp with SIGKILL, in the middle of a command on the objects of ns.
func kill(t *testing.T, h *controlplane.HA, ns string, comp controlplane.Component) {
	t.Helper()
	live := liveObjects(t, h.ControlPlane, ns)
	if err := h.Kill(comp); err != nil {
		t.Fatal(err)
	}
	endpoints := 0
	for name := range live {
		if strings.HasPrefix(name, "Endpoints ") {
			endpoints++
		}
	}
	t.Logf("killed %s with %d slices and %d Endpoints on the server", comp, len(live)-endpoints, endpoints)
}

// unconfirmedWrites logs how many of the objects that the state records as written
// without an answer (no UID) exist on the server: the writes that took effect
// although their answer was lost.
func unconfirmedWrites(t *testing.T, s *stack, h *controlplane.HA, ns string) {
	t.Helper()
	recorded, _ := stateObjects(t, s)
	live := liveObjects(t, h.ControlPlane, ns)
	unconfirmed, landed := 0, 0
	for name, uid := range recorded {
		if uid == "" {
			unconfirmed++
			if _, ok := live[name]; ok {
				landed++
			}
		}
	}
	t.Logf("the state records %d objects without an answer; %d of them exist on the server", unconfirmed, landed)
}

// outcome waits for a command during which a fault landed: it finishes, or fails
// and each resource that failed says what went wrong with the cluster.
func outcome(t *testing.T, b *background, what string) {
	t.Helper()
	out, err := b.wait()
	if err == nil {
		t.Logf("%s finished", what)
		return
	}
	t.Logf("%s: %v\n%s", what, err, errorLines(out, 3))
	failures := failedResources(out)
	if len(failures) == 0 {
		t.Errorf("%s failed and no resource says why:\n%s", what, out)
	}
	// The provider's words for an answer lost on a broken connection or a write the
	// server could not finish, and the server's own.
	clear := []string{"broke before its answer came", "may or may not", "is unreachable", "etcdserver",
		"the server is currently unable", "Internal error", "GOAWAY"}
	for resource, message := range failures {
		if !slices.ContainsFunc(clear, func(c string) bool { return strings.Contains(message, c) }) {
			t.Errorf("%s: %s failed without saying what happened to the cluster:\n%s", what, resource, message)
		}
	}
}

// failedResources returns, by resource, the errors the Diagnostics section of a
// command's output reports (the stack's "update failed" aside).
func failedResources(out string) map[string]string {
	_, diagnostics, _ := strings.Cut(out, "Diagnostics:\n")
	diagnostics, _, _ = strings.Cut(diagnostics, "\nResources:")
	failures := map[string]string{}
	resource := ""
	for _, line := range strings.Split(diagnostics, "\n") {
		if strings.HasPrefix(line, "  ") && !strings.HasPrefix(line, "   ") && strings.HasSuffix(line, "):") {
			resource = strings.TrimSpace(line)
			continue
		}
		if msg := strings.TrimSpace(line); strings.HasPrefix(msg, "error:") && msg != "error: update failed" {
			failures[resource] += msg + "\n"
		} else if failures[resource] != "" {
			failures[resource] += msg + "\n"
		}
	}
	return failures
}

// convergesHA checks what follows a fault during an up: the next up converges on
// every slice and item, once each, the state records exactly the objects on the
// server, and refresh and preview find nothing to change.
func convergesHA(t *testing.T, s *stack, h *controlplane.HA, ns string) {
	t.Helper()
	s.Run(haUp...)
	live := agree(t, s, h.ControlPlane, ns, "after the next up")
	if len(live) != haSlices+haItems {
		t.Errorf("after the next up the server holds %d objects, want %d slices and %d Endpoints", len(live),
			haSlices, haItems)
	}
	quiet(s)
}

// destroyedHA checks that a destroy during which a fault landed finishes, or else a
// second destroy does, and that the namespace keeps no slice and no Endpoints.
func destroyedHA(t *testing.T, s *stack, h *controlplane.HA, ns string, destroy *background) {
	t.Helper()
	if out, err := destroy.wait(); err != nil {
		t.Logf("the destroy during the fault: %v; a second destroy:\n%s", err, lastLines(out, 15))
		s.Run(haDestroy...)
	}
	if live := liveObjects(t, h.ControlPlane, ns); len(live) > 0 {
		t.Errorf("after the destroy the namespace still holds %v", names(live))
	}
	converged(t, s, h.ControlPlane, ns, 0)
}

// startMidUp starts haUp and waits until it has created some of the list's items and
// some slices; it fails the test if the up has finished by then, before fault.
func startMidUp(t *testing.T, s *stack, h *controlplane.HA, ns, fault string) *background {
	t.Helper()
	up := s.start(haUp...)
	waitForMidUp(t, h.ControlPlane, ns)
	if !up.running() {
		t.Fatalf("the up finished before %s: the fault did not land mid-run", fault)
	}
	return up
}

// restartMidDestroy starts haDestroy and, once it has deleted 50 slices, restarts comp
// (what); it fails the test if the destroy has finished by then.
func restartMidDestroy(t *testing.T, s *stack, h *controlplane.HA, ns string, comp controlplane.Component, what string) *background {
	t.Helper()
	destroy := s.start(haDestroy...)
	waitForSlicesBelow(t, h.ControlPlane, ns, haSlices-50)
	if err := h.Restart(t.Context(), comp); err != nil {
		t.Fatal(err)
	}
	t.Logf("restarted %s mid-destroy", comp)
	if !destroy.running() {
		t.Fatalf("the destroy finished before %s was restarted: the fault did not land mid-run", what)
	}
	return destroy
}

// waitForSlicesBelow waits until the namespace holds fewer than n slices.
func waitForSlicesBelow(t *testing.T, cp *controlplane.ControlPlane, ns string, n int) {
	t.Helper()
	waitForObjects(t, cp, ns, fmt.Sprintf("fewer than %d slices", n), func(slices, _ int) bool { return slices < n })
}

// waitForMidUp waits until the up has created some of the list's items and some slices.
func waitForMidUp(t *testing.T, cp *controlplane.ControlPlane, ns string) {
	t.Helper()
	waitForObjects(t, cp, ns, "50 Endpoints and 10 slices", func(slices, endpoints int) bool {
		return endpoints >= 50 && slices >= 10
	})
}

// waitForObjects waits until the numbers of slices and Endpoints in the namespace
// satisfy ok (what describes it).
func waitForObjects(t *testing.T, cp *controlplane.ControlPlane, ns, what string, ok func(slices, endpoints int) bool) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		sl, err := cp.Clientset().DiscoveryV1().EndpointSlices(ns).List(t.Context(), metav1.ListOptions{})
		if err == nil {
			var ep *corev1.EndpointsList
			ep, err = cp.Clientset().CoreV1().Endpoints(ns).List(t.Context(), metav1.ListOptions{})
			if err == nil && ok(len(sl.Items), len(ep.Items)) {
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("not %s in %s after 2 minutes", what, ns)
}

// errorLines returns the first n lines of the Diagnostics section of out that say
// what failed (the engine's own summary aside).
func errorLines(out string, n int) string {
	_, diagnostics, _ := strings.Cut(out, "Diagnostics:")
	var lines []string
	for _, l := range strings.Split(diagnostics, "\n") {
		l = strings.TrimSpace(l)
		if (strings.HasPrefix(l, "error:") || strings.HasPrefix(l, "* ")) && l != "error: update failed" &&
			!strings.HasSuffix(l, "error occurred:") && len(lines) < n {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "\n")
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// On an HA control plane, the API server that the provider talks to through the load
// balancer is killed (SIGKILL) in the middle of an up of 300 slices and a 200-item
// EndpointsList. The up finishes or fails with a clear error; the next up, with one
// API server left, converges: every object exists once, the state records exactly
// the objects on the server, refresh and preview find nothing to change. In the
// destroy that follows the killed server is restarted and then the other one, now
// the provider's, killed: the destroy (or a second one) leaves the namespace empty.
func TestHAAPIServerKilledDuringUp(t *testing.T) {
	t.Parallel()
	h, ns, s := haStack(t)

	before := h.Connections()
	up := startMidUp(t, s, h, ns, "the API server was killed")
	killed := providerAPIServer(t, h, before)
	kill(t, h, ns, killed)
	outcome(t, up, "the up during which "+string(killed)+" was killed")
	unconfirmedWrites(t, s, h, ns)
	convergesHA(t, s, h, ns)

	destroy := restartMidDestroy(t, s, h, ns, killed, "the API server")
	// The destroy's provider connected while only the other API server ran: killing
	// it now breaks the provider's connection again.
	other := controlplane.APIServerN(0)
	if other == killed {
		other = controlplane.APIServerN(1)
	}
	kill(t, h, ns, other)
	destroyedHA(t, s, h, ns, destroy)
}

// On an HA control plane the etcd leader is killed (SIGKILL) in the middle of an up of
// 300 slices and a 200-item EndpointsList; the other two members elect a new leader.
// The up finishes or fails with a clear error; the next up, with two members left,
// converges, and refresh and preview find nothing to change. The killed member is
// restarted in the middle of the destroy that follows, and rejoins the cluster; the
// destroy (or a second one) leaves the namespace empty.
func TestHAEtcdLeaderKilledDuringUp(t *testing.T) {
	t.Parallel()
	h, ns, s := haStack(t)

	up := startMidUp(t, s, h, ns, "the etcd leader was killed")
	leader, err := h.EtcdLeader(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	kill(t, h, ns, leader)
	outcome(t, up, "the up during which "+string(leader)+", the etcd leader, was killed")
	unconfirmedWrites(t, s, h, ns)
	if next, err := h.EtcdLeader(t.Context()); err != nil || next == leader {
		t.Fatalf("the etcd leader after killing %s: %s, %v; want another member", leader, next, err)
	}
	convergesHA(t, s, h, ns)

	destroy := restartMidDestroy(t, s, h, ns, leader, "the etcd member")
	destroyedHA(t, s, h, ns, destroy)
}
