package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"

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

// newStack returns a stack whose commands reach the cluster of kubeconfig; extraEnv
// adds environment variables to every command.
func newStack(t *testing.T, kubeconfig string, extraEnv ...string) *stack {
	t.Helper()
	return &stack{t: t, CLI: pulumicli.NewWithProvider(t, append([]string{"KUBECONFIG=" + kubeconfig}, extraEnv...)...)}
}

// init writes program as the stack's Pulumi.yaml, creates the stack dev and sets its
// configuration: config lists keys and values in turn.
func (s *stack) init(program string, config ...string) {
	s.t.Helper()
	s.InitStack(program, config...)
}

// runEnv runs a pulumi command with extra environment variables and fails the test if
// it fails; it returns stdout and stderr together.
func (s *stack) runEnv(env []string, args ...string) string {
	s.t.Helper()
	out, err := s.With(env...).Try(args...)
	if err != nil {
		s.t.Fatalf("pulumi %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// previewJSON runs `pulumi preview --json` and decodes its document into doc.
func (s *stack) previewJSON(doc any, env ...string) {
	s.t.Helper()
	out := s.runEnv(env, "preview", "--json", "--non-interactive")
	start := strings.Index(out, "{")
	if start < 0 {
		s.t.Fatalf("preview --json printed no document:\n%s", out)
	}
	if err := json.NewDecoder(strings.NewReader(out[start:])).Decode(doc); err != nil {
		s.t.Fatalf("preview --json: %v\n%s", err, out)
	}
}

// previewOps runs a preview and returns each resource's operation by name (the
// provider's own steps included, by the provider's name).
func (s *stack) previewOps(env ...string) map[string][]string {
	s.t.Helper()
	var doc struct {
		Steps []struct {
			Op  string `json:"op"`
			URN string `json:"urn"`
		} `json:"steps"`
	}
	s.previewJSON(&doc, env...)
	ops := map[string][]string{}
	for _, step := range doc.Steps {
		name := logicalName(step.URN)
		ops[name] = append(ops[name], step.Op)
	}
	return ops
}

// logicalName returns the logical name of a resource that its URN ends in.
func logicalName(urn string) string { return urn[strings.LastIndex(urn, "::")+2:] }

// previewWarnings runs a preview and returns the messages of its warnings.
func (s *stack) previewWarnings(env ...string) []string {
	s.t.Helper()
	var doc struct {
		Diagnostics []struct {
			Severity string `json:"severity"`
			Message  string `json:"message"`
		} `json:"diagnostics"`
	}
	s.previewJSON(&doc, env...)
	var warnings []string
	for _, d := range doc.Diagnostics {
		if d.Severity == "warning" {
			warnings = append(warnings, d.Message)
		}
	}
	return warnings
}

// upWithPreview runs `pulumi up` as a user does: preview first, then the update.
func (s *stack) upWithPreview() string {
	s.t.Helper()
	return s.Run("up", "--yes", "--non-interactive", "--diff")
}

// expectQuiet checks that the state, the program and the cluster agree: a refresh
// (previewed, then run) finds nothing changed, and a preview finds nothing to do.
func (s *stack) expectQuiet() {
	s.t.Helper()
	s.Run("refresh", "--preview-only", "--non-interactive", "--diff", "--expect-no-changes")
	s.Run("refresh", "--yes", "--non-interactive", "--diff", "--expect-no-changes")
	s.Run("preview", "--non-interactive", "--diff", "--expect-no-changes")
}

// destroyWithPreview runs `pulumi destroy` as a user does, with its preview.
func (s *stack) destroyWithPreview() {
	s.t.Helper()
	s.Run("destroy", "--yes", "--non-interactive")
}

// start runs a pulumi command in the background.
func (s *stack) start(args ...string) *background {
	s.t.Helper()
	b := &background{done: make(chan struct{})}
	// Not ended with the test's context: the clean-up below kills it if it still runs.
	b.cmd = s.Command(context.WithoutCancel(s.t.Context()), args...)
	b.cmd.Stdout, b.cmd.Stderr = &b.out, &b.out
	if err := b.cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	go func() { b.err = b.cmd.Wait(); close(b.done) }()
	s.t.Cleanup(func() {
		if b.running() {
			_ = b.cmd.Process.Kill()
			<-b.done
		}
	})
	return b
}

// background is a pulumi command running in the background.
type background struct {
	cmd  *exec.Cmd
	out  bytes.Buffer
	done chan struct{}
	err  error
}

// running tells whether the command has not finished yet.
func (b *background) running() bool {
	select {
	case <-b.done:
		return false
	default:
		return true
	}
}

// wait returns the command's output and error once it has finished.
func (b *background) wait() (string, error) {
	select {
	case <-b.done:
		return b.out.String(), b.err
	case <-time.After(5 * time.Minute):
		_ = b.cmd.Process.Kill()
		<-b.done
		return b.out.String(), errors.New("the command did not finish within 5 minutes")
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
