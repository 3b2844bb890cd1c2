package dataplane

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/controlplane"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/pulumicli"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/toolchain"
)

// Environment variables that name the data plane's binaries.
const (
	EnvKubeProxy = "TEST_ASSET_KUBE_PROXY"
	EnvCoreDNS   = "TEST_ASSET_COREDNS"
)

const (
	// NodeName is the Node kube-proxy runs as (--hostname-override).
	NodeName = "dataplane"
	// ClusterDomain is the domain CoreDNS answers Services' names in.
	ClusterDomain = "cluster.local"
	// DNSAddr is where CoreDNS answers, over UDP and TCP.
	DNSAddr = "127.0.0.1:53"

	kubeProxyHealthz = "http://127.0.0.1:10256/healthz"
	coreDNSReady     = "127.0.0.1:8181"
)

// DataPlane is a control plane with every controller, kube-proxy in nftables mode
// and CoreDNS with its kubernetes plugin, in the tests' network namespace.
type DataPlane struct {
	cp  *controlplane.ControlPlane
	dir string // the data plane's own files (CoreDNS's Corefile)
}

// One data plane per test binary, on the shared control plane.
var shared sharedDataPlane

type sharedDataPlane struct {
	once sync.Once
	dp   *DataPlane
	err  error
}

// Shared returns the test binary's data plane, starting it on first use. It skips
// t where the tests have no network namespace of their own (see RunTests).
func Shared(t testing.TB) *DataPlane {
	t.Helper()
	if noNetns != nil {
		t.Skipf("no data-plane tests here: %v", noNetns)
	}
	if os.Getenv(inNetnsEnv) == "" {
		t.Fatal("the data plane runs only in the tests' network namespace: the package's TestMain must call dataplane.RunTests")
	}
	kubeProxy, coreDNS := toolchain.Asset(t, EnvKubeProxy), toolchain.Asset(t, EnvCoreDNS)
	cp := controlplane.Shared(t)
	shared.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(t.Context()), 2*time.Minute)
		defer cancel()
		began := time.Now()
		shared.dp, shared.err = start(ctx, cp, kubeProxy, coreDNS)
		if shared.err == nil {
			t.Logf("data plane (kube-proxy, CoreDNS) started in %v", time.Since(began).Round(time.Millisecond))
		}
	})
	if shared.err != nil {
		t.Fatalf("start the data plane: %v", shared.err)
	}
	return shared.dp
}

// close removes the data plane's files; the control plane's Stop has ended its
// processes.
func (s *sharedDataPlane) close() error {
	if s.dp == nil {
		return nil
	}
	return os.RemoveAll(s.dp.dir)
}

// start registers the Node and starts kube-proxy and CoreDNS, the binaries at the
// paths given, on cp.
func start(ctx context.Context, cp *controlplane.ControlPlane, kubeProxy, coreDNS string) (*DataPlane, error) {
	dir, err := os.MkdirTemp("", "dataplane-")
	if err != nil {
		return nil, fmt.Errorf("create the data plane's directory: %w", err)
	}
	d := &DataPlane{cp: cp, dir: dir}
	if err := d.createNode(ctx); err != nil {
		return d, err
	}
	if err := d.startKubeProxy(ctx, kubeProxy); err != nil {
		return d, err
	}
	if err := shortTrackerTimeouts(); err != nil {
		return d, err
	}
	return d, d.startCoreDNS(ctx, coreDNS)
}

// createNode registers NodeName with NodeIP as its InternalIP, which kube-proxy
// reads at start (without it, it waits, and it exits if the address changes).
func (d *DataPlane) createNode(ctx context.Context) error {
	nodes := d.cp.Clientset().CoreV1().Nodes()
	if _, err := nodes.Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: NodeName}}, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create the node %s: %w", NodeName, err)
	}
	// A patch, not an update: the node lifecycle controller writes the new Node too.
	patch := fmt.Appendf(nil, `{"status":{"addresses":[{"type":%q,"address":%q},{"type":%q,"address":%q}]}}`,
		corev1.NodeInternalIP, NodeIP, corev1.NodeHostName, NodeName)
	if _, err := nodes.Patch(ctx, NodeName, types.MergePatchType, patch, metav1.PatchOptions{}, "status"); err != nil {
		return fmt.Errorf("set the addresses of the node %s: %w", NodeName, err)
	}
	return nil
}

func (d *DataPlane) startKubeProxy(ctx context.Context, path string) error {
	args := []string{
		"--kubeconfig=" + d.cp.KubeconfigPath(),
		"--proxy-mode=nftables",
		"--hostname-override=" + NodeName,
		// Otherwise it writes nf_conntrack_max, which only the host's namespace may.
		"--conntrack-max-per-core=0",
		"--healthz-bind-address=127.0.0.1:10256",
		"--metrics-bind-address=127.0.0.1:10249",
		"--v=2",
	}
	return d.cp.StartCompanion(ctx, "kube-proxy", path, args, "GET "+kubeProxyHealthz, httpOK(kubeProxyHealthz))
}

// shortTrackerTimeouts shortens how long the connection tracker, which kube-proxy's
// rules started, keeps connections that are over:
//   - TIME_WAIT, 2s instead of 120s: a client that opens thousands of connections a
//     second would otherwise fill its table (262144 entries) within a minute or two,
//     and new connections would be dropped;
//   - CLOSE, 1s instead of 10s: a connection refused by a backend that stopped ends
//     there, and the tracker reuses that entry, with its address translation to the
//     stopped backend, for a new connection from the same client port, so for 10s a
//     client that reuses its ports would meet the stopped backend again after
//     kube-proxy has dropped it.
func shortTrackerTimeouts() error {
	for key, seconds := range map[string]string{
		"/proc/sys/net/netfilter/nf_conntrack_tcp_timeout_time_wait": "2",
		"/proc/sys/net/netfilter/nf_conntrack_tcp_timeout_close":     "1",
	} {
		if err := os.WriteFile(key, []byte(seconds), 0o600); err != nil {
			return fmt.Errorf("shorten the connection tracker's %s: %w", filepath.Base(key), err)
		}
	}
	return nil
}

// corefile serves the cluster's names from the API server, without a cache, so
// that an answer follows the EndpointSlices at once.
const corefile = `.:53 {
    bind 127.0.0.1
    errors
    ready %s
    kubernetes %s in-addr.arpa ip6.arpa {
        kubeconfig %s admin
    }
}
`

func (d *DataPlane) startCoreDNS(ctx context.Context, path string) error {
	conf := filepath.Join(d.dir, "Corefile")
	data := fmt.Appendf(nil, corefile, coreDNSReady, ClusterDomain, d.cp.KubeconfigPath())
	if err := os.WriteFile(conf, data, 0o600); err != nil {
		return fmt.Errorf("write CoreDNS's Corefile: %w", err)
	}
	url := "http://" + coreDNSReady + "/ready"
	return d.cp.StartCompanion(ctx, "coredns", path, []string{"-conf", conf}, "GET "+url, httpOK(url))
}

// httpOK returns a probe that succeeds when GET url answers 200 OK.
func httpOK(url string) func(context.Context) error {
	c := newURLClient(url)
	return func(ctx context.Context) error {
		_, err := c.get(ctx)
		return err
	}
}

// ControlPlane returns the control plane the data plane serves.
func (d *DataPlane) ControlPlane() *controlplane.ControlPlane { return d.cp }

// Namespace creates a namespace for one test (see controlplane.Namespace).
func (d *DataPlane) Namespace(t testing.TB, prefix string) string {
	t.Helper()
	return d.cp.Namespace(t, prefix)
}

// CLI returns the pulumi CLI on a new project that runs YAML programs with the
// provider under test against this control plane (pulumicli.NewWithProvider); env
// goes on top. Run pulumi in the background with its Command.
func (d *DataPlane) CLI(t testing.TB, env ...string) *pulumicli.CLI {
	t.Helper()
	return pulumicli.NewWithProvider(t, append([]string{"KUBECONFIG=" + d.cp.KubeconfigPath()}, env...)...)
}

// Service creates svc, a Service without a selector (the provider's objects feed
// it), and returns it as created, its cluster IP allocated; it is deleted with its
// namespace.
func (d *DataPlane) Service(t testing.TB, svc *corev1.Service) *corev1.Service {
	t.Helper()
	created, err := d.cp.Clientset().CoreV1().Services(svc.Namespace).Create(t.Context(), svc, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create the Service %s/%s: %v", svc.Namespace, svc.Name, err)
	}
	return created
}
