package controlplane

import (
	"context"
	"os"
	"testing"
)

// StartOldest starts a control plane of the oldest Kubernetes minor the provider
// supports: etcd and the kube-apiserver that EnvKubeAPIServerOldest names, alone
// (Options.APIServer and Options.NoControllerManager). opts' other fields apply;
// AllControllers cannot. Version tells which minor it is.
func StartOldest(ctx context.Context, opts Options) (*ControlPlane, error) {
	opts, err := oldestOptions(opts)
	if err != nil {
		return nil, err
	}
	return Start(ctx, opts)
}

// StartOldestT is StartOldest for t, as StartT is Start: it stops the control
// plane when t and its subtests have finished and fails t if it cannot start.
func StartOldestT(t testing.TB) *ControlPlane {
	t.Helper()
	c, err := StartOldest(t.Context(), Options{})
	if err != nil {
		t.Fatalf("start a control plane of the oldest minor: %v", err)
	}
	t.Cleanup(func() {
		if err := c.Stop(); err != nil {
			t.Errorf("stop the control plane of the oldest minor: %v", err)
		}
	})
	return c
}

// oldestOptions is opts with the API server that EnvKubeAPIServerOldest names and
// no controller manager.
func oldestOptions(opts Options) (Options, error) {
	path, err := lookupBinary(EnvKubeAPIServerOldest, os.Getenv(EnvKubeAPIServerOldest), "oldest minor's kube-apiserver")
	if err != nil {
		return Options{}, missingBinaries(err)
	}
	opts.APIServer, opts.NoControllerManager = path, true
	return opts, nil
}
