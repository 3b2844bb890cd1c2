package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"

	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/controlplane"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/toolchain"
)

// TestGetExistingObjects runs a TypeScript, a Python and a Go program (each the
// Automation API runner of testdata/programs with testdata/get's program in place of
// its own) that read, without managing them, the EndpointSlice and the Endpoints the
// Kubernetes controllers made for a Service with a selector: `EndpointSlice.get` by
// namespace/name and `EndpointsList.get` by namespace and label selector. The stack
// outputs must be the objects as the API server has them; destroying the stack leaves
// them in place; a get of a slice that does not exist, or (in Go) of a selector that
// selects no Endpoints, fails naming it and the cluster.
func TestGetExistingObjects(t *testing.T) {
	t.Parallel()
	for _, lang := range exampleLanguages {
		t.Run(lang.dir, func(t *testing.T) {
			t.Parallel()
			testGetExisting(t, lang)
		})
	}
}

func testGetExisting(t *testing.T, lang exampleLanguage) {
	cp := controlplane.Shared(t)
	ns := cp.Namespace(t, "get")
	slice := controlplane.Shared(t).SelectedService(t, ns, "web")
	p := installGetProgram(t, lang, cp.KubeconfigPath())
	p.stack.Run("stack", "init", "dev")
	sliceID, listID := ns+"/"+slice.Name, ns+"?labelSelector=app=web"
	p.stack.Run("config", "set", "sliceId", sliceID)
	p.stack.Run("config", "set", "listId", listID)

	res := p.run(t, "up")
	// The summary counts the stack alone; the engine's progress shows the reads.
	res.WantChanges(t, "up", map[string]int{"create": 1})
	for _, token := range []string{spec.EndpointSliceToken, spec.EndpointsListToken} {
		if !strings.Contains(res.Log, token+": (read)") {
			t.Errorf("up: the engine's progress shows no read of a %s:\n%s", token, res.Log)
		}
	}
	for key, want := range map[string]string{"sliceId": sliceID, "listId": listID} {
		if got := res.Outputs[key]; got != want {
			t.Errorf("up: output %s = %v, want %s", key, got, want)
		}
	}
	if lang.dir == "python" {
		// The Python SDK's output types export their fields by their Python names.
		camelKeys(res.Outputs)
	}
	if diff := cmp.Diff(controlplane.Shared(t).LiveOutputs(t, controlplane.SlicesResource, ns, slice.Name), controlplane.Plain(t, res.Outputs["slice"])); diff != "" {
		t.Errorf("up: output slice differs from the live slice %s (-live +output):\n%s", sliceID, diff)
	}
	// The list's resourceVersion is the cluster's when it was read, which other
	// writes have moved on since.
	list := controlplane.Plain(t, res.Outputs["list"])
	if rv, _ := list["metadata"].(map[string]any)["resourceVersion"].(string); rv == "" {
		t.Errorf("up: output list has no metadata.resourceVersion: %v", list["metadata"])
	}
	delete(list, "metadata")
	if diff := cmp.Diff(liveEndpoints(t, ns, "app=web"), list); diff != "" {
		t.Errorf("up: output list differs from the live Endpoints %s (-live +output):\n%s", listID, diff)
	}

	// A get does not manage: destroying the stack leaves the objects as they were.
	res = p.run(t, "destroy")
	res.WantChanges(t, "destroy", map[string]int{"delete": 1, "discard": 2})
	kept, err := cp.Clientset().DiscoveryV1().EndpointSlices(ns).Get(t.Context(), slice.Name, metav1.GetOptions{})
	if err != nil || kept.UID != slice.UID {
		t.Errorf("after destroy, slice %s: %v (uid %v, was %s); the get must leave it", sliceID, err, kept.GetUID(), slice.UID)
	}
	if _, err := cp.Clientset().CoreV1().Endpoints(ns).Get(t.Context(), "web", metav1.GetOptions{}); err != nil {
		t.Errorf("after destroy, Endpoints %s/web: %v; the get must leave it", ns, err)
	}

	// A slice that does not exist: the update fails naming it and the cluster.
	p.stack.Run("config", "set", "sliceId", ns+"/missing")
	out := p.runFailing(t, "up")
	want := fmt.Sprintf("EndpointSlice %s/missing does not exist on the Kubernetes API server %s", ns, cp.RESTConfig().Host)
	if !strings.Contains(out, want) {
		t.Errorf("up with a missing slice: output lacks %q:\n%s", want, out)
	}
	if lang.dir != "go" {
		return
	}
	// A selector that selects no Endpoints: the update fails naming it and the cluster.
	p.stack.Run("config", "set", "sliceId", sliceID)
	p.stack.Run("config", "set", "listId", ns+"?labelSelector=app=none")
	out = p.runFailing(t, "up")
	want = fmt.Sprintf(`no Endpoints in namespace %s match the label selector "app=none" on the Kubernetes API server %s`,
		ns, cp.RESTConfig().Host)
	if !strings.Contains(out, want) {
		t.Errorf("up with a selector of no Endpoints: output lacks %q:\n%s", want, out)
	}
}

// installGetProgram installs the program of lang with testdata/get's program in
// place of testdata/programs', in a new stack's directory, as installExample does.
func installGetProgram(t *testing.T, lang exampleLanguage, kubeconfig string) *exampleProgram {
	t.Helper()
	root := toolchain.RepoRoot(t)
	// The copy keeps the program's place relative to sdk/, which its Go module names.
	tmp := t.TempDir()
	rel, err := filepath.Rel(root, programDir(t, lang))
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(tmp, rel)
	toolchain.CopyDir(t, programDir(t, lang), src)
	if err := os.Symlink(filepath.Join(root, "sdk"), filepath.Join(tmp, "sdk")); err != nil {
		t.Fatal(err)
	}
	program := map[string]string{"typescript": "program.ts", "python": "program.py", "go": "program.go"}[lang.dir]
	toolchain.CopyFile(t, filepath.Join(root, "tests", "e2e", "testdata", "get", program), filepath.Join(src, program))

	s := newStack(t, kubeconfig)
	s.Env = append(s.Env, "PATH="+strings.Join([]string{filepath.Dir(tool(t, "TEST_ASSET_PULUMI")),
		ambientDir(t, tool(t, "TEST_ASSET_PROVIDER")), os.Getenv("PATH")}, ":"))
	return &exampleProgram{lang: lang.dir, argv: lang.install(t, src, s.Dir), stack: s}
}

// runFailing runs one operation of the runner, which must fail; it returns the
// runner's output (the engine's progress and diagnostics among it).
func (p *exampleProgram) runFailing(t *testing.T, operation string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), runnerTimeout)
	defer cancel()
	argv := append(slices.Clone(p.argv), operation, "dev")
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = p.stack.Dir, p.stack.Environ()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("%s %s succeeded, want a failure:\n%s", p.lang, operation, out)
	}
	return string(out)
}

// liveEndpoints is an EndpointsList's items for the Endpoints of ns that selector
// selects.
func liveEndpoints(t *testing.T, ns, selector string) map[string]any {
	t.Helper()
	l, err := dynamic.NewForConfigOrDie(controlplane.Shared(t).RESTConfig()).Resource(controlplane.EndpointsResource).Namespace(ns).
		List(t.Context(), metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		t.Fatal(err)
	}
	items := []any{}
	for i := range l.Items {
		items = append(items, controlplane.ObjectOutputs(t, &l.Items[i]))
	}
	return map[string]any{"items": items}
}

// pythonName is a Python field name made of more than one word.
var pythonName = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)+$`)

// camelKeys renames, in place, the keys of v's maps that are Python field names
// (resource_version) to the Kubernetes field names they stand for (resourceVersion).
func camelKeys(v any) {
	switch v := v.(type) {
	case map[string]any:
		for key, e := range v {
			camelKeys(e)
			if pythonName.MatchString(key) {
				words := strings.Split(key, "_")
				for i := 1; i < len(words); i++ {
					words[i] = strings.ToUpper(words[i][:1]) + words[i][1:]
				}
				delete(v, key)
				v[strings.Join(words, "")] = e
			}
		}
	case []any:
		for _, e := range v {
			camelKeys(e)
		}
	}
}
