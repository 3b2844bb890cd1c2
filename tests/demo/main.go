// Command demo runs the README's main job: it starts a local Kubernetes control plane
// (etcd, kube-apiserver, kube-controller-manager) and the local double of the Google
// APIs, installs the provider plugin from its tarball, runs `pulumi up` of the YAML
// example on a local file backend, shows the stack outputs and the objects created in
// the cluster, then destroys the stack and stops everything it started.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/endpoints-provider/pulumi-endpoints/tests/controlplane"
	"github.com/endpoints-provider/pulumi-endpoints/tests/googledouble"
)

func main() {
	var o options
	flag.StringVar(&o.pulumi, "pulumi", "", "the pulumi CLI")
	flag.StringVar(&o.yamlHost, "yaml-host", "", "the pulumi-language-yaml binary")
	flag.StringVar(&o.tarball, "plugin", "", "the provider plugin tarball")
	flag.StringVar(&o.version, "version", "", "the plugin version")
	flag.StringVar(&o.example, "example", "examples/yaml", "the example program directory")
	flag.StringVar(&o.fixture, "fixture", "examples/fixtures/google.json", "objects the Google double serves")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, o); err != nil {
		fmt.Fprintf(os.Stderr, "demo: %v\n", err)
		os.Exit(1)
	}
}

type options struct {
	pulumi, yamlHost, tarball, version, example, fixture string
}

// token is the bearer token the double expects and the provider is configured with.
const token = "demo-access-token"

func step(format string, a ...any) { fmt.Printf("\n==> "+format+"\n", a...) }

func run(ctx context.Context, o options) (err error) {
	for name, v := range map[string]string{"-pulumi": o.pulumi, "-yaml-host": o.yamlHost, "-plugin": o.tarball, "-version": o.version} {
		if v == "" {
			return fmt.Errorf("%s is required (run it with `make demo`)", name)
		}
	}
	if o.tarball, err = filepath.Abs(o.tarball); err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "endpoints-demo-")
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, os.RemoveAll(work)) }()

	step("starting a local control plane: etcd, kube-apiserver, kube-controller-manager")
	started := time.Now()
	cp, err := controlplane.Start(ctx, controlplane.Options{})
	if err != nil {
		return err
	}
	defer func() {
		step("stopping the control plane")
		err = errors.Join(err, cp.Stop())
	}()
	fmt.Printf("    ready in %s; kubeconfig %s\n", time.Since(started).Round(time.Millisecond), cp.KubeconfigPath())

	step("starting the local double of the Migration Center and BeyondCorp APIs")
	fixture, err := googledouble.ReadFixture(o.fixture)
	if err != nil {
		return err
	}
	double, err := googledouble.Start(token)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, double.Close()) }()
	double.Load(fixture)
	fmt.Printf("    serving %s\n", double.URL)

	program := filepath.Join(work, "program")
	if err := os.CopyFS(program, os.DirFS(o.example)); err != nil {
		return fmt.Errorf("copying the example %s: %w", o.example, err)
	}
	p := pulumi{ctx: ctx, cli: o.pulumi, dir: program, env: append(os.Environ(),
		"PULUMI_HOME="+filepath.Join(work, "home"),
		"PULUMI_BACKEND_URL=file://"+filepath.Join(work, "state"),
		"PULUMI_CONFIG_PASSPHRASE=demo",
		"PULUMI_SKIP_UPDATE_CHECK=true",
		"PULUMI_DIY_BACKEND_NO_LEGACY_WARNING=true",
		"PATH="+filepath.Dir(o.yamlHost)+":"+os.Getenv("PATH"),
	)}

	if err := os.Mkdir(filepath.Join(work, "state"), 0o700); err != nil {
		return err
	}

	step("installing the provider plugin %s", filepath.Base(o.tarball))
	if err := p.run("plugin", "install", "resource", "endpoints", o.version, "--file", o.tarball); err != nil {
		return err
	}

	step("creating the stack and configuring the provider")
	if err := p.run("stack", "init", "demo"); err != nil {
		return err
	}
	for _, kv := range [][]string{
		{"endpoints:kubeconfig", cp.KubeconfigPath()},
		{"endpoints:project", "demo-project"},
		{"endpoints:migrationCenterCustomEndpoint", double.URL},
		{"endpoints:beyondcorpCustomEndpoint", double.URL},
		{"endpoints:accessToken", token, "--secret"},
	} {
		if err := p.run(append([]string{"config", "set", kv[0], kv[1]}, kv[2:]...)...); err != nil {
			return err
		}
	}
	defer func() {
		step("destroying the stack")
		err = errors.Join(err, p.run("destroy", "--yes", "--skip-preview", "--non-interactive"))
		err = errors.Join(err, p.run("stack", "rm", "--yes", "--non-interactive"))
	}()

	step("pulumi up")
	if err := p.run("up", "--yes", "--skip-preview", "--non-interactive"); err != nil {
		return err
	}
	step("stack outputs")
	if err := p.run("stack", "output"); err != nil {
		return err
	}
	step("objects in the cluster")
	return showObjects(ctx, cp)
}

func showObjects(ctx context.Context, cp *controlplane.ControlPlane) error {
	config := cp.RESTConfig()
	config.WarningHandler = rest.NoWarnings{}
	cs, err := kubernetes.NewForConfig(config)
	if err != nil {
		return err
	}
	slices, err := cs.DiscoveryV1().EndpointSlices("default").List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	for _, s := range slices.Items {
		var addrs []string
		for _, e := range s.Endpoints {
			addrs = append(addrs, e.Addresses...)
		}
		fmt.Printf("    EndpointSlice default/%s  %s  %s\n", s.Name, s.AddressType, strings.Join(addrs, ","))
	}
	endpoints, err := cs.CoreV1().Endpoints("default").List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	for _, e := range endpoints.Items {
		var addrs []string
		for _, ss := range e.Subsets {
			for _, a := range ss.Addresses {
				addrs = append(addrs, a.IP)
			}
		}
		fmt.Printf("    Endpoints     default/%s  %s\n", e.Name, strings.Join(addrs, ","))
	}
	return nil
}

// pulumi runs the CLI in the program directory, streaming its output.
type pulumi struct {
	ctx context.Context
	cli string
	dir string
	env []string
}

func (p pulumi) run(args ...string) error {
	cmd := exec.CommandContext(context.WithoutCancel(p.ctx), p.cli, args...)
	cmd.Dir, cmd.Env = p.dir, p.env
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("pulumi %s: %w", strings.Join(args, " "), err)
	}
	return nil
}
