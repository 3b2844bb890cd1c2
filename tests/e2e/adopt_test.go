package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/controlplane"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/toolchain"
)

// adoptHeading is the section of the migration guide TestAdoptNamespaceFromGuide runs.
const adoptHeading = "## Adopt a namespace in one step"

// adoptSteps says what each shell block of the section does, by a command it must hold.
var adoptSteps = []string{
	"kubectl get endpointslices,endpoints -n apps",
	"pulumi import --file import.json --out imported.yaml",
	"pulumi refresh --expect-no-changes",
}

// guideFence is a fenced code block, possibly indented under a list item: its
// indentation, language and text.
var guideFence = regexp.MustCompile("(?ms)^( *)```([a-z]*)\n(.*?)^ *```$")

// readGuideSteps returns the shell blocks of a second-level section of the migration
// guide, without their list indentation, and fails t unless they hold want in order.
func readGuideSteps(t *testing.T, heading string, want []string) []string {
	t.Helper()
	const guide = "docs/guides/migrating.md"
	page, err := os.ReadFile(filepath.Join(toolchain.RepoRoot(t), guide))
	if err != nil {
		t.Fatal(err)
	}
	section := regexp.MustCompile("(?ms)^" + regexp.QuoteMeta(heading) + "\n(.*?)(^## |\\z)").FindStringSubmatch(string(page))
	if section == nil {
		t.Fatalf("%s has no section %q", guide, heading)
	}
	var steps []string
	for _, m := range guideFence.FindAllStringSubmatch(section[1], -1) {
		if m[2] == "sh" {
			steps = append(steps, regexp.MustCompile("(?m)^"+m[1]).ReplaceAllString(m[3], ""))
		}
	}
	if len(steps) != len(want) {
		t.Fatalf("%s %q has %d shell blocks, want %d", guide, heading, len(steps), len(want))
	}
	for i, cmd := range want {
		if !strings.Contains(steps[i], cmd) {
			t.Fatalf("%s %q: shell block %d does not run %q:\n%s", guide, heading, i+1, cmd, steps[i])
		}
	}
	return steps
}

// TestAdoptNamespaceFromGuide runs the migration guide's "adopt a namespace in one
// step" as written (only the namespace is the test's own): a namespace of 100 slices
// made outside Pulumi, three Endpoints labelled as one set, one unlabelled, and a
// Service with a selector whose slice and Endpoints the controllers write. The listing,
// the import file and one `pulumi import` bring the 100 slices and the labelled set
// (one EndpointsList) under the stack with generated code, and nothing else; preview
// and refresh are quiet, and every UID stays.
func TestAdoptNamespaceFromGuide(t *testing.T) {
	t.Parallel()
	steps := readGuideSteps(t, adoptHeading, adoptSteps)
	cp := controlplane.Shared(t)
	ns := cp.Namespace(t, "adopt")
	controllers := cp.SelectedService(t, ns, "svc")
	const slices = 100
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for i := range slices {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			outsideSlice(t, cp, ns, fmt.Sprintf("web-%03d", i), map[string]string{"kubernetes.io/service-name": "web"})
		}()
	}
	wg.Wait()
	for _, name := range []string{"legacy-a", "legacy-b", "legacy-c"} {
		outsideEndpoints(t, cp, ns, name, map[string]string{"app.kubernetes.io/part-of": "legacy"})
	}
	outsideEndpoints(t, cp, ns, "other", nil)
	uidsBefore := namespaceUIDs(t, cp, ns)

	s := newDoStack(t, cp.KubeconfigPath())
	s.InitStack("name: adopt\nruntime: yaml\n")
	s.PrependPath(filepath.Dir(tool(t, "TEST_ASSET_PULUMI")))
	s.PrependPath(filepath.Dir(tool(t, "TEST_ASSET_KUBECTL")))
	inNamespace := regexp.MustCompile(`\bapps\b`)
	for _, step := range steps {
		commands := inNamespace.ReplaceAllString(step, ns)
		out, err := toolchain.Command(t.Context(), s.Dir, s.Environ(), "bash", "-euo", "pipefail", "-c", commands)
		if err != nil {
			t.Fatalf("%s: %v\n%s", commands, err, out)
		}
	}

	// The stack holds the 100 slices and one list of the three labelled Endpoints;
	// the controllers' objects and the unlabelled Endpoints stay out.
	var state struct {
		Deployment struct {
			Resources []struct {
				Type    string         `json:"type"`
				ID      string         `json:"id"`
				Outputs map[string]any `json:"outputs"`
			} `json:"resources"`
		} `json:"deployment"`
	}
	if err := json.Unmarshal([]byte(s.Run("stack", "export")), &state); err != nil {
		t.Fatal(err)
	}
	var sliceIDs []string
	var lists []string
	for _, r := range state.Deployment.Resources {
		switch r.Type {
		case spec.EndpointSliceToken:
			sliceIDs = append(sliceIDs, r.ID)
		case spec.EndpointsListToken:
			items, _ := r.Outputs["items"].([]any)
			for _, it := range items {
				meta, _ := it.(map[string]any)["metadata"].(map[string]any)
				lists = append(lists, fmt.Sprint(meta["name"]))
			}
		}
	}
	if len(sliceIDs) != slices || strings.Contains(strings.Join(sliceIDs, " "), controllers.Name) {
		t.Errorf("the stack holds %d slices (%v), want the %d made outside and not the controller's %s",
			len(sliceIDs), sliceIDs, slices, controllers.Name)
	}
	if diff := cmp.Diff([]string{"legacy-a", "legacy-b", "legacy-c"}, lists); diff != "" {
		t.Errorf("the EndpointsList's items (-want +got):\n%s", diff)
	}
	code, err := os.ReadFile(filepath.Join(s.Dir, "Pulumi.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(code), "type: "+spec.EndpointSliceToken); n != slices {
		t.Errorf("the program declares %d slices, want %d", n, slices)
	}
	if diff := cmp.Diff(uidsBefore, namespaceUIDs(t, cp, ns)); diff != "" {
		t.Errorf("UIDs (-before +after):\n%s", diff)
	}
}

// namespaceUIDs returns the UID of every EndpointSlice and Endpoints of ns, by kind and
// name.
func namespaceUIDs(t *testing.T, cp *controlplane.ControlPlane, ns string) map[string]string {
	t.Helper()
	uids := map[string]string{}
	sl, err := cp.Clientset().DiscoveryV1().EndpointSlices(ns).List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range sl.Items {
		uids["EndpointSlice "+o.Name] = string(o.UID)
	}
	eps, err := cp.Clientset().CoreV1().Endpoints(ns).List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range eps.Items {
		uids["Endpoints "+o.Name] = string(o.UID)
	}
	return uids
}
