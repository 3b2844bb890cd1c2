package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"testing"
)

// pulumiCLI returns the pulumi binary the Makefile built (TEST_ASSET_PULUMI).
func pulumiCLI(t *testing.T) string {
	t.Helper()
	path := os.Getenv("TEST_ASSET_PULUMI")
	if path == "" {
		t.Fatal("TEST_ASSET_PULUMI is not set: run the tests with `make test`, which builds the pulumi CLI and sets it")
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("pulumi CLI %s: %v (run `make tools`)", path, err)
	}
	return path
}

// runPulumi runs the CLI with a private PULUMI_HOME, no update check and no color, and
// returns its stdout, stderr and error.
func runPulumi(t *testing.T, dir string, args ...string) (string, string, error) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), pulumiCLI(t), args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"PULUMI_HOME="+t.TempDir(),
		"PULUMI_SKIP_UPDATE_CHECK=true",
		"PULUMI_DIY_BACKEND_NO_LEGACY_WARNING=true",
		"NO_COLOR=1",
	)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return stdout.String(), stderr.String(), err
}
