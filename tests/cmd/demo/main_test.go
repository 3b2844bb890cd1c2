package main

import (
	"slices"
	"testing"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/toolchain"
)

// demoTools are the binaries the demo runs, which a first `make demo` builds into the
// tool cache: the CLI and its YAML host, and the control plane.
var demoTools = []string{"etcd", "kube-apiserver", "kube-controller-manager", "pulumi", "pulumi-language-yaml"}

// TestMakeDemoBuildsOnlyWhatItRuns reads what `make -n demo` would run with an empty
// tool cache: it must build the demo's tools and nothing else (no kubectl, data plane,
// Java hosts or pulumi-kubernetes), and never call sudo or apt-get.
func TestMakeDemoBuildsOnlyWhatItRuns(t *testing.T) {
	t.Parallel()
	if built := toolchain.ToolsBuilt(t, "demo"); !slices.Equal(built, demoTools) {
		t.Errorf("make demo builds %v into the tool cache, want %v", built, demoTools)
	}
}
