// Command bench measures the provider (start-up, footprint, Check, per-operation
// overhead against client-go, lookup overhead against plain HTTP, scale through the
// real engine, and the same programs beside pulumi-kubernetes) and writes the figures
// to a Markdown report, each section with its own run's date, machine, load and
// versions; a run of some sections (-only) keeps the report's others as they were.
// `make bench` runs it on a local control plane.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	var cfg config
	flag.StringVar(&cfg.out, "out", "BENCHMARKS.md", "the report to write")
	flag.IntVar(&cfg.runs, "runs", 5, "runs of each timed scenario (medians are reported)")
	flag.IntVar(&cfg.engineRuns, "engine-runs", 3, "runs of each engine scenario, with the provider and with the floor each")
	flag.IntVar(&cfg.largeRuns, "large-runs", 1,
		"runs of engine scenarios of 1000 resources or more (the engine alone takes minutes for 2000)")
	sliceCounts := flag.String("slices", "200,2000", "EndpointSlice counts of the engine scenarios, comma-separated")
	flag.IntVar(&cfg.listItems, "list-items", 1000, "items of the EndpointsList engine scenario (0: none)")
	rtts := flag.String("rtt", "0,50ms", "round trips to the API server of the engine scenarios, comma-separated: 0 is "+
		"the local control plane, more puts a proxy in between that holds each request and each answer for half of it "+
		"(slice counts under 1000 and the EndpointsList run at each; larger slice counts at 0 only)")
	flag.BoolVar(&cfg.durableEtcd, "durable-etcd", true, "run etcd with fsync on, as every real cluster does "+
		"(false: --unsafe-no-fsync, as the tests run it)")
	only := flag.String("only", "", "comma-separated sections to run (startup, check, overhead, lookups, engine, "+
		"pulumi-kubernetes, pulumi-kubernetes-newest, drift); default all (pulumi-kubernetes-newest only with "+
		"-pulumi-kubernetes-newest); the report keeps the sections not run as they were")
	besideCounts := flag.String("pulumi-kubernetes-slices", "200", "EndpointSlice counts of the side-by-side runs with "+
		"pulumi-kubernetes, comma-separated (200,2000 adds 2000)")
	flag.DurationVar(&cfg.besideBound, "pulumi-kubernetes-bound", 0, "the longest a command of the side-by-side runs may "+
		"take before it is killed and reported as hung (0: a minute and 300 ms per slice)")
	flag.StringVar(&cfg.newest, "pulumi-kubernetes-newest", "", "a second pulumi-resource-kubernetes, built by hand "+
		"from a newer release's tag, to run the side-by-side programs with in a section of its own")
	flag.StringVar(&cfg.newestVersion, "pulumi-kubernetes-newest-version", "", "the release of -pulumi-kubernetes-newest")
	flag.StringVar(&cfg.version, "version", "", "the provider version, for the report")
	flag.StringVar(&cfg.pulumiVersion, "pulumi-version", "", "the pulumi CLI's version, for the report")
	flag.StringVar(&cfg.yamlVersion, "yaml-version", "", "the YAML language host's version, for the report")
	flag.StringVar(&cfg.kubeVersion, "kube-version", "", "kube-apiserver's and kube-controller-manager's version, for the report")
	flag.StringVar(&cfg.etcdVersion, "etcd-version", "", "etcd's version, for the report")
	flag.Parse()
	cfg.kubernetes, cfg.kubernetesVersion = os.Getenv("TEST_ASSET_PULUMI_KUBERNETES"), os.Getenv("TEST_ASSET_PULUMI_KUBERNETES_VERSION")
	var err error
	if cfg.slices, err = parseCounts(*sliceCounts); err != nil {
		fmt.Fprintf(os.Stderr, "bench: -slices: %v\n", err)
		os.Exit(2)
	}
	if cfg.besideSlices, err = parseCounts(*besideCounts); err != nil {
		fmt.Fprintf(os.Stderr, "bench: -pulumi-kubernetes-slices: %v\n", err)
		os.Exit(2)
	}
	if cfg.rtts, err = parseRTTs(*rtts); err != nil {
		fmt.Fprintf(os.Stderr, "bench: -rtt: %v\n", err)
		os.Exit(2)
	}
	if cfg.only, err = parseSections(*only); err != nil {
		fmt.Fprintf(os.Stderr, "bench: -only: %v\n", err)
		os.Exit(2)
	}
	if (cfg.newest == "") != (cfg.newestVersion == "") || (cfg.only["pulumi-kubernetes-newest"] && cfg.newest == "") {
		fmt.Fprintln(os.Stderr, "bench: pulumi-kubernetes-newest needs both -pulumi-kubernetes-newest and -pulumi-kubernetes-newest-version")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, cfg); err != nil {
		fmt.Fprintf(os.Stderr, "bench: %v\n", err)
		os.Exit(1)
	}
}

type config struct {
	out        string
	runs       int
	engineRuns int
	largeRuns  int
	slices     []int
	listItems  int
	// rtts are the round trips to the API server the engine scenarios run at.
	rtts        []time.Duration
	durableEtcd bool
	// besideSlices are the slice counts run beside pulumi-kubernetes, and besideBound
	// the bound of each of their commands (0: hangBound's default).
	besideSlices []int
	besideBound  time.Duration
	only         map[string]bool
	// kubernetes is pulumi-kubernetes's plugin `make tools` builds, and newest a second
	// one built by hand from a newer release ("" when not given), with their versions.
	kubernetes, kubernetesVersion string
	newest, newestVersion         string
	// version is the provider's; the others are the tools', for the report.
	version, pulumiVersion, yamlVersion, kubeVersion, etcdVersion string
}

// sections are the parts of the report -only names, in order.
var sections = []string{"startup", "check", "overhead", "lookups", "engine", "pulumi-kubernetes", "pulumi-kubernetes-newest", "drift"}

// measures reports whether section is to be measured: every section when -only names
// none, but the newest pulumi-kubernetes's only when its plugin is given.
func (c config) measures(section string) bool {
	if section == "pulumi-kubernetes-newest" && c.newest == "" {
		return false
	}
	return len(c.only) == 0 || c.only[section]
}

func parseCounts(s string) ([]int, error) {
	var counts []int
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("%q is not a positive count", f)
		}
		counts = append(counts, n)
	}
	return counts, nil
}

// parseRTTs reads round trips such as "0,50ms": Go durations, or 0.
func parseRTTs(s string) ([]time.Duration, error) {
	var rtts []time.Duration
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		d, err := time.ParseDuration(f)
		if err != nil || d < 0 {
			return nil, fmt.Errorf("%q is not a round trip (0, or a duration such as 50ms)", f)
		}
		if !slices.Contains(rtts, d) {
			rtts = append(rtts, d)
		}
	}
	if len(rtts) == 0 {
		rtts = []time.Duration{0}
	}
	return rtts, nil
}

func parseSections(s string) (map[string]bool, error) {
	only := map[string]bool{}
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		if !slices.Contains(sections, f) {
			return nil, fmt.Errorf("unknown section %q; sections: %s", f, strings.Join(sections, ", "))
		}
		only[f] = true
	}
	return only, nil
}
