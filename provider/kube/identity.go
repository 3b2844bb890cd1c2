package kube

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"strings"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// Cluster identifies the cluster a kubeconfig reaches: its API server URL and the CA
// it trusts for it (a new cluster at a reused address has a new CA). Credentials,
// user and context names, file paths and proxy settings are not part of it.
type Cluster struct {
	// Server is the API server URL.
	Server string
	// CA is "sha256:<hex>" of the CA certificates, empty when the kubeconfig names
	// none (the system roots, or TLS verification off).
	CA string
}

// String names the cluster for messages.
func (c Cluster) String() string {
	if c.CA == "" {
		return c.Server
	}
	return fmt.Sprintf("%s (CA %s)", c.Server, c.CA[:min(len(c.CA), len("sha256:")+12)])
}

// Known tells whether the cluster was resolved.
func (c Cluster) Known() bool { return c.Server != "" }

// Same tells whether two known clusters are the same one.
func (c Cluster) Same(other Cluster) bool {
	return c.Server == other.Server && c.CA == other.CA
}

// ClusterRecord is what CheckConfig recorded of the cluster in the provider's inputs.
type ClusterRecord struct {
	// Cluster is the cluster the kubeconfig reached.
	Cluster Cluster
	// Kubeconfig is the kubeconfig of its context alone, with the files it names
	// inlined: enough to reach the cluster again once the kubeconfig file or
	// KUBECONFIG names another one. Empty when the kubeconfig setting holds the
	// contents themselves.
	Kubeconfig string
}

// Resolve reads the kubeconfig the configuration names, without contacting the
// cluster, and returns what CheckConfig records of it.
func Resolve(cfg Config) (ClusterRecord, error) {
	loader, restConfig, err := load(cfg)
	if err != nil {
		return ClusterRecord{}, err
	}
	rec := ClusterRecord{Cluster: clusterOf(restConfig)}
	if cfg.Kubeconfig != "" && looksInline(cfg.Kubeconfig) {
		return rec, nil
	}
	// Without a kubeconfig of its own (in a pod, on its service account) the cluster is
	// recorded without one.
	rec.Kubeconfig, _ = snapshot(loader, cfg.Context)
	return rec, nil
}

// snapshot returns the kubeconfig of the context in use alone, with the files it
// names inlined.
func snapshot(loader clientcmd.ClientConfig, context string) (string, error) {
	raw, err := loader.RawConfig()
	if err != nil {
		return "", err
	}
	if context != "" {
		raw.CurrentContext = context
	}
	if err := clientcmdapi.MinifyConfig(&raw); err != nil {
		return "", err
	}
	if err := clientcmdapi.FlattenConfig(&raw); err != nil {
		return "", err
	}
	data, err := clientcmd.Write(raw)
	if err != nil {
		return "", err
	}
	return string(data), nil
}

// clusterOf derives the cluster's identity from a client configuration.
func clusterOf(c *rest.Config) Cluster {
	cluster := Cluster{Server: strings.TrimRight(c.Host, "/")}
	ca := c.CAData
	if len(ca) == 0 && c.CAFile != "" {
		// An unreadable file leaves the CA out; the client reports the file itself.
		ca, _ = os.ReadFile(c.CAFile)
	}
	if len(ca) > 0 {
		sum := sha256.Sum256([]byte(strings.TrimSpace(string(ca))))
		cluster.CA = "sha256:" + hex.EncodeToString(sum[:])
	}
	return cluster
}
