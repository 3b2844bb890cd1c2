package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/plugin"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/pulumicli"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/toolchain"
)

// tool is toolchain.Asset: a tool or artifact `make test` names.
var tool = toolchain.Asset

// stack is a Pulumi project and stack on a local file backend, run by the real CLI
// with the built provider plugin and YAML language host on PATH.
type stack struct {
	*pulumicli.CLI
	t *testing.T
}

func newStack(t *testing.T, kubeconfig string, extraEnv ...string) *stack {
	t.Helper()
	provider := tool(t, "TEST_ASSET_PROVIDER")
	yamlHost := tool(t, "TEST_ASSET_PULUMI_LANGUAGE_YAML")
	return &stack{t: t, CLI: pulumicli.New(t, append([]string{
		"PULUMI_CONFIG_PASSPHRASE=e2e",
		"KUBECONFIG=" + kubeconfig,
		"PATH=" + strings.Join([]string{ambientDir(t, provider), filepath.Dir(yamlHost), os.Getenv("PATH")}, ":"),
	}, extraEnv...)...)}
}

// init writes program as the stack's Pulumi.yaml, creates the stack dev and sets its
// configuration: config lists keys and values in turn.
func (s *stack) init(program string, config ...string) {
	s.t.Helper()
	s.WriteProject(program)
	s.Run("stack", "init", "dev")
	for i := 0; i+1 < len(config); i += 2 {
		s.Run("config", "set", config[i], config[i+1])
	}
}

// ambientDir is the directory holding the plugin copy the engine finds on PATH.
func ambientDir(t *testing.T, provider string) string {
	t.Helper()
	dir, err := plugin.AmbientDir(provider)
	if err != nil {
		t.Fatal(err)
	}
	return dir
}
