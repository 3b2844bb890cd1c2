package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/endpoints-provider/pulumi-endpoints/provider/kube"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/controlplane"
)

// A crashed run: the whole `pulumi up` (the CLI, the language host, the provider
// plugin) is SIGKILLed part way, as when a CI runner dies. The user then does what the
// CLI's messages say: `pulumi cancel` for the lock, the refresh that clears the
// interrupted creates (`--clear-pending-creates`, what the interactive refresh offers),
// and `pulumi up`. Every object is then once on the server and once in the state: the
// up adopts the objects its interrupted creates made (named slices, autonamed slices,
// EndpointsList items), and refresh, preview and up find nothing to change.

const (
	crashNamed     = 150 // named slices
	crashAutonamed = 150 // autonamed slices
	crashItems     = 20  // EndpointsList items, half named, half by generateName
	crashObjects   = crashNamed + crashAutonamed + crashItems
)

// crashProgram is the program of the crash tests: crashNamed named slices,
// crashAutonamed autonamed ones, and an EndpointsList of crashItems items.
func crashProgram(ns string) string {
	var b strings.Builder
	b.WriteString("name: e2e-crash\nruntime: yaml\nresources:\n")
	slice := func(resource, name string, i int) {
		fmt.Fprintf(&b, `  %s:
    type: endpoints:discovery.k8s.io/v1:EndpointSlice
    properties:
      metadata:
        namespace: %s%s
      addressType: IPv4
      endpoints:
        - addresses: ["10.4.%d.%d"]
`, resource, ns, name, i/200, i%200+1)
		if i%2 == 0 { // as users write them: not every slice has ports
			b.WriteString("      ports:\n        - name: http\n          port: 80\n")
		}
	}
	for i := range crashNamed {
		slice(fmt.Sprintf("namedSlice%03d", i), fmt.Sprintf("\n        name: crash-named-%03d", i), i)
	}
	for i := range crashAutonamed {
		slice(fmt.Sprintf("webBackend%03d", i), "", crashNamed+i)
	}
	b.WriteString("  list:\n    type: endpoints:core/v1:EndpointsList\n    properties:\n      items:\n")
	for i := range crashItems {
		name := fmt.Sprintf("name: crash-item-%02d", i)
		if i%2 == 1 {
			name = "generateName: crash-gen-"
		}
		fmt.Fprintf(&b, `        - metadata:
            namespace: %s
            %s
          subsets:
            - addresses:
                - ip: 10.5.0.%d
              ports:
                - name: http
                  port: 80
`, ns, name, i+1)
	}
	return b.String()
}

// crashUp starts `pulumi up` in its own process group and returns it with a function
// that SIGKILLs the CLI and every process under it at once (the plugins run in process
// groups of their own).
func crashUp(t *testing.T, s *stack) (*background, func()) {
	t.Helper()
	b := &background{done: make(chan struct{})}
	b.cmd = s.Command(t.Context(), "up", "--yes", "--skip-preview", "--non-interactive", "--parallel", "8")
	b.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	b.cmd.Stdout, b.cmd.Stderr = &b.out, &b.out
	if err := b.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { b.err = b.cmd.Wait(); close(b.done) }()
	kill := func() {
		tree := descendants(b.cmd.Process.Pid)
		for _, pid := range tree {
			_ = syscall.Kill(pid, syscall.SIGSTOP) // nothing goes on while the rest is killed
		}
		for _, pid := range tree {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		<-b.done
	}
	t.Cleanup(func() {
		if b.running() {
			kill()
		}
	})
	return b, kill
}

// descendants are pid and every process under it, pid first.
func descendants(pid int) []int {
	children := map[int][]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// The fields after the command's closing parenthesis: state, then the parent.
		fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(fields) > 1 {
			if parent, err := strconv.Atoi(fields[1]); err == nil {
				children[parent] = append(children[parent], child)
			}
		}
	}
	out := []int{pid}
	for i := 0; i < len(out); i++ {
		out = append(out, children[out[i]]...)
	}
	return out
}

// crashAt kills the up once the namespace holds at least n objects, and checks that
// the kill landed mid-run.
func crashAt(t *testing.T, cp *controlplane.ControlPlane, s *stack, ns string, n int) {
	t.Helper()
	up, kill := crashUp(t, s)
	waitForObjects(t, cp, ns, fmt.Sprintf("%d objects", n), func(slices, endpoints int) bool {
		return slices+endpoints >= n || !up.running()
	})
	if !up.running() {
		out, err := up.wait()
		t.Fatalf("the up ended (%v) before it was killed at %d objects: the crash did not land mid-run\n%s", err, n, out)
	}
	kill()
	if got := len(liveObjects(t, cp, ns)); got >= crashObjects {
		t.Fatalf("the killed up had created all %d objects: the crash did not land mid-run", got)
	}
}

// The up is killed early, midway and late; cancel, refresh --clear-pending-creates and
// up converge each time, with nothing orphaned or duplicated.
func TestCrashedUpConverges(t *testing.T) {
	t.Parallel()
	cp := controlplane.Shared(t)
	for _, at := range []int{20, crashObjects / 2, crashObjects - 40} {
		t.Run(fmt.Sprintf("killed at %d objects", at), func(t *testing.T) {
			t.Parallel()
			ns := cp.Namespace(t, "e2e")
			s := newStack(t, cp.KubeconfigPath())
			s.init(crashProgram(ns))
			crashAt(t, cp, s, ns, at)

			out, err := s.Try("up", "--yes", "--skip-preview", "--non-interactive")
			if strings.Contains(out, "failed to load checkpoint: EOF") {
				// The kill landed while the file backend wrote the checkpoint's
				// attributes: the troubleshooting guide's step.
				removeEmptyAttrs(t, s)
				out, err = s.Try("up", "--yes", "--skip-preview", "--non-interactive")
			}
			if err == nil || !strings.Contains(out, "pulumi cancel") {
				t.Errorf("the up after the crash: %v; want it to fail naming `pulumi cancel`:\n%s", err, out)
			}
			s.Run("cancel", "--yes")
			recorded, pending := stateObjects(t, s)
			t.Logf("after the kill: %d objects on the server, %d in the state, %d pending operations",
				len(liveObjects(t, cp, ns)), len(recorded), pending)
			s.Run("refresh", "--yes", "--non-interactive", "--clear-pending-creates")
			s.Run("up", "--yes", "--skip-preview", "--non-interactive")

			converged := agree(t, s, cp, ns, "after the up that follows the crash")
			if len(converged) != crashObjects {
				t.Errorf("the server holds %d objects, want %d: %v", len(converged), crashObjects, names(converged))
			}
			if marked := markedObjects(t, cp, ns); marked != crashObjects {
				t.Errorf("%d objects carry the stack's %s, want %d", marked, kube.OwnerAnnotation, crashObjects)
			}
			quiet(s)
			s.Run("up", "--yes", "--skip-preview", "--non-interactive", "--expect-no-changes")
		})
	}
}

// removeEmptyAttrs removes the empty .attrs files of the stack's local backend, as the
// troubleshooting guide says to when a killed run leaves "failed to load checkpoint:
// EOF": the backend writes a checkpoint's attributes file in place, and a kill while it
// does leaves it empty, while the backend reads a missing one as no attributes.
func removeEmptyAttrs(t *testing.T, s *stack) {
	t.Helper()
	var backend string
	for _, kv := range s.Env {
		if dir, ok := strings.CutPrefix(kv, "PULUMI_BACKEND_URL=file://"); ok {
			backend = dir
		}
	}
	stacks := filepath.Join(backend, ".pulumi", "stacks")
	err := filepath.WalkDir(stacks, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".attrs") {
			return err
		}
		if info, err := d.Info(); err != nil || info.Size() > 0 {
			return err
		}
		t.Logf("the kill left %s empty: removed", path)
		return os.Remove(path)
	})
	if err != nil {
		t.Fatalf("remove the empty attributes files under %s: %v", stacks, err)
	}
}

// markedObjects counts the namespace's objects that carry a URN of the stack dev of
// the project e2e-crash, the slices among them with the provider's managed-by label.
func markedObjects(t *testing.T, cp *controlplane.ControlPlane, ns string) int {
	t.Helper()
	ours := func(m metav1.ObjectMeta) bool {
		return strings.HasPrefix(m.Annotations[kube.OwnerAnnotation], "urn:pulumi:dev::e2e-crash::")
	}
	n := 0
	sl, err := cp.Clientset().DiscoveryV1().EndpointSlices(ns).List(t.Context(), metav1.ListOptions{
		LabelSelector: kube.ManagedByLabel + "=" + kube.ManagedBy,
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sl.Items {
		if ours(s.ObjectMeta) {
			n++
		}
	}
	ep, err := cp.Clientset().CoreV1().Endpoints(ns).List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ep.Items {
		if ours(e.ObjectMeta) {
			n++
		}
	}
	return n
}

// The provider adopts only its own interrupted creates: the same program's other stack
// in the same namespace, and an object another client made under a name of the
// program, meet the 409 with the import hint, and the objects are left as they were.
func TestCrashRecoveryAdoptsOnlyItsOwn(t *testing.T) {
	t.Parallel()
	cp := controlplane.Shared(t)
	ns := cp.Namespace(t, "e2e")
	program := lostProgram(ns, 80, true)
	dev := newStack(t, cp.KubeconfigPath())
	dev.init(program)
	dev.Run("up", "--yes", "--skip-preview", "--non-interactive")
	before := liveObjects(t, cp, ns)

	prod := newStack(t, cp.KubeconfigPath())
	prod.WriteProject(program)
	prod.Run("stack", "init", "prod")
	out, err := prod.Try("up", "--yes", "--skip-preview", "--non-interactive")
	if err == nil || !strings.Contains(out, "EndpointSlice "+ns+"/lost-named already exists (409)") ||
		!strings.Contains(out, "pulumi import") {
		t.Errorf("another stack's up over the objects: %v; want the 409 with the import hint:\n%s", err, out)
	}
	// The other stack's autonamed slice has a name of its own; nothing of dev's changed.
	after := liveObjects(t, cp, ns)
	for name, uid := range before {
		if after[name] != uid {
			t.Errorf("%s (uid %s) changed under the other stack's up: the server holds %v", name, uid, after)
		}
	}

	// Another client's object under a name of the program.
	if _, err := cp.Clientset().CoreV1().Endpoints(ns).Create(t.Context(), endpointsNamed("lost-item-b"),
		metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	dev.WriteProject(lostProgram(ns, 80, false))
	out, err = dev.Try("up", "--yes", "--skip-preview", "--non-interactive")
	if err == nil || !strings.Contains(out, "Endpoints "+ns+"/lost-item-b already exists (409)") ||
		!strings.Contains(out, "pulumi import") {
		t.Errorf("an up over another client's object: %v; want the 409 with the import hint:\n%s", err, out)
	}
}

// endpointsNamed is an Endpoints object another client makes.
func endpointsNamed(name string) *corev1.Endpoints {
	return &corev1.Endpoints{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Subsets: []corev1.EndpointSubset{{
			Addresses: []corev1.EndpointAddress{{IP: "10.6.0.1"}},
			Ports:     []corev1.EndpointPort{{Name: "http", Port: 80}},
		}},
	}
}
