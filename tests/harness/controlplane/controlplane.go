package controlplane

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/version"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/ports"
)

// Environment variables that name the control plane's binaries.
const (
	EnvEtcd                  = "TEST_ASSET_ETCD"
	EnvKubeAPIServer         = "TEST_ASSET_KUBE_APISERVER"
	EnvKubeControllerManager = "TEST_ASSET_KUBE_CONTROLLER_MANAGER"
	// EnvKubeAPIServerOldest names the kube-apiserver of the oldest Kubernetes minor
	// the provider supports, which StartOldest and SharedOldest run.
	EnvKubeAPIServerOldest = "TEST_ASSET_KUBE_APISERVER_OLDEST"
)

// ServiceCIDR is the range the API server gives Services their cluster IPs from.
const ServiceCIDR = "10.0.0.0/24"

const (
	// readyTimeout bounds the wait for each process to become ready.
	readyTimeout = 60 * time.Second
	// pollInterval is the pause between readiness probes.
	pollInterval = 50 * time.Millisecond
	// serviceAccountIssuer is the issuer and audience of ServiceAccount tokens.
	serviceAccountIssuer = "https://kubernetes.default.svc.cluster.local"
	// dirPrefix starts the names of the control planes' temporary directories.
	dirPrefix = "controlplane-"
	// ownerFile, in a control plane's directory, names the process that
	// started it: "<pid> <start time>".
	ownerFile = "owner"
	// gcSyncedLog1 and gcSyncedLog2 are the kube-controller-manager log
	// messages that say the garbage collector has started collecting.
	gcSyncedLog1 = "all resource monitors have synced"
	gcSyncedLog2 = "not all resource monitors could be synced, proceeding anyways"
)

// Options configures Start. The zero value is ready to use.
type Options struct {
	// Output, when not nil, also receives the output of every process, for
	// debugging. The output always goes to log files in the control plane's
	// temporary directory, and errors from Start quote their last lines.
	Output io.Writer
	// AllControllers runs every controller kube-controller-manager runs by
	// default (endpoints, EndpointSlice, EndpointSlice mirroring, service
	// accounts, ...), as a real cluster does, instead of only the garbage
	// collector and the namespace controller. Start then also waits until the
	// endpoints, EndpointSlice and mirroring controllers act (see
	// waitEndpointControllers).
	AllControllers bool
	// DurableEtcd runs etcd with fsync on, as every real cluster does. By
	// default etcd runs with --unsafe-no-fsync: tests do not need their writes
	// to survive a power cut, and skipping fsync makes every write cheaper.
	DurableEtcd bool
	// APIServer, when not empty, is the path of the kube-apiserver binary to run
	// instead of the one TEST_ASSET_KUBE_APISERVER names (another minor's, say).
	APIServer string
	// NoControllerManager starts etcd and the API server alone: no controller
	// runs (no garbage collector, no namespace controller), so a foreground delete
	// or a namespace's deletion never finishes, and TEST_ASSET_KUBE_CONTROLLER_MANAGER
	// is not needed. It cannot be given with AllControllers.
	NoControllerManager bool
	// APIServerArgs are appended to every API server's arguments, after the harness's
	// own (a flag given twice takes the last value): an authentication webhook, say,
	// with --authentication-token-webhook-config-file. A restarted API server keeps
	// them.
	APIServerArgs []string
}

// ControlPlane is a running etcd, kube-apiserver and kube-controller-manager (etcd
// and kube-apiserver alone with Options.NoControllerManager).
// Its methods are safe for concurrent use.
type ControlPlane struct {
	dir string

	server         string // https://127.0.0.1:<port>
	etcdURL        string // http://127.0.0.1:<port>, etcd's client URL (one member)
	caData         []byte // PEM, the API server's self-signed certificate chain
	kubeconfig     []byte
	kubeconfigPath string
	restConfig     *rest.Config
	clientset      *kubernetes.Clientset

	// minor and gitVersion are the API server's version, as GET /version says.
	minor      int
	gitVersion string

	procs    []*process           // in start order: etcd, kube-apiserver, kube-controller-manager (if any)
	reserved []*ports.Reservation // the ports of etcd and the API servers

	// apiServerOut is where the API server's output went besides its log, to
	// start it again after Kill or StopAPIServer.
	apiServerOut io.Writer
	procsMu      sync.Mutex

	stopOnce sync.Once
	stopErr  error
}

// binaries are the paths of the control plane's executables.
type binaries struct {
	etcd, apiServer, controllerManager string
}

// StartT starts a control plane for t and stops it when t and its subtests
// have finished. It fails t if the control plane cannot start.
func StartT(t testing.TB) *ControlPlane {
	t.Helper()
	return StartTWith(t, Options{})
}

// StartTWith is StartT with options.
func StartTWith(t testing.TB, opts Options) *ControlPlane {
	t.Helper()
	c, err := Start(t.Context(), opts)
	if err != nil {
		t.Fatalf("start a control plane: %v", err)
	}
	t.Cleanup(func() {
		if err := c.Stop(); err != nil {
			t.Errorf("stop the control plane: %v", err)
		}
	})
	return c
}

// Start starts etcd, kube-apiserver and kube-controller-manager and returns
// once the API server is ready and the garbage collector has synced (with
// Options.NoControllerManager, etcd and the API server only, once the API server
// is ready). ctx bounds the start-up only: the processes run until Stop. On error
// nothing is left running.
func Start(ctx context.Context, opts Options) (_ *ControlPlane, err error) {
	c, bins, portNums, err := newControlPlane(3, opts)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, c.Stop())
		}
	}()
	etcdURL, err := c.startEtcd(ctx, bins.etcd, portNums[0], portNums[1], opts.DurableEtcd, opts.Output)
	if err != nil {
		return nil, err
	}
	c.etcdURL = etcdURL
	if err := c.startAPIServer(ctx, bins.apiServer, etcdURL, portNums[2], opts.APIServerArgs, opts.Output); err != nil {
		return nil, err
	}
	if err := c.readVersion(ctx); err != nil {
		return nil, err
	}
	if opts.NoControllerManager {
		return c, nil
	}
	if err := c.startControllerManager(ctx, bins.controllerManager, opts); err != nil {
		return nil, err
	}
	return c, nil
}

// newControlPlane prepares the start of a control plane (one or HA): it finds the
// binaries opts asks for, removes stale directories, creates the control plane's
// directory, owned by this process, and reserves nPorts free ports until Stop (see
// package ports: an API server or etcd member that stops leaves its port refusing
// connections, and starts again on it). On error nothing is left behind.
func newControlPlane(nPorts int, opts Options) (_ *ControlPlane, _ binaries, portNums []int, err error) {
	if opts.NoControllerManager && opts.AllControllers {
		return nil, binaries{}, nil, errors.New("cannot start a control plane: Options.AllControllers needs the controller manager that Options.NoControllerManager leaves out")
	}
	bins, err := lookupBinaries(opts)
	if err != nil {
		return nil, binaries{}, nil, err
	}
	removeStaleDirs()
	dir, err := os.MkdirTemp("", dirPrefix)
	if err != nil {
		return nil, binaries{}, nil, fmt.Errorf("create the control plane's temporary directory: %w", err)
	}
	c := &ControlPlane{dir: dir}
	defer func() {
		if err != nil {
			err = errors.Join(err, c.Stop())
		}
	}()
	if err := writeOwner(dir); err != nil {
		return nil, binaries{}, nil, err
	}
	if c.reserved, err = ports.ReserveN(nPorts); err != nil {
		return nil, binaries{}, nil, err
	}
	for _, r := range c.reserved {
		portNums = append(portNums, r.Port())
	}
	return c, bins, portNums, nil
}

// Kubeconfig returns an admin kubeconfig: the API server at
// https://127.0.0.1:<port> with its CA data, and a static token in group
// system:masters.
func (c *ControlPlane) Kubeconfig() []byte { return bytes.Clone(c.kubeconfig) }

// KubeconfigPath returns the path of a file that holds Kubeconfig. It is
// removed by Stop.
func (c *ControlPlane) KubeconfigPath() string { return c.kubeconfigPath }

// RESTConfig returns a copy of the admin client configuration.
func (c *ControlPlane) RESTConfig() *rest.Config { return rest.CopyConfig(c.restConfig) }

// Clientset returns an admin clientset.
func (c *ControlPlane) Clientset() kubernetes.Interface { return c.clientset }

// Version returns the API server's version as its GET /version said when it
// started: the minor (37 for v1.37.2) and the gitVersion ("v1.37.2").
func (c *ControlPlane) Version() (minor int, gitVersion string) { return c.minor, c.gitVersion }

// readVersion asks the API server its version (GET /version) for Version.
func (c *ControlPlane) readVersion(ctx context.Context) error {
	data, err := c.clientset.Discovery().RESTClient().Get().AbsPath("/version").DoRaw(ctx)
	if err != nil {
		return fmt.Errorf("read the API server's version (GET /version): %w", err)
	}
	var info version.Info
	if err := json.Unmarshal(data, &info); err != nil {
		return fmt.Errorf("the API server's version (GET /version): %w: %s", err, data)
	}
	// Builds of a release say "37"; some builds add "+" to it.
	minor, err := strconv.Atoi(strings.TrimRight(info.Minor, "+"))
	if err != nil || info.Major != "1" {
		return fmt.Errorf("the API server's version: unexpected major %q, minor %q (gitVersion %q): "+
			"its binary must be built with the version ldflags (`make tools` does)", info.Major, info.Minor, info.GitVersion)
	}
	c.minor, c.gitVersion = minor, info.GitVersion
	return nil
}

// Stop ends kube-controller-manager, kube-apiserver and etcd, in that order
// (SIGTERM, then SIGKILL after a few seconds), waits for them and removes the
// temporary directory. It is idempotent: later calls return the first
// call's result.
func (c *ControlPlane) Stop() error {
	c.stopOnce.Do(func() {
		c.procsMu.Lock()
		defer c.procsMu.Unlock()
		for i := len(c.procs) - 1; i >= 0; i-- {
			c.procs[i].stop()
		}
		var errs []error
		if err := ports.Release(c.reserved...); err != nil {
			errs = append(errs, err)
		}
		if err := os.RemoveAll(c.dir); err != nil {
			errs = append(errs, fmt.Errorf("remove the control plane's directory: %w", err))
		}
		c.stopErr = errors.Join(errs...)
	})
	return c.stopErr
}

func (c *ControlPlane) startEtcd(ctx context.Context, path string, clientPort, peerPort int, durable bool, out io.Writer) (clientURL string, err error) {
	clientURL = "http://127.0.0.1:" + strconv.Itoa(clientPort)
	peerURL := "http://127.0.0.1:" + strconv.Itoa(peerPort)
	args := etcdArgs("default", filepath.Join(c.dir, "etcd"), clientURL, peerURL, "default="+peerURL, durable)
	p, err := c.start("etcd", path, args, out)
	if err != nil {
		return "", err
	}
	return clientURL, waitEtcdHealthy(ctx, p, clientURL)
}

// etcdArgs are the arguments of etcd member name of the cluster initialCluster
// ("name=peerURL,...").
func etcdArgs(name, dataDir, clientURL, peerURL, initialCluster string, durable bool) []string {
	args := []string{
		"--name=" + name,
		"--data-dir=" + dataDir,
		"--listen-client-urls=" + clientURL,
		"--advertise-client-urls=" + clientURL,
		"--listen-peer-urls=" + peerURL,
		"--initial-advertise-peer-urls=" + peerURL,
		"--initial-cluster=" + initialCluster,
		"--log-level=warn",
		"--socket-reuse-port", // the port is reserved (package ports)
	}
	if !durable {
		args = append(args, "--unsafe-no-fsync")
	}
	return args
}

// waitEtcdHealthy waits until the etcd member p, serving clientURL, says it is
// healthy: it has a leader and answers reads.
func waitEtcdHealthy(ctx context.Context, p *process, clientURL string) error {
	healthURL := clientURL + "/health"
	return waitReady(ctx, p, "GET "+healthURL, func(ctx context.Context) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, healthURL, nil)
		if err != nil {
			return err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		defer func() { _ = resp.Body.Close() }()
		body, err := io.ReadAll(io.LimitReader(resp.Body, 4096))
		if err != nil {
			return err
		}
		if resp.StatusCode != http.StatusOK || !bytes.Contains(body, []byte(`"health":"true"`)) {
			return fmt.Errorf("status %d: %s", resp.StatusCode, bytes.TrimSpace(body))
		}
		return nil
	})
}

func (c *ControlPlane) startAPIServer(ctx context.Context, path, etcdURL string, port int, extra []string, out io.Writer) error {
	token, tokenFile, keyFile, err := c.writeCredentials()
	if err != nil {
		return err
	}
	certDir := filepath.Join(c.dir, "certs")
	c.server = "https://127.0.0.1:" + strconv.Itoa(port)
	c.kubeconfigPath = filepath.Join(c.dir, "admin.kubeconfig")

	args := append(apiServerArgs(etcdURL, port, tokenFile, keyFile), "--cert-dir="+certDir)
	args = append(args, extra...)
	c.apiServerOut = out
	p, err := c.start("kube-apiserver", path, args, out)
	if err != nil {
		return err
	}

	// The API server writes its self-signed certificate (the serving
	// certificate, then its CA) to cert-dir before it serves.
	certFile := filepath.Join(certDir, "apiserver.crt")
	err = waitReady(ctx, p, "GET "+c.server+"/readyz", func(ctx context.Context) error {
		if c.clientset == nil {
			ca, err := readCA(certFile)
			if err != nil {
				return err
			}
			if err := c.setAdmin(ca, token); err != nil {
				return err
			}
		}
		return c.apiReady(ctx)
	})
	if err != nil {
		return err
	}
	// Read the certificate again, in case the first read raced its writing.
	ca, err := readCA(certFile)
	if err != nil {
		return err
	}
	if !bytes.Equal(ca, c.caData) {
		return c.setAdmin(ca, token)
	}
	return nil
}

// writeCredentials writes the API servers' token file, in which a new token
// authenticates the admin (in group system:masters), and the key that signs
// ServiceAccount tokens; it returns the token and both files.
func (c *ControlPlane) writeCredentials() (token, tokenFile, keyFile string, err error) {
	token = rand.Text()
	tokenFile = filepath.Join(c.dir, "tokens.csv")
	// token,user,uid,"group,..."
	if err := os.WriteFile(tokenFile, []byte(token+`,admin,admin,"system:masters"`+"\n"), 0o600); err != nil {
		return "", "", "", fmt.Errorf("write the API server's token file: %w", err)
	}
	keyFile = c.serviceAccountKeyFile()
	if err := writeRSAKey(keyFile); err != nil {
		return "", "", "", err
	}
	return token, tokenFile, keyFile, nil
}

// apiReady asks the API, with the admin's client, whether it is ready (GET /readyz).
func (c *ControlPlane) apiReady(ctx context.Context) error {
	_, err := c.clientset.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
	return err
}

// waitAPIReady waits until the API is ready, or p, whose exit would mean it never
// will be, exits.
func (c *ControlPlane) waitAPIReady(ctx context.Context, p *process) error {
	return waitReady(ctx, p, "GET "+c.server+"/readyz", c.apiReady)
}

// apiServerArgs are the arguments of an API server on port that stores its data in
// etcdServers (client URLs, comma-separated), authenticates the tokens of tokenFile
// and signs and verifies ServiceAccount tokens with the key in keyFile.
func apiServerArgs(etcdServers string, port int, tokenFile, keyFile string) []string {
	return []string{
		"--etcd-servers=" + etcdServers,
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(port),
		"--permit-port-sharing", // the port is reserved (package ports)
		// A reconciler would keep the kubernetes Service's Endpoints in default at the
		// advertised address, which is loopback here and which Endpoints may not hold:
		// kube-apiserver 1.37 refuses to start with a loopback address and a reconciler;
		// earlier minors start and fail the write every 10 s, so those Endpoints never
		// existed here. Without one the Service exists with no endpoints. (In an HA
		// control plane both API servers at 127.0.0.1 would also overwrite each other's
		// port.)
		"--endpoint-reconciler-type=none",
		"--service-cluster-ip-range=" + ServiceCIDR,
		"--token-auth-file=" + tokenFile,
		"--authorization-mode=RBAC",
		"--service-account-issuer=" + serviceAccountIssuer,
		"--api-audiences=" + serviceAccountIssuer,
		"--service-account-key-file=" + keyFile,
		"--service-account-signing-key-file=" + keyFile,
		"--enable-admission-plugins=OwnerReferencesPermissionEnforcement",
		"--disable-admission-plugins=ServiceAccount",
		"--allow-privileged=true",
		"--profiling=false",
		"--v=0",
	}
}

// setAdmin builds and writes the admin kubeconfig and clients.
func (c *ControlPlane) setAdmin(ca []byte, token string) error {
	kubeconfig, err := buildKubeconfig(c.server, ca, "admin", token, "")
	if err != nil {
		return err
	}
	restConfig, clientset, err := adminClients(kubeconfig)
	if err != nil {
		return fmt.Errorf("internal error: %w", err)
	}
	if err := os.WriteFile(c.kubeconfigPath, kubeconfig, 0o600); err != nil {
		return fmt.Errorf("write the admin kubeconfig: %w", err)
	}
	c.caData, c.kubeconfig, c.restConfig, c.clientset = ca, kubeconfig, restConfig, clientset
	return nil
}

// adminClients returns the client configuration and clientset of an admin kubeconfig,
// as the tests use them: 50 requests a second, bursts of 100, no warnings (tests create
// v1 Endpoints on purpose; the deprecation warning is not news).
func adminClients(kubeconfig []byte) (*rest.Config, *kubernetes.Clientset, error) {
	restConfig, err := clientcmd.RESTConfigFromKubeConfig(kubeconfig)
	if err != nil {
		return nil, nil, fmt.Errorf("parse the admin kubeconfig: %w", err)
	}
	restConfig.QPS, restConfig.Burst = 50, 100
	restConfig.WarningHandler = rest.NoWarnings{}
	clientset, err := kubernetes.NewForConfig(restConfig)
	if err != nil {
		return nil, nil, fmt.Errorf("build the admin clientset: %w", err)
	}
	return restConfig, clientset, nil
}

func (c *ControlPlane) startControllerManager(ctx context.Context, path string, opts Options) error {
	args := []string{
		"--kubeconfig=" + c.kubeconfigPath,
		"--controllers=garbagecollector,namespace",
		"--leader-elect=false",
		"--secure-port=0",
		"--use-service-account-credentials=false",
		// Without service-account credentials every controller shares one client and
		// its rate limit (where a real cluster gives each controller its own): when a
		// package's tests end and the namespace controller and garbage collector clear
		// hundreds of namespaces at once, the default limit would hold the endpoints
		// controller's writes back for tens of seconds.
		"--kube-api-qps=500",
		"--kube-api-burst=1000",
		"--v=0",
	}
	if opts.AllControllers {
		var err error
		if args, err = c.allControllersArgs(args); err != nil {
			return err
		}
	}
	p, err := c.start("kube-controller-manager", path, args, opts.Output)
	if err != nil {
		return err
	}
	synced := [][]string{{gcSyncedLog1, gcSyncedLog2}}
	err = waitReady(ctx, p, "the garbage collector to sync (its log to say "+strconv.Quote(gcSyncedLog1)+")", func(context.Context) error {
		data, err := os.ReadFile(p.logPath)
		if err != nil {
			return err
		}
		return logSays(data, synced)
	})
	if err != nil || !opts.AllControllers {
		return err
	}
	return c.waitEndpointControllers(ctx, p)
}

// start starts a process and records it for Stop.
func (c *ControlPlane) start(name, path string, args []string, out io.Writer) (*process, error) {
	p, err := startProcess(name, path, args, c.dir, out)
	if err != nil {
		return nil, err
	}
	c.procs = append(c.procs, p)
	return p, nil
}

// waitReady calls probe until it succeeds, p exits, ctx ends or readyTimeout
// passes; what names what probe waits for, for the error message.
func waitReady(ctx context.Context, p *process, what string, probe func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, readyTimeout)
	defer cancel()
	ticker := time.NewTicker(pollInterval)
	defer ticker.Stop()
	for {
		attemptCtx, cancelAttempt := context.WithTimeout(ctx, 2*time.Second)
		err := probe(attemptCtx)
		cancelAttempt()
		if err == nil {
			return nil
		}
		select {
		case <-p.exited:
			return fmt.Errorf("%s did not become ready: %w", p.name, p.exitError())
		case <-ctx.Done():
			return fmt.Errorf("%s is not ready (waited for %s; last result: %w): %w\n%s",
				p.name, what, err, context.Cause(ctx), p.logTail())
		case <-ticker.C:
		}
	}
}

// lookupBinaries reads the paths of the binaries opts needs from the environment
// (the API server's from opts.APIServer when set) and checks that they are
// executable files.
func lookupBinaries(opts Options) (binaries, error) {
	var errs []error
	lookup := func(env, name string) string {
		path, err := lookupBinary(env, os.Getenv(env), name)
		if err != nil {
			errs = append(errs, err)
		}
		return path
	}
	bins := binaries{etcd: lookup(EnvEtcd, "etcd")}
	if opts.APIServer != "" {
		var err error
		if bins.apiServer, err = lookupBinary("Options.APIServer", opts.APIServer, "kube-apiserver"); err != nil {
			errs = append(errs, err)
		}
	} else {
		bins.apiServer = lookup(EnvKubeAPIServer, "kube-apiserver")
	}
	if !opts.NoControllerManager {
		bins.controllerManager = lookup(EnvKubeControllerManager, "kube-controller-manager")
	}
	if len(errs) > 0 {
		return binaries{}, missingBinaries(errs...)
	}
	return bins, nil
}

// lookupBinary checks that path, which source gave (an environment variable or
// Options.APIServer), is an executable file, the binary name.
func lookupBinary(source, path, name string) (string, error) {
	if path == "" {
		return "", fmt.Errorf("%s is not set: it must name the %s binary", source, name)
	}
	info, err := os.Stat(path)
	switch {
	case err != nil:
		return "", fmt.Errorf("%s binary (%s=%s): %w", name, source, path, err)
	case info.IsDir() || info.Mode().Perm()&0o111 == 0:
		return "", fmt.Errorf("%s binary (%s=%s) is not an executable file", name, source, path)
	}
	return path, nil
}

// missingBinaries is the error of a start that lacks binaries, saying what to do.
func missingBinaries(errs ...error) error {
	return fmt.Errorf("cannot start a control plane: %w; "+
		"run `make tools` to build the binaries and `make test` to run the tests with these variables set",
		errors.Join(errs...))
}

// writeRSAKey writes a new RSA private key, in PEM, to path.
func writeRSAKey(path string) error {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return fmt.Errorf("generate the service account signing key: %w", err)
	}
	data := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return fmt.Errorf("write the service account signing key: %w", err)
	}
	return nil
}

// readCertChain reads a PEM file of certificates, failing if it holds none
// or ends with anything but whole certificates (it is still being written).
func readCertChain(path string) ([]byte, error) {
	data, err := os.ReadFile(path) //nolint:gosec // a path in our own temporary directory
	if err != nil {
		return nil, err
	}
	rest, n := data, 0
	for {
		block, r := pem.Decode(rest)
		if block == nil {
			break
		}
		if block.Type != "CERTIFICATE" {
			return nil, fmt.Errorf("%s: unexpected PEM block %q", path, block.Type)
		}
		if _, err := x509.ParseCertificate(block.Bytes); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		rest, n = r, n+1
	}
	if n == 0 || len(strings.TrimSpace(string(rest))) > 0 {
		return nil, fmt.Errorf("%s: no complete certificate chain yet", path)
	}
	return data, nil
}

// readCA reads the API server's self-signed certificate chain (see readCertChain)
// and returns the CA certificates in it: what clients trust and what the
// controller manager publishes as the cluster's CA (kube-root-ca.crt, and from
// 1.37 the kube-apiserver-serving ClusterTrustBundle, which takes CA certificates
// only). A chain without one is returned whole.
func readCA(path string) ([]byte, error) {
	chain, err := readCertChain(path)
	if err != nil {
		return nil, err
	}
	var cas []byte
	for rest := chain; ; {
		block, r := pem.Decode(rest)
		if block == nil {
			break
		}
		rest = r
		if cert, err := x509.ParseCertificate(block.Bytes); err == nil && cert.IsCA {
			cas = append(cas, pem.EncodeToMemory(block)...)
		}
	}
	if len(cas) == 0 {
		return chain, nil
	}
	return cas, nil
}

// buildKubeconfig returns a kubeconfig for server, trusting ca, that
// authenticates user with a bearer token; namespace, if not empty, is its
// default namespace.
func buildKubeconfig(server string, ca []byte, user, token, namespace string) ([]byte, error) {
	const cluster = "controlplane"
	config := clientcmdapi.NewConfig()
	config.Clusters[cluster] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: ca}
	config.AuthInfos[user] = &clientcmdapi.AuthInfo{Token: token}
	config.Contexts[user] = &clientcmdapi.Context{Cluster: cluster, AuthInfo: user, Namespace: namespace}
	config.CurrentContext = user
	data, err := clientcmd.Write(*config)
	if err != nil {
		return nil, fmt.Errorf("internal error: write a kubeconfig for %s: %w", user, err)
	}
	return data, nil
}

// writeOwner records the current process as the owner of dir.
func writeOwner(dir string) error {
	start, err := processStartTime(os.Getpid())
	if err != nil {
		return fmt.Errorf("internal error: read this process's start time: %w", err)
	}
	data := fmt.Appendf(nil, "%d %s\n", os.Getpid(), start)
	if err := os.WriteFile(filepath.Join(dir, ownerFile), data, 0o600); err != nil {
		return fmt.Errorf("write the control plane's owner file: %w", err)
	}
	return nil
}

// removeStaleDirs removes, as well as it can, the directories that control
// planes of processes that no longer exist left behind: a test binary that is
// killed or times out cannot run Stop. Its children die with it (Pdeathsig),
// but etcd's data alone takes over 100 MiB.
func removeStaleDirs() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), dirPrefix+"*"))
	for _, dir := range dirs {
		data, err := os.ReadFile(filepath.Join(dir, ownerFile)) //nolint:gosec // only our own directories have this file
		if err != nil {
			continue // not a control plane's, or not yet written
		}
		var pid int
		var start string
		if _, err := fmt.Sscan(string(data), &pid, &start); err != nil {
			continue
		}
		if now, err := processStartTime(pid); err == nil && now == start {
			continue // its owner still runs
		}
		_ = os.RemoveAll(dir)
	}
}

// processStartTime returns the start time of process pid, in clock ticks
// after boot, from /proc/<pid>/stat: with the PID it names one process for
// good, even once the PID is reused.
func processStartTime(pid int) (string, error) {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return "", err
	}
	// The command name, in parentheses, may hold spaces; starttime is the
	// 22nd field, the 20th after the name.
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return "", fmt.Errorf("unexpected /proc/%d/stat: %q", pid, data)
	}
	fields := strings.Fields(string(data[i+1:]))
	if len(fields) < 20 {
		return "", fmt.Errorf("unexpected /proc/%d/stat: %q", pid, data)
	}
	return fields[19], nil
}

// StopAPIServer stops the API server alone (etcd and the controller manager keep
// running), as an outage would; StartAPIServer brings it back on the same address
// with the same identity and data.
func (c *ControlPlane) StopAPIServer() {
	c.procsMu.Lock()
	defer c.procsMu.Unlock()
	c.procs[1].stop()
}

// StartAPIServer starts the API server again after StopAPIServer and waits until
// it is ready: it is Restart(ctx, APIServer).
func (c *ControlPlane) StartAPIServer(ctx context.Context) error {
	return c.Restart(ctx, APIServer)
}
