package pulumicli

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/toolchain"
)

// quiet is the environment of every run, so the output holds only what the command
// says: no update check, no warning about the file backend, no colour.
var quiet = []string{
	"PULUMI_SKIP_UPDATE_CHECK=true",
	"PULUMI_DIY_BACKEND_NO_LEGACY_WARNING=true",
	"NO_COLOR=1",
}

// CLI is the pulumi CLI on one project directory.
type CLI struct {
	t testing.TB
	// Dir is the project directory, where every command runs.
	Dir string
	// Env is the commands' environment on top of the test process's: the later of
	// two values of a variable wins.
	Env []string
}

// New returns the CLI on a new, empty project directory, with a new PULUMI_HOME and a
// new file backend, and env on top.
func New(t testing.TB, env ...string) *CLI {
	t.Helper()
	return &CLI{t: t, Dir: t.TempDir(), Env: append([]string{
		"PULUMI_HOME=" + t.TempDir(),
		"PULUMI_BACKEND_URL=file://" + t.TempDir(),
	}, env...)}
}

// With returns a copy of c whose commands have env on top of c's environment.
func (c *CLI) With(env ...string) *CLI {
	return &CLI{t: c.t, Dir: c.Dir, Env: append(slices.Clone(c.Env), env...)}
}

// WriteProject replaces the project's Pulumi.yaml with project.
func (c *CLI) WriteProject(project string) {
	c.t.Helper()
	if err := os.WriteFile(filepath.Join(c.Dir, "Pulumi.yaml"), []byte(project), 0o600); err != nil {
		c.t.Fatal(err)
	}
}

// Home returns the CLI's PULUMI_HOME.
func (c *CLI) Home() string {
	c.t.Helper()
	home := ""
	for _, kv := range c.Env {
		if v, ok := strings.CutPrefix(kv, "PULUMI_HOME="); ok {
			home = v
		}
	}
	if home == "" {
		c.t.Fatal("the CLI has no PULUMI_HOME")
	}
	return home
}

// PrependPath puts dir first on the PATH of the CLI's environment.
func (c *CLI) PrependPath(dir string) {
	for i, kv := range c.Env {
		if rest, ok := strings.CutPrefix(kv, "PATH="); ok {
			c.Env[i] = "PATH=" + dir + string(os.PathListSeparator) + rest
		}
	}
}

// Command returns the command `pulumi args...`, not yet started, in the project
// directory and the CLI's environment; ctx ends it.
func (c *CLI) Command(ctx context.Context, args ...string) *exec.Cmd {
	c.t.Helper()
	cmd := exec.CommandContext(ctx, toolchain.Asset(c.t, "TEST_ASSET_PULUMI"), args...)
	cmd.Dir = c.Dir
	cmd.Env = c.Environ()
	return cmd
}

// Environ is the whole environment the CLI's commands run in, for a program that
// runs the CLI itself (the Automation API does): the test process's, the quiet
// settings and c.Env.
func (c *CLI) Environ() []string { return slices.Concat(os.Environ(), quiet, c.Env) }

// Output runs `pulumi args...` and returns its stdout, its stderr and its error.
func (c *CLI) Output(args ...string) (stdout, stderr string, err error) {
	c.t.Helper()
	cmd := c.Command(c.t.Context(), args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	return out.String(), errOut.String(), err
}

// CombinedOutput runs `pulumi args...` and returns its stdout and stderr as they were
// written, interleaved, and its error.
func (c *CLI) CombinedOutput(args ...string) (string, error) {
	c.t.Helper()
	cmd := c.Command(c.t.Context(), args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

// Run runs `pulumi args...`, failing the test if it fails, and returns its stdout.
func (c *CLI) Run(args ...string) string {
	c.t.Helper()
	stdout, stderr, err := c.Output(args...)
	if err != nil {
		c.t.Fatalf("pulumi %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, stdout, stderr)
	}
	return stdout
}

// Try runs `pulumi args...`, which may fail, and returns its stdout followed by its
// stderr, and its error.
func (c *CLI) Try(args ...string) (string, error) {
	c.t.Helper()
	stdout, stderr, err := c.Output(args...)
	return stdout + stderr, err
}

// RunCombined runs `pulumi args...`, failing the test if it fails, and returns its
// combined output (see CombinedOutput).
func (c *CLI) RunCombined(args ...string) string {
	c.t.Helper()
	out, err := c.CombinedOutput(args...)
	if err != nil {
		c.t.Fatalf("pulumi %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}
