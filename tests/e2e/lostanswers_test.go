package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/endpoints-provider/pulumi-endpoints/provider/kube"
	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/apiproxy"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/controlplane"
)

// Writes whose answer is lost: the API server carries out the create, update or
// delete, and the proxy between it and the provider drops the answer. The up fails;
// the next up converges, with nothing orphaned or duplicated on the server, and
// refresh and preview are quiet afterwards.

// lostProgram is a YAML program with a slice of each naming (generateName, a fixed
// name, an autoname) and an EndpointsList of two items; port varies it, and gone
// leaves out the generateName slice and the list's second item.
func lostProgram(ns string, port int, gone bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, `name: e2e-lost
runtime: yaml
resources:
  named:
    type: endpoints:discovery.k8s.io/v1:EndpointSlice
    properties:
      metadata:
        namespace: %[1]s
        name: lost-named
      addressType: IPv4
      endpoints:
        - addresses: ["10.3.0.1"]
      ports:
        - name: http
          port: %[2]d
  autonamed:
    type: endpoints:discovery.k8s.io/v1:EndpointSlice
    properties:
      metadata:
        namespace: %[1]s
      addressType: IPv4
      endpoints:
        - addresses: ["10.3.0.2"]
      ports:
        - name: http
          port: %[2]d
`, ns, port)
	if !gone {
		fmt.Fprintf(&b, `  generated:
    type: endpoints:discovery.k8s.io/v1:EndpointSlice
    properties:
      metadata:
        namespace: %[1]s
        generateName: lost-gen-
      addressType: IPv4
      endpoints:
        - addresses: ["10.3.0.3"]
      ports:
        - name: http
          port: %[2]d
`, ns, port)
	}
	fmt.Fprintf(&b, `  list:
    type: endpoints:core/v1:EndpointsList
    properties:
      items:
        - metadata:
            name: lost-item-a
            namespace: %[1]s
          subsets:
            - addresses:
                - ip: 10.3.1.1
              ports:
                - name: http
                  port: %[2]d
`, ns, port)
	if !gone {
		fmt.Fprintf(&b, `        - metadata:
            name: lost-item-b
            namespace: %[1]s
          subsets:
            - addresses:
                - ip: 10.3.1.2
              ports:
                - name: http
                  port: %[2]d
outputs:
  generatedName: ${generated.metadata.name}
`, ns, port)
	}
	return b.String()
}

// proxied starts a proxy in front of the control plane's API server and a stack whose
// provider reaches the server through it.
func proxied(t *testing.T, cp *controlplane.ControlPlane) (*apiproxy.Proxy, *stack) {
	t.Helper()
	proxy, kubeconfig := apiproxy.StartT(t, cp.RESTConfig())
	path := filepath.Join(t.TempDir(), "proxy.kubeconfig")
	if err := os.WriteFile(path, kubeconfig, 0o600); err != nil {
		t.Fatal(err)
	}
	return proxy, newStack(t, path)
}

// dropWrites makes the proxy drop the answers to every write of method to the
// namespace's slices and Endpoints, and returns the rules.
func dropWrites(proxy *apiproxy.Proxy, method, ns string) []*apiproxy.Rule {
	rules := []*apiproxy.Rule{
		{Method: method, PathPrefix: "/apis/discovery.k8s.io/v1/namespaces/" + ns + "/endpointslices"},
		{Method: method, PathPrefix: "/api/v1/namespaces/" + ns + "/endpoints"},
	}
	for _, r := range rules {
		proxy.DropAnswers(r)
	}
	return rules
}

// dropped is how many answers the rules dropped.
func dropped(proxy *apiproxy.Proxy, rules []*apiproxy.Rule) int {
	n := 0
	for _, r := range rules {
		n += proxy.Dropped(r)
	}
	return n
}

// liveObjects are the namespace's slices and Endpoints on the API server, by name, with
// their UIDs.
func liveObjects(t *testing.T, cp *controlplane.ControlPlane, ns string) map[string]types.UID {
	t.Helper()
	out := map[string]types.UID{}
	sl, err := cp.Clientset().DiscoveryV1().EndpointSlices(ns).List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sl.Items {
		out["EndpointSlice "+s.Name] = s.UID
	}
	endpoints, err := cp.Clientset().CoreV1().Endpoints(ns).List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range endpoints.Items {
		out["Endpoints "+e.Name] = e.UID
	}
	return out
}

// stateObjects are the objects the stack's state records, named as liveObjects
// names them, with the UIDs the state knows ("" when it does not know one), and the
// number of pending operations.
func stateObjects(t *testing.T, s *stack) (map[string]types.UID, int) {
	t.Helper()
	type object struct {
		Metadata struct {
			Name string    `json:"name"`
			UID  types.UID `json:"uid"`
		} `json:"metadata"`
	}
	var state struct {
		Deployment struct {
			Resources []struct {
				Type    string `json:"type"`
				ID      string `json:"id"`
				Outputs struct {
					object
					Items []object `json:"items"`
				} `json:"outputs"`
			} `json:"resources"`
			PendingOperations []json.RawMessage `json:"pending_operations"`
		} `json:"deployment"`
	}
	if err := json.Unmarshal([]byte(s.Run("stack", "export", "--show-secrets")), &state); err != nil {
		t.Fatal(err)
	}
	out := map[string]types.UID{}
	for _, r := range state.Deployment.Resources {
		switch r.Type {
		case spec.EndpointSliceToken:
			_, name, _ := strings.Cut(r.ID, "/")
			if name != r.Outputs.Metadata.Name {
				t.Errorf("the state records the slice %s under the ID %s", r.Outputs.Metadata.Name, r.ID)
			}
			out["EndpointSlice "+name] = r.Outputs.Metadata.UID
		case spec.EndpointsListToken:
			for _, it := range r.Outputs.Items {
				out["Endpoints "+it.Metadata.Name] = it.Metadata.UID
			}
		}
	}
	return out, len(state.Deployment.PendingOperations)
}

// agree checks that the state records exactly the objects on the server, by UID, and
// returns them.
func agree(t *testing.T, s *stack, cp *controlplane.ControlPlane, ns, step string) map[string]types.UID {
	t.Helper()
	live := liveObjects(t, cp, ns)
	recorded, pending := stateObjects(t, s)
	if !mapsEqual(live, recorded) {
		t.Errorf("%s: the state and the server disagree:\nstate:  %v\nserver: %v", step, recorded, live)
	}
	if pending > 0 {
		t.Errorf("%s: the state has %d pending operations", step, pending)
	}
	return live
}

func mapsEqual(a, b map[string]types.UID) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func names(m map[string]types.UID) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// quiet checks that refresh and preview find nothing to change.
func quiet(s *stack) {
	s.Run("refresh", "--yes", "--non-interactive", "--expect-no-changes")
	s.Run("preview", "--non-interactive", "--expect-no-changes")
}

// The answers to every create are lost: the objects exist, the up fails saying so, and
// the next up adopts each of them (the generateName slice by its create-id label)
// instead of creating another.
func TestLostCreateAnswers(t *testing.T) {
	t.Parallel()
	cp := controlplane.Shared(t)
	ns := cp.Namespace(t, "e2e")
	proxy, s := proxied(t, cp)
	s.init(lostProgram(ns, 80, false))

	rules := dropWrites(proxy, "POST", ns)
	// --continue-on-error: every create is sent, however soon the first one fails (the
	// engine starts no new step after a failure otherwise).
	out, err := s.Try("up", "--yes", "--skip-preview", "--non-interactive", "--continue-on-error")
	if err == nil {
		t.Fatalf("the up whose create answers were lost succeeded:\n%s", out)
	}
	// The list stops at its first item that fails.
	if n := dropped(proxy, rules); n != 4 {
		t.Errorf("the proxy dropped %d create answers, want 4 (3 slices, 1 Endpoints)", n)
	}
	if !strings.Contains(out, "may or may not exist") {
		t.Errorf("the failed up does not say the objects may exist:\n%s", out)
	}
	created := liveObjects(t, cp, ns)
	if len(created) != 4 {
		t.Fatalf("after the creates whose answers were lost, the server holds %v; want 3 slices and 1 Endpoints",
			names(created))
	}
	var generated string
	for name := range created {
		if rest, ok := strings.CutPrefix(name, "EndpointSlice lost-gen-"); ok {
			generated = "lost-gen-" + rest
		}
	}
	gen, err := cp.Clientset().DiscoveryV1().EndpointSlices(ns).Get(t.Context(), generated, metav1.GetOptions{})
	if err != nil || gen.Labels[kube.CreateIDLabel] == "" {
		t.Fatalf("the generateName slice %q: %v; want it labelled with %s (labels %v)", generated, err,
			kube.CreateIDLabel, gen.Labels)
	}

	proxy.ClearRules()
	s.Run("up", "--yes", "--skip-preview", "--non-interactive")
	after := liveObjects(t, cp, ns)
	for name, uid := range created {
		if after[name] != uid {
			t.Errorf("the next up did not adopt %s (uid %s): the server holds %v", name, uid, after)
		}
	}
	if len(after) != 5 {
		t.Errorf("after the next up, the server holds %v; want 3 slices and 2 Endpoints", names(after))
	}
	if name := stackOutputs(t, s)["generatedName"]; name != generated {
		t.Errorf("output generatedName = %q, want the server's %q", name, generated)
	}
	quiet(s) // the refresh also records the generateName slice's real ID
	agree(t, s, cp, ns, "after the refresh")

	s.Run("destroy", "--yes", "--skip-preview", "--non-interactive")
	if left := liveObjects(t, cp, ns); len(left) > 0 {
		t.Errorf("destroy left %v", names(left))
	}
}

// The answers to the updates are lost: the server has the new values, the up fails,
// and the next up finishes without creating or replacing anything.
func TestLostUpdateAnswers(t *testing.T) {
	t.Parallel()
	cp := controlplane.Shared(t)
	ns := cp.Namespace(t, "e2e")
	proxy, s := proxied(t, cp)
	s.init(lostProgram(ns, 80, false))
	s.Run("up", "--yes", "--skip-preview", "--non-interactive")
	before := agree(t, s, cp, ns, "after the first up")

	s.WriteProject(lostProgram(ns, 8080, false))
	rules := dropWrites(proxy, "PUT", ns)
	// --continue-on-error: every update is sent, however soon the first one fails (the
	// engine starts no new step after a failure otherwise).
	if out, err := s.Try("up", "--yes", "--skip-preview", "--non-interactive", "--continue-on-error"); err == nil {
		t.Fatalf("the up whose update answers were lost succeeded:\n%s", out)
	}
	// The list stops at its first item that fails.
	if n := dropped(proxy, rules); n != 4 {
		t.Errorf("the proxy dropped %d update answers, want 4 (3 slices, 1 Endpoints)", n)
	}
	got := ports(t, cp, ns)
	want := map[string]int32{}
	for name := range got {
		want[name] = 8080 // the writes whose answers were lost took effect
	}
	want["Endpoints lost-item-b"] = 80 // never sent: the list stopped before it
	if d := cmp.Diff(want, got); d != "" || len(got) != 5 {
		t.Errorf("after the updates whose answers were lost, the ports (-want +got):\n%s", d)
	}

	proxy.ClearRules()
	s.Run("up", "--yes", "--skip-preview", "--non-interactive")
	if after := agree(t, s, cp, ns, "after the next up"); !mapsEqual(before, after) {
		t.Errorf("the next up created or replaced objects:\nbefore: %v\nafter:  %v", before, after)
	}
	for name, port := range ports(t, cp, ns) {
		if port != 8080 {
			t.Errorf("after the next up, %s has port %d, want 8080", name, port)
		}
	}
	quiet(s)
	s.Run("destroy", "--yes", "--skip-preview", "--non-interactive")
}

// ports are the ports of the namespace's slices and Endpoints (0 for an object
// without exactly one).
func ports(t *testing.T, cp *controlplane.ControlPlane, ns string) map[string]int32 {
	t.Helper()
	out := map[string]int32{}
	sl, err := cp.Clientset().DiscoveryV1().EndpointSlices(ns).List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sl.Items {
		out["EndpointSlice "+s.Name] = 0
		if len(s.Ports) == 1 && s.Ports[0].Port != nil {
			out["EndpointSlice "+s.Name] = *s.Ports[0].Port
		}
	}
	eps, err := cp.Clientset().CoreV1().Endpoints(ns).List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range eps.Items {
		out["Endpoints "+e.Name] = 0
		if len(e.Subsets) == 1 && len(e.Subsets[0].Ports) == 1 {
			out["Endpoints "+e.Name] = e.Subsets[0].Ports[0].Port
		}
	}
	return out
}

// The answers to the deletes are lost, in ups that drop an EndpointsList item and a
// slice and in a destroy: the objects are gone, the command fails, and the next one
// finds them gone and finishes.
func TestLostDeleteAnswers(t *testing.T) {
	t.Parallel()
	cp := controlplane.Shared(t)
	ns := cp.Namespace(t, "e2e")
	proxy, s := proxied(t, cp)
	s.init(lostProgram(ns, 80, false))
	s.Run("up", "--yes", "--skip-preview", "--non-interactive")
	agree(t, s, cp, ns, "after the first up")
	s.WriteProject(lostProgram(ns, 80, true))

	// The list's update deletes its dropped item; the engine deletes the dropped
	// slice after the program's resources, so not in an up where the list failed.
	for i, path := range []string{"/api/v1/namespaces/" + ns + "/endpoints", "/apis/discovery.k8s.io/v1/namespaces/" + ns + "/endpointslices"} {
		rule := &apiproxy.Rule{Method: "DELETE", PathPrefix: path}
		proxy.DropAnswers(rule)
		if out, err := s.Try("up", "--yes", "--skip-preview", "--non-interactive"); err == nil {
			t.Fatalf("the up whose delete answer (%s) was lost succeeded:\n%s", path, out)
		}
		if n := proxy.Dropped(rule); n != 1 {
			t.Errorf("the proxy dropped %d delete answers for %s, want 1", n, path)
		}
		proxy.ClearRules()
		if live := liveObjects(t, cp, ns); len(live) != 4-i {
			t.Errorf("after the delete whose answer was lost (%s), the server holds %v", path, names(live))
		}
	}
	s.Run("up", "--yes", "--skip-preview", "--non-interactive")
	if after := agree(t, s, cp, ns, "after the next up"); len(after) != 3 {
		t.Errorf("after the next up: %v; want 2 slices, 1 Endpoints", names(after))
	}
	quiet(s)

	rules := dropWrites(proxy, "DELETE", ns)
	if out, err := s.Try("destroy", "--yes", "--skip-preview", "--non-interactive"); err == nil {
		t.Fatalf("the destroy whose delete answers were lost succeeded:\n%s", out)
	}
	if n := dropped(proxy, rules); n == 0 {
		t.Error("the proxy dropped no delete answer in the destroy")
	}
	proxy.ClearRules()
	s.Run("destroy", "--yes", "--skip-preview", "--non-interactive")
	if after := agree(t, s, cp, ns, "after the next destroy"); len(after) > 0 {
		t.Errorf("after the next destroy: %v", names(after))
	}
}

// The create of a generateName slice never reaches the server: the up fails as for a
// lost answer and records the pending slice; preview and the next up find no object
// with its create ID and create one, under that create ID, and only one.
func TestLostCreateRequest(t *testing.T) {
	t.Parallel()
	cp := controlplane.Shared(t)
	ns := cp.Namespace(t, "e2e")
	proxy, s := proxied(t, cp)
	s.init(unsentProgram(ns))
	upUnsent(t, proxy, s, ns)
	var state struct {
		Deployment struct {
			Resources []struct {
				ID      string `json:"id"`
				Outputs struct {
					Metadata struct {
						Labels map[string]string `json:"labels"`
					} `json:"metadata"`
				} `json:"outputs"`
			} `json:"resources"`
		} `json:"deployment"`
	}
	if err := json.Unmarshal([]byte(s.Run("stack", "export")), &state); err != nil {
		t.Fatal(err)
	}
	var createID string
	for _, r := range state.Deployment.Resources {
		if r.ID == ns+"/unsent-*" {
			createID = r.Outputs.Metadata.Labels[kube.CreateIDLabel]
		}
	}
	if createID == "" {
		t.Fatalf("the state records no pending slice %s/unsent-* with a create ID:\n%+v", ns, state.Deployment.Resources)
	}

	s.Run("preview", "--non-interactive")
	if live := liveObjects(t, cp, ns); len(live) != 0 {
		t.Fatalf("preview wrote %v", names(live))
	}
	s.Run("up", "--yes", "--skip-preview", "--non-interactive")
	sl, err := cp.Clientset().DiscoveryV1().EndpointSlices(ns).List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(sl.Items) != 1 || sl.Items[0].Labels[kube.CreateIDLabel] != createID ||
		stackOutputs(t, s)["generatedName"] != sl.Items[0].Name {
		t.Fatalf("after the next up the server holds %d slices; want one, labelled with the recorded create ID %s "+
			"and named as the output generatedName (%s): %+v", len(sl.Items), createID, stackOutputs(t, s)["generatedName"],
			sl.Items)
	}
	quiet(s)
	agree(t, s, cp, ns, "after the refresh")
	s.Run("destroy", "--yes", "--skip-preview", "--non-interactive")
	if left := liveObjects(t, cp, ns); len(left) > 0 {
		t.Errorf("destroy left %v", names(left))
	}
}

// unsentProgram is a YAML program of one generateName slice.
func unsentProgram(ns string) string {
	return fmt.Sprintf(`name: e2e-unsent
runtime: yaml
resources:
  generated:
    type: endpoints:discovery.k8s.io/v1:EndpointSlice
    properties:
      metadata:
        namespace: %s
        generateName: unsent-
      addressType: IPv4
      endpoints:
        - addresses: ["10.4.0.1"]
outputs:
  generatedName: ${generated.metadata.name}
`, ns)
}

// upUnsent runs an up whose create of the namespace's slice never reaches the server.
func upUnsent(t *testing.T, proxy *apiproxy.Proxy, s *stack, ns string) {
	t.Helper()
	rule := &apiproxy.Rule{Method: "POST", PathPrefix: "/apis/discovery.k8s.io/v1/namespaces/" + ns + "/endpointslices",
		Unsent: true}
	proxy.DropAnswers(rule)
	defer proxy.ClearRules()
	if out, err := s.Try("up", "--yes", "--skip-preview", "--non-interactive"); err == nil ||
		!strings.Contains(out, "may or may not exist") {
		t.Fatalf("the up whose create was never sent = %v; want a failure saying the slice may exist:\n%s", err, out)
	}
	if n := proxy.Dropped(rule); n != 1 {
		t.Fatalf("the proxy dropped %d creates, want 1", n)
	}
}

// resources counts the resources of a type in the stack's state.
func resources(t *testing.T, s *stack, typ string) int {
	t.Helper()
	n := 0
	for _, r := range stateResources(t, s) {
		if r.Type == typ {
			n++
		}
	}
	return n
}

// A pending slice (its create never reached the server) that nothing on the server
// carries the create ID of: refresh drops it from the state, and destroy deletes
// nothing and finishes.
func TestPendingSliceRefreshAndDestroy(t *testing.T) {
	t.Parallel()
	cp := controlplane.Shared(t)
	ns := cp.Namespace(t, "e2e")
	proxy, s := proxied(t, cp)
	s.init(unsentProgram(ns))

	upUnsent(t, proxy, s, ns)
	if n := resources(t, s, spec.EndpointSliceToken); n != 1 {
		t.Fatalf("after the up whose create was never sent, the state has %d slices, want the pending one", n)
	}
	s.Run("refresh", "--yes", "--non-interactive")
	if n := resources(t, s, spec.EndpointSliceToken); n != 0 {
		t.Errorf("after the refresh, the state has %d slices; want none (nothing carries the create ID)", n)
	}

	upUnsent(t, proxy, s, ns)
	s.Run("destroy", "--yes", "--skip-preview", "--non-interactive")
	if n := resources(t, s, spec.EndpointSliceToken); n != 0 {
		t.Errorf("after the destroy, the state has %d slices", n)
	}
	if live := liveObjects(t, cp, ns); len(live) != 0 {
		t.Errorf("the server holds %v", names(live))
	}
}

// A generateName slice deleted outside Pulumi, then changed in the program: the up
// creates it again (the server names it anew) and the state follows it to its new
// name, so refresh keeps it and destroy deletes it: nothing is orphaned.
func TestGeneratedSliceRecreated(t *testing.T) {
	t.Parallel()
	cp := controlplane.Shared(t)
	ns := cp.Namespace(t, "e2e")
	s := newStack(t, cp.KubeconfigPath())
	s.init(lostProgram(ns, 80, false))
	s.Run("up", "--yes", "--skip-preview", "--non-interactive")
	first := stackOutputs(t, s)["generatedName"]
	if err := cp.Clientset().DiscoveryV1().EndpointSlices(ns).Delete(t.Context(), first, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}

	s.WriteProject(lostProgram(ns, 8080, false))
	s.Run("up", "--yes", "--skip-preview", "--non-interactive")
	second := stackOutputs(t, s)["generatedName"]
	live := liveObjects(t, cp, ns)
	if _, ok := live["EndpointSlice "+second]; !ok || second == first || len(live) != 5 {
		t.Fatalf("after the up, output generatedName %q (was %q); the server holds %v", second, first, names(live))
	}
	quiet(s)
	agree(t, s, cp, ns, "after the refresh")
	s.Run("destroy", "--yes", "--skip-preview", "--non-interactive")
	if left := liveObjects(t, cp, ns); len(left) > 0 {
		t.Errorf("destroy left %v", names(left))
	}
}
