package release

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/endpoints-provider/pulumi-endpoints/tests/toolchain"
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
	t   *testing.T
	dir string
	env []string
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
	return &cli{t: t, dir: t.TempDir(), env: append([]string{
		"PULUMI_HOME=" + t.TempDir(),
		"PULUMI_BACKEND_URL=file://" + t.TempDir(),
		"PULUMI_CONFIG_PASSPHRASE=release",
		"PULUMI_SKIP_UPDATE_CHECK=true",
		"PULUMI_DIY_BACKEND_NO_LEGACY_WARNING=true",
		"NO_COLOR=1",
		"PATH=" + path,
	}, extraEnv...)}
}

// addPath puts dir first on the CLI's PATH.
func (c *cli) addPath(dir string) {
	for i, kv := range c.env {
		if rest, ok := strings.CutPrefix(kv, "PATH="); ok {
			c.env[i] = "PATH=" + dir + string(os.PathListSeparator) + rest
		}
	}
}

func (c *cli) home() string {
	for _, kv := range c.env {
		if v, ok := strings.CutPrefix(kv, "PULUMI_HOME="); ok {
			return v
		}
	}
	c.t.Fatal("no PULUMI_HOME")
	return ""
}

// try runs the CLI in the project directory and returns its combined output.
func (c *cli) try(args ...string) (string, error) {
	c.t.Helper()
	cmd := exec.CommandContext(c.t.Context(), asset(c.t, "TEST_ASSET_PULUMI"), args...)
	cmd.Dir = c.dir
	cmd.Env = append(os.Environ(), c.env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

// run runs the CLI and fails the test if it fails.
func (c *cli) run(args ...string) string {
	c.t.Helper()
	out, err := c.try(args...)
	if err != nil {
		c.t.Fatalf("pulumi %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// installedPlugins lists the plugin directories under PULUMI_HOME/plugins.
func (c *cli) installedPlugins() []string {
	c.t.Helper()
	entries, err := os.ReadDir(filepath.Join(c.home(), "plugins"))
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

// version is the release version (the VERSION file).
func version(t *testing.T) string { return toolchain.Version(t) }
