package main

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"

	rpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/endpoints-provider/pulumi-endpoints/tests/controlplane"
	"github.com/endpoints-provider/pulumi-endpoints/tests/plugin"
)

type results struct {
	startup  startupFigures
	check    []checkFigures
	overhead struct{ clientGo, provider latencies }
	lookups  lookupFigures
	engine   []engineFigures
}

func run(ctx context.Context, cfg config) error {
	t := tools{
		pulumi:   os.Getenv("TEST_ASSET_PULUMI"),
		yamlHost: os.Getenv("TEST_ASSET_PULUMI_LANGUAGE_YAML"),
		provider: os.Getenv("TEST_ASSET_PROVIDER"),
	}
	if t.pulumi == "" || t.yamlHost == "" || t.provider == "" {
		return fmt.Errorf("TEST_ASSET_PULUMI, TEST_ASSET_PULUMI_LANGUAGE_YAML and TEST_ASSET_PROVIDER must be set: run `make bench`")
	}
	var r results
	ambient, err := plugin.AmbientDir(t.provider)
	if err != nil {
		return err
	}
	t.ambient = ambient
	defer func() { _ = plugin.RemoveAmbientDir() }()

	fmt.Println("==> starting the control plane")
	cp, err := controlplane.Start(ctx, controlplane.Options{})
	if err != nil {
		return err
	}
	defer func() { _ = cp.Stop() }()

	fmt.Println("==> start-up and footprint")
	tmp, err := os.MkdirTemp("", "bench-")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(tmp) }()
	floor, err := buildFloor(ctx, tmp)
	if err != nil {
		return err
	}
	if r.startup, err = measureStartup(ctx, t.provider, floor, cp.KubeconfigPath(), max(cfg.runs*4, 20)); err != nil {
		return err
	}
	fmt.Println("==> Check")
	if r.check, err = measureCheck(ctx); err != nil {
		return err
	}
	fmt.Println("==> provider overhead against client-go")
	for _, way := range []string{"client-go", "provider"} {
		ns, err := newNamespace(ctx, cp)
		if err != nil {
			return err
		}
		if way == "client-go" {
			// The same client settings as the provider's (provider/kube.NewClient).
			config := cp.RESTConfig()
			config.QPS, config.Burst = 200, 400
			config.WarningHandler = rest.NoWarnings{}
			cs, cerr := kubernetes.NewForConfig(config)
			if cerr != nil {
				return cerr
			}
			r.overhead.clientGo, err = clientGo(ctx, cs, ns)
		} else {
			p, lerr := plugin.Launch(t.provider)
			if lerr != nil {
				return lerr
			}
			if err = configure(ctx, p, cp.KubeconfigPath()); err == nil {
				r.overhead.provider, err = throughProvider(ctx, p, ns)
			}
			_ = p.Close()
		}
		if err != nil {
			return fmt.Errorf("%s: %w", way, err)
		}
	}
	fmt.Println("==> lookups")
	if r.lookups, err = measureLookups(ctx, t.provider); err != nil {
		return err
	}
	fmt.Println("==> scale through the engine")
	for _, e := range []struct {
		name    string
		program func(string) string
	}{
		{"200 EndpointSlices", func(ns string) string { return slicesProgram(ns, 200) }},
		{"EndpointsList of 50 items", func(ns string) string { return listProgram(ns, 50) }},
	} {
		f, err := measureEngine(ctx, cp, t, e.name, e.program, cfg.runs)
		if err != nil {
			return err
		}
		r.engine = append(r.engine, f)
	}
	report := render(r, cfg, t)
	if err := os.WriteFile(cfg.out, []byte(report), 0o600); err != nil {
		return err
	}
	fmt.Printf("==> wrote %s\n", cfg.out)
	return nil
}

func render(r results, cfg config, t tools) string {
	var b strings.Builder
	w := func(format string, a ...any) { fmt.Fprintf(&b, format+"\n", a...) }
	w("# Benchmarks")
	w("")
	w("Written by `make bench` (`tests/bench`) on %s. Figures are medians unless", time.Now().UTC().Format("2006-01-02 15:04 MST"))
	w("labelled otherwise; ratios compare runs made in the same session on the same machine.")
	w("")
	w("Machine: %s; %d cores; %s memory; %s.", cpuModel(), runtime.NumCPU(), memTotal(), kernel())
	w("Versions: provider %s; %s; %s.", cfg.version, runtime.Version(), cfg.tools)
	w("Control plane: kube-apiserver + etcd + kube-controller-manager (garbage collector) on 127.0.0.1; local file backend.")
	w("What was profiled and changed to reach the targets, with before and after figures: [docs/performance.md](docs/performance.md).")
	w("")

	s := r.startup
	w("## Start-up and footprint")
	w("")
	w("| figure | value | target |")
	w("|---|---|---|")
	w("| exec to first GetSchema answer (median of %d; p90 %s) | %s | within 10%% of the framework's floor |",
		len(s.toSchema), ms(percentile(s.toSchema, 90)), ms(median(s.toSchema)))
	w("| the framework's floor: a pulumi-go-provider plugin serving a tiny schema, same runs (median; p90 %s) | %s | |",
		ms(percentile(s.floor, 90)), ms(median(s.floor)))
	w("| ratio to the floor (medians) | %.2f | at most 1.10 |", float64(median(s.toSchema))/float64(median(s.floor)))
	w("| RSS after the first GetSchema: ours / the floor's | %s / %s | |", mib(s.schemaRSS), mib(s.floorRSS))
	w("| Configure (median) | %s | |", ms(median(s.configure)))
	w("| plugin binary size | %.1f MiB | |", float64(s.binarySize)/(1<<20))
	w("| RSS after Configure (highest of the runs) | %s | |", mib(s.rssConfigure))
	w("| peak RSS up to Configure | %s | under 50 MiB |", mib(s.hwmConfigure))
	var peak int64
	for _, e := range r.engine {
		for _, run := range e.runs {
			peak = max(peak, run.peakUp, run.peakDown)
		}
	}
	w("| peak RSS during the engine runs below | %s | under 50 MiB |", mib(peak))
	w("")

	w("## Check")
	w("")
	w("The provider's Check, in process, as a Go benchmark (`testing.Benchmark`).")
	w("")
	w("| inputs | time/op | allocs/op | memory/op | target |")
	w("|---|---|---|---|---|")
	for _, c := range r.check {
		target := ""
		if strings.HasPrefix(c.name, "EndpointSlice") {
			target = "under 50 ms"
		}
		w("| %s | %s | %d | %.1f MiB | %s |", c.name, ms(time.Duration(c.result.NsPerOp())), c.result.AllocsPerOp(),
			float64(c.result.AllocedBytesPerOp())/(1<<20), target)
	}
	w("")

	w("## Provider overhead")
	w("")
	w("%d EndpointSlices, %d calls in flight: each operation through the plugin's gRPC interface against the same", overheadObjects, overheadInFlight)
	w("operation done directly with client-go (update = read then write; delete = background delete, then watch until gone).")
	w("")
	w("| operation | client-go p50 | client-go p99 | provider p50 | provider p99 | p50 ratio | target |")
	w("|---|---|---|---|---|---|---|")
	for _, op := range operations {
		cg, pv := r.overhead.clientGo[op], r.overhead.provider[op]
		w("| %s | %s | %s | %s | %s | %.2f | overhead under 10%% |", op, ms(median(cg)), ms(percentile(cg, 99)),
			ms(median(pv)), ms(percentile(pv, 99)), float64(median(pv))/float64(median(cg)))
	}
	w("")

	l := r.lookups
	w("## Lookups")
	w("")
	w("getImportDataFile through the plugin's Invoke against the same GET sent straight to the local double (%d calls each).", len(l.invoke))
	w("")
	w("| path | p50 | p99 |")
	w("|---|---|---|")
	w("| Invoke through the plugin | %s | %s |", ms(median(l.invoke)), ms(percentile(l.invoke, 99)))
	w("| direct HTTP GET | %s | %s |", ms(median(l.direct)), ms(percentile(l.direct, 99)))
	w("")
	w("Overhead at p50: %s (target: under 1 ms); ratio %.2f.", ms(median(l.invoke)-median(l.direct)),
		float64(median(l.invoke))/float64(median(l.direct)))
	w("")

	w("## Scale through the engine")
	w("")
	w("`pulumi up` and `pulumi destroy` of a YAML program (%d runs each), wall time of the CLI and the plugin's peak RSS.", cfg.runs)
	w("")
	w("| program | up | destroy | plugin peak RSS | reference: official Kubernetes provider 4.22.2 |")
	w("|---|---|---|---|---|")
	for _, e := range r.engine {
		var ups, downs []time.Duration
		var peak int64
		for _, run := range e.runs {
			ups, downs = append(ups, run.up), append(downs, run.destroy)
			peak = max(peak, run.peakUp, run.peakDown)
		}
		ref := ""
		if strings.HasPrefix(e.name, "200") {
			ref = "up 11.2-11.7 s, destroy 15.4 s, 169 MiB (target: at most half the time)"
		}
		w("| %s | %s (min %s) | %s (min %s) | %s | %s |", e.name, secs(median(ups)), secs(percentile(ups, 0)),
			secs(median(downs)), secs(percentile(downs, 0)), mib(peak), ref)
	}
	return b.String()
}

func newNamespace(ctx context.Context, cp *controlplane.ControlPlane) (string, error) {
	ns, err := cp.Clientset().CoreV1().Namespaces().Create(ctx,
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "bench-"}}, metav1.CreateOptions{})
	if err != nil {
		return "", err
	}
	return ns.Name, nil
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
