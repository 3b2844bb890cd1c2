package kube

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/oauth2"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/endpoints-provider/pulumi-endpoints/provider/internal/lazy"
	"github.com/endpoints-provider/pulumi-endpoints/provider/internal/secret"
	"github.com/endpoints-provider/pulumi-endpoints/provider/kube/cloudauth"
	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
	"github.com/endpoints-provider/pulumi-endpoints/provider/validate"
)

// The settings' defaults are those schema.json gives the qps, burst, requestTimeout
// and deletePropagationPolicy settings, read from it on first use. The engine runs
// many resources at once; client-go's own defaults (5 QPS, burst 10) would queue them
// behind its rate limiter.

// DefaultQPS is the client's sustained request rate.
func DefaultQPS() float64 { return settingDefaults().qps }

// DefaultBurst is the client's burst of requests above DefaultQPS.
func DefaultBurst() int { return settingDefaults().burst }

// DefaultRequestTimeout bounds every request to the API server.
func DefaultRequestTimeout() time.Duration { return settingDefaults().timeout }

// DefaultDeletePolicy is how deletes treat dependents unless configured otherwise:
// Background, the API server's own default: the object goes at once and the garbage
// collector removes its dependents afterwards. (Foreground makes every delete wait for
// the garbage collector, about 0.5 s per object even without dependents, and forever
// on a cluster whose collector is not running.)
func DefaultDeletePolicy() DeletePolicy { return settingDefaults().deletePolicy }

type defaults struct {
	qps          float64
	burst        int
	timeout      time.Duration
	deletePolicy DeletePolicy
}

// settingDefaults reads the defaults from schema.json; one that is missing or of
// another type is a build defect, which the package's tests catch.
var settingDefaults = sync.OnceValue(func() defaults {
	vars := spec.MustLoad().Config.Variables
	qps, okQPS := vars["qps"].Default.(float64)
	burst, okBurst := vars["burst"].Default.(float64)
	timeout, okTimeout := vars["requestTimeout"].Default.(string)
	policy, okPolicy := vars["deletePropagationPolicy"].Default.(string)
	d, err := time.ParseDuration(timeout)
	if !okQPS || !okBurst || !okTimeout || !okPolicy || err != nil || qps <= 0 || burst < 1 || d <= 0 || policy == "" {
		panic(fmt.Sprintf("internal error: schema.json's defaults of qps, burst, requestTimeout and "+
			"deletePropagationPolicy are %v, %v, %v and %v", vars["qps"].Default, vars["burst"].Default,
			vars["requestTimeout"].Default, vars["deletePropagationPolicy"].Default))
	}
	return defaults{qps: qps, burst: int(burst), timeout: d, deletePolicy: DeletePolicy(policy)}
})

// Config is the Kubernetes part of the provider configuration.
type Config struct {
	// Kubeconfig is a path to a kubeconfig file or the file's contents. Empty means
	// KubeconfigPaths, then ~/.kube/config.
	Kubeconfig string
	// KubeconfigPaths are the files of the KUBECONFIG environment variable, merged as
	// kubectl merges them (the first file to set a value wins).
	KubeconfigPaths []string
	// Context selects a kubeconfig context; empty means the current context.
	Context string
	// Namespace is the default namespace for objects that name none. Empty means the
	// context's namespace, then "default".
	Namespace string
	// DeletePropagationPolicy is how deletes treat dependents: Background (the
	// default), Foreground or Orphan.
	DeletePropagationPolicy string
	// ClusterIdentifier, when set, names the cluster instead of its server URL and CA.
	ClusterIdentifier string
	// RenderDirectory, when set, is where the resources write manifests instead of
	// reaching a cluster (see RenderTarget).
	RenderDirectory string
	// QPS and Burst set the client's rate limiter; zero means DefaultQPS and
	// DefaultBurst.
	QPS   float64
	Burst int
	// RequestTimeout bounds each request; zero means DefaultRequestTimeout.
	RequestTimeout time.Duration
	// DeleteUnreachable lets refresh and destroy drop objects whose cluster is
	// unreachable.
	DeleteUnreachable bool
	// SkipUpdateUnreachable lets an update of an object whose cluster is unreachable
	// keep the last state.
	SkipUpdateUnreachable bool
	// RefreshBeforeUpdate marks the objects the provider writes or reads so that a
	// plain `pulumi up` or `pulumi preview` reads them back first (the provider's
	// protocolServer sets it on the answers).
	RefreshBeforeUpdate bool
	// SuppressDeprecationWarnings hides the API server's warnings that an API version
	// is deprecated (see Kubernetes.WarningScope).
	SuppressDeprecationWarnings bool
	// ClusterRecord is the cluster CheckConfig recorded in the provider's inputs.
	ClusterRecord ClusterRecord
	// UserAgent identifies the provider to the API server.
	UserAgent string
	// CloudCredentials says how a GKE, EKS or AKS exec plugin of the kubeconfig is
	// served (see package cloudauth): automatic (the default when empty: the plugin
	// program when it is on PATH, else tokens made in process), builtIn or exec.
	CloudCredentials string
	// GoogleTokens, when set, makes the tokens of a GKE kubeconfig made in process
	// from the provider's own Google settings instead of Application Default
	// Credentials (see cloudauth.Options.Google).
	GoogleTokens func(ctx context.Context, scopes []string) (oauth2.TokenSource, string, error)
}

// Client is a connection to one cluster.
type Client struct {
	REST    *rest.Config
	Dynamic dynamic.Interface
	// raw is the REST client under Dynamic, for calls whose answer the dynamic client
	// does not return (the body of a DELETE).
	raw rest.Interface
	// Namespace is the namespace used for objects that name none.
	Namespace string
	// Fallback, when not empty, says why the client reaches the recorded cluster
	// instead of the one the kubeconfig names now.
	Fallback string
	// unreachable reports an unreachable cluster once (see unanswered.go).
	unreachable unreachableOnce
	// reads are the lists that Reads arriving together share (see read_lists.go).
	reads sharedReads
	// serverVersion is the API server's version, kept once known (see version.go), and
	// outsideWindow says once that it is outside the supported minors.
	serverVersion serverVersion
	outsideWindow sync.Once
}

// setLimits gives restConfig the rate limit and request timeout of cfg (the defaults
// where it sets none), and a dialer that gives up on a connection after dialTimeout.
func setLimits(restConfig *rest.Config, cfg Config) {
	restConfig.QPS, restConfig.Burst, restConfig.Timeout = float32(DefaultQPS()), DefaultBurst(), DefaultRequestTimeout()
	if cfg.QPS > 0 {
		restConfig.QPS = float32(cfg.QPS)
	}
	if cfg.Burst > 0 {
		restConfig.Burst = cfg.Burst
	}
	if cfg.RequestTimeout > 0 {
		restConfig.Timeout = cfg.RequestTimeout
	}
	if restConfig.Dial == nil {
		dialer := &net.Dialer{Timeout: dialTimeout(restConfig.Timeout), KeepAlive: 30 * time.Second}
		restConfig.Dial = dialer.DialContext
	}
}

// NewClient builds a client from the configuration. It reads the kubeconfig but makes
// no request to the cluster. When the kubeconfig now reaches another cluster than
// the one recorded (or cannot be read), the recorded kubeconfig is used: a provider's
// objects are read, updated and deleted on the cluster they were created on.
func NewClient(cfg Config) (*Client, error) {
	loader, restConfig, err := load(cfg)
	fallback := ""
	if cfg.ClusterRecord.Kubeconfig != "" && cfg.ClusterIdentifier == "" {
		switch {
		case err != nil:
			fallback = fmt.Sprintf("the kubeconfig cannot be read (%v); using the kubeconfig recorded for cluster %s",
				err, cfg.ClusterRecord.Cluster)
		case !cfg.ClusterRecord.Cluster.Same(clusterOf(restConfig)):
			fallback = fmt.Sprintf("the kubeconfig now reaches cluster %s, but this provider's objects are on "+
				"cluster %s: using the kubeconfig recorded for it (run `pulumi up` to move them)",
				clusterOf(restConfig), cfg.ClusterRecord.Cluster)
		}
		if fallback != "" {
			recorded := cfg
			recorded.Kubeconfig, recorded.KubeconfigPaths = cfg.ClusterRecord.Kubeconfig, nil
			loader, restConfig, err = load(recorded)
		}
	}
	if err != nil {
		return nil, err
	}
	plugin, err := cloudCredentials(restConfig, cfg)
	if err != nil {
		return nil, err
	}
	if cfg.UserAgent != "" {
		restConfig.UserAgent = cfg.UserAgent
	}
	restConfig.WarningHandlerWithContext = warningLogger{}
	setLimits(restConfig, cfg)
	namespace, err := namespaceOf(loader, cfg)
	if err != nil {
		return nil, err
	}
	// One REST client serves the dynamic client and the raw calls (as
	// dynamic.NewForConfig builds it: JSON, no group version, absolute paths).
	restConfig.Wrap(func(next http.RoundTripper) http.RoundTripper { return answerRecorder{next} })
	restConfig.Wrap(proxyRefusals(restConfig.Proxy))
	rawConfig := dynamic.ConfigFor(restConfig)
	rawConfig.GroupVersion = nil
	httpClient, err := rest.HTTPClientFor(rawConfig)
	if err != nil {
		return nil, fmt.Errorf("kubernetes configuration: %w", err)
	}
	if plugin != nil {
		// (client-go's exec plugin wraps the transports of restConfig.Wrap: the
		// failure is seen outside them.)
		httpClient = &http.Client{Transport: pluginFailures{next: httpClient.Transport, plugin: *plugin},
			Timeout: httpClient.Timeout}
	}
	raw, err := rest.UnversionedRESTClientForConfigAndClient(rawConfig, httpClient)
	if err != nil {
		return nil, fmt.Errorf("kubernetes configuration: %w", err)
	}
	return &Client{REST: restConfig, Dynamic: dynamic.New(raw), raw: raw, Namespace: namespace, Fallback: fallback}, nil
}

// namespaceOf is the namespace of objects whose metadata names none: the namespace
// setting, else the kubeconfig context's, else default.
func namespaceOf(loader clientcmd.ClientConfig, cfg Config) (string, error) {
	if cfg.Namespace != "" {
		return cfg.Namespace, nil
	}
	ns, _, err := loader.Namespace()
	if err != nil {
		return "", fmt.Errorf("kubernetes configuration: reading the context's namespace: %w", err)
	}
	if ns == "" {
		ns = validate.DefaultNamespace
	}
	return ns, nil
}

// cloudCredentials replaces the kubeconfig's exec plugin, when it is GKE's, EKS's or
// AKS's and the plugin program is missing (or the cloudCredentials setting says
// builtIn), by tokens made in the provider's process, on the same credentials the
// program would use. The credentials are found on the first request. It returns the
// exec plugin that client-go runs instead, if any, for the errors of its failures (see
// pluginFailures).
func cloudCredentials(restConfig *rest.Config, cfg Config) (*execPlugin, error) {
	if restConfig.ExecProvider == nil {
		return nil, nil
	}
	kept := &execPlugin{command: restConfig.ExecProvider.Command}
	plugin, ok := cloudauth.Recognise(restConfig.ExecProvider)
	if !ok {
		return kept, nil
	}
	mode, err := cloudauth.ParseMode(cfg.CloudCredentials)
	if err != nil {
		return nil, fmt.Errorf("kubernetes configuration: %w", err)
	}
	choice := cloudauth.Decide(mode, plugin, nil)
	if !choice.BuiltIn {
		restConfig.Wrap(cloudauth.PluginReport(plugin, restConfig.Host, choice.Reason))
		kept.why, kept.instead = choice.Reason, cloudauth.Instead(plugin, choice)
		return kept, nil
	}
	src, err := cloudauth.New(plugin, cloudauth.Options{Server: restConfig.Host, Google: cfg.GoogleTokens})
	if err != nil {
		return nil, fmt.Errorf("kubernetes configuration%s: %w", source(cfg), err)
	}
	restConfig.ExecProvider = nil
	restConfig.Wrap(cloudauth.Transport(src, choice.Reason))
	return nil, nil
}

// dialTimeout bounds the making of a connection: half the request timeout, at most
// client-go's 30 s. A dial that runs out of it fails as a dial (see notSent), so a
// server that does not take the connection counts as unreachable, while the other
// half is left for the answer of one that does (see clusterGone).
func dialTimeout(request time.Duration) time.Duration {
	return min(request/2, 30*time.Second)
}

// load resolves the kubeconfig into the client configuration.
func load(cfg Config) (clientcmd.ClientConfig, *rest.Config, error) {
	loader, err := clientConfig(cfg)
	if err != nil {
		return nil, nil, err
	}
	restConfig, err := loader.ClientConfig()
	if err != nil {
		return nil, nil, fmt.Errorf("kubernetes configuration%s: %w", source(cfg), err)
	}
	return loader, restConfig, nil
}

// source names where the kubeconfig came from, and how it was read, for errors. (An
// SDK's provider resource copies KUBECONFIG into the kubeconfig setting.)
func source(cfg Config) string {
	const setting = "the provider's kubeconfig setting (or KUBECONFIG, which an SDK's provider resource copies into it)"
	switch {
	case cfg.Kubeconfig != "" && looksInline(cfg.Kubeconfig):
		return " (" + setting + ", read as kubeconfig contents)"
	case cfg.Kubeconfig != "":
		return " (" + setting + ", read as the path of the kubeconfig file " + cfg.Kubeconfig + ")"
	case slices.ContainsFunc(cfg.KubeconfigPaths, looksInline):
		// The contents may hold credentials: never echo them.
		return " (the KUBECONFIG environment variable, which holds kubeconfig contents where it takes " +
			"the paths of kubeconfig files: put the contents in the provider's kubeconfig setting instead)"
	case len(cfg.KubeconfigPaths) > 0:
		return " (the KUBECONFIG environment variable, read as the paths of kubeconfig files " +
			strings.Join(cfg.KubeconfigPaths, string(os.PathListSeparator)) + ")"
	default:
		return " (" + clientcmd.RecommendedHomeFile + ", as neither the provider's kubeconfig setting nor KUBECONFIG is set)"
	}
}

// clientConfig resolves the kubeconfig: inline contents, a path, or the files of
// KUBECONFIG merged by kubectl's rules (then ~/.kube/config), with the context
// override applied.
func clientConfig(cfg Config) (clientcmd.ClientConfig, error) {
	overrides := &clientcmd.ConfigOverrides{CurrentContext: cfg.Context}
	switch {
	case cfg.Kubeconfig == "":
		rules := &clientcmd.ClientConfigLoadingRules{Precedence: cfg.KubeconfigPaths}
		if len(rules.Precedence) == 0 {
			rules.Precedence = []string{clientcmd.RecommendedHomeFile}
		}
		if !anyExists(rules.Precedence) && os.Getenv("KUBERNETES_SERVICE_HOST") == "" {
			// (In a pod, client-go falls back to the pod's service account.)
			return nil, fmt.Errorf("kubernetes configuration: no kubeconfig file exists%s; "+
				"set the provider's kubeconfig setting or the KUBECONFIG environment variable", source(cfg))
		}
		return clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, overrides), nil
	case looksInline(cfg.Kubeconfig):
		raw, err := clientcmd.Load([]byte(cfg.Kubeconfig))
		if err != nil {
			// The contents may hold credentials: never echo them.
			return nil, fmt.Errorf("kubernetes configuration%s: the kubeconfig contents do not parse as a kubeconfig "+
				"document (text of several lines, or JSON, is read as contents; anything else as a path); set "+
				"`endpoints:kubeconfig` to a kubeconfig file's YAML or JSON, or to its path, or unset it to use "+
				"KUBECONFIG or %s", source(cfg), clientcmd.RecommendedHomeFile)
		}
		return clientcmd.NewNonInteractiveClientConfig(*raw, cfg.Context, overrides, nil), nil
	default:
		raw, err := clientcmd.LoadFromFile(cfg.Kubeconfig)
		if err != nil {
			return nil, fmt.Errorf("kubernetes configuration%s: %w", source(cfg), err)
		}
		return clientcmd.NewNonInteractiveClientConfig(*raw, cfg.Context, overrides, nil), nil
	}
}

func anyExists(paths []string) bool {
	for _, path := range paths {
		if _, err := os.Stat(path); err == nil {
			return true
		}
	}
	return false
}

// looksInline tells kubeconfig contents from a path: a kubeconfig document always
// spans several lines or is JSON.
func looksInline(s string) bool {
	s = strings.TrimSpace(s)
	return strings.Contains(s, "\n") || strings.HasPrefix(s, "{")
}

// Options are the provider settings the resources read.
type Options struct {
	// DeletePolicy is the propagation policy of deletes.
	DeletePolicy DeletePolicy
	// DeleteUnreachable lets refresh and destroy drop objects whose cluster is
	// unreachable; SkipUpdateUnreachable lets updates and reads keep the last state then.
	DeleteUnreachable, SkipUpdateUnreachable bool
	// RefreshBeforeUpdate marks every object written or read so that a plain `pulumi
	// up` reads it back first.
	RefreshBeforeUpdate bool
	// Render, when it names a directory, has the resources write manifests there
	// instead of reaching a cluster (see RenderTarget).
	Render RenderTarget
}

// Kubernetes is what the package's resources share: the settings in force, which the
// provider installs at each Configure ([Kubernetes.Configure]), and the client built
// from them on first use (see package lazy: a failed build is not kept), so a program
// that never declares a Kubernetes resource never needs a kubeconfig. The provider
// serves its resources ([Kubernetes.EndpointSlice], [Kubernetes.EndpointsList]).
type Kubernetes struct {
	mu  sync.RWMutex
	cfg *Config
	// fallbackOnce reports once per configuration that the client reaches the
	// recorded cluster.
	fallbackOnce *sync.Once
	client       lazy.Value[*Config, *Client]

	slice *EndpointSlice
	list  *EndpointsList
	// deprecations records the API deprecation warnings shown, so that each is shown
	// once in the provider's life (one command).
	deprecations deprecations
}

// New returns the package's resources, configured with cfg until Configure.
func New(cfg Config) *Kubernetes {
	k := &Kubernetes{}
	k.Configure(cfg)
	k.slice = &EndpointSlice{newClusterResource(k, endpointSliceKind)}
	k.list = &EndpointsList{newClusterResource(k, endpointsKind)}
	return k
}

// resources are the package's resources by type token: the one table of them, which
// the provider's dispatch (Resources) and List read.
func (k *Kubernetes) resources() map[string]Resource {
	return map[string]Resource{k.slice.kind.token: k.slice, k.list.kind.token: k.list}
}

// Resources are the package's resources as the provider serves them (see Wrap), by
// type token.
func (k *Kubernetes) Resources() map[string]Lifecycle {
	out := map[string]Lifecycle{}
	for token, r := range k.resources() {
		out[token] = Wrap(r)
	}
	return out
}

// Configure installs the settings in force; the client of the previous ones is built
// again on first use.
func (k *Kubernetes) Configure(cfg Config) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.cfg, k.fallbackOnce = &cfg, &sync.Once{}
}

// EndpointSlice is the EndpointSlice resource as the provider serves it (see Wrap).
func (k *Kubernetes) EndpointSlice() Lifecycle { return Wrap(k.slice) }

// EndpointsList is the EndpointsList resource as the provider serves it (see Wrap).
func (k *Kubernetes) EndpointsList() Lifecycle { return Wrap(k.list) }

// Client returns the client of the settings in force, building it on first use. When
// it reaches the recorded cluster instead of the one the kubeconfig names now, it
// says so once.
func (k *Kubernetes) Client(ctx context.Context) (*Client, error) {
	k.mu.RLock()
	cfg, once := k.cfg, k.fallbackOnce
	k.mu.RUnlock()
	c, err := k.client.Get(cfg, func() (*Client, error) { return NewClient(*cfg) }, nil)
	if err == nil && c.Fallback != "" {
		once.Do(func() { secret.Logger(ctx).Warning(c.Fallback) })
	}
	return c, err
}

// Options returns the settings the resources read, as in force.
func (k *Kubernetes) Options() Options {
	k.mu.RLock()
	cfg := *k.cfg
	k.mu.RUnlock()
	policy := DeletePolicy(cfg.DeletePropagationPolicy)
	if policy == "" {
		policy = DefaultDeletePolicy()
	}
	return Options{
		DeletePolicy:          policy,
		DeleteUnreachable:     cfg.DeleteUnreachable,
		SkipUpdateUnreachable: cfg.SkipUpdateUnreachable,
		RefreshBeforeUpdate:   cfg.RefreshBeforeUpdate,
		Render:                RenderTarget{Directory: cfg.RenderDirectory, Namespace: cfg.Namespace},
	}
}
