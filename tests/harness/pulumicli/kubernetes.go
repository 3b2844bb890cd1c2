package pulumicli

import (
	"os"
	"testing"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/toolchain"
)

// KubernetesVersion returns the version of the pulumi-kubernetes plugin that `make
// tools` built (TEST_ASSET_PULUMI_KUBERNETES_VERSION, without a leading v): the version
// its SDKs on npm, PyPI and the Go proxy ask the engine for.
func KubernetesVersion(t testing.TB) string {
	t.Helper()
	v := os.Getenv("TEST_ASSET_PULUMI_KUBERNETES_VERSION")
	if v == "" {
		t.Fatal("TEST_ASSET_PULUMI_KUBERNETES_VERSION is not set: run the tests with `make test`, which builds pulumi-kubernetes and sets it")
	}
	return v
}

// InstallKubernetes installs the pulumi-kubernetes plugin that `make tools` built
// (TEST_ASSET_PULUMI_KUBERNETES) into the CLI's PULUMI_HOME under the version its SDKs
// ask for, as `pulumi plugin install resource kubernetes <version> --file` does for a
// user, and returns that version.
func (c *CLI) InstallKubernetes() string {
	c.t.Helper()
	binary := toolchain.Asset(c.t, "TEST_ASSET_PULUMI_KUBERNETES")
	version := KubernetesVersion(c.t)
	c.Run("plugin", "install", "resource", "kubernetes", version, "--file", binary)
	return version
}
