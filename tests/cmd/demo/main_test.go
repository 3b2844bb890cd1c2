package main

import (
	"regexp"
	"slices"
	"strings"
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
	cache := t.TempDir()
	out := toolchain.Run(t, toolchain.RepoRoot(t), []string{"MAKEFLAGS="}, "make", "-n", "demo", "CACHE="+cache)

	// Each tool's recipe ends by moving the binary it built into the cache.
	moved := regexp.MustCompile(`(?m)^\s*mv \S+ ` + regexp.QuoteMeta(cache) + `/\S+/(\S+)$`)
	var built []string
	for _, m := range moved.FindAllStringSubmatch(out, -1) {
		built = append(built, m[1])
	}
	slices.Sort(built)
	if !slices.Equal(built, demoTools) {
		t.Errorf("make demo builds %v into the tool cache, want %v:\n%s", built, demoTools, out)
	}
	for _, word := range []string{"sudo", "apt-get"} {
		if strings.Contains(out, word) {
			t.Errorf("make demo runs %s:\n%s", word, out)
		}
	}
}
