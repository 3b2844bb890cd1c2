package inprocess

import (
	"testing"

	"github.com/blang/semver"
	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi-go-provider/integration"
	"github.com/pulumi/pulumi/sdk/v3/go/property"

	"github.com/endpoints-provider/pulumi-endpoints/provider"
)

// Start returns the provider the plugin serves (see Provider), not yet configured,
// behind an integration server that lives as long as the test.
func Start(t testing.TB) integration.Server {
	t.Helper()
	srv, err := integration.NewServer(t.Context(), provider.Name, semver.MustParse("0.1.0"),
		integration.WithProvider(Provider(t.Context())))
	if err != nil {
		t.Fatalf("start the provider: %v", err)
	}
	return srv
}

// Configure configures srv as a program would: with the kubeconfig and the other
// settings in extra.
func Configure(srv integration.Server, kubeconfig []byte, extra map[string]property.Value) error {
	args := map[string]property.Value{"kubeconfig": property.New(string(kubeconfig))}
	for k, v := range extra {
		args[k] = v
	}
	return srv.Configure(p.ConfigureRequest{Args: property.NewMap(args)})
}

// New returns the provider configured with the kubeconfig and the other settings in
// extra, failing the test if Configure fails.
func New(t testing.TB, kubeconfig []byte, extra map[string]property.Value) integration.Server {
	t.Helper()
	srv := Start(t)
	if err := Configure(srv, kubeconfig, extra); err != nil {
		t.Fatalf("Configure: %v", err)
	}
	return srv
}
