package packages

import (
	"strings"
	"testing"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/toolchain"
)

// TestInstallTargetsNeedOneToolchain reads what each `make install-<language>` would run
// in a clone with nothing built (BIN_DIR and DIST empty): this machine's plugin archive
// only (no other platform), the pulumi on PATH to install it, and no other language's
// toolchain: YAML needs Go and the Pulumi CLI alone.
func TestInstallTargetsNeedOneToolchain(t *testing.T) {
	t.Parallel()
	tools := map[string]string{"node": "npm ", "python": "python3 -m venv", "maven": "mvn "}
	for target, needs := range map[string][]string{
		"install-yaml":   nil,
		"install-go":     nil,
		"install-nodejs": {"node"},
		"install-python": {"python"},
		"install-java":   {"maven"},
	} {
		t.Run(target, func(t *testing.T) {
			t.Parallel()
			out := toolchain.Run(t, toolchain.RepoRoot(t), []string{"MAKEFLAGS="}, "make", "-n", target,
				"BIN_DIR="+t.TempDir(), "DIST="+t.TempDir(), "CACHE="+t.TempDir())
			if n := strings.Count(out, "go build"); n != 1 {
				t.Errorf("make %s runs go build %d times, want once (this machine's plugin):\n%s", target, n, out)
			}
			if !strings.Contains(out, "plugin install resource endpoints") {
				t.Errorf("make %s does not install the plugin:\n%s", target, out)
			}
			for tool, command := range tools {
				if used := strings.Contains(out, command); used != (len(needs) > 0 && needs[0] == tool) {
					t.Errorf("make %s runs %q: %v, want %v:\n%s", target, command, used, !used, out)
				}
			}
		})
	}
}
