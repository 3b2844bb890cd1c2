package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/endpoints-provider/pulumi-endpoints/tests/plugin"
)

// tool returns the path in an environment variable the Makefile sets, failing the
// test with instructions when it is missing.
func tool(t *testing.T, env string) string {
	t.Helper()
	path := os.Getenv(env)
	if path == "" {
		t.Fatalf("%s is not set: run the tests with `make test`, which builds the tools and sets it", env)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("%s=%s: %v (run `make tools`)", env, path, err)
	}
	return path
}

func pulumiCLI(t *testing.T) string { return tool(t, "TEST_ASSET_PULUMI") }

// runPulumi runs the CLI with a private PULUMI_HOME, no update check and no color, and
// returns its stdout, stderr and error.
func runPulumi(t *testing.T, dir string, args ...string) (string, string, error) {
	t.Helper()
	return runPulumiEnv(t, dir, []string{"PULUMI_HOME=" + t.TempDir()}, args...)
}

func runPulumiEnv(t *testing.T, dir string, env []string, args ...string) (string, string, error) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), pulumiCLI(t), args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"PULUMI_SKIP_UPDATE_CHECK=true",
		"PULUMI_DIY_BACKEND_NO_LEGACY_WARNING=true",
		"NO_COLOR=1",
	)
	cmd.Env = append(cmd.Env, env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return stdout.String(), stderr.String(), err
}

// stack is a Pulumi project and stack on a local file backend, run by the real CLI
// with the built provider plugin and YAML language host on PATH.
type stack struct {
	t   *testing.T
	dir string
	env []string
}

func newStack(t *testing.T, kubeconfig string, extraEnv ...string) *stack {
	t.Helper()
	provider := tool(t, "TEST_ASSET_PROVIDER")
	yamlHost := tool(t, "TEST_ASSET_PULUMI_LANGUAGE_YAML")
	backend := t.TempDir()
	s := &stack{t: t, dir: t.TempDir(), env: append([]string{
		"PULUMI_HOME=" + t.TempDir(),
		"PULUMI_BACKEND_URL=file://" + backend,
		"PULUMI_CONFIG_PASSPHRASE=e2e",
		"KUBECONFIG=" + kubeconfig,
		"PATH=" + strings.Join([]string{ambientDir(t, provider), filepath.Dir(yamlHost), os.Getenv("PATH")}, ":"),
	}, extraEnv...)}
	return s
}

// write replaces the project's Pulumi.yaml.
func (s *stack) write(program string) {
	s.t.Helper()
	if err := os.WriteFile(filepath.Join(s.dir, "Pulumi.yaml"), []byte(program), 0o600); err != nil {
		s.t.Fatal(err)
	}
}

// run runs a pulumi command and fails the test if it fails; it returns stdout.
func (s *stack) run(args ...string) string {
	s.t.Helper()
	stdout, stderr, err := runPulumiEnv(s.t, s.dir, s.env, args...)
	if err != nil {
		s.t.Fatalf("pulumi %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, stdout, stderr)
	}
	return stdout
}

// try runs a pulumi command that may fail and returns its combined output and error.
func (s *stack) try(args ...string) (string, error) {
	s.t.Helper()
	stdout, stderr, err := runPulumiEnv(s.t, s.dir, s.env, args...)
	return stdout + stderr, err
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
