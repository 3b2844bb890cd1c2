package examples

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/toolchain"
)

// examplesVersion is the version the examples declare, the newest release: the
// Makefile reads it from CHANGELOG.md and builds the artifacts the registries serve
// stamped with it (`make examples-dist`).
func examplesVersion(t *testing.T) string {
	t.Helper()
	v := os.Getenv("TEST_ASSET_EXAMPLES_VERSION")
	if v == "" {
		t.Fatal("TEST_ASSET_EXAMPLES_VERSION is not set: run the tests with `make test`, which sets it")
	}
	return v
}

// declarations find, in each kind of file of an example, the version of this
// provider's package it depends on.
var declarations = map[string]*regexp.Regexp{
	"package.json":     regexp.MustCompile(`"@endpoints-provider/endpoints":\s*"\^?([^"]*)"`),
	"requirements.txt": regexp.MustCompile(`(?m)^pulumi-endpoints\s*>=\s*(\S+)`),
	"go.mod":           regexp.MustCompile(`github\.com/endpoints-provider/pulumi-endpoints/sdk v(\S+)`),
	"pom.xml":          regexp.MustCompile(`<artifactId>endpoints</artifactId>\s*<version>([^<]*)</version>`),
	".csproj":          regexp.MustCompile(`Include="EndpointsProvider\.Endpoints"\s+Version="([^"]*)"`),
	"Pulumi.yaml":      regexp.MustCompile(`(?m)^\s+version:\s*(\S+)`),
}

// TestExamplesDeclareReleasedVersion checks that every example names the examples'
// version (the newest release) wherever it names this provider's package, that it
// names it at least once, and that no Go example replaces the SDK module.
func TestExamplesDeclareReleasedVersion(t *testing.T) {
	t.Parallel()
	want := examplesVersion(t)
	root := filepath.Join(toolchain.RepoRoot(t), "examples")
	for _, dir := range exampleDirs(t) {
		found := 0
		for _, name := range toolchain.FileNames(t, filepath.Join(root, dir)) {
			re := declarations[name]
			if filepath.Ext(name) == ".csproj" {
				re = declarations[".csproj"]
			}
			if re == nil {
				continue
			}
			text := toolchain.ReadFile(t, filepath.Join(root, dir, name))
			for _, m := range re.FindAllStringSubmatch(text, -1) {
				found++
				if m[1] != want {
					t.Errorf("examples/%s/%s declares version %s, want %s (the newest release in CHANGELOG.md)", dir, name, m[1], want)
				}
			}
			if name == "go.mod" && regexp.MustCompile(`(?m)^replace\b`).MatchString(text) {
				t.Errorf("examples/%s/go.mod replaces a module: a user's go.mod requires the published SDK", dir)
			}
		}
		if found == 0 {
			t.Errorf("examples/%s declares no version of this provider's package", dir)
		}
	}
}
