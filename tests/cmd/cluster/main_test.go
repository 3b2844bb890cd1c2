package main

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/toolchain"
)

// TestMakeClusterBuildsOnlyWhatItRuns reads what `make -n cluster` would run with an
// empty tool cache: it must build etcd, kube-apiserver and kube-controller-manager and
// no other tool (not the pulumi CLI, kubectl or the data plane), and never call sudo or
// apt-get.
func TestMakeClusterBuildsOnlyWhatItRuns(t *testing.T) {
	t.Parallel()
	want := []string{"etcd", "kube-apiserver", "kube-controller-manager"}
	if built := toolchain.ToolsBuilt(t, "cluster"); !slices.Equal(built, want) {
		t.Errorf("make cluster builds %v into the tool cache, want %v", built, want)
	}
}

// TestStopWithoutCluster: stop with no control plane says so, succeeds and removes the
// directory; a PID file naming a process that is not the cluster's is not obeyed.
func TestStopWithoutCluster(t *testing.T) {
	t.Parallel()
	for name, pid := range map[string]string{"no pid file": "", "a dead pid": "999999999", "another program": strconv.Itoa(os.Getpid())} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "cluster")
			if err := os.MkdirAll(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			if pid != "" {
				toolchain.WriteFile(t, filepath.Join(dir, pidFile), pid+"\n")
			}
			if got, ok := running(dir); ok {
				t.Fatalf("running(%s) = %d, true; want no cluster", dir, got)
			}
			if err := stopCluster(dir); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(dir); !os.IsNotExist(err) {
				t.Errorf("stop left %s (stat: %v)", dir, err)
			}
		})
	}
}
