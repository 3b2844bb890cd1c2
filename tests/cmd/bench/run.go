package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	rpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/endpoints-provider/pulumi-endpoints/provider/kube"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/apiproxy"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/controlplane"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/plugin"
)

type results struct {
	startup  *startupFigures
	check    []checkFigures
	overhead []overheadFigures
	lookups  *lookupFigures
	engine   []engineFigures
	beside   []besideFigures
	// newest are the side-by-side runs with the newest pulumi-kubernetes.
	newest []besideFigures
	drift  *driftFigures
	// stamps are each section's run, by its -only name.
	stamps map[string]stamp
}

// overheadFigures are the four operations done both ways under one client setting.
type overheadFigures struct {
	limits clientLimits
	// load is the one-minute load average at the start and end of the measurement.
	load                         [2]float64
	clientGo, provider           latencies
	clientGoCosts, providerCosts costs
	// profile sums up the plugin's CPU profile of the run ("" when it could not be read).
	profile string
}

// clientLimits are client-go rate-limiter settings, given to the client-go baseline
// directly and to the plugin through its environment fallbacks.
type clientLimits struct {
	qps   float32
	burst int
	what  string
}

// overheadLimits are the settings the overhead is measured under: the provider's
// defaults, then limits no run reaches, so that the table shows the work of each call
// and not the limiter's waits.
var overheadLimits = []clientLimits{
	{qps: float32(kube.DefaultQPS()), burst: kube.DefaultBurst(), what: "the provider's default"},
	{qps: 100000, burst: 100000, what: "the limiter out of the way"},
}

func (l clientLimits) env() []string {
	return []string{
		fmt.Sprintf("PULUMI_ENDPOINTS_CLIENT_QPS=%g", l.qps),
		fmt.Sprintf("PULUMI_ENDPOINTS_CLIENT_BURST=%d", l.burst),
	}
}

func run(ctx context.Context, cfg config) error {
	t, err := toolsFromEnv()
	if err != nil {
		return err
	}
	if cfg.measures("startup") && t.providerWithout == "" {
		return fmt.Errorf("the start-up section needs TEST_ASSET_PROVIDER_NO_CLOUD_CREDENTIALS, the provider built with " +
			"-tags " + withoutTag + ": run `make bench`")
	}
	// A report this program did not write is refused before anything is measured.
	if _, err := existingSections(cfg.out); err != nil {
		return err
	}
	if t.ambient, err = plugin.AmbientDir(t.provider); err != nil {
		return err
	}
	defer func() { _ = plugin.RemoveAmbientDir() }()

	tmp, err := os.MkdirTemp("", "bench-")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(tmp) }()
	if t.floor, err = buildFloor(ctx, tmp); err != nil {
		return err
	}

	fmt.Println("==> starting the control plane")
	cp, err := controlplane.Start(ctx, controlplane.Options{DurableEtcd: cfg.durableEtcd})
	if err != nil {
		return err
	}
	defer func() { _ = cp.Stop() }()
	if cfg.measures("engine") && slices.ContainsFunc(cfg.rtts, func(d time.Duration) bool { return d > 0 }) {
		closeProxy, err := startProxy(cp, &t, tmp)
		if err != nil {
			return err
		}
		defer closeProxy()
	}

	// The report is written after each section, so that a section that fails keeps
	// the ones measured before it, and read again each time, so that it keeps what
	// another run wrote meanwhile.
	commit := sourceCommit(ctx, ".")
	fmt.Println("==> measuring commit " + commit)
	return measure(ctx, cfg, cp, t, tmp, commit, func(r results) error {
		old, err := existingSections(cfg.out)
		if err != nil {
			return err
		}
		if err := os.WriteFile(cfg.out, []byte(assemble(old, renderSections(r, cfg))), 0o600); err != nil {
			return err
		}
		fmt.Printf("==> wrote %s\n", cfg.out)
		return nil
	})
}

// existingSections are the sections of the report at path, which a run keeps where it
// does not measure them; none when there is no report yet.
func existingSections(path string) (map[string]string, error) {
	data, err := os.ReadFile(path) //nolint:gosec // the report the user names
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	sections, err := splitSections(string(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return sections, nil
}

// toolsFromEnv finds the CLI, the YAML host, the provider (and its build without the
// AWS and Azure credential libraries) and the control plane's binaries in the TEST_ASSET_*
// variables `make bench` sets.
func toolsFromEnv() (tools, error) {
	t := tools{
		pulumi:    os.Getenv("TEST_ASSET_PULUMI"),
		yamlHost:  os.Getenv("TEST_ASSET_PULUMI_LANGUAGE_YAML"),
		provider:  os.Getenv("TEST_ASSET_PROVIDER"),
		apiServer: os.Getenv("TEST_ASSET_KUBE_APISERVER"),
		etcd:      os.Getenv("TEST_ASSET_ETCD"),
		// Set by `make bench` alone (the tests do not use this build); the start-up
		// section needs it.
		providerWithout: os.Getenv("TEST_ASSET_PROVIDER_NO_CLOUD_CREDENTIALS"),
	}
	if t.pulumi == "" || t.yamlHost == "" || t.provider == "" {
		return t, fmt.Errorf("TEST_ASSET_PULUMI, TEST_ASSET_PULUMI_LANGUAGE_YAML and TEST_ASSET_PROVIDER must be set: run `make bench`")
	}
	return t, nil
}

// startProxy puts a proxy between the provider and the API server, for the scenarios
// run at a round trip above 0, and a kubeconfig file reaching the server through it
// into t; the function returned closes it.
func startProxy(cp *controlplane.ControlPlane, t *tools, tmp string) (func(), error) {
	proxy, err := apiproxy.Start(cp.RESTConfig())
	if err != nil {
		return nil, err
	}
	kubeconfig, err := proxy.Kubeconfig()
	if err != nil {
		proxy.Close()
		return nil, err
	}
	t.proxy, t.proxyKubeconfig = proxy, filepath.Join(tmp, "apiproxy.kubeconfig")
	if err := os.WriteFile(t.proxyKubeconfig, kubeconfig, 0o600); err != nil {
		proxy.Close()
		return nil, err
	}
	return proxy.Close, nil
}

// measure runs the sections cfg asks for, in the order the report shows them, stamps
// each with its run and, after each, writes the results so far with write. commit is
// the one every section names: the checkout's at the start (`make bench` builds the
// provider from it just before).
func measure(ctx context.Context, cfg config, cp *controlplane.ControlPlane, t tools, tmp, commit string, write func(results) error) error {
	r := results{stamps: map[string]stamp{}}
	for _, s := range []struct {
		name, what string
		run        func() error
	}{
		{"startup", "start-up and footprint", func() error {
			bins := startupBinaries{ours: t.provider, without: t.providerWithout, floor: t.floor}
			s, err := measureStartup(ctx, bins, cp.KubeconfigPath(), max(cfg.runs*4, 20))
			r.startup = &s
			return err
		}},
		{"check", "Check", func() (err error) { r.check, err = measureCheck(ctx); return err }},
		{"overhead", "provider overhead against client-go", func() error {
			for _, limits := range overheadLimits {
				f, err := measureOverhead(ctx, cp, t, limits, tmp)
				if err != nil {
					return err
				}
				r.overhead = append(r.overhead, f)
			}
			return nil
		}},
		{"lookups", "lookups", func() error {
			l, err := measureLookups(ctx, t.provider)
			r.lookups = &l
			return err
		}},
		{"engine", "scale through the engine, against the floor", func() (err error) {
			r.engine, err = measureScenarios(ctx, cfg, cp, t)
			return err
		}},
		{"pulumi-kubernetes", "beside pulumi-kubernetes " + cfg.kubernetesVersion, func() (err error) {
			r.beside, err = runBeside(ctx, cp, t, cfg, filepath.Join(tmp, "pulumi-kubernetes"), cfg.kubernetes, cfg.kubernetesVersion)
			return err
		}},
		{"pulumi-kubernetes-newest", "beside pulumi-kubernetes " + cfg.newestVersion, func() (err error) {
			r.newest, err = runBeside(ctx, cp, t, cfg, filepath.Join(tmp, "pulumi-kubernetes-newest"), cfg.newest, cfg.newestVersion)
			return err
		}},
		{"drift", "drift: refreshBeforeUpdate off and on", func() error {
			d, err := measureDrift(ctx, cp, t, driftSlices, cfg.engineRuns)
			r.drift = &d
			return err
		}},
	} {
		if !cfg.measures(s.name) {
			continue
		}
		fmt.Println("==> " + s.what)
		st := stamp{load: [2]float64{loadAverage()}, commit: commit, tools: cfg.sectionTools(s.name)}
		if err := s.run(); err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		st.at, st.load[1] = time.Now().UTC(), loadAverage()
		r.stamps[s.name] = st
		if err := write(r); err != nil {
			return err
		}
	}
	return nil
}

// measureScenarios runs each engine scenario of cfg, the large ones cfg.largeRuns times.
func measureScenarios(ctx context.Context, cfg config, cp *controlplane.ControlPlane, t tools) ([]engineFigures, error) {
	var figures []engineFigures
	for _, s := range engineScenarios(cfg) {
		runs := cfg.engineRuns
		if s.resources >= 1000 {
			runs = cfg.largeRuns
		}
		f, err := measureEngine(ctx, cp, t, s, runs)
		if err != nil {
			return nil, err
		}
		figures = append(figures, f)
	}
	return figures, nil
}

// engineScenarios are the engine programs to run: each slice count, then the
// EndpointsList, each at every round trip of cfg; slice counts of 1000 or more only at
// 0 (the engine alone takes minutes for 2000, and a round trip adds the same per
// object as at 200).
func engineScenarios(cfg config) []engineScenario {
	var scenarios []engineScenario
	for _, n := range cfg.slices {
		for _, rtt := range cfg.rtts {
			if rtt > 0 && n >= 1000 {
				continue
			}
			scenarios = append(scenarios, engineScenario{
				base: fmt.Sprintf("%d EndpointSlices", n), resources: n, program: slicesProgram(n),
				refresh: true, shaped: true, rtt: rtt,
			})
		}
	}
	if cfg.listItems > 0 {
		for _, rtt := range cfg.rtts {
			scenarios = append(scenarios, engineScenario{
				base: fmt.Sprintf("EndpointsList of %d items", cfg.listItems), resources: 1,
				program: listProgram(cfg.listItems), refresh: true, update: listProgramChanged(cfg.listItems, cfg.listItems/2),
				rtt: rtt,
			})
		}
	}
	for i := range scenarios {
		scenarios[i].name = scenarioName(scenarios[i].base, scenarios[i].rtt)
	}
	return scenarios
}

// scenarioName is the program's name, with the round trip when it is not 0.
func scenarioName(program string, rtt time.Duration) string {
	if rtt == 0 {
		return program
	}
	return fmt.Sprintf("%s, %s round trip", program, rttString(rtt))
}

// rttString is a round trip in milliseconds, "50 ms".
func rttString(rtt time.Duration) string {
	return strconv.FormatFloat(float64(rtt)/float64(time.Millisecond), 'f', -1, 64) + " ms"
}

// measureOverhead does the four operations with client-go and through the plugin, each
// in a namespace of its own, under the same client limits.
//
// The plugin writes a CPU profile of its run under tmp, which the report sums up by
// area where the target is missed.
func measureOverhead(ctx context.Context, cp *controlplane.ControlPlane, t tools, limits clientLimits, tmp string) (overheadFigures, error) {
	f := overheadFigures{limits: limits}
	f.load[0] = loadAverage()
	for _, way := range []string{"client-go", "provider"} {
		ns, err := newNamespace(ctx, cp)
		if err != nil {
			return f, err
		}
		if way == "client-go" {
			// The provider's client settings (provider/kube.NewClient: JSON, its request
			// timeout), limits as given.
			config := cp.RESTConfig()
			config.QPS, config.Burst, config.Timeout = limits.qps, limits.burst, kube.DefaultRequestTimeout()
			config.ContentType, config.AcceptContentTypes = "application/json", "application/json"
			config.WarningHandler = rest.NoWarnings{}
			cs, cerr := kubernetes.NewForConfig(config)
			if cerr != nil {
				return f, cerr
			}
			f.clientGo, err = clientGo(ctx, cs, ns, costMeter(ctx, cp, 0, &f.clientGoCosts))
		} else {
			profile := filepath.Join(tmp, fmt.Sprintf("overhead-qps-%g.pprof", limits.qps))
			p, lerr := plugin.Launch(t.provider, append(limits.env(), cpuProfileEnv+"="+profile)...)
			if lerr != nil {
				return f, lerr
			}
			if err = configure(ctx, p, cp.KubeconfigPath()); err == nil {
				f.provider, err = throughProvider(ctx, p, ns, costMeter(ctx, cp, p.Cmd.Process.Pid, &f.providerCosts))
			}
			_ = p.Close()
			if err == nil {
				if f.profile, err = summarizeProfile(ctx, profile); err != nil {
					fmt.Printf("    no summary of the plugin's CPU profile: %v\n", err)
					err = nil
				}
			}
		}
		if err != nil {
			return f, fmt.Errorf("%s, %s: %w", way, limits.what, err)
		}
	}
	f.load[1] = loadAverage()
	return f, nil
}

// render is the report of r alone: the header and the sections r holds.
func render(r results, cfg config) string { return assemble(nil, renderSections(r, cfg)) }

// renderSections writes each section r holds, by title, each stamped with its run.
func renderSections(r results, cfg config) map[string]string {
	out := map[string]string{}
	section := func(name, title string, body func(w writer)) {
		var b strings.Builder
		w := func(format string, a ...any) { fmt.Fprintf(&b, format+"\n", a...) }
		w("## %s", title)
		w("")
		writeStamp(w, r.stamps[name], cfg)
		body(w)
		out[title] = strings.TrimRight(b.String(), "\n") + "\n"
	}
	if s := r.startup; s != nil {
		section("startup", "Start-up and footprint", func(w writer) { renderStartup(w, s) })
	}
	if len(r.check) > 0 {
		section("check", "Check", func(w writer) { renderCheck(w, r.check) })
	}
	if len(r.overhead) > 0 {
		section("overhead", "Provider overhead", func(w writer) { renderOverhead(w, r.overhead) })
	}
	if l := r.lookups; l != nil {
		section("lookups", "Lookups", func(w writer) { renderLookups(w, l) })
	}
	if len(r.engine) > 0 {
		section("engine", "Scale through the engine, against its floor", func(w writer) { renderEngine(w, r.engine) })
		if far := farScenarios(r.engine); len(far) > 0 {
			section("engine", "A cluster far away", func(w writer) { renderFarAway(w, r.engine, far) })
		}
	}
	if len(r.beside) > 0 {
		section("pulumi-kubernetes", "Beside pulumi-kubernetes", func(w writer) { renderBeside(w, r.beside, false) })
	}
	if len(r.newest) > 0 {
		section("pulumi-kubernetes-newest", "Beside the newest pulumi-kubernetes", func(w writer) { renderBeside(w, r.newest, true) })
	}
	if r.drift != nil {
		section("drift", "Drift: refreshBeforeUpdate", func(w writer) { renderDrift(w, r.drift) })
	}
	return out
}

type writer = func(format string, a ...any)

// Start-up targets: exec to the first GetSchema within 10% of the framework's floor,
// and within 10% of the same plugin built without the AWS and Azure credential libraries (they
// are to cost start-up nothing until a kubeconfig uses them); at most 40 MiB resident
// after it, under 50 MiB at the peak up to Configure.
const (
	startupRatioTarget = 1.10
	withoutRatioTarget = 1.10
	schemaRSSTarget    = 40 << 10 // KiB
	configurePeakLimit = 50 << 10 // KiB
)

func renderStartup(w writer, s *startupFigures) {
	ratio := float64(median(s.toSchema)) / float64(median(s.floor))
	toWithout := float64(median(s.toSchema)) / float64(median(s.without))
	w("| figure | value | target |")
	w("|---|---|---|")
	w("| exec to first GetSchema answer (median of %d; p90 %s) | %s | %s |", len(s.toSchema),
		ms(percentile(s.toSchema, 90)), ms(median(s.toSchema)), atMost(ratio, startupRatioTarget, "within 10% of the framework's floor"))
	w("| the framework's floor: a pulumi-go-provider plugin serving a tiny schema, same runs (median; p90 %s) | %s | %s |",
		ms(percentile(s.floor, 90)), ms(median(s.floor)), noTarget)
	w("| ratio to the floor (medians) | %.2f | %s |", ratio, atMost(ratio, startupRatioTarget, "at most 1.10"))
	w("| the same plugin built without the AWS and Azure credential libraries (`-tags %s`), same runs (median; p90 %s) | %s | %s |",
		withoutTag, ms(percentile(s.without, 90)), ms(median(s.without)), noTarget)
	w("| ratio to the build without the AWS and Azure credential libraries (medians) | %.2f | %s |", toWithout,
		atMost(toWithout, withoutRatioTarget, "at most 1.10"))
	w("| RSS after the first GetSchema (median of the runs): ours / the floor's | %s / %s | %s |",
		mib(medianInt(s.schemaRSS)), mib(medianInt(s.floorRSS)), verdict("ours at most 40 MiB", medianInt(s.schemaRSS) <= schemaRSSTarget))
	w("| RSS after the first GetSchema without the AWS and Azure credential libraries (median of the runs) | %s (ours %s more) | %s |",
		mib(medianInt(s.withoutRSS)), mib(medianInt(s.schemaRSS)-medianInt(s.withoutRSS)), noTarget)
	w("| Configure (median) | %s | %s |", ms(median(s.configure)), noTarget)
	w("| plugin binary size | %s | %s |", mibBytes(s.binarySize), noTarget)
	w("| plugin binary size without the AWS and Azure credential libraries | %s (ours %s more) | %s |",
		mibBytes(s.withoutSize), mibBytes(s.binarySize-s.withoutSize), noTarget)
	w("| RSS after Configure (highest of the runs) | %s | %s |", mib(s.rssConfigure), noTarget)
	w("| peak RSS up to Configure | %s | %s |", mib(s.hwmConfigure), verdict("under 50 MiB", s.hwmConfigure < configurePeakLimit))
	w("")
}

// withoutTag is the build tag under which the plugin links no cloud credential library
// (provider/kube/cloudauth/build_off.go; the Makefile builds it for `make bench`).
const withoutTag = "endpoints_no_cloud_credentials"

// checkTarget is the most a Check of the largest EndpointSlice may take.
const checkTarget = 50 * time.Millisecond

func renderCheck(w writer, check []checkFigures) {
	w("The plugin's Check, in process, as a Go benchmark (`testing.Benchmark`): the gRPC server it serves unmarshals the engine's request, checks and marshals its answer; the request is marshalled once, outside the loop.")
	w("")
	w("| inputs | time/op | allocs/op | memory/op | target |")
	w("|---|---|---|---|---|")
	for _, c := range check {
		perOp := time.Duration(c.result.NsPerOp())
		target := noTarget
		if strings.HasPrefix(c.name, "EndpointSlice") {
			target = verdict("under 50 ms", perOp < checkTarget)
		}
		w("| %s | %s | %d | %.1f MiB | %s |", c.name, ms(perOp), c.result.AllocsPerOp(),
			float64(c.result.AllocedBytesPerOp())/(1<<20), target)
	}
	w("")
	renderMissedCheck(w, check)
}

// renderMissedCheck says, when the largest slice's Check misses its target, how much of
// it the rules take, from the figures measured.
func renderMissedCheck(w writer, check []checkFigures) {
	var plugin, rules time.Duration
	for _, c := range check {
		switch {
		case strings.HasPrefix(c.name, "EndpointSlice"):
			plugin = time.Duration(c.result.NsPerOp())
		case c.name == rulesAlone:
			rules = time.Duration(c.result.NsPerOp())
		}
	}
	if plugin == 0 || plugin < checkTarget || rules == 0 {
		return
	}
	w("**Missed** for the largest slice: its rules alone take %s of the plugin's %s; the rest is the", ms(rules), ms(plugin))
	w("conversion of the request and the answer between the protocol's structures and property values (pulumi-go-provider's")
	w("`getMap` and `asStruct`), and the garbage collection of what they allocate.")
	w("")
}

// overheadTarget is the most the plugin may add to client-go's time at p50.
const overheadTarget = 0.10

// overheadMet reports whether the provider's p50 is within overheadTarget of
// client-go's.
func overheadMet(clientGo, provider []time.Duration) bool {
	return float64(median(provider)-median(clientGo)) < overheadTarget*float64(median(clientGo))
}

func renderOverhead(w writer, overhead []overheadFigures) {
	w("%d EndpointSlices, %d calls in flight: each operation through the plugin's gRPC interface against the same", overheadObjects, overheadInFlight)
	w("operation done directly with client-go (update = read then write; delete = background delete, then, with")
	w("client-go, a read and a watch until gone). Both use the same client settings; the rate limit in force is")
	w("given per table. client-go's limiter holds each client to its QPS once the burst is spent: with %d calls in", overheadInFlight)
	w("flight at QPS 200 every call waits about %d/200 s = %.0f ms per request, whatever the server's latency.",
		overheadInFlight, float64(overheadInFlight)/200*1000)
	w("The client-go baseline sets the limits directly; the plugin is given them through")
	w("`PULUMI_ENDPOINTS_CLIENT_QPS` and `PULUMI_ENDPOINTS_CLIENT_BURST`. The target: the provider's p50 within 10%%")
	w("of client-go's.")
	w("")
	for _, o := range overhead {
		w("Rate limit: QPS %g, burst %d (%s); load %.2f to %.2f.", o.limits.qps, o.limits.burst, o.limits.what, o.load[0], o.load[1])
		w("")
		w("| operation | client-go p50 | client-go p99 | provider p50 | provider p99 | provider p50 / client-go p50 | provider overhead at p50 | target |")
		w("|---|---|---|---|---|---|---|---|")
		var missed []string
		for _, op := range operations {
			cg, pv := o.clientGo[op], o.provider[op]
			met := overheadMet(cg, pv)
			if !met {
				missed = append(missed, op)
			}
			w("| %s | %s | %s | %s | %s | %.2f | %s | %s |", op, ms(median(cg)), ms(percentile(cg, 99)),
				ms(median(pv)), ms(percentile(pv, 99)), float64(median(pv))/float64(median(cg)), ms(median(pv)-median(cg)),
				verdict("overhead under 10%", met))
		}
		w("")
		renderOverheadCosts(w, o)
		renderMissedOverhead(w, o, missed)
		renderIgnoredLimits(w, o)
	}
}

// renderOverheadCosts writes what each call cost besides time.
func renderOverheadCosts(w writer, o overheadFigures) {
	w("What each call cost besides time (load-independent): API requests per call for endpointslices, and for")
	w("everything else (discovery, Services, namespaces; with the control plane's own controllers' few requests")
	w("in the same interval), and the plugin's CPU time per call (user + system, from `/proc/<pid>/stat`):")
	w("")
	w("| operation | client-go requests | provider requests | other requests during client-go / provider | plugin CPU per call |")
	w("|---|---|---|---|---|")
	for _, op := range operations {
		w("| %s | %.2f | %.2f | %.2f / %.2f | %s |", op, o.clientGoCosts.requests[op], o.providerCosts.requests[op],
			o.clientGoCosts.other[op], o.providerCosts.other[op], ms(o.providerCosts.cpu[op]))
	}
	w("")
}

// renderMissedOverhead says which operations missed the target and where the
// plugin's time went: its CPU per call against the overhead, and its CPU profile.
func renderMissedOverhead(w writer, o overheadFigures, missed []string) {
	if len(missed) == 0 {
		return
	}
	var parts []string
	for _, op := range missed {
		parts = append(parts, fmt.Sprintf("%s (overhead %s, plugin CPU %s a call)", op,
			ms(median(o.provider[op])-median(o.clientGo[op])), ms(o.providerCosts.cpu[op])))
	}
	w("**Missed** for %s.", strings.Join(parts, ", "))
	if o.profile != "" {
		w("The plugin's CPU profile of the run (`%s`): %s.", cpuProfileEnv, o.profile)
	}
	w("")
}

// renderIgnoredLimits warns when the plugin did not apply the limits it was given.
func renderIgnoredLimits(w writer, o overheadFigures) {
	// A plugin that ignores the settings still waits on its default limiter: its
	// reads then take about in-flight/200 s however fast client-go's are.
	defaultWait := time.Duration(float64(overheadInFlight) / 200 * float64(time.Second))
	if o.limits.qps > 200 && median(o.provider["read"]) > defaultWait*8/10 && median(o.clientGo["read"]) < defaultWait/2 {
		w("**The plugin did not apply these limits**: its reads still wait on the default limiter (p50 %s, against %s",
			ms(median(o.provider["read"])), ms(median(o.clientGo["read"])))
		w("with client-go). This build does not read `PULUMI_ENDPOINTS_CLIENT_QPS`/`_BURST`, so the provider rows above")
		w("are not its overhead; rerun `make bench` with a build that does.")
		w("")
	}
}

// lookupTarget is the most the plugin may add to a lookup at p50.
const lookupTarget = time.Millisecond

func renderLookups(w writer, l *lookupFigures) {
	over := median(l.invoke) - median(l.direct)
	w("getImportDataFile through the plugin's Invoke against the same GET sent straight to the local double (%d calls each).", len(l.invoke))
	w("")
	w("| path | p50 | p99 |")
	w("|---|---|---|")
	w("| Invoke through the plugin | %s | %s |", ms(median(l.invoke)), ms(percentile(l.invoke, 99)))
	w("| direct HTTP GET | %s | %s |", ms(median(l.direct)), ms(percentile(l.direct, 99)))
	w("")
	w("Overhead at p50: %s (target under 1 ms: %s); Invoke p50 / direct p50: %.2f.", ms(over),
		strings.TrimPrefix(verdict("", over < lookupTarget), ": "), float64(median(l.invoke))/float64(median(l.direct)))
	w("")
}

func renderEngine(w writer, engine []engineFigures) {
	w("Each program runs `pulumi up`, `pulumi refresh` and `pulumi destroy`, all three with `--skip-preview` (wall")
	w("time of the CLI), with the provider's resources and, as many times, with the floor's: the same program with")
	w("every resource a `floor:index:Noop` of a no-op plugin (`tests/cmd/bench/floor`) whose every call answers at")
	w("once, run with the same CLI, YAML host and local backend, rotating which goes first. The floor is the engine's")
	w("own time for that many resources.")
	w("The slice programs run a third time with `floor:discovery.k8s.io/v1:EndpointSlice`, which also answers at once but leaves the")
	w("state the provider leaves (the generated name and default protocol in the inputs; uid, resourceVersion,")
	w("creationTimestamp, generation, the managed-by label and endpoint conditions in the outputs; a namespace/name")
	w("ID): the engine's time for a state of the provider's size, so the last ratio is the provider's own share.")
	w("The EndpointsList program also times an update between refresh and destroy: `pulumi up --skip-preview` of the")
	w("program with one item's address changed. Without their preview, `up` and `destroy` take less here than in the")
	w("sections beside pulumi-kubernetes, which run the same slice program's `up` and `destroy` with their preview, as")
	w("a user does: compare those with these by the ratios to each section's floor, not by their times.")
	w("Programs named with a round trip reach the API server through a proxy (`tests/harness/apiproxy`) that holds")
	w("each request and each answer for half of it, as a cluster that far away would; the floor talks to no server,")
	w("so its runs are the same at any round trip.")
	w("Cells give the median and, in brackets, the lowest and highest run. The target is of provider / floor.")
	w("")
	w("| program | runs | command | floor | floor with the provider's state | provider | provider / floor | provider / floor with the provider's state | target |")
	w("|---|---|---|---|---|---|---|---|---|")
	for _, e := range engine {
		for _, step := range e.steps() {
			of := stepTime(step)
			floor, ours := durations(e.floor, of), durations(e.ours, of)
			shaped, shapedRatio := "-", "-"
			if len(e.shaped) > 0 {
				ds := durations(e.shaped, of)
				shaped = spread(ds)
				shapedRatio = fmt.Sprintf("%.2f", float64(median(ours))/float64(median(ds)))
			}
			ratio := float64(median(ours)) / float64(median(floor))
			target := noTarget
			if limit, ok := floorTarget(e.scenario, step); ok {
				target = atMost(ratio, limit, fmt.Sprintf("at most %g", limit))
			}
			w("| %s | %d | %s | %s | %s | %s | %.2f | %s | %s |", e.scenario.name, len(e.ours), stepNames[step], spread(floor),
				shaped, spread(ours), ratio, shapedRatio, target)
		}
	}
	w("")
	renderEngineCosts(w, engine)
}

// steps are the commands the scenario's runs time, in the order they run.
func (e engineFigures) steps() []int {
	out := []int{stepUp}
	if e.scenario.refresh {
		out = append(out, stepRefresh)
	}
	if e.scenario.update != nil {
		out = append(out, stepUpdate)
	}
	return append(out, stepDestroy)
}

func stepTime(step int) func(engineRun) time.Duration {
	return func(r engineRun) time.Duration { return r.times[step] }
}

// floorTarget is the most the provider's time may be against the floor's, for 200
// slices or more: up within 1.2 times the floor, refresh within 1.2 times (1.3 for
// 1000 slices or more, whose Reads list the namespace more often than they GET),
// destroy within 1.25 times; 1.5 times at a round trip (up and destroy). ok is false
// where there is no target.
func floorTarget(s engineScenario, step int) (limit float64, ok bool) {
	switch {
	case s.resources < 200 || s.update != nil:
		return 0, false
	case s.rtt > 0 && (step == stepUp || step == stepDestroy):
		return 1.5, true
	case s.rtt > 0:
		return 0, false
	case step == stepUp:
		return 1.2, true
	case step == stepRefresh && s.resources >= 1000:
		return 1.3, true
	case step == stepRefresh:
		return 1.2, true
	case step == stepDestroy:
		return 1.25, true
	default:
		return 0, false
	}
}

// largePeakLimit is the most the plugin may hold resident for 2000 slices, in KiB.
const largePeakLimit = 80 << 10

// renderEngineCosts writes the load-independent figures of the engine runs: memory,
// state, requests and CPU time.
func renderEngineCosts(w writer, engine []engineFigures) {
	w("Memory, state and requests (load-independent):")
	w("")
	w("| program | plugin peak RSS: provider / floor | checkpoint after up: provider / floor with its state / floor | per resource | API server requests for the kind, up / refresh / update / destroy (all clients) | load during the runs |")
	w("|---|---|---|---|---|---|")
	for _, e := range engine {
		var peak, floorPeak, state, shapedState, floorState int64
		requests := []string{"-", "-", "-", "-"} // medians per command: up, refresh, update, destroy
		for i, step := range []int{stepUp, stepRefresh, stepUpdate, stepDestroy} {
			if slices.Contains(e.steps(), step) {
				n := median(durations(e.ours, func(r engineRun) time.Duration { return time.Duration(r.requests[step]) }))
				requests[i] = strconv.FormatInt(int64(n), 10)
			}
		}
		lo, hi := 1e9, 0.0
		for _, r := range e.ours {
			peak, state = max(peak, r.peak), max(state, r.stateBytes)
		}
		for _, r := range slices.Concat(e.floor, e.ours, e.shaped) {
			lo, hi = min(lo, r.load), max(hi, r.load)
		}
		for _, r := range e.floor {
			floorPeak, floorState = max(floorPeak, r.peak), max(floorState, r.stateBytes)
		}
		for _, r := range e.shaped {
			shapedState = max(shapedState, r.stateBytes)
		}
		n := int64(max(e.scenario.resources, 1))
		target := ""
		if e.scenario.resources >= 2000 {
			target = " (target " + verdict("under 80 MiB", peak < largePeakLimit) + ")"
		}
		shaped, shapedPer := "-", "-"
		if len(e.shaped) > 0 {
			shaped, shapedPer = kib(shapedState), strconv.FormatInt(shapedState/n, 10)
		}
		w("| %s | %s / %s%s | %s / %s / %s | %d / %s / %d bytes | %s | %.1f-%.1f |", e.scenario.name, mib(peak), mib(floorPeak), target,
			kib(state), shaped, kib(floorState), state/n, shapedPer, floorState/n,
			strings.Join(requests, " / "), lo, hi)
	}
	w("")
	w("CPU time (user + system, median of the runs; load-independent but for cache effects): the CLI with all it")
	w("waited for (engine, YAML host, plugin), the plugin alone, and the control plane's API server and etcd, which")
	w("the floor does not use:")
	w("")
	w("| program | command | floor: CLI tree | floor with the provider's state: CLI tree | provider: CLI tree | provider: plugin | provider: API server + etcd |")
	w("|---|---|---|---|---|---|---|")
	for _, e := range engine {
		for _, step := range e.steps() {
			cpu := func(runs []engineRun, of func(engineRun) [steps]time.Duration) string {
				if len(runs) == 0 {
					return "-"
				}
				return fmt.Sprintf("%.2f s", median(durations(runs, func(r engineRun) time.Duration { return of(r)[step] })).Seconds())
			}
			w("| %s | %s | %s | %s | %s | %s | %s |", e.scenario.name, stepNames[step],
				cpu(e.floor, func(r engineRun) [steps]time.Duration { return r.cliCPU }),
				cpu(e.shaped, func(r engineRun) [steps]time.Duration { return r.cliCPU }),
				cpu(e.ours, func(r engineRun) [steps]time.Duration { return r.cliCPU }),
				cpu(e.ours, func(r engineRun) [steps]time.Duration { return r.pluginCPU }),
				cpu(e.ours, func(r engineRun) [steps]time.Duration { return r.serverCPU }))
		}
	}
	w("")
}

// farScenarios are the engine runs made at a round trip above 0.
func farScenarios(engine []engineFigures) []engineFigures {
	var far []engineFigures
	for _, e := range engine {
		if e.scenario.rtt > 0 {
			far = append(far, e)
		}
	}
	return far
}

// renderFarAway sets each program run at a round trip (far) beside the same program
// at 0: the provider's times at both, and at the round trip against the floor.
func renderFarAway(w writer, engine, far []engineFigures) {
	near := map[string]engineFigures{}
	for _, e := range engine {
		if e.scenario.rtt == 0 {
			near[e.scenario.base] = e
		}
	}
	w("The programs of the section above run at a round trip to the API server beside the same programs run against")
	w("it directly (medians of the provider's runs, the same runs as above). The floor does not talk to a server: the")
	w("ratio at the round trip is to the floor of the same runs. The engine runs 8 steps at once by default, so a")
	w("provider that waits for nothing serially pays the round trip about once per 8 objects.")
	w("")
	w("| program | command | provider, direct | provider at the round trip | provider at the round trip / provider, direct | floor | provider at the round trip / floor | target |")
	w("|---|---|---|---|---|---|---|---|")
	for _, e := range far {
		base, ok := near[e.scenario.base]
		for _, step := range e.steps() {
			ours, floor := median(durations(e.ours, stepTime(step))), median(durations(e.floor, stepTime(step)))
			direct, ratio, toDirect := "-", "-", 0.0
			if ok {
				d := median(durations(base.ours, stepTime(step)))
				toDirect = float64(ours) / float64(d)
				direct, ratio = secs(d), fmt.Sprintf("%.2f", toDirect)
			}
			toFloor := float64(ours) / float64(floor)
			w("| %s | %s | %s | %s | %s | %s | %.2f | %s |", e.scenario.name, stepNames[step], direct, secs(ours), ratio,
				secs(floor), toFloor, farTarget(e.scenario, step, toDirect, toFloor, ok))
		}
	}
	w("")
}

// farTarget is the target cell at a round trip: up and destroy of 200 slices or more
// within 1.5 times the floor; an EndpointsList's up, refresh and update within twice
// its time against the API server directly (missed when that was not measured).
func farTarget(s engineScenario, step int, toDirect, toFloor float64, measuredDirect bool) string {
	if s.update != nil && step != stepDestroy {
		return verdict("at most 2.0 times direct", measuredDirect && round2(toDirect) <= 2.0)
	}
	if limit, ok := floorTarget(s, step); ok && s.update == nil {
		return atMost(toFloor, limit, fmt.Sprintf("at most %g times the floor", limit))
	}
	return noTarget
}

func durations(runs []engineRun, of func(engineRun) time.Duration) []time.Duration {
	ds := make([]time.Duration, len(runs))
	for i, r := range runs {
		ds[i] = of(r)
	}
	return ds
}

// spread is "median (lowest-highest)", in seconds.
func spread(ds []time.Duration) string {
	return fmt.Sprintf("%s (%.2f-%.2f s)", secs(median(ds)), percentile(ds, 0).Seconds(), percentile(ds, 100).Seconds())
}

func kib(bytes int64) string { return fmt.Sprintf("%.0f KiB", float64(bytes)/1024) }

func newNamespace(ctx context.Context, cp *controlplane.ControlPlane) (string, error) {
	ns, err := cp.Clientset().CoreV1().Namespaces().Create(ctx,
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "bench-"}}, metav1.CreateOptions{})
	if err != nil {
		return "", err
	}
	return ns.Name, nil
}

// machine is the CPU model, cores, memory and kernel of this machine.
func machine() string {
	return fmt.Sprintf("%s; %d cores; %s memory; %s", cpuModel(), runtime.NumCPU(), memTotal(), kernel())
}

func cpuModel() string {
	data, _ := os.ReadFile("/proc/cpuinfo")
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "model name"); ok {
			return strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(v), ":"))
		}
	}
	return runtime.GOARCH
}

func memTotal() string {
	kib, err := procStatusFile("/proc/meminfo", "MemTotal")
	if err != nil {
		return "unknown"
	}
	return fmt.Sprintf("%.0f GiB", float64(kib)/(1<<20))
}

func kernel() string {
	data, err := os.ReadFile("/proc/sys/kernel/osrelease")
	if err != nil {
		return runtime.GOOS
	}
	return "Linux " + strings.TrimSpace(string(data))
}

func configure(ctx context.Context, p *plugin.Plugin, kubeconfig string) error {
	args, err := configArgs(map[string]any{"kubeconfig": kubeconfig})
	if err != nil {
		return err
	}
	_, err = p.Configure(ctx, &rpc.ConfigureRequest{Args: args, AcceptSecrets: true})
	return err
}
