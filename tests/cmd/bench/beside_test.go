package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
)

// The side-by-side section sets the floor, the provider and pulumi-kubernetes side by
// side per command with the ratios and targets, leaves hung commands out of the
// medians and lists each hang.
func TestRenderBeside(t *testing.T) {
	t.Parallel()
	// Steps: up, refresh, destroy, update, up again, preview.
	f := besideFigures{
		scenario:   besideScenario(200, 0),
		floor:      fakeRuns(3, [steps]float64{4, 1, 3, 0, 0, 2}, [steps]int{}),
		ours:       fakeRuns(3, [steps]float64{4.8, 1.2, 3.6, 0, 0, 2.4}, [steps]int{400, 200, 200, 0, 0, 200}),
		kubernetes: fakeRuns(3, [steps]float64{8, 6, 15, 0, 0, 3}, [steps]int{600, 200, 400, 0, 0, 200}),
		version:    "4.25.0",
		sizes:      [2]int64{40 << 20, 150 << 20},
		load:       [2]float64{3, 4},
	}
	// The second run of pulumi-kubernetes: its destroy killed at the bound.
	f.kubernetes[1].times[stepDestroy], f.kubernetes[1].hung[stepDestroy] = f.scenario.bound, true
	f.kubernetes[2].times[stepDestroy] = 17 * time.Second
	cfg := config{version: "0.7.0", pulumiVersion: "v3.256.0", yamlVersion: "v1.10.3", kubeVersion: "v1.37.2",
		etcdVersion: "v3.5.21", durableEtcd: true, kubernetesVersion: "4.25.0"}
	r := results{beside: []besideFigures{f}, stamps: map[string]stamp{"pulumi-kubernetes": {
		at: time.Date(2026, 11, 26, 19, 0, 0, 0, time.UTC), load: [2]float64{3, 4}, commit: "0123456789ab", tools: cfg.sectionTools("pulumi-kubernetes"),
	}}}
	report := render(r, cfg)
	wantLines(t, report,
		"## Beside pulumi-kubernetes\n\nMeasured 2026-11-26 19:00 UTC on ",
		"; load 3.00 at the start, 4.00 at the end.\nVersions: provider 0.7.0 (commit 0123456789ab, go",
		"); pulumi CLI v3.256.0; YAML host v1.10.3; kube-apiserver and kube-controller-manager v1.37.2; etcd v3.5.21 (fsync on, as every real cluster runs it); pulumi-kubernetes 4.25.0.",
		"pulumi-kubernetes 4.25.0's `kubernetes:discovery.k8s.io/v1:EndpointSlice`",
		"200 EndpointSlices: load 3.00 to 4.00, each command bounded at 2m0s.",
		"Each run is `pulumi up` with its preview, as a user runs it, a `pulumi preview` of the",
		"the same program's `up` and `destroy` with `--skip-preview`, without the preview, so its times are lower than",
		"| program | runs | command | floor | provider | pulumi-kubernetes 4.25.0 | provider / floor | pulumi-kubernetes 4.25.0 / floor | pulumi-kubernetes 4.25.0 / provider | target |",
		"| 200 EndpointSlices | 3 | up | 4.00 s (4.00-4.00 s) | 4.80 s (4.80-4.80 s) | 8.00 s (8.00-8.00 s) | 1.20 | 2.00 | 1.67 | provider / floor at most 1.2: met |",
		"| 200 EndpointSlices | 3 | preview | 2.00 s (2.00-2.00 s) | 2.40 s (2.40-2.40 s) | 3.00 s (3.00-3.00 s) | 1.20 | 1.50 | 1.25 | none |",
		"| 200 EndpointSlices | 3 | refresh | 1.00 s (1.00-1.00 s) | 1.20 s (1.20-1.20 s) | 6.00 s (6.00-6.00 s) | 1.20 | 6.00 | 5.00 | pulumi-kubernetes / provider at least 3: met |",
		"| 200 EndpointSlices | 3 | destroy | 3.00 s (3.00-3.00 s) | 3.60 s (3.60-3.60 s) | 15.00 s (15.00-17.00 s), 1 of 3 hung | 1.20 | 5.00 | 4.17 | pulumi-kubernetes / provider at least 3: met |",
		"| 200 EndpointSlices | 40.0 MiB / 150.0 MiB | 0.0 MiB / 0.0 MiB / 0.0 MiB | 400 / 200 / 200 / 200; 600 / 200 / 200 / 400 |",
		"- pulumi-kubernetes, 200 EndpointSlices, run 2: `pulumi destroy` killed after 2m0s.",
	)
	if strings.Contains(report, "no command outlived its bound") {
		t.Errorf("a report with a hang says there was none:\n%s", report)
	}
	f.kubernetes[1].hung = [steps]bool{}
	if report := render(results{beside: []besideFigures{f}}, config{}); !strings.Contains(report, "Hangs: no command outlived its bound.") {
		t.Errorf("a report without hangs does not say so:\n%s", report)
	}
	// The refresh is only 1.25 times faster than pulumi-kubernetes's, and the up 1.25
	// times the floor: both missed.
	f.kubernetes = fakeRuns(3, [steps]float64{8, 1.5, 15, 0, 0, 3}, [steps]int{})
	f.ours = fakeRuns(3, [steps]float64{5, 1.2, 3.6, 0, 0, 2.4}, [steps]int{})
	wantLines(t, render(results{beside: []besideFigures{f}}, config{}),
		"| 1.25 | 2.00 | 1.60 | provider / floor at most 1.2: missed |",
		"| 1.20 | 1.50 | 1.25 | pulumi-kubernetes / provider at least 3: missed |")
	if report := render(results{}, config{}); strings.Contains(report, "pulumi-kubernetes") {
		t.Errorf("a report without side-by-side runs names pulumi-kubernetes:\n%s", report)
	}
}

// pulumi-kubernetes's program is the provider's and the floor's but for the type.
func TestBesidePrograms(t *testing.T) {
	t.Parallel()
	s := besideScenario(200, 0)
	var ours, theirs yamlProgram
	if err := yaml.Unmarshal([]byte(s.program("ns", spec.EndpointSliceToken)), &ours); err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal([]byte(s.program("ns", kubernetesToken)), &theirs); err != nil {
		t.Fatal(err)
	}
	if len(ours.Resources) != 200 || len(theirs.Resources) != 200 {
		t.Fatalf("%d and %d resources, want 200", len(ours.Resources), len(theirs.Resources))
	}
	for name, r := range ours.Resources {
		k := theirs.Resources[name]
		if k.Type != kubernetesToken {
			t.Errorf("%s has type %q", name, k.Type)
		}
		if diff := cmp.Diff(r.Properties, k.Properties); diff != "" {
			t.Errorf("%s differs between the provider and pulumi-kubernetes (-ours +theirs):\n%s", name, diff)
		}
	}
	if !s.preview || !s.previewStep || !s.refresh || s.update != nil {
		t.Errorf("the side-by-side runs must time up and destroy with their preview, a preview and a refresh: %+v", s)
	}
}

func TestHangBound(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		n     int
		given time.Duration
		want  time.Duration
	}{
		{200, 0, 2 * time.Minute},
		{2000, 0, 11 * time.Minute},
		{200, 30 * time.Second, 30 * time.Second},
	} {
		if got := hangBound(tt.n, tt.given); got != tt.want {
			t.Errorf("hangBound(%d, %s) = %s, want %s", tt.n, tt.given, got, tt.want)
		}
	}
}

// A command that outlives its bound is killed with every process it started, and the
// wait for it ends at once, even when a child holds its output open.
func TestBoundedCommandIsKilled(t *testing.T) {
	t.Parallel()
	pidFile := filepath.Join(t.TempDir(), "child")
	ctx, cancel := boundContext(t.Context(), 300*time.Millisecond)
	defer cancel()
	cmd := pulumiCommand(ctx, "/bin/sh", "-c", "sleep 60 & echo $! > "+pidFile+"; wait")
	var out strings.Builder
	cmd.Stdout = &out
	start := time.Now()
	err := cmd.Run()
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the bounded command returned after %s", took)
	}
	var exit *exec.ExitError
	if !errors.As(err, &exit) || ctx.Err() == nil {
		t.Fatalf("the bounded command: error %v, context %v; want it killed at the bound", err, ctx.Err())
	}
	data, err := os.ReadFile(pidFile) //nolint:gosec // the test's own file
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	// The child, killed, is reaped by init; until then it is a zombie. Signal 0 fails
	// once it is gone.
	deadline := time.Now().Add(5 * time.Second)
	for syscall.Kill(pid, 0) == nil && !zombie(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("the command's child %d outlived the kill", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// zombie reports whether the process has exited and awaits its parent's wait.
func zombie(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(data)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(fields) > 0 && fields[0] == "Z"
}
