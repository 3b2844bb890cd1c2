package apiproxy

import (
	"testing"

	"k8s.io/client-go/rest"
)

// StartT starts a proxy for one test in front of the API server cfg reaches, closes
// it when the test ends, and returns it with its kubeconfig.
func StartT(t testing.TB, cfg *rest.Config) (*Proxy, []byte) {
	t.Helper()
	p, err := Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	kubeconfig, err := p.Kubeconfig()
	if err != nil {
		t.Fatal(err)
	}
	return p, kubeconfig
}
