package main

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/controlplane"
)

// driftFigures are the runs of one slice program with the refreshBeforeUpdate setting
// off and on.
type driftFigures struct {
	scenario engineScenario
	off, on  []engineRun
}

// driftSteps are the commands the drift runs time, in the order they run.
var driftSteps = []int{stepUp, stepAgain, stepDestroy}

// driftSlices is the size of the program the drift runs measure.
const driftSlices = 200

// driftCostTarget is the most the setting may add to a `pulumi up` for it to be on by
// default.
const driftCostTarget = 1.10

// measureDrift runs the program of n slices runs times with refreshBeforeUpdate off
// and as many on (through its environment variable), alternating which goes first:
// up, a second up of the unchanged program, and destroy, each with its preview as a
// user runs them.
func measureDrift(ctx context.Context, cp *controlplane.ControlPlane, t tools, n, runs int) (driftFigures, error) {
	s := engineScenario{
		name: fmt.Sprintf("%d EndpointSlices", n), base: fmt.Sprintf("%d EndpointSlices", n), resources: n,
		program: slicesProgram(n), again: true, preview: true,
	}
	f := driftFigures{scenario: s}
	settings := []struct {
		value string
		runs  *[]engineRun
	}{{"false", &f.off}, {"true", &f.on}}
	plugin := filepath.Join(t.ambient, filepath.Base(t.provider))
	for r := range runs {
		for i := range settings {
			setting := settings[(r+i)%len(settings)]
			s.env = []string{"PULUMI_ENDPOINTS_REFRESH_BEFORE_UPDATE=" + setting.value}
			run, err := engineOnce(ctx, cp, t, s, spec.EndpointSliceToken, plugin, "endpointslices")
			if err != nil {
				return f, fmt.Errorf("%s, refreshBeforeUpdate %s: %w", s.name, setting.value, err)
			}
			*setting.runs = append(*setting.runs, run)
			progress(s.name+", refreshBeforeUpdate "+setting.value, r+1, "ours  ", run)
		}
	}
	return f, nil
}

func renderDrift(w writer, d *driftFigures) {
	w("The program of %s runs `pulumi up`, a second `pulumi up` of the unchanged program and `pulumi destroy`,", d.scenario.name)
	w("each with its preview as a user runs them, with the provider's `refreshBeforeUpdate` setting off and on")
	w("(`PULUMI_ENDPOINTS_REFRESH_BEFORE_UPDATE`), alternating which goes first. On, the first up marks each slice, so")
	w("the second up and the destroy read every slice back first, in the preview and again in the update: that read")
	w("is what puts drift back without `--refresh`; the first up reads nothing, as nothing is marked yet. The setting")
	w("would be on by default if it added at most %.0f%% to an up of the unchanged program.", (driftCostTarget-1)*100)
	w("Cells give the median and, in brackets, the lowest and highest run; CPU time (user + system of the CLI and all")
	w("it waited for) and request counts move less with the machine's load than wall time.")
	w("")
	w("| program | runs | command | off | on | on / off | CLI tree CPU, off / on | API server requests for the kind, off / on | target of on / off |")
	w("|---|---|---|---|---|---|---|---|---|")
	for _, step := range driftSteps {
		of := stepTime(step)
		off, on := durations(d.off, of), durations(d.on, of)
		cpu := func(runs []engineRun) float64 {
			return median(durations(runs, func(r engineRun) time.Duration { return r.cliCPU[step] })).Seconds()
		}
		requests := func(runs []engineRun) int64 {
			return int64(median(durations(runs, func(r engineRun) time.Duration { return time.Duration(r.requests[step]) })))
		}
		ratio := float64(median(on)) / float64(median(off))
		target := noTarget
		if step == stepAgain {
			target = atMost(ratio, driftCostTarget, fmt.Sprintf("at most %.2f", driftCostTarget))
		}
		w("| %s | %d | %s | %s | %s | %.2f | %.2f s / %.2f s | %d / %d | %s |", d.scenario.name, len(d.on), stepNames[step],
			spread(off), spread(on), ratio, cpu(d.off), cpu(d.on),
			requests(d.off), requests(d.on), target)
	}
	w("")
}
