package main

import (
	"fmt"
	"math"
	"regexp"
	"runtime"
	"strings"
	"time"
)

// A reportSection is one `## ` section of the report: the -only name that measures
// it and its title. The report writes them in this order.
type reportSection struct{ name, title string }

var reportSections = []reportSection{
	{"startup", "Start-up and footprint"},
	{"check", "Check"},
	{"overhead", "Provider overhead"},
	{"lookups", "Lookups"},
	{"engine", "Scale through the engine, against its floor"},
	{"engine", "A cluster far away"},
	{"pulumi-kubernetes", "Beside pulumi-kubernetes"},
	{"pulumi-kubernetes-newest", "Beside the newest pulumi-kubernetes"},
	{"drift", "Drift: refreshBeforeUpdate"},
}

// pageHeader is what every section shares; each section names its own run.
const pageHeader = `# Benchmarks

Written by ` + "`make bench`" + ` (` + "`tests/cmd/bench`" + `). Each section is the figures of one run, which it
names: when it ended, the machine, the one-minute load average (` + "`/proc/loadavg`" + `) at its start and end,
and the versions it used: the provider's with the commit checked out for the run (` + "`git rev-parse HEAD`" + `;
"+ local changes" when tracked files under provider/, cmd/ or tests/cmd/bench/, go.mod, go.sum or schema.json
differed from it). A run of some sections (` + "`-only`" + `) rewrites those and keeps the others as they were.
Figures are medians unless labelled otherwise; a ratio compares runs of the same section's run.
Wall-clock figures move with the load of the machine, which is shared; memory, state sizes, request
counts and CPU times move little. A target cell says whether its target is met or missed, or "none".
The sections that need a cluster run kube-apiserver, etcd and kube-controller-manager (garbage
collector) on 127.0.0.1, and the engine's local file backend. What the figures mean for a program, and
the settings that change them: [docs/guides/performance.md](docs/guides/performance.md); how they were reached: [PROFILING.md](PROFILING.md).
`

// A stamp is what a section says of its run.
type stamp struct {
	// at is when the run ended; load the one-minute load average at its start and end.
	at   time.Time
	load [2]float64
	// commit is the source the run measured (sourceCommit).
	commit string
	// tools are the versions the section used besides the provider's and Go's.
	tools []string
}

// writeStamp writes the run's date, machine, load and versions.
func writeStamp(w writer, s stamp, cfg config) {
	w("Measured %s on %s; load %.2f at the start, %.2f at the end.", s.at.Format("2006-01-02 15:04 MST"), machine(),
		s.load[0], s.load[1])
	commit := s.commit
	if commit == "" {
		commit = "unknown"
	}
	versions := append([]string{"provider " + cfg.version + " (commit " + commit + ", " + runtime.Version() + ")"}, s.tools...)
	w("Versions: %s.", strings.Join(versions, "; "))
	w("")
}

// clusterTools are the versions of the control plane's binaries, and how etcd ran.
func (c config) clusterTools() []string {
	etcd := "etcd " + c.etcdVersion + " (fsync on, as every real cluster runs it)"
	if !c.durableEtcd {
		etcd = "etcd " + c.etcdVersion + " (`--unsafe-no-fsync`, as the tests run it: writes not durable)"
	}
	return []string{"kube-apiserver and kube-controller-manager " + c.kubeVersion, etcd}
}

// engineTools are the versions of the CLI and its YAML host, and the control plane's.
func (c config) engineTools() []string {
	return append([]string{"pulumi CLI " + c.pulumiVersion, "YAML host " + c.yamlVersion}, c.clusterTools()...)
}

// sectionTools are the versions each section uses besides the provider and Go.
func (c config) sectionTools(name string) []string {
	switch name {
	case "overhead":
		return c.clusterTools()
	case "engine", "drift":
		return c.engineTools()
	case "pulumi-kubernetes":
		return append(c.engineTools(), "pulumi-kubernetes "+c.kubernetesVersion)
	case "pulumi-kubernetes-newest":
		return append(c.engineTools(), "pulumi-kubernetes "+c.newestVersion)
	default:
		return nil
	}
}

// assemble writes the page: the header, then each section of fresh, or else of
// old (a page this program wrote before, split by splitSections), in the order of
// reportSections. Sections in neither are left out.
func assemble(old, fresh map[string]string) string {
	var b strings.Builder
	b.WriteString(pageHeader)
	for _, s := range reportSections {
		text, ok := fresh[s.title]
		if !ok {
			text, ok = old[s.title]
			text = unrecordedCommit.ReplaceAllString(text, "${1}commit not recorded, ${2}")
		}
		if ok {
			b.WriteString("\n")
			b.WriteString(text)
		}
	}
	return b.String()
}

// unrecordedCommit matches the versions line of a section written before sections
// named their commit: a kept one says so instead of naming none.
var unrecordedCommit = regexp.MustCompile(`(?m)^(Versions: provider \S+ \()(go[^,)]*\))`)

// splitSections cuts a page into its `## ` sections by title, each from its heading
// to the blank line before the next heading (or the end), byte for byte. A title
// this program does not write is an error: the page is not one of its reports.
func splitSections(page string) (map[string]string, error) {
	out := map[string]string{}
	lines := strings.SplitAfter(page, "\n")
	title, start := "", -1
	flush := func(end int) {
		if start >= 0 {
			out[title] = strings.TrimRight(strings.Join(lines[start:end], ""), "\n") + "\n"
		}
	}
	for i, line := range lines {
		t, ok := strings.CutPrefix(strings.TrimRight(line, "\n"), "## ")
		if !ok {
			continue
		}
		if !knownTitle(t) {
			return nil, fmt.Errorf("a section %q, which tests/cmd/bench does not write", t)
		}
		flush(i)
		title, start = t, i
	}
	flush(len(lines))
	return out, nil
}

func knownTitle(title string) bool {
	for _, s := range reportSections {
		if s.title == title {
			return true
		}
	}
	return false
}

// verdict is a target cell: the target and whether it is met.
func verdict(target string, met bool) string {
	if met {
		return target + ": met"
	}
	return target + ": missed"
}

// atMost is the verdict of a ratio against its highest allowed value, judged on the
// ratio as the report rounds it (two decimals).
func atMost(ratio, limit float64, target string) string {
	return verdict(target, round2(ratio) <= limit)
}

// round2 rounds to two decimals, as the report prints ratios.
func round2(v float64) float64 { return math.Round(v*100) / 100 }

// noTarget is the target cell of a row without one.
const noTarget = "none"
