package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"
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
	if got := spread([]time.Duration{3 * time.Second, time.Second, 2 * time.Second}); got != "2.00 s (1.00-3.00)" {
		t.Errorf("spread = %q", got)
	}
}

// The engine programs must be valid YAML declaring the wanted resources, the same for
// the provider and the floor but for the type.
func TestEnginePrograms(t *testing.T) {
	t.Parallel()
	type program struct {
		Resources map[string]struct {
			Type       string         `json:"type"`
			Properties map[string]any `json:"properties"`
		} `json:"resources"`
	}
	for _, tt := range []struct {
		name      string
		write     func(ns, token string) string
		resources int
		items     int
	}{
		{"slices", slicesProgram(2000), 2000, 0},
		{"list", listProgram(1000), 1, 1000},
	} {
		var ours, floor program
		if err := yaml.Unmarshal([]byte(tt.write("ns", sliceToken)), &ours); err != nil {
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
			if r.Type != sliceToken || f.Type != floorToken {
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
