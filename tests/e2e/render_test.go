package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/controlplane"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/toolchain"
)

// With a renderDirectory the whole life of a stack runs with no cluster at all:
// KUBECONFIG names a file that does not exist. up writes the manifests (the directory
// relative to the program's), an edited program rewrites them, refresh reads a hand
// edit back as drift that the next up undoes, and destroy removes them.
func TestRenderWithoutCluster(t *testing.T) {
	t.Parallel()
	s := newStack(t, filepath.Join(t.TempDir(), "no-such-kubeconfig"))
	s.init(fmt.Sprintf(identityProgram, "apps", 80), "endpoints:renderDirectory", "manifests")
	dir := filepath.Join(s.Dir, "manifests")

	s.Run("preview", "--non-interactive")
	if files := toolchain.FileNames(t, dir); len(files) != 0 {
		t.Fatalf("preview wrote files: %v", files)
	}
	s.Run("up", "--yes", "--non-interactive")
	slice := stackOutputs(t, s)["sliceName"]
	sliceFile := filepath.Join(dir, "discovery.k8s.io_v1-EndpointSlice-apps-"+slice+".yaml")
	want := []string{filepath.Base(sliceFile), "v1-Endpoints-apps-web.yaml"}
	if files := toolchain.FileNames(t, dir); !slices.Equal(files, want) {
		t.Fatalf("after up: files %v, want %v", files, want)
	}
	// What up wrote, refresh reads back as it is, and a preview then has nothing to do.
	s.Run("refresh", "--yes", "--non-interactive", "--expect-no-changes")
	s.Run("preview", "--non-interactive", "--expect-no-changes")
	before := toolchain.ReadFile(t, sliceFile)

	phase(t, "an edited program rewrites the manifest; an unchanged one changes no byte", func() {
		s.WriteProject(fmt.Sprintf(identityProgram, "apps", 8080))
		s.Run("up", "--yes", "--non-interactive")
		after := toolchain.ReadFile(t, sliceFile)
		if after == before || !strings.Contains(after, "port: 8080") {
			t.Fatalf("after the edit, %s:\n%s", sliceFile, after)
		}
		s.Run("up", "--yes", "--non-interactive")
		if again := toolchain.ReadFile(t, sliceFile); again != after {
			t.Errorf("an up of the unchanged program changed %s:\n%s\nto:\n%s", sliceFile, after, again)
		}
	})

	phase(t, "refresh reads a hand edit back; up writes the program's again", func() {
		edited := strings.Replace(toolchain.ReadFile(t, sliceFile), "10.0.0.1", "10.9.9.9", 1)
		if err := os.WriteFile(sliceFile, []byte(edited), 0o600); err != nil {
			t.Fatal(err)
		}
		out := s.RunCombined("refresh", "--yes", "--non-interactive", "--diff")
		if !strings.Contains(out, "10.9.9.9") {
			t.Errorf("refresh does not show the hand edit:\n%s", out)
		}
		if state := s.Run("stack", "export"); !strings.Contains(state, "10.9.9.9") {
			t.Errorf("the state after refresh does not hold the hand edit")
		}
		if got := changes(s.previewOps()); !slices.Equal(got["slice"], []string{"update"}) {
			t.Errorf("preview after refreshing a hand edit: %v, want the slice updated", got)
		}
		s.Run("up", "--yes", "--non-interactive")
		if text := toolchain.ReadFile(t, sliceFile); strings.Contains(text, "10.9.9.9") || !strings.Contains(text, "10.0.0.1") {
			t.Errorf("up did not write the program's manifest again:\n%s", text)
		}
	})

	phase(t, "a removed manifest is written again by up", func() {
		if err := os.Remove(filepath.Join(dir, "v1-Endpoints-apps-web.yaml")); err != nil {
			t.Fatal(err)
		}
		s.Run("up", "--yes", "--non-interactive")
		if files := toolchain.FileNames(t, dir); !slices.Equal(files, want) {
			t.Errorf("after up: files %v, want %v", files, want)
		}
	})

	s.Run("destroy", "--yes", "--non-interactive")
	if files := toolchain.FileNames(t, dir); len(files) != 0 {
		t.Errorf("destroy left %v", files)
	}
}

// Switching a stack from a cluster to a render directory and back moves its objects,
// as a change of cluster does: each up creates them on the new target and removes
// them from the old one.
func TestRenderSwitchTargets(t *testing.T) {
	t.Parallel()
	cp := controlplane.Shared(t)
	ns := cp.Namespace(t, "e2e")
	s := newStack(t, writeKubeconfig(t, filepath.Join(t.TempDir(), "config"), cp.Kubeconfig()))
	s.init(fmt.Sprintf(identityProgram, ns, 80))
	s.Run("up", "--yes", "--non-interactive")
	slice := stackOutputs(t, s)["sliceName"]
	dir := filepath.Join(s.Dir, "out")

	phase(t, "cluster to directory", func() {
		s.Run("config", "set", "endpoints:renderDirectory", "out")
		if ops := changes(s.previewOps()); !slices.Contains(ops["slice"], "replace") &&
			!slices.Contains(ops["slice"], "create-replacement") {
			t.Errorf("preview of the switch: %v, want the objects replaced", ops)
		}
		s.Run("up", "--yes", "--non-interactive")
		if onCluster, itemOnCluster := objectsOn(t, cp, ns, slice); onCluster || itemOnCluster {
			t.Errorf("after the switch to a directory: slice %v, Endpoints %v still on the cluster", onCluster, itemOnCluster)
		}
		rendered := stackOutputs(t, s)["sliceName"]
		want := []string{"discovery.k8s.io_v1-EndpointSlice-" + ns + "-" + rendered + ".yaml", "v1-Endpoints-" + ns + "-web.yaml"}
		if files := toolchain.FileNames(t, dir); !slices.Equal(files, want) {
			t.Errorf("after the switch to a directory: files %v, want %v", files, want)
		}
	})

	phase(t, "directory to cluster", func() {
		s.Run("config", "rm", "endpoints:renderDirectory")
		s.Run("up", "--yes", "--non-interactive")
		slice = stackOutputs(t, s)["sliceName"]
		if onCluster, itemOnCluster := objectsOn(t, cp, ns, slice); !onCluster || !itemOnCluster {
			t.Errorf("after the switch back: slice %v, Endpoints %v on the cluster; want both", onCluster, itemOnCluster)
		}
		if files := toolchain.FileNames(t, dir); len(files) != 0 {
			t.Errorf("after the switch back: files %v left", files)
		}
	})
	s.Run("destroy", "--yes", "--non-interactive")
}

// A named slice whose addressType changes is replaced in the render directory as on
// a cluster: the preview shows the replacement, up deletes the old object first
// (the name stays) and writes the new manifest in its file, and refresh and preview
// are then quiet.
func TestRenderReplacesNamedSlice(t *testing.T) {
	t.Parallel()
	s := newStack(t, filepath.Join(t.TempDir(), "no-such-kubeconfig"))
	s.init(fmt.Sprintf(namedSliceProgram, "IPv4", "10.0.0.1"), "endpoints:renderDirectory", "manifests")
	dir := filepath.Join(s.Dir, "manifests")
	file := filepath.Join(dir, "discovery.k8s.io_v1-EndpointSlice-default-web-1.yaml")
	s.Run("up", "--yes", "--non-interactive")

	s.WriteProject(fmt.Sprintf(namedSliceProgram, "IPv6", "fd00::1"))
	if got := changes(s.previewOps()); !slices.Equal(got["webSlice"], []string{"replace"}) {
		t.Errorf("preview of the addressType change: %v, want webSlice replaced", got)
	}
	// A create before the delete would find the old manifest in the file and fail.
	s.Run("up", "--yes", "--non-interactive")
	if files := toolchain.FileNames(t, dir); !slices.Equal(files, []string{filepath.Base(file)}) {
		t.Fatalf("after the replacement: files %v, want only %s", files, filepath.Base(file))
	}
	if text := toolchain.ReadFile(t, file); !strings.Contains(text, "addressType: IPv6") || !strings.Contains(text, "fd00::1") {
		t.Errorf("the replacement did not write the new slice:\n%s", text)
	}
	s.Run("refresh", "--yes", "--non-interactive", "--expect-no-changes")
	s.Run("preview", "--non-interactive", "--expect-no-changes")
	s.Run("destroy", "--yes", "--non-interactive")
	if files := toolchain.FileNames(t, dir); len(files) != 0 {
		t.Errorf("destroy left %v", files)
	}
}

// namedSliceProgram is a slice named web-1 in the default namespace, with a camelCase
// logical name, no ports and no conditions; its addressType and address are filled in.
const namedSliceProgram = `name: e2e-render-replace
runtime: yaml
resources:
  webSlice:
    type: endpoints:discovery.k8s.io/v1:EndpointSlice
    properties:
      metadata:
        name: web-1
      addressType: %s
      endpoints:
        - addresses: ["%s"]
`
