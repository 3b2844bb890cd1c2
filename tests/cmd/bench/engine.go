package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/apiproxy"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/controlplane"
)

type tools struct {
	pulumi, yamlHost, provider string
	// providerWithout is the provider built without the AWS and Azure credential libraries
	// (the endpoints_no_cloud_credentials tag), which the start-up section measures
	// beside it.
	providerWithout string
	// floor is the baseline plugin, pulumi-resource-floor, in a directory of its own.
	floor string
	// apiServer and etcd are the control plane's binaries.
	apiServer, etcd string
	// ambient is a directory holding a copy of the provider, put on PATH (see
	// plugin.AmbientDir).
	ambient string
	// proxy stands between the provider and the API server in the scenarios run at a
	// round trip above 0, and proxyKubeconfig is a kubeconfig file that reaches the
	// API server through it (nil and "" when every scenario runs at 0).
	proxy           *apiproxy.Proxy
	proxyKubeconfig string
	// kubernetes is pulumi-kubernetes's plugin, pulumi-resource-kubernetes, in a
	// directory of its own that every engine run puts on PATH ("" when not measured).
	kubernetes string
}

// The floor's resource tokens, which the engine programs declare in place of the
// provider's (spec.EndpointSliceToken, spec.EndpointsListToken).
//
//nolint:gosec // G101: resource type tokens, not credentials
const (
	floorToken = "floor:index:Noop"
	// shapedToken is the floor's resource that leaves a state of the provider's
	// EndpointSlice's shape and size.
	shapedToken = "floor:discovery.k8s.io/v1:EndpointSlice"
)

// engineScenario is one program run through the engine with the provider's resources
// and, alternately, with the floor's.
type engineScenario struct {
	// name names the scenario in the report, and base the same program at 0 round
	// trip (the name without the round trip).
	name, base string
	// resources counts the resources of the program.
	resources int
	// program writes the program with resources of type token in namespace ns.
	program func(ns, token string) string
	// refresh times a `pulumi refresh` between up and destroy.
	refresh bool
	// shaped runs the program a third time with the floor's Shaped resources, whose
	// state is the provider's in shape and size.
	shaped bool
	// update, when not nil, writes the program again with one resource's inputs
	// changed: a `pulumi up` of it is timed between refresh and destroy.
	update func(ns, token string) string
	// rtt is the round trip between the provider and the API server: above 0, the
	// provider reaches it through the proxy, which holds each request and each answer
	// for rtt/2. The floor talks to no server and runs as at 0.
	rtt time.Duration
	// again times a second `pulumi up` of the unchanged program right after the first:
	// the one that reads back the objects refreshBeforeUpdate marks.
	again bool
	// env is added to the environment of every command of the scenario.
	env []string
	// preview runs up and destroy with their preview, as a user runs them, instead of
	// with --skip-preview.
	preview bool
	// previewStep times a `pulumi preview` of the unchanged program after up.
	previewStep bool
	// bound, when above 0, is the longest any command of the scenario may take: one
	// that takes longer is killed and its step marked hung in the run (errHung).
	bound time.Duration
}

// errHung is what engineOnce returns when a command outlived the scenario's bound and
// was killed.
var errHung = errors.New("hung")

// The commands of an engine run, by their index in engineRun's arrays.
const (
	stepUp = iota
	stepRefresh
	stepDestroy
	stepUpdate
	stepAgain
	stepPreview
	steps
)

// stepNames names the commands by index; "update" is the `pulumi up` of the changed
// program, "up again" the second `pulumi up` of the unchanged one, "preview" a
// `pulumi preview` of the unchanged one.
var stepNames = [steps]string{"up", "refresh", "destroy", "update", "up again", "preview"}

type engineRun struct {
	// times are the wall times of the commands, by step (0 for a command not run).
	times [steps]time.Duration
	peak  int64 // KiB, the plugin's highest VmHWM over the commands
	// stateBytes is the size of the stack's checkpoint after up.
	stateBytes int64
	// requests counts the API server's requests for the program's kind during each
	// command, by step (zero for the floor).
	requests [steps]int
	// CPU time of each command, by step: the CLI with everything it waited for (the
	// plugin and the language host included), the plugin alone, and the control
	// plane's API server and etcd.
	cliCPU, pluginCPU, serverCPU [steps]time.Duration
	// load is the one-minute load average before the run.
	load float64
	// hung marks the command, by step, that outlived the scenario's bound and was
	// killed; the run's later commands did not run.
	hung [steps]bool
}

type engineFigures struct {
	scenario    engineScenario
	ours, floor []engineRun
	// shaped holds the runs with the floor's Shaped resources, if the scenario asks.
	shaped []engineRun
}

// slicesProgram declares n resources of type token, each an EndpointSlice's inputs:
// one IPv4 address and one named port.
func slicesProgram(n int) func(ns, token string) string {
	return func(ns, token string) string {
		var b strings.Builder
		b.WriteString("name: bench-slices\nruntime: yaml\nresources:\n")
		for i := range n {
			fmt.Fprintf(&b, "  s%04d:\n    type: %s\n    properties:\n"+
				"      metadata:\n        namespace: %s\n      addressType: IPv4\n"+
				"      endpoints:\n        - addresses: [\"10.3.%d.%d\"]\n"+
				"      ports:\n        - name: http\n          port: 80\n", i, token, ns, i/250, i%250+1)
		}
		return b.String()
	}
}

// listProgram declares one resource of type token with an EndpointsList's inputs: n
// items.
func listProgram(n int) func(ns, token string) string { return listProgramChanged(n, -1) }

// listProgramChanged is listProgram with the address of item changed (none when item
// is out of range): the program of a one-item update.
func listProgramChanged(n, item int) func(ns, token string) string {
	return func(ns, token string) string {
		var b strings.Builder
		fmt.Fprintf(&b, "name: bench-list\nruntime: yaml\nresources:\n  list:\n    type: %s\n"+
			"    properties:\n      items:\n", token)
		for i := range n {
			third := i / 250
			if i == item {
				third = 200
			}
			fmt.Fprintf(&b, "        - metadata: {name: svc-%d, namespace: %s}\n"+
				"          subsets: [{addresses: [{ip: 10.4.%d.%d}], ports: [{name: http, port: 80}]}]\n", i, ns, third, i%250+1)
		}
		return b.String()
	}
}

// measureEngine runs the scenario runs times with the provider's resources and as many
// with the floor's (and with the floor's Shaped resources, if the scenario asks),
// rotating which goes first, so that the machine's load falls on all alike.
func measureEngine(ctx context.Context, cp *controlplane.ControlPlane, t tools, s engineScenario, runs int) (engineFigures, error) {
	f := engineFigures{scenario: s}
	type variant struct {
		who, token, plugin, kind string
		runs                     *[]engineRun
	}
	ours := variant{"ours  ", spec.EndpointSliceToken, filepath.Join(t.ambient, filepath.Base(t.provider)), "endpointslices", &f.ours}
	if strings.Contains(s.name, "EndpointsList") {
		ours.token, ours.kind = spec.EndpointsListToken, "endpoints"
	}
	variants := []variant{{"floor ", floorToken, t.floor, "", &f.floor}, ours}
	if s.shaped {
		variants = append(variants, variant{"shaped", shapedToken, t.floor, "", &f.shaped})
	}
	for r := range runs {
		for i := range variants {
			v := variants[(r+i)%len(variants)]
			run, err := engineOnce(ctx, cp, t, s, v.token, v.plugin, v.kind)
			if err != nil {
				return f, fmt.Errorf("%s (%s): %w", s.name, v.token, err)
			}
			*v.runs = append(*v.runs, run)
			progress(s.name, r+1, v.who, run)
		}
	}
	return f, nil
}

// progress prints one run's figures as it ends.
func progress(name string, n int, who string, run engineRun) {
	var b strings.Builder
	fmt.Fprintf(&b, "    %s run %d %s: plugin peak RSS %s, state %d bytes, load %.2f; wall s, CPU s (CLI tree / plugin / "+
		"API server+etcd), requests:", name, n, who, mib(run.peak), run.stateBytes, run.load)
	for i, step := range stepNames {
		if run.hung[i] {
			fmt.Fprintf(&b, " %s HUNG, killed;", step)
		}
		if run.times[i] > 0 && !run.hung[i] {
			fmt.Fprintf(&b, " %s %.2f, %.2f/%.2f/%.2f, %d;", step, run.times[i].Seconds(), run.cliCPU[i].Seconds(),
				run.pluginCPU[i].Seconds(), run.serverCPU[i].Seconds(), run.requests[i])
		}
	}
	fmt.Println(b.String())
}

// engineOnce runs stack init, up, up again (if the scenario asks), refresh (if it
// asks), the update (if it asks) and destroy of the scenario's program with resources
// of type token on a fresh local backend. The provider's runs (kind not empty) of a
// scenario with a round trip reach the API server through the proxy.
func engineOnce(ctx context.Context, cp *controlplane.ControlPlane, t tools, s engineScenario,
	token, pluginPath, kind string,
) (engineRun, error) {
	var run engineRun
	run.load = loadAverage()
	ns, err := cp.Clientset().CoreV1().Namespaces().Create(ctx,
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "bench-"}}, metav1.CreateOptions{})
	if err != nil {
		return run, err
	}
	defer func() {
		_ = cp.Clientset().CoreV1().Namespaces().Delete(context.WithoutCancel(ctx), ns.Name, metav1.DeleteOptions{})
	}()
	dir, err := os.MkdirTemp("", "bench-engine-")
	if err != nil {
		return run, err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	for _, d := range []string{"program", "state", "home"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o700); err != nil {
			return run, err
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "program", "Pulumi.yaml"), []byte(s.program(ns.Name, token)), 0o600); err != nil {
		return run, err
	}
	kubeconfig := cp.KubeconfigPath()
	if s.rtt > 0 && kind != "" {
		kubeconfig = t.proxyKubeconfig
		t.proxy.SetDelay(s.rtt / 2)
		defer t.proxy.SetDelay(0)
	}
	env := append(os.Environ(),
		"PULUMI_HOME="+filepath.Join(dir, "home"),
		"PULUMI_BACKEND_URL=file://"+filepath.Join(dir, "state"),
		"PULUMI_CONFIG_PASSPHRASE=bench",
		"PULUMI_SKIP_UPDATE_CHECK=true",
		"PULUMI_DIY_BACKEND_NO_LEGACY_WARNING=true",
		"KUBECONFIG="+kubeconfig,
		"PATH="+strings.Join(pluginDirs(t), ":")+":"+os.Getenv("PATH"),
	)
	env = append(env, s.env...)
	// pulumi runs one command; step (see stepNames) says where its figures go, -1
	// nowhere.
	pulumi := func(step int, args ...string) (time.Duration, error) {
		before, err := requestCount(ctx, cp, kind)
		if err != nil {
			return 0, err
		}
		if step >= 0 && kubeconfig == t.proxyKubeconfig {
			defer proxyRequests(t.proxy, len(t.proxy.Requests()), args[0])
		}
		serverBefore := childrenCPU(t.apiServer, t.etcd)
		cmdCtx, cancel := boundContext(ctx, s.bound)
		defer cancel()
		cmd := pulumiCommand(cmdCtx, t.pulumi, args...)
		cmd.Dir, cmd.Env = filepath.Join(dir, "program"), env
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		stop := make(chan struct{})
		plugin := sample(pluginPath, stop)
		start := time.Now()
		err = cmd.Run()
		d := time.Since(start)
		close(stop)
		u := <-plugin
		run.peak = max(run.peak, u.peak)
		if err != nil && cmdCtx.Err() != nil && ctx.Err() == nil {
			if step >= 0 {
				run.hung[step] = true
			}
			return d, fmt.Errorf("pulumi %s killed after %s: %w", strings.Join(args, " "), s.bound, errHung)
		}
		if err != nil {
			return d, fmt.Errorf("pulumi %s: %w\n%s", strings.Join(args, " "), err, out.String())
		}
		after, err := requestCount(ctx, cp, kind)
		if step >= 0 {
			run.requests[step] = after - before
			run.cliCPU[step] = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
			run.pluginCPU[step] = u.cpu
			run.serverCPU[step] = childrenCPU(t.apiServer, t.etcd) - serverBefore
		}
		return d, err
	}
	if _, err := pulumi(-1, "stack", "init", "bench"); err != nil {
		return run, err
	}
	// change runs a command that changes the stack (up, destroy) as the scenario asks.
	change := func(step int, command string) (time.Duration, error) {
		args := []string{command, "--yes", "--non-interactive"}
		if !s.preview {
			args = append(args, "--skip-preview")
		}
		return pulumi(step, args...)
	}
	if run.times[stepUp], err = change(stepUp, "up"); err != nil {
		return run, err
	}
	if run.stateBytes, err = checkpointSize(filepath.Join(dir, "state")); err != nil {
		return run, err
	}
	if s.again {
		if run.times[stepAgain], err = change(stepAgain, "up"); err != nil {
			return run, err
		}
	}
	if s.previewStep {
		if run.times[stepPreview], err = pulumi(stepPreview, "preview", "--non-interactive"); err != nil {
			return run, err
		}
	}
	if s.refresh {
		if run.times[stepRefresh], err = pulumi(stepRefresh, "refresh", "--yes", "--skip-preview", "--non-interactive"); err != nil {
			return run, err
		}
	}
	if s.update != nil {
		program := []byte(s.update(ns.Name, token))
		if err := os.WriteFile(filepath.Join(dir, "program", "Pulumi.yaml"), program, 0o600); err != nil {
			return run, err
		}
		if run.times[stepUpdate], err = change(stepUpdate, "up"); err != nil {
			return run, err
		}
	}
	if run.times[stepDestroy], err = change(stepDestroy, "destroy"); err != nil {
		return run, err
	}
	return run, nil
}

// pluginDirs are the directories an engine run puts first on PATH: the provider's,
// the floor's, the YAML host's and pulumi-kubernetes's, if measured.
func pluginDirs(t tools) []string {
	dirs := []string{t.ambient, filepath.Dir(t.floor), filepath.Dir(t.yamlHost)}
	if t.kubernetes != "" {
		dirs = append(dirs, filepath.Dir(t.kubernetes))
	}
	return dirs
}

// boundContext is ctx bounded to bound from now, or ctx (with a cancel) when bound is
// 0.
func boundContext(ctx context.Context, bound time.Duration) (context.Context, context.CancelFunc) {
	if bound <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, bound)
}

// pulumiCommand is a pulumi command run in a process group of its own: the CLI starts
// the plugins and the language host, and a cancelled context kills them all (and,
// should one of them hold the output open, stops waiting for it 10 s later).
func pulumiCommand(ctx context.Context, pulumi string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, pulumi, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	return cmd
}

// proxyRequests prints the requests the proxy forwarded since the first skip, by
// method and path with the object names left out: what a command sent over the
// round trip.
func proxyRequests(proxy *apiproxy.Proxy, skip int, command string) {
	counts := map[string]int{}
	for _, r := range proxy.Requests()[skip:] {
		path := r.Path
		if i := strings.Index(path, "/namespaces/"); i >= 0 {
			parts := strings.Split(path[i+len("/namespaces/"):], "/")
			path = path[:i] + "/namespaces/*"
			if len(parts) > 1 {
				path += "/" + parts[1]
			}
			if len(parts) > 2 {
				path += "/*"
			}
		}
		counts[r.Method+" "+path]++
	}
	keys := slices.Sorted(maps.Keys(counts))
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, " %s x%d;", k, counts[k])
	}
	fmt.Printf("      %s through the proxy:%s\n", command, b.String())
}

// checkpointSize is the size of the one stack checkpoint under a local backend.
func checkpointSize(state string) (int64, error) {
	var size int64
	err := filepath.WalkDir(filepath.Join(state, ".pulumi", "stacks"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".json") {
			return err
		}
		info, err := d.Info()
		if err == nil {
			size = max(size, info.Size())
		}
		return err
	})
	if err == nil && size == 0 {
		err = errors.New("no stack checkpoint under " + state)
	}
	return size, err
}

// requestCount sums the API server's apiserver_request_total for one resource (all
// verbs), or returns 0 when resource is empty.
func requestCount(ctx context.Context, cp *controlplane.ControlPlane, resource string) (int, error) {
	if resource == "" {
		return 0, nil
	}
	counts, err := requestCounts(ctx, cp)
	return counts[resource], err
}

// requestCounts sums the API server's apiserver_request_total per resource (all
// verbs); requests for no resource (discovery, /version, /metrics) count under "".
func requestCounts(ctx context.Context, cp *controlplane.ControlPlane) (map[string]int, error) {
	body, err := cp.Clientset().CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading the API server's metrics: %w", err)
	}
	counts := map[string]int{}
	s := bufio.NewScanner(bytes.NewReader(body))
	s.Buffer(make([]byte, 1<<20), 1<<20)
	for s.Scan() {
		line := s.Text()
		if !strings.HasPrefix(line, "apiserver_request_total{") {
			continue
		}
		resource := ""
		if _, rest, found := strings.Cut(line, `,resource="`); found {
			resource, _, _ = strings.Cut(rest, `"`)
		}
		fields := strings.Fields(line)
		v, err := strconv.ParseFloat(fields[len(fields)-1], 64)
		if err != nil {
			return nil, fmt.Errorf("parsing the API server's metrics: %w", err)
		}
		counts[resource] += int(v)
	}
	return counts, s.Err()
}

// loadAverage is the machine's one-minute load average.
func loadAverage() float64 {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	fields := strings.Fields(string(data))
	if len(fields) == 0 {
		return 0
	}
	v, _ := strconv.ParseFloat(fields[0], 64)
	return v
}
