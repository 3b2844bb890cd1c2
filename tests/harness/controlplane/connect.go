package controlplane

import (
	"context"
	"fmt"
	"os"
)

// Connect returns a ControlPlane for the API server that the admin kubeconfig at path
// reaches, one this process did not start (`make cluster`'s, say): its clients, its
// kubeconfig and its version. Stop stops nothing, and the methods that manage the
// processes (Kill, StopAPIServer and the like) must not be called on it.
func Connect(ctx context.Context, path string) (*ControlPlane, error) {
	kubeconfig, err := os.ReadFile(path) //nolint:gosec // the kubeconfig the caller names
	if err != nil {
		return nil, fmt.Errorf("read the kubeconfig %s: %w", path, err)
	}
	restConfig, clientset, err := adminClients(kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("the kubeconfig %s: %w", path, err)
	}
	c := &ControlPlane{server: restConfig.Host, caData: restConfig.CAData, kubeconfig: kubeconfig, kubeconfigPath: path,
		restConfig: restConfig, clientset: clientset}
	if err := c.readVersion(ctx); err != nil {
		return nil, err
	}
	return c, nil
}
