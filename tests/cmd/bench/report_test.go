package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
)

func TestParseCounts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    []int
		wantErr string
	}{
		{"200,2000", []int{200, 2000}, ""},
		{" 5 , ,7", []int{5, 7}, ""},
		{"", nil, ""},
		{"0", nil, `"0" is not a positive count`},
		{"10,x", nil, `"x" is not a positive count`},
	}
	for _, tt := range tests {
		got, err := parseCounts(tt.in)
		if tt.wantErr != "" {
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("parseCounts(%q): error %v, want %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("parseCounts(%q): %v", tt.in, err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("parseCounts(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestParseSections(t *testing.T) {
	t.Parallel()
	only, err := parseSections("engine, startup")
	if err != nil {
		t.Fatal(err)
	}
	cfg := config{only: only}
	for section, want := range map[string]bool{"engine": true, "startup": true, "check": false, "overhead": false} {
		if got := cfg.measures(section); got != want {
			t.Errorf("measures(%q) = %v with -only engine,startup", section, got)
		}
	}
	if !(config{}).measures("check") {
		t.Error("without -only every section must be measured")
	}
	if _, err := parseSections("engine,scale"); err == nil || !strings.Contains(err.Error(), `unknown section "scale"`) {
		t.Errorf("an unknown section: error %v", err)
	}
}

func TestPercentiles(t *testing.T) {
	t.Parallel()
	ds := []time.Duration{5, 1, 4, 2, 3}
	if got := median(ds); got != 3 {
		t.Errorf("median = %d, want 3", got)
	}
	if got, want := percentile(ds, 0), time.Duration(1); got != want {
		t.Errorf("lowest = %d, want %d", got, want)
	}
	if got, want := percentile(ds, 100), time.Duration(5); got != want {
		t.Errorf("highest = %d, want %d", got, want)
	}
	if got := medianInt([]int64{40, 10, 30, 20}); got != 20 {
		t.Errorf("medianInt = %d, want 20 (the lower middle by nearest rank)", got)
	}
	if got := spread([]time.Duration{3 * time.Second, time.Second, 2 * time.Second}); got != "2.00 s (1.00-3.00 s)" {
		t.Errorf("spread = %q", got)
	}
}

// yamlProgram is what the bench tests read of a YAML program: its resources' types
// and properties.
type yamlProgram struct {
	Resources map[string]struct {
		Type       string         `json:"type"`
		Properties map[string]any `json:"properties"`
	} `json:"resources"`
}

// The engine programs must be valid YAML declaring the wanted resources, the same for
// the provider and the floor but for the type.
func TestEnginePrograms(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name      string
		write     func(ns, token string) string
		resources int
		items     int
	}{
		{"slices", slicesProgram(2000), 2000, 0},
		{"list", listProgram(1000), 1, 1000},
	} {
		var ours, floor yamlProgram
		if err := yaml.Unmarshal([]byte(tt.write("ns", spec.EndpointSliceToken)), &ours); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if err := yaml.Unmarshal([]byte(tt.write("ns", floorToken)), &floor); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if len(ours.Resources) != tt.resources || len(floor.Resources) != tt.resources {
			t.Errorf("%s: %d and %d resources, want %d", tt.name, len(ours.Resources), len(floor.Resources), tt.resources)
		}
		for name, r := range ours.Resources {
			f := floor.Resources[name]
			if r.Type != spec.EndpointSliceToken || f.Type != floorToken {
				t.Errorf("%s: %s has types %q and %q", tt.name, name, r.Type, f.Type)
			}
			if diff := cmp.Diff(r.Properties, f.Properties); diff != "" {
				t.Errorf("%s: %s differs between the provider and the floor (-ours +floor):\n%s", tt.name, name, diff)
			}
			if items, _ := r.Properties["items"].([]any); len(items) != tt.items {
				t.Errorf("%s: %s has %d items, want %d", tt.name, name, len(items), tt.items)
			}
		}
	}
}

func TestCheckpointSize(t *testing.T) {
	t.Parallel()
	state := t.TempDir()
	if _, err := checkpointSize(state); err == nil {
		t.Error("no error for a backend without a checkpoint")
	}
	dir := filepath.Join(state, ".pulumi", "stacks", "project")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	for name, size := range map[string]int{"bench.json": 1234, "bench.json.attrs": 99999, "bench.json.bak": 77777} {
		if err := os.WriteFile(filepath.Join(dir, name), make([]byte, size), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := checkpointSize(state); err != nil || got != 1234 {
		t.Errorf("checkpointSize = %d, %v; want 1234", got, err)
	}
}

func TestCPUTime(t *testing.T) {
	t.Parallel()
	before, err := cpuTime(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	// Burn CPU until the clock-tick counters move.
	deadline := time.Now().Add(5 * time.Second)
	x := 0
	for time.Now().Before(deadline) {
		for i := range 1_000_000 {
			x += i
		}
		if after, err := cpuTime(os.Getpid()); err == nil && after > before {
			return
		}
	}
	t.Errorf("the CPU time of a busy process did not grow in 5 s (from %s; %d)", before, x)
}

func TestParseRTTs(t *testing.T) {
	t.Parallel()
	got, err := parseRTTs("0, 50ms,50ms,0.1s")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]time.Duration{0, 50 * time.Millisecond, 100 * time.Millisecond}, got); diff != "" {
		t.Errorf("parseRTTs (-want +got):\n%s", diff)
	}
	for _, bad := range []string{"50", "-5ms", "far"} {
		if _, err := parseRTTs(bad); err == nil || !strings.Contains(err.Error(), "is not a round trip") {
			t.Errorf("parseRTTs(%q): error %v", bad, err)
		}
	}
}

// The default flags run 200 slices and the 1000-item list at 0 and 50 ms, 2000 slices
// at 0 only; the list's runs time the one-item update.
func TestEngineScenarios(t *testing.T) {
	t.Parallel()
	cfg := config{slices: []int{200, 2000}, listItems: 1000, rtts: []time.Duration{0, 50 * time.Millisecond}}
	var got []string
	for _, s := range engineScenarios(cfg) {
		got = append(got, fmt.Sprintf("%s|%s|%s|update:%v", s.name, s.base, s.rtt, s.update != nil))
	}
	want := []string{
		"200 EndpointSlices|200 EndpointSlices|0s|update:false",
		"200 EndpointSlices, 50 ms round trip|200 EndpointSlices|50ms|update:false",
		"2000 EndpointSlices|2000 EndpointSlices|0s|update:false",
		"EndpointsList of 1000 items|EndpointsList of 1000 items|0s|update:true",
		"EndpointsList of 1000 items, 50 ms round trip|EndpointsList of 1000 items|50ms|update:true",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("scenarios (-want +got):\n%s", diff)
	}
	// The engine section says its commands run with --skip-preview.
	for _, s := range engineScenarios(cfg) {
		if s.preview || s.previewStep {
			t.Errorf("%s runs a preview, which the engine section says it does not", s.name)
		}
	}
}

// The one-item update's program differs from the list's in that item's address only.
func TestListProgramChanged(t *testing.T) {
	t.Parallel()
	before, after := strings.Split(listProgram(10)("ns", spec.EndpointsListToken), "\n"), strings.Split(listProgramChanged(10, 5)("ns", spec.EndpointsListToken), "\n")
	if len(before) != len(after) {
		t.Fatalf("%d lines before, %d after", len(before), len(after))
	}
	var changed []string
	for i := range before {
		if before[i] != after[i] {
			changed = append(changed, before[i]+" -> "+after[i])
		}
	}
	if len(changed) != 1 || !strings.Contains(changed[0], "10.4.0.6") || !strings.Contains(changed[0], "10.4.200.6") {
		t.Errorf("changed lines: %q", changed)
	}
}

// fakeRuns are n engine runs whose commands took the given seconds, by step.
func fakeRuns(n int, secs [steps]float64, requests [steps]int) []engineRun {
	runs := make([]engineRun, n)
	for i := range runs {
		for step, s := range secs {
			runs[i].times[step] = time.Duration(s * float64(time.Second))
		}
		runs[i].requests = requests
	}
	return runs
}

// The report states how etcd ran, times the list's update, and sets each program run
// at a round trip beside the same program run directly, with the targets.
func TestRenderFarAwayAndDurableEtcd(t *testing.T) {
	t.Parallel()
	cfg := config{slices: []int{200}, listItems: 1000, rtts: []time.Duration{0, 50 * time.Millisecond}, durableEtcd: true}
	var r results
	for _, s := range engineScenarios(cfg) {
		f := engineFigures{scenario: s}
		switch {
		case s.update == nil && s.rtt == 0:
			f.floor, f.ours, f.shaped = fakeRuns(3, [steps]float64{2, 1, 2}, [steps]int{}),
				fakeRuns(3, [steps]float64{2.4, 1.1, 2.2}, [steps]int{200, 1, 200}), fakeRuns(3, [steps]float64{2.2, 1, 2.1}, [steps]int{})
		case s.update == nil:
			f.floor, f.ours, f.shaped = fakeRuns(3, [steps]float64{2, 1, 2}, [steps]int{}),
				fakeRuns(3, [steps]float64{3.6, 1.5, 2.8}, [steps]int{200, 1, 200}), fakeRuns(3, [steps]float64{2.2, 1, 2.1}, [steps]int{})
		case s.rtt == 0:
			f.floor, f.ours = fakeRuns(3, [steps]float64{2, 2, 1.4, 1}, [steps]int{}), fakeRuns(3, [steps]float64{5, 4, 4, 2}, [steps]int{1000, 2, 1000, 1})
		default:
			f.floor, f.ours = fakeRuns(3, [steps]float64{2, 2, 1.4, 1}, [steps]int{}), fakeRuns(3, [steps]float64{6, 4.4, 5, 2.2}, [steps]int{1000, 2, 1000, 1})
		}
		r.engine = append(r.engine, f)
	}
	cfg.etcdVersion = "v3.5.21"
	r.stamps = map[string]stamp{"engine": {tools: cfg.sectionTools("engine")}}
	report := render(r, cfg)
	wantLines(t, report,
		"; etcd v3.5.21 (fsync on, as every real cluster runs it).",
		"Each program runs `pulumi up`, `pulumi refresh` and `pulumi destroy`, all three with `--skip-preview` (wall",
		"The EndpointsList program also times an update between refresh and destroy: `pulumi up --skip-preview` of the",
		"sections beside pulumi-kubernetes, which run the same slice program's `up` and `destroy` with their preview, as",
		"| 200 EndpointSlices | 3 | up | 2.00 s (2.00-2.00 s) | 2.20 s (2.20-2.20 s) | 2.40 s (2.40-2.40 s) | 1.20 | 1.09 | at most 1.2: met |",
		"| 200 EndpointSlices | 3 | destroy | 2.00 s (2.00-2.00 s) | 2.10 s (2.10-2.10 s) | 2.20 s (2.20-2.20 s) | 1.10 | 1.05 | at most 1.25: met |",
		"| 200 EndpointSlices, 50 ms round trip | 3 | destroy | 2.00 s (2.00-2.00 s) | 2.10 s (2.10-2.10 s) | 2.80 s (2.80-2.80 s) | 1.40 | 1.33 | at most 1.5: met |",
		"| 200 EndpointSlices, 50 ms round trip | 3 | up | 2.00 s (2.00-2.00 s) | 2.20 s (2.20-2.20 s) | 3.60 s (3.60-3.60 s) | 1.80 | 1.64 | at most 1.5: missed |",
		"| EndpointsList of 1000 items | 3 | update | 1.00 s (1.00-1.00 s) | - | 2.00 s (2.00-2.00 s) | 2.00 | - | none |",
		"| 0 / - / 0 bytes | 1000 / 2 / 1 / 1000 |",
		"bytes | 200 / 1 / - / 200 |",
		"## A cluster far away\n\nMeasured ",
		"| 200 EndpointSlices, 50 ms round trip | up | 2.40 s | 3.60 s | 1.50 | 2.00 s | 1.80 | at most 1.5 times the floor: missed |",
		"| 200 EndpointSlices, 50 ms round trip | refresh | 1.10 s | 1.50 s | 1.36 | 1.00 s | 1.50 | none |",
		"| EndpointsList of 1000 items, 50 ms round trip | refresh | 4.00 s | 4.40 s | 1.10 | 2.00 s | 2.20 | at most 2.0 times direct: met |",
		"| EndpointsList of 1000 items, 50 ms round trip | update | 2.00 s | 2.20 s | 1.10 | 1.00 s | 2.20 | at most 2.0 times direct: met |",
		"| EndpointsList of 1000 items, 50 ms round trip | destroy | 4.00 s | 5.00 s | 1.25 | 1.40 s | 3.57 | none |",
	)
	cfg.durableEtcd = false
	r.stamps["engine"] = stamp{tools: cfg.sectionTools("engine")}
	if report := render(r, cfg); !strings.Contains(report, "etcd v3.5.21 (`--unsafe-no-fsync`") {
		t.Errorf("without durable etcd:\n%s", report)
	}
	r.engine = r.engine[:1]
	if report := render(r, cfg); strings.Contains(report, "## A cluster far away") {
		t.Errorf("a far-away section without far runs:\n%s", report)
	}
}

// The drift section sets each command with refreshBeforeUpdate off beside on, and holds
// the target to the up of the unchanged program.
func TestRenderDrift(t *testing.T) {
	t.Parallel()
	// Steps: up, refresh, destroy, update, up again.
	d := driftFigures{
		scenario: engineScenario{name: "200 EndpointSlices"},
		off:      fakeRuns(3, [steps]float64{4, 0, 4, 0, 2}, [steps]int{400, 0, 200, 0, 0}),
		on:       fakeRuns(3, [steps]float64{4, 0, 4.4, 0, 3}, [steps]int{400, 0, 600, 0, 400}),
	}
	report := render(results{drift: &d}, config{})
	wantLines(t, report,
		"## Drift: refreshBeforeUpdate",
		"| 200 EndpointSlices | 3 | up | 4.00 s (4.00-4.00 s) | 4.00 s (4.00-4.00 s) | 1.00 | 0.00 s / 0.00 s | 400 / 400 | none |",
		"| 200 EndpointSlices | 3 | up again | 2.00 s (2.00-2.00 s) | 3.00 s (3.00-3.00 s) | 1.50 | 0.00 s / 0.00 s | 0 / 400 | at most 1.10: missed |",
		"| 200 EndpointSlices | 3 | destroy | 4.00 s (4.00-4.00 s) | 4.40 s (4.40-4.40 s) | 1.10 | 0.00 s / 0.00 s | 200 / 600 | none |",
	)
	d.on = fakeRuns(3, [steps]float64{4, 0, 4.4, 0, 2.2}, [steps]int{})
	wantLines(t, render(results{drift: &d}, config{}), "| 1.10 | 0.00 s / 0.00 s | 0 / 0 | at most 1.10: met |")
}

// wantLines fails t for each of want that report lacks.
func wantLines(t *testing.T, report string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(report, w) {
			t.Errorf("the report lacks %q:\n%s", w, report)
		}
	}
}
