package release

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/pulumicli"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/toolchain"
)

// asset is toolchain.Asset: a tool or artifact `make test` names.
var asset = toolchain.Asset

// platforms are the release's platforms, as the archives name them.
var platforms = []string{"darwin-amd64", "darwin-arm64", "linux-amd64", "linux-arm64", "windows-amd64", "windows-arm64"}

// archiveName is the release archive of one platform.
func archiveName(version, platform string) string {
	return "pulumi-resource-endpoints-v" + version + "-" + platform + ".tar.gz"
}

// cli runs the pulumi CLI as a user with nothing installed: an empty PULUMI_HOME,
// no provider plugin on PATH (only the YAML language host), a local file backend.
type cli struct {
	*pulumicli.CLI
	t *testing.T
}

func newCLI(t *testing.T, extraEnv ...string) *cli {
	t.Helper()
	yamlHost := asset(t, "TEST_ASSET_PULUMI_LANGUAGE_YAML")
	path := filepath.Dir(yamlHost)
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if _, err := os.Stat(filepath.Join(dir, "pulumi-resource-endpoints")); err == nil {
			continue // a user's PATH has no plugin
		}
		path += string(os.PathListSeparator) + dir
	}
	return &cli{t: t, CLI: pulumicli.New(t, append([]string{
		"PULUMI_CONFIG_PASSPHRASE=release",
		"PATH=" + path,
	}, extraEnv...)...)}
}

// installedPlugins lists the plugin directories under PULUMI_HOME/plugins.
func (c *cli) installedPlugins() []string {
	c.t.Helper()
	entries, err := os.ReadDir(filepath.Join(c.Home(), "plugins"))
	if err != nil && !os.IsNotExist(err) {
		c.t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	return names
}

// version is the version of the release artifacts under test.
func version(t *testing.T) string { return toolchain.ReleaseVersion(t) }
