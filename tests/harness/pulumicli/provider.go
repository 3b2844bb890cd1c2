package pulumicli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/plugin"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/toolchain"
)

// NewWithProvider returns the CLI, as New does, set to run YAML programs with the
// provider under test: a copy of the built plugin (TEST_ASSET_PROVIDER) and the YAML
// language host (TEST_ASSET_PULUMI_LANGUAGE_YAML) first on PATH, and a passphrase for
// the stacks' secrets; env goes on top. The package's TestMain removes the plugin's
// copy with plugin.RemoveAmbientDir.
func NewWithProvider(t testing.TB, env ...string) *CLI {
	t.Helper()
	provider := toolchain.Asset(t, "TEST_ASSET_PROVIDER")
	yamlHost := toolchain.Asset(t, "TEST_ASSET_PULUMI_LANGUAGE_YAML")
	dir, err := plugin.AmbientDir(provider)
	if err != nil {
		t.Fatal(err)
	}
	return New(t, append([]string{
		"PULUMI_CONFIG_PASSPHRASE=e2e",
		"PATH=" + strings.Join([]string{dir, filepath.Dir(yamlHost), os.Getenv("PATH")}, ":"),
	}, env...)...)
}

// InitStack writes program as the project's Pulumi.yaml, creates the stack dev and
// sets its configuration: config lists keys and values in turn.
func (c *CLI) InitStack(program string, config ...string) {
	c.t.Helper()
	c.WriteProject(program)
	c.Run("stack", "init", "dev")
	for i := 0; i+1 < len(config); i += 2 {
		c.Run("config", "set", config[i], config[i+1])
	}
}
