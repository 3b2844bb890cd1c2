// Command demo runs the README's main job: it starts a local Kubernetes control plane
// (etcd, kube-apiserver, kube-controller-manager with every controller a real cluster
// runs), creates the selectorless Services the example's EndpointSlice and
// EndpointsList belong to, installs the provider plugin from its tarball, runs
// `pulumi up` of the YAML example (with the control plane as the current kubeconfig)
// on a local file backend, shows the
// stack outputs, the objects created in the cluster and the EndpointSlices the
// mirroring controller made from the list's Endpoints, then destroys the stack (the
// mirrored slices go with it) and stops everything it started.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/controlplane"
)

func main() {
	var o options
	flag.StringVar(&o.pulumi, "pulumi", "", "the pulumi CLI")
	flag.StringVar(&o.yamlHost, "yaml-host", "", "the pulumi-language-yaml binary")
	flag.StringVar(&o.tarball, "plugin", "", "the provider plugin tarball")
	flag.StringVar(&o.version, "version", "", "the plugin version")
	flag.StringVar(&o.example, "example", "examples/kubernetes/yaml", "the example program directory")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, o); err != nil {
		fmt.Fprintf(os.Stderr, "demo: %v\n", err)
		os.Exit(1)
	}
}

type options struct {
	pulumi, yamlHost, tarball, version, example string
}

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

	step("starting a local control plane: etcd, kube-apiserver, kube-controller-manager with every controller")
	started := time.Now()
	cp, err := controlplane.Start(ctx, controlplane.Options{AllControllers: true})
	if err != nil {
		return err
	}
	defer func() {
		step("stopping the control plane")
		err = errors.Join(err, cp.Stop())
	}()
	fmt.Printf("    ready in %s; kubeconfig %s\n", time.Since(started).Round(time.Millisecond), cp.KubeconfigPath())

	config := cp.RESTConfig()
	config.WarningHandler = rest.NoWarnings{}
	cs, err := kubernetes.NewForConfig(config)
	if err != nil {
		return err
	}
	step("creating the selectorless Services of the example's EndpointSlice and EndpointsList")
	if err := createServices(ctx, cs); err != nil {
		return err
	}

	program := filepath.Join(work, "program")
	if err := os.CopyFS(program, os.DirFS(o.example)); err != nil {
		return fmt.Errorf("copying the example %s: %w", o.example, err)
	}
	bin, err := bundleYAMLHost(filepath.Join(work, "bin"), o.pulumi, o.yamlHost)
	if err != nil {
		return err
	}
	fmt.Printf("    pulumi CLI %s with the YAML language host %s beside it\n", o.pulumi, o.yamlHost)
	p := pulumi{ctx: ctx, cli: filepath.Join(bin, "pulumi"), dir: program, env: append(os.Environ(),
		"PULUMI_HOME="+filepath.Join(work, "home"),
		"KUBECONFIG="+cp.KubeconfigPath(),
		"PULUMI_BACKEND_URL=file://"+filepath.Join(work, "state"),
		"PULUMI_CONFIG_PASSPHRASE=demo",
		"PULUMI_SKIP_UPDATE_CHECK=true",
		"PULUMI_DIY_BACKEND_NO_LEGACY_WARNING=true",
		"PATH="+bin+":"+os.Getenv("PATH"),
	)}

	if err := os.Mkdir(filepath.Join(work, "state"), 0o700); err != nil {
		return err
	}

	step("installing the provider plugin %s", filepath.Base(o.tarball))
	if err := p.run("plugin", "install", "resource", "endpoints", o.version, "--file", o.tarball); err != nil {
		return err
	}

	step("creating the stack")
	if err := p.run("stack", "init", "demo"); err != nil {
		return err
	}
	defer func() {
		step("destroying the stack")
		err = errors.Join(err, p.run("destroy", "--yes", "--skip-preview", "--non-interactive"))
		err = errors.Join(err, p.run("stack", "rm", "--yes", "--non-interactive"))
		if err == nil {
			step("waiting for the mirroring controller to delete the slices it made")
			err = waitMirrored(ctx, cs, false)
		}
	}()

	step("pulumi up")
	var up bytes.Buffer
	if err := p.runTee(&up, "up", "--yes", "--skip-preview", "--non-interactive"); err != nil {
		return err
	}
	if lines := controllerWarnings(up.String()); len(lines) > 0 {
		return fmt.Errorf("pulumi up warned that a Kubernetes controller will overwrite or delete objects of the example:\n%s",
			strings.Join(lines, "\n"))
	}
	step("stack outputs")
	if err := p.run("stack", "output"); err != nil {
		return err
	}
	step("waiting for the mirroring controller to copy the list's Endpoints into EndpointSlices")
	if err := waitMirrored(ctx, cs, true); err != nil {
		return err
	}
	step("objects in the cluster")
	return showObjects(ctx, cs)
}

// bundleYAMLHost makes dir hold the pulumi CLI cli (a hard link, or a copy where
// none can be made) and the YAML language host yamlHost (a symbolic link), and
// returns dir. The CLI looks for the YAML host, which a Pulumi install ships, next to
// its own executable; found only on PATH, it is used with the warning "using
// pulumi-language-yaml from $PATH" at every command.
func bundleYAMLHost(dir, cli, yamlHost string) (string, error) {
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return "", err
	}
	dst := filepath.Join(dir, "pulumi")
	if err := os.Link(cli, dst); err != nil {
		if err := copyExecutable(cli, dst); err != nil {
			return "", fmt.Errorf("placing the pulumi CLI %s beside the YAML host in %s: %w", cli, dir, err)
		}
	}
	if err := os.Symlink(yamlHost, filepath.Join(dir, filepath.Base(yamlHost))); err != nil {
		return "", fmt.Errorf("placing the YAML host %s beside the pulumi CLI in %s: %w", yamlHost, dir, err)
	}
	return dir, nil
}

// copyExecutable copies the executable file src to dst.
func copyExecutable(src, dst string) (err error) {
	in, err := os.Open(filepath.Clean(src))
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, in.Close()) }()
	out, err := os.OpenFile(filepath.Clean(dst), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o700) //nolint:gosec // an executable
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, out.Close()) }()
	_, err = io.Copy(out, in)
	return err
}

// namespace is where the example's objects go: it names none, so they go to the
// kubeconfig context's namespace, which the control plane leaves at the default.
const namespace = "default"

// services are the Services the example's EndpointSlice (web) and EndpointsList items
// (web-legacy, db-legacy) belong to, as its README creates them. They have no selector,
// so their endpoints are the program's: the endpoints controller leaves them alone
// (without a Service of their name it deletes them) and the mirroring controller copies
// the Endpoints into EndpointSlices. Headless, with the ports of the objects.
var services = []*corev1.Service{
	selectorless("web", corev1.ServicePort{Name: "http", Port: 8080}),
	selectorless("web-legacy", corev1.ServicePort{Name: "http", Port: 8080}),
	selectorless("db-legacy", corev1.ServicePort{Port: 5432}),
}

// mirroredServices are the Services whose Endpoints the mirroring controller copies.
var mirroredServices = services[1:]

func selectorless(name string, ports ...corev1.ServicePort) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
		Spec:       corev1.ServiceSpec{ClusterIP: corev1.ClusterIPNone, Ports: ports},
	}
}

func createServices(ctx context.Context, cs kubernetes.Interface) error {
	for _, svc := range services {
		if _, err := cs.CoreV1().Services(namespace).Create(ctx, svc, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("creating Service %s/%s: %w", namespace, svc.Name, err)
		}
		var ports []string
		for _, p := range svc.Spec.Ports {
			ports = append(ports, fmt.Sprintf("%s:%d", p.Name, p.Port))
		}
		fmt.Printf("    Service %s/%s  headless, no selector  ports %s\n", namespace, svc.Name, strings.Join(ports, ","))
	}
	return nil
}

// controllerWarnings returns the lines of a pulumi output that warn about a
// Kubernetes controller (the endpoints, EndpointSlice or mirroring controller).
func controllerWarnings(out string) []string {
	var lines []string
	for line := range strings.Lines(out) {
		if strings.Contains(line, "warning") && strings.Contains(line, "controller") {
			lines = append(lines, strings.TrimSpace(line))
		}
	}
	return lines
}

// mirrorTimeout bounds each wait for the mirroring controller; it acts within seconds.
const mirrorTimeout = 60 * time.Second

// waitMirrored polls until every Service of mirroredServices has mirrored EndpointSlices
// holding the addresses of its Endpoints (present), or none (!present), and prints
// them.
func waitMirrored(ctx context.Context, cs kubernetes.Interface, present bool) error {
	ctx, cancel := context.WithTimeout(ctx, mirrorTimeout)
	defer cancel()
	started := time.Now()
	for {
		report, done, err := mirrored(ctx, cs, present)
		if err == nil && done {
			fmt.Printf("    after %s:\n%s", time.Since(started).Round(100*time.Millisecond), report)
			return nil
		}
		select {
		case <-ctx.Done():
			if err == nil {
				err = ctx.Err()
			}
			return fmt.Errorf("the mirrored EndpointSlices are not as expected after %s (%w):\n%s", mirrorTimeout, err, report)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// mirrored describes the slices the mirroring controller keeps for each Service of
// mirroredServices, and reports whether they are as wanted: each Service's slices hold exactly
// the addresses of its Endpoints (present), or there are none (!present).
func mirrored(ctx context.Context, cs kubernetes.Interface, present bool) (string, bool, error) {
	var report strings.Builder
	done := true
	for _, svc := range mirroredServices {
		selector := discoveryv1.LabelServiceName + "=" + svc.Name + "," +
			discoveryv1.LabelManagedBy + "=endpointslicemirroring-controller.k8s.io"
		list, err := cs.DiscoveryV1().EndpointSlices(namespace).List(ctx, metav1.ListOptions{LabelSelector: selector})
		if err != nil {
			return report.String(), false, err
		}
		if !present {
			if len(list.Items) > 0 {
				done = false
			}
			fmt.Fprintf(&report, "    Service %s/%s: %d mirrored EndpointSlices\n", namespace, svc.Name, len(list.Items))
			continue
		}
		var got []string
		for _, s := range list.Items {
			fmt.Fprintf(&report, "    EndpointSlice %s/%s  mirrored from Endpoints %s  %s  %s  %s\n",
				namespace, s.Name, s.Labels[discoveryv1.LabelServiceName], s.AddressType, sliceEndpoints(s), slicePorts(s))
			for _, e := range s.Endpoints {
				got = append(got, e.Addresses...)
			}
		}
		want, err := endpointsAddresses(ctx, cs, svc.Name)
		if err != nil {
			return report.String(), false, err
		}
		if len(want) == 0 || strings.Join(sorted(got), ",") != strings.Join(want, ",") {
			done = false
		}
	}
	return report.String(), done, nil
}

// endpointsAddresses returns the addresses, ready or not, of the Endpoints name, sorted.
func endpointsAddresses(ctx context.Context, cs kubernetes.Interface, name string) ([]string, error) {
	e, err := cs.CoreV1().Endpoints(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("reading Endpoints %s/%s: %w", namespace, name, err)
	}
	var addrs []string
	for _, ss := range e.Subsets {
		for _, a := range append(ss.Addresses, ss.NotReadyAddresses...) {
			addrs = append(addrs, a.IP)
		}
	}
	return sorted(addrs), nil
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// sliceEndpoints writes a slice's endpoints as addresses, "(not ready)" marking those
// that are not ready.
func sliceEndpoints(s discoveryv1.EndpointSlice) string {
	var eps []string
	for _, e := range s.Endpoints {
		a := strings.Join(e.Addresses, ",")
		if e.Conditions.Ready != nil && !*e.Conditions.Ready {
			a += "(not ready)"
		}
		eps = append(eps, a)
	}
	return strings.Join(eps, " ")
}

func slicePorts(s discoveryv1.EndpointSlice) string {
	var ports []string
	for _, p := range s.Ports {
		name, port := "", int32(0)
		if p.Name != nil {
			name = *p.Name
		}
		if p.Port != nil {
			port = *p.Port
		}
		ports = append(ports, fmt.Sprintf("%s:%d", name, port))
	}
	return "ports " + strings.Join(ports, ",")
}

// showObjects prints the EndpointSlices and Endpoints of the example's namespace, each
// with who manages it.
func showObjects(ctx context.Context, cs kubernetes.Interface) error {
	list, err := cs.DiscoveryV1().EndpointSlices(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	for _, s := range list.Items {
		fmt.Printf("    EndpointSlice %s/%s  %s  %s  %s  managed by %s\n",
			namespace, s.Name, s.AddressType, sliceEndpoints(s), slicePorts(s), s.Labels[discoveryv1.LabelManagedBy])
	}
	endpoints, err := cs.CoreV1().Endpoints(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	for _, e := range endpoints.Items {
		var addrs []string
		for _, ss := range e.Subsets {
			for _, a := range ss.Addresses {
				addrs = append(addrs, a.IP)
			}
			for _, a := range ss.NotReadyAddresses {
				addrs = append(addrs, a.IP+"(not ready)")
			}
		}
		fmt.Printf("    Endpoints     %s/%s  %s\n", namespace, e.Name, strings.Join(addrs, " "))
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

func (p pulumi) run(args ...string) error { return p.runTee(nil, args...) }

// runTee is run that also copies the CLI's output (stdout and stderr) to out, when
// out is not nil.
func (p pulumi) runTee(out io.Writer, args ...string) error {
	cmd := exec.CommandContext(context.WithoutCancel(p.ctx), p.cli, args...)
	cmd.Dir, cmd.Env = p.dir, p.env
	cmd.Stdout, cmd.Stderr = io.Writer(os.Stdout), io.Writer(os.Stderr)
	if out != nil {
		cmd.Stdout, cmd.Stderr = io.MultiWriter(os.Stdout, out), io.MultiWriter(os.Stderr, out)
	}
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("pulumi %s: %w", strings.Join(args, " "), err)
	}
	return nil
}
