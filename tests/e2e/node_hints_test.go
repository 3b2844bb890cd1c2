package e2e

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/controlplane"
)

// nodeHintsProgram is what a user writes for a node-local service: a camelCase
// logical name, an autonamed slice whose endpoint, without conditions, sets zone and
// node hints; %[1]s is the namespace.
const nodeHintsProgram = `name: e2e-node-hints
runtime: yaml
resources:
  nodeLocal:
    type: endpoints:discovery.k8s.io/v1:EndpointSlice
    properties:
      metadata:
        namespace: %[1]s
      addressType: IPv4
      endpoints:
        - addresses: ["10.0.0.40"]
          nodeName: node-a
          hints:
            forZones:
              - name: zone-a
            forNodes:
              - name: node-a
      ports:
        - name: http
          port: 80
`

// On the oldest minor's API server (1.32, which does not know node hints and drops
// them), the CLI shows Check's warning naming hints.forNodes and the server's version
// at preview and at up; up succeeds and creates the slice without node hints; a
// refresh finds nothing changed, and the preview after it passes with
// --expect-no-changes: no permanent diff.
func TestNodeHintsDroppedByTheOldestServer(t *testing.T) {
	t.Parallel()
	cp := controlplane.SharedOldest(t)
	_, version := cp.Version()
	ns := cp.Namespace(t, "e2e")
	s := newStack(t, cp.KubeconfigPath())
	s.init(fmt.Sprintf(nodeHintsProgram, ns))
	warning := regexp.MustCompile(`(?m)^\s*warning: endpoints\[0\]\.hints\.forNodes: Kubernetes ` +
		regexp.QuoteMeta(version) + ` does not know node hints`)

	for _, step := range []struct {
		name string
		args []string
	}{
		{"preview", []string{"preview", "--non-interactive", "--diff"}},
		{"up", []string{"up", "--yes", "--non-interactive", "--diff"}},
	} {
		if out := s.runEnv(nil, step.args...); !warning.MatchString(out) {
			t.Errorf("%s on Kubernetes %s: no warning %q:\n%s", step.name, version, warning, out)
		}
	}
	slices, err := cp.Clientset().DiscoveryV1().EndpointSlices(ns).List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(slices.Items) != 1 || len(slices.Items[0].Endpoints) != 1 {
		t.Fatalf("after up the namespace holds %+v, want the one slice of one endpoint", slices.Items)
	}
	want := &discoveryv1.EndpointHints{ForZones: []discoveryv1.ForZone{{Name: "zone-a"}}}
	if diff := cmp.Diff(want, slices.Items[0].Endpoints[0].Hints); diff != "" {
		t.Errorf("the hints Kubernetes %s holds (-want +got):\n%s", version, diff)
	}

	s.Run("refresh", "--yes", "--non-interactive", "--diff", "--expect-no-changes")
	s.Run("preview", "--non-interactive", "--diff", "--expect-no-changes")
	s.Run("destroy", "--yes", "--non-interactive")
}
