package e2e

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/controlplane"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/toolchain"
)

// severalClustersGuide is the guide of a program of several clusters.
const severalClustersGuide = "docs/guides/several-clusters.md"

// guideProgram returns the first ```yaml block of the guide's section under heading.
func guideProgram(t *testing.T, guide, heading string) string {
	t.Helper()
	page := toolchain.ReadFile(t, filepath.Join(toolchain.RepoRoot(t), filepath.FromSlash(guide)))
	_, section, ok := strings.Cut("\n"+page, "\n"+heading+"\n")
	if !ok {
		t.Fatalf("%s has no heading %q", guide, heading)
	}
	m := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindStringSubmatch(section)
	if m == nil {
		t.Fatalf("%s, %q: no yaml program", guide, heading)
	}
	return m[1]
}

// The guide's program of several clusters (docs/guides/several-clusters.md), as
// written but for the namespace, against two control planes: each slice is on the
// cluster of its provider and not on the other; refresh and preview find nothing to
// change; destroy removes both.
func TestSeveralClusters(t *testing.T) {
	t.Parallel()
	east := controlplane.Shared(t)
	west := controlplane.StartT(t)
	ns := east.Namespace(t, "e2e")
	west.NamedNamespace(t, ns)
	program := guideProgram(t, severalClustersGuide, "# Several clusters in one program")
	if !strings.Contains(program, "namespace: apps\n") {
		t.Fatalf("the guide's program has no `namespace: apps`:\n%s", program)
	}
	// KUBECONFIG names no file: only the explicit providers can reach a cluster.
	s := newStack(t, filepath.Join(t.TempDir(), "no-such-kubeconfig"))
	s.init(strings.ReplaceAll(program, "namespace: apps\n", "namespace: "+ns+"\n"),
		"eastKubeconfig", east.KubeconfigPath(), "westKubeconfig", west.KubeconfigPath())
	s.Run("up", "--yes", "--non-interactive")

	for _, c := range []struct {
		name string
		cp   *controlplane.ControlPlane
		want []string
	}{{"east", east, []string{"10.0.1.10"}}, {"west", west, []string{"10.0.2.10"}}} {
		if got := sliceAddresses(t, c.cp, ns); !slices.Equal(got, c.want) {
			t.Errorf("the %s cluster holds slices of the addresses %v, want %v", c.name, got, c.want)
		}
	}
	s.expectQuiet()
	s.Run("destroy", "--yes", "--non-interactive")
	for name, cp := range map[string]*controlplane.ControlPlane{"east": east, "west": west} {
		if got := sliceAddresses(t, cp, ns); len(got) != 0 {
			t.Errorf("after destroy the %s cluster still holds slices of %v", name, got)
		}
	}
}

// sliceAddresses returns the addresses of every slice of the namespace on cp.
func sliceAddresses(t *testing.T, cp *controlplane.ControlPlane, ns string) []string {
	t.Helper()
	list, err := cp.Clientset().DiscoveryV1().EndpointSlices(ns).List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, s := range list.Items {
		for _, e := range s.Endpoints {
			out = append(out, e.Addresses...)
		}
	}
	return out
}
