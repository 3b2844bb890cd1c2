package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/controlplane"
)

// kubernetesToken is pulumi-kubernetes's EndpointSlice, which the side-by-side
// programs declare in place of the provider's (spec.EndpointSliceToken).
//
//nolint:gosec // G101: a resource type token, not a credential
const kubernetesToken = "kubernetes:discovery.k8s.io/v1:EndpointSlice"

// besideSteps are the commands the side-by-side runs time, in the order they run.
var besideSteps = []int{stepUp, stepPreview, stepRefresh, stepDestroy}

// besideFigures are the runs of one slice program with pulumi-kubernetes's
// EndpointSlice, the provider's and the floor's no-op resource.
type besideFigures struct {
	scenario                engineScenario
	floor, ours, kubernetes []engineRun
	// version is pulumi-kubernetes's, and sizes the plugin binaries' in bytes: the
	// provider's and pulumi-kubernetes's.
	version string
	sizes   [2]int64
	// load is the one-minute load average at the start and end of the runs.
	load [2]float64
}

// hangBound is the bound of every command of a side-by-side run of n slices: bound
// when above 0, otherwise a minute and 300 ms per slice (2 minutes for 200; an `up`
// of 200 takes seconds).
func hangBound(n int, bound time.Duration) time.Duration {
	if bound > 0 {
		return bound
	}
	return time.Minute + time.Duration(n)*300*time.Millisecond
}

// besideScenario is the engine section's program of n slices run as a user runs it:
// up and destroy with their preview, a preview of the unchanged program after up,
// and refresh; every command bounded.
func besideScenario(n int, bound time.Duration) engineScenario {
	return engineScenario{
		name: fmt.Sprintf("%d EndpointSlices", n), base: fmt.Sprintf("%d EndpointSlices", n), resources: n,
		program: slicesProgram(n), refresh: true, preview: true, previewStep: true, bound: hangBound(n, bound),
	}
}

// runBeside measures each slice count of cfg beside pulumi-kubernetes, whose plugin
// binary (of version) it links into dir, a directory of its own: the engine finds it
// on PATH, as it finds the provider and the floor.
func runBeside(ctx context.Context, cp *controlplane.ControlPlane, t tools, cfg config, dir, binary, version string) ([]besideFigures, error) {
	if binary == "" || version == "" {
		return nil, errors.New("no pulumi-kubernetes plugin and version: run `make bench` (TEST_ASSET_PULUMI_KUBERNETES, " +
			"TEST_ASSET_PULUMI_KUBERNETES_VERSION), or give -pulumi-kubernetes-newest and -pulumi-kubernetes-newest-version")
	}
	if err := os.Mkdir(dir, 0o700); err != nil {
		return nil, err
	}
	t.kubernetes = filepath.Join(dir, "pulumi-resource-kubernetes")
	if err := os.Symlink(binary, t.kubernetes); err != nil {
		return nil, fmt.Errorf("linking pulumi-kubernetes's plugin: %w", err)
	}
	var out []besideFigures
	for _, n := range cfg.besideSlices {
		runs := cfg.engineRuns
		if n >= 1000 {
			runs = cfg.largeRuns
		}
		f, err := measureBeside(ctx, cp, t, n, runs, cfg.besideBound, version)
		if err != nil {
			return out, err
		}
		out = append(out, f)
	}
	return out, nil
}

// measureBeside runs the program of n slices runs times with each of the floor's,
// the provider's and pulumi-kubernetes's resources, rotating which goes first. A
// command that outlives the bound is killed: its run is kept, marked hung, and the
// next run starts afresh.
func measureBeside(ctx context.Context, cp *controlplane.ControlPlane, t tools, n, runs int, bound time.Duration,
	version string,
) (besideFigures, error) {
	s := besideScenario(n, bound)
	f := besideFigures{scenario: s, version: version}
	f.load[0] = loadAverage()
	var err error
	if f.sizes, err = binarySizes(t.provider, t.kubernetes); err != nil {
		return f, err
	}
	// The plugin's processes run the file the link names: the sampler knows them by it.
	kubernetesExe, err := filepath.EvalSymlinks(t.kubernetes)
	if err != nil {
		return f, fmt.Errorf("pulumi-kubernetes's plugin: %w", err)
	}
	type variant struct {
		who, token, plugin, kind string
		runs                     *[]engineRun
	}
	variants := []variant{
		{"floor ", floorToken, t.floor, "", &f.floor},
		{"ours  ", spec.EndpointSliceToken, filepath.Join(t.ambient, filepath.Base(t.provider)), "endpointslices", &f.ours},
		{"pulumi-kubernetes", kubernetesToken, kubernetesExe, "endpointslices", &f.kubernetes},
	}
	for r := range runs {
		for i := range variants {
			v := variants[(r+i)%len(variants)]
			run, err := engineOnce(ctx, cp, t, s, v.token, v.plugin, v.kind)
			if err != nil && !errors.Is(err, errHung) {
				return f, fmt.Errorf("%s (%s): %w", s.name, v.token, err)
			}
			*v.runs = append(*v.runs, run)
			progress(s.name+" beside pulumi-kubernetes", r+1, v.who, run)
		}
	}
	f.load[1] = loadAverage()
	return f, nil
}

// binarySizes are the sizes of the plugin binaries at paths.
func binarySizes(paths ...string) ([2]int64, error) {
	var sizes [2]int64
	for i, p := range paths[:min(len(paths), len(sizes))] {
		info, err := os.Stat(p)
		if err != nil {
			return sizes, fmt.Errorf("plugin binary %s: %w", p, err)
		}
		sizes[i] = info.Size()
	}
	return sizes, nil
}

// completed are the times of step in the runs where it ran to the end.
func completed(runs []engineRun, step int) []time.Duration {
	var ds []time.Duration
	for _, r := range runs {
		if !r.hung[step] && r.times[step] > 0 {
			ds = append(ds, r.times[step])
		}
	}
	return ds
}

// hangs counts the runs where step was killed at the bound.
func hangs(runs []engineRun, step int) int {
	return len(slices.DeleteFunc(slices.Clone(runs), func(r engineRun) bool { return !r.hung[step] }))
}

// besideCell is a command's median and spread over the runs that completed it, and
// how many were killed at the bound.
func besideCell(runs []engineRun, step int) string {
	ds, hung := completed(runs, step), hangs(runs, step)
	cell := "-"
	if len(ds) > 0 {
		cell = spread(ds)
	}
	if hung > 0 {
		cell += fmt.Sprintf(", %d of %d hung", hung, len(runs))
	}
	return cell
}

// besideRatio is the ratio of the medians of a to b over the runs that completed
// step, or "-" when either has none.
func besideRatio(a, b []engineRun, step int) string {
	da, db := completed(a, step), completed(b, step)
	if len(da) == 0 || len(db) == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", float64(median(da))/float64(median(db)))
}

// besideTarget is the target cell of each command: up within 1.2 times the floor,
// refresh and destroy at least 3 times faster than pulumi-kubernetes; missed when a
// side has no completed run.
func besideTarget(f besideFigures, step int) string {
	ratio := func(a, b []engineRun) (float64, bool) {
		da, db := completed(a, step), completed(b, step)
		if len(da) == 0 || len(db) == 0 {
			return 0, false
		}
		return float64(median(da)) / float64(median(db)), true
	}
	switch step {
	case stepUp:
		r, ok := ratio(f.ours, f.floor)
		return verdict("provider / floor at most 1.2", ok && round2(r) <= 1.2)
	case stepRefresh, stepDestroy:
		r, ok := ratio(f.kubernetes, f.ours)
		return verdict("pulumi-kubernetes / provider at least 3", ok && round2(r) >= 3)
	default:
		return noTarget
	}
}

// renderBeside writes the side-by-side runs with pulumi-kubernetes: the version
// `make tools` pins, or (newest) one built by hand from a newer release.
func renderBeside(w writer, beside []besideFigures, newest bool) {
	version := beside[0].version
	them := "pulumi-kubernetes " + version
	w("The slice program of the engine section runs with %s's `%s`, with the", them, kubernetesToken)
	w("provider's `%s` and with the floor's `%s`: the same logical names and inputs", spec.EndpointSliceToken, floorToken)
	w("(`metadata.name` is left to each provider's autonaming), the same CLI, YAML host, control plane and local backend,")
	w("rotating which goes first. Each run is `pulumi up` with its preview, as a user runs it, a `pulumi preview` of the")
	w("unchanged program, `pulumi refresh --skip-preview` and `pulumi destroy` with its preview. The engine section runs")
	w("the same program's `up` and `destroy` with `--skip-preview`, without the preview, so its times are lower than")
	w("these: compare the two by the ratios to each section's floor, not by their times.")
	if newest {
		w("pulumi-kubernetes %s is the newest release this section was run with: the Go module proxy serves no release", version)
		w("after 4.25.0, so its plugin was built by hand from the source at its tag (CONTRIBUTING.md gives the steps) and")
		w("given with `-pulumi-kubernetes-newest`; `make bench` without it keeps this section as it was.")
	} else {
		w("pulumi-kubernetes %s is the plugin `make tools` builds from its Go module (`tools/pulumi-kubernetes`).", version)
	}
	w("Each plugin is found on PATH. Every command is bounded (a minute and 300 ms a slice unless")
	w("`-pulumi-kubernetes-bound` says otherwise): one that takes longer is killed and counted as hung below, not")
	w("waited for, and the rest of that run is not run. Cells give the median and, in brackets, the lowest and highest")
	w("of the runs that completed the command.")
	w("")
	for _, f := range beside {
		w("%s: load %.2f to %.2f, each command bounded at %s.", f.scenario.name, f.load[0], f.load[1], f.scenario.bound)
	}
	w("")
	w("| program | runs | command | floor | provider | %s | provider / floor | %s / floor | %s / provider | target |", them, them, them)
	w("|---|---|---|---|---|---|---|---|---|---|")
	for _, f := range beside {
		for _, step := range besideSteps {
			w("| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s |", f.scenario.name, len(f.ours), stepNames[step],
				besideCell(f.floor, step), besideCell(f.ours, step), besideCell(f.kubernetes, step),
				besideRatio(f.ours, f.floor, step), besideRatio(f.kubernetes, f.floor, step),
				besideRatio(f.kubernetes, f.ours, step), besideTarget(f, step))
		}
	}
	w("")
	renderBesideCosts(w, beside)
	renderHangs(w, beside)
}

// renderBesideCosts writes the load-independent figures of the side-by-side runs.
func renderBesideCosts(w writer, beside []besideFigures) {
	w("| program | plugin binary: provider / pulumi-kubernetes %[1]s | plugin peak RSS: floor / provider / pulumi-kubernetes %[1]s | API server requests for endpointslices, up / preview / refresh / destroy: provider; pulumi-kubernetes %[1]s |",
		beside[0].version)
	w("|---|---|---|---|")
	for _, f := range beside {
		peak := func(runs []engineRun) string {
			var p int64
			for _, r := range runs {
				p = max(p, r.peak)
			}
			return mib(p)
		}
		requests := func(runs []engineRun) string {
			counts := make([]string, len(besideSteps))
			for i, step := range besideSteps {
				var ns []time.Duration
				for _, r := range runs {
					if !r.hung[step] && r.times[step] > 0 {
						ns = append(ns, time.Duration(r.requests[step]))
					}
				}
				counts[i] = "-"
				if len(ns) > 0 {
					counts[i] = fmt.Sprint(int64(median(ns)))
				}
			}
			return strings.Join(counts, " / ")
		}
		w("| %s | %.1f MiB / %.1f MiB | %s / %s / %s | %s; %s |", f.scenario.name, float64(f.sizes[0])/(1<<20),
			float64(f.sizes[1])/(1<<20), peak(f.floor), peak(f.ours), peak(f.kubernetes), requests(f.ours), requests(f.kubernetes))
	}
	w("")
}

// renderHangs lists every command killed at its bound, or says none was.
func renderHangs(w writer, beside []besideFigures) {
	var lines []string
	for _, f := range beside {
		for _, v := range []struct {
			who  string
			runs []engineRun
		}{{"the floor", f.floor}, {"the provider", f.ours}, {"pulumi-kubernetes", f.kubernetes}} {
			for i, r := range v.runs {
				for _, step := range besideSteps {
					if r.hung[step] {
						lines = append(lines, fmt.Sprintf("- %s, %s, run %d: `pulumi %s` killed after %s.",
							v.who, f.scenario.name, i+1, stepNames[step], f.scenario.bound))
					}
				}
			}
		}
	}
	if len(lines) == 0 {
		w("Hangs: no command outlived its bound.")
	} else {
		w("Hangs (commands killed at their bound; their runs' later commands did not run):")
		w("")
		for _, l := range lines {
			w("%s", l)
		}
	}
	w("")
}
