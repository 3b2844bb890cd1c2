package sdk_test

import (
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/toolchain"
	"path/filepath"
	"regexp"
	"testing"
)

// Versions the SDKs are built against, as the interface requires.
const (
	mypyVersion = "1.20.2"
)

// The shared installers and runners (tests/toolchain), under this package's names.
var (
	command = toolchain.Command
	run     = toolchain.Run
	copyDir = toolchain.CopyDir
)

func repoRoot(t *testing.T) string { return toolchain.RepoRoot(t) }

// pluginServer is where every SDK says the plugin is downloaded from: schema.json's
// pluginDownloadURL.
const pluginServer = "github://api.github.com/endpoints-provider/pulumi-endpoints"

func sdkDir(t *testing.T) string {
	t.Helper()
	return filepath.Join(repoRoot(t), "sdk")
}

// sdkVersion is the version `make gen` stamps by default: the VERSION file.
func sdkVersion(t *testing.T) string {
	t.Helper()
	return toolchain.Version(t)
}

// readmeExample returns the first code block of the given language in a README:
// the example that users copy, which the language tests compile.
func readmeExample(t *testing.T, readme, lang string) string {
	t.Helper()
	m := regexp.MustCompile("(?s)```" + lang + "\n(.*?)```").FindStringSubmatch(toolchain.ReadFile(t, readme))
	if m == nil {
		t.Fatalf("%s has no ```%s example", readme, lang)
	}
	return m[1]
}
