package pulumicli_test

import (
	"encoding/json"
	"testing"

	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/plugin"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/pulumicli"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/toolchain"
)

// The pulumi-kubernetes plugin `make tools` built is the release its SDKs ask for: it
// tells the engine so (GetPluginInfo), and InstallKubernetes installs it under that
// version.
func TestKubernetesPluginVersion(t *testing.T) {
	t.Parallel()
	want := pulumicli.KubernetesVersion(t)
	p := plugin.Start(t, toolchain.Asset(t, "TEST_ASSET_PULUMI_KUBERNETES"))
	info, err := p.GetPluginInfo(plugin.Context(t), &emptypb.Empty{})
	if err != nil {
		t.Fatalf("GetPluginInfo of pulumi-kubernetes: %v", err)
	}
	if info.GetVersion() != want {
		t.Errorf("pulumi-kubernetes says it is version %q, want %q", info.GetVersion(), want)
	}

	cli := pulumicli.New(t)
	if got := cli.InstallKubernetes(); got != want {
		t.Errorf("InstallKubernetes installed version %q, want %q", got, want)
	}
	var plugins []struct {
		Name    string `json:"name"`
		Kind    string `json:"kind"`
		Version string `json:"version"`
	}
	if err := json.Unmarshal([]byte(cli.Run("plugin", "ls", "--json")), &plugins); err != nil {
		t.Fatalf("pulumi plugin ls --json: %v", err)
	}
	found := false
	for _, p := range plugins {
		found = found || (p.Name == "kubernetes" && p.Kind == "resource" && p.Version == want)
	}
	if !found {
		t.Errorf("pulumi plugin ls lists no resource plugin kubernetes %s: %+v", want, plugins)
	}
}
