package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/endpoints-provider/pulumi-endpoints/tests/controlplane"
)

type tools struct {
	pulumi, yamlHost, provider string
	// ambient is a directory holding a copy of the provider, put on PATH (see
	// plugin.AmbientDir).
	ambient string
}

type engineRun struct {
	up, destroy      time.Duration
	peakUp, peakDown int64 // KiB
}

type engineFigures struct {
	name string
	runs []engineRun
}

// slicesProgram declares n EndpointSlices, each with one IPv4 address and one named port.
func slicesProgram(ns string, n int) string {
	var b strings.Builder
	b.WriteString("name: bench-slices\nruntime: yaml\nresources:\n")
	for i := range n {
		fmt.Fprintf(&b, "  s%03d:\n    type: endpoints:discovery.k8s.io/v1:EndpointSlice\n    properties:\n"+
			"      metadata:\n        namespace: %s\n      addressType: IPv4\n"+
			"      endpoints:\n        - addresses: [\"10.3.%d.%d\"]\n"+
			"      ports:\n        - name: http\n          port: 80\n", i, ns, i/250, i%250+1)
	}
	return b.String()
}

// listProgram declares one EndpointsList of n items.
func listProgram(ns string, n int) string {
	var b strings.Builder
	b.WriteString("name: bench-list\nruntime: yaml\nresources:\n  list:\n    type: endpoints:core/v1:EndpointsList\n" +
		"    properties:\n      items:\n")
	for i := range n {
		fmt.Fprintf(&b, "        - metadata: {name: svc-%d, namespace: %s}\n"+
			"          subsets: [{addresses: [{ip: 10.4.%d.%d}], ports: [{name: http, port: 80}]}]\n", i, ns, i/250, i%250+1)
	}
	return b.String()
}

// measureEngine runs `pulumi up` and `pulumi destroy` of a program runs times on a
// local file backend, timing each and sampling the plugin's peak RSS.
func measureEngine(ctx context.Context, cp *controlplane.ControlPlane, t tools, name string,
	program func(ns string) string, runs int,
) (engineFigures, error) {
	f := engineFigures{name: name}
	for r := range runs {
		ns, err := cp.Clientset().CoreV1().Namespaces().Create(ctx,
			&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "bench-"}}, metav1.CreateOptions{})
		if err != nil {
			return f, err
		}
		dir, err := os.MkdirTemp("", "bench-engine-")
		if err != nil {
			return f, err
		}
		defer func() { _ = os.RemoveAll(dir) }()
		for _, d := range []string{"program", "state", "home"} {
			if err := os.Mkdir(filepath.Join(dir, d), 0o700); err != nil {
				return f, err
			}
		}
		if err := os.WriteFile(filepath.Join(dir, "program", "Pulumi.yaml"), []byte(program(ns.Name)), 0o600); err != nil {
			return f, err
		}
		env := append(os.Environ(),
			"PULUMI_HOME="+filepath.Join(dir, "home"),
			"PULUMI_BACKEND_URL=file://"+filepath.Join(dir, "state"),
			"PULUMI_CONFIG_PASSPHRASE=bench",
			"PULUMI_SKIP_UPDATE_CHECK=true",
			"PULUMI_DIY_BACKEND_NO_LEGACY_WARNING=true",
			"KUBECONFIG="+cp.KubeconfigPath(),
			"PATH="+t.ambient+":"+filepath.Dir(t.yamlHost)+":"+os.Getenv("PATH"),
		)
		pulumi := func(args ...string) (time.Duration, int64, error) {
			cmd := exec.CommandContext(ctx, t.pulumi, args...)
			cmd.Dir, cmd.Env = filepath.Join(dir, "program"), env
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			stop := make(chan struct{})
			peak := peakRSS(filepath.Join(t.ambient, filepath.Base(t.provider)), stop)
			start := time.Now()
			err := cmd.Run()
			d := time.Since(start)
			close(stop)
			if err != nil {
				return d, 0, fmt.Errorf("pulumi %s: %w\n%s", strings.Join(args, " "), err, out.String())
			}
			return d, <-peak, nil
		}
		if _, _, err := pulumi("stack", "init", "bench"); err != nil {
			return f, err
		}
		var run engineRun
		if run.up, run.peakUp, err = pulumi("up", "--yes", "--skip-preview", "--non-interactive"); err != nil {
			return f, err
		}
		if run.destroy, run.peakDown, err = pulumi("destroy", "--yes", "--skip-preview", "--non-interactive"); err != nil {
			return f, err
		}
		f.runs = append(f.runs, run)
		fmt.Printf("    %s run %d: up %s, destroy %s, plugin peak RSS %s\n", name, r+1, secs(run.up),
			secs(run.destroy), mib(max(run.peakUp, run.peakDown)))
	}
	return f, nil
}
