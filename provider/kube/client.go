package kube

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// Config is the Kubernetes part of the provider configuration.
type Config struct {
	// Kubeconfig is a path to a kubeconfig file or the file's contents. Empty means the
	// standard loading rules ($KUBECONFIG, then ~/.kube/config).
	Kubeconfig string
	// Context selects a kubeconfig context; empty means the current context.
	Context string
	// Namespace is the default namespace for objects that name none. Empty means the
	// context's namespace, then "default".
	Namespace string
	// DeletePropagationPolicy is how deletes treat dependents: Background (the
	// default), Foreground or Orphan.
	DeletePropagationPolicy string
	// UserAgent identifies the provider to the API server.
	UserAgent string
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
}

// NewClient builds a client from the configuration. It reads the kubeconfig but makes
// no request to the cluster.
func NewClient(cfg Config) (*Client, error) {
	loader, err := clientConfig(cfg)
	if err != nil {
		return nil, err
	}
	restConfig, err := loader.ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("kubernetes configuration: %w", err)
	}
	if cfg.UserAgent != "" {
		restConfig.UserAgent = cfg.UserAgent
	}
	restConfig.WarningHandlerWithContext = warningLogger{}
	// The engine runs many resources at once; client-go's defaults (5 QPS, burst 10)
	// would queue them behind its own rate limiter.
	restConfig.QPS, restConfig.Burst = 200, 400
	namespace := cfg.Namespace
	if namespace == "" {
		ns, _, err := loader.Namespace()
		if err != nil {
			return nil, fmt.Errorf("kubernetes configuration: reading the context's namespace: %w", err)
		}
		namespace = ns
	}
	if namespace == "" {
		namespace = "default"
	}
	// One REST client serves the dynamic client and the raw calls (as
	// dynamic.NewForConfig builds it: JSON, no group version, absolute paths).
	rawConfig := dynamic.ConfigFor(restConfig)
	rawConfig.GroupVersion = nil
	raw, err := rest.UnversionedRESTClientFor(rawConfig)
	if err != nil {
		return nil, fmt.Errorf("kubernetes configuration: %w", err)
	}
	return &Client{REST: restConfig, Dynamic: dynamic.New(raw), raw: raw, Namespace: namespace}, nil
}

// clientConfig resolves the kubeconfig: inline contents, a path, or the standard
// loading rules, with the context override applied.
func clientConfig(cfg Config) (clientcmd.ClientConfig, error) {
	overrides := &clientcmd.ConfigOverrides{CurrentContext: cfg.Context}
	switch {
	case cfg.Kubeconfig == "":
		rules := clientcmd.NewDefaultClientConfigLoadingRules()
		return clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, overrides), nil
	case looksInline(cfg.Kubeconfig):
		raw, err := clientcmd.Load([]byte(cfg.Kubeconfig))
		if err != nil {
			// The contents may hold credentials: never echo them.
			return nil, errors.New("kubernetes configuration: kubeconfig contents do not parse as a kubeconfig document")
		}
		return clientcmd.NewNonInteractiveClientConfig(*raw, cfg.Context, overrides, nil), nil
	default:
		raw, err := loadFile(cfg.Kubeconfig)
		if err != nil {
			return nil, err
		}
		return clientcmd.NewNonInteractiveClientConfig(*raw, cfg.Context, overrides, nil), nil
	}
}

// looksInline tells kubeconfig contents from a path: a kubeconfig document always
// spans several lines or is JSON.
func looksInline(s string) bool {
	s = strings.TrimSpace(s)
	return strings.Contains(s, "\n") || strings.HasPrefix(s, "{")
}

func loadFile(path string) (*clientcmdapi.Config, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("kubernetes configuration: kubeconfig file %s: %w", path, err)
	}
	raw, err := clientcmd.LoadFromFile(path)
	if err != nil {
		return nil, fmt.Errorf("kubernetes configuration: kubeconfig file %s: %w", path, err)
	}
	return raw, nil
}
