package toolchain

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// ProgramResult is the JSON line a test's Automation API program prints last on
// stdout after one operation.
type ProgramResult struct {
	Changes map[string]int `json:"changes"`
	Outputs map[string]any `json:"outputs"`
	// Warnings are the messages of the engine's warning diagnostics, which the
	// progress on stderr (shown as a diff) does not list; not every program reports
	// them.
	Warnings []string `json:"warnings"`
	// Log is the program's stderr: the engine's progress and diff.
	Log string `json:"-"`
}

// RunProgram runs the Automation API program argv in dir with the whole environment
// env, stopping it and every process it started (the CLI, the plugin: they share its
// process group) after timeout. A failing program fails the test, named by name in
// the messages; otherwise the program's result is its last line on stdout (anything
// it printed itself comes before).
func RunProgram(t testing.TB, name string, timeout time.Duration, dir string, env []string, argv ...string) ProgramResult {
	t.Helper()
	start := time.Now()
	ctx, cancel := context.WithTimeout(t.Context(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\nstderr:\n%s\nstdout:\n%s", name, err, stderr.String(), stdout.String())
	}
	var last string
	for sc := bufio.NewScanner(&stdout); sc.Scan(); {
		if line := strings.TrimSpace(sc.Text()); line != "" {
			last = line
		}
	}
	var res ProgramResult
	if err := json.Unmarshal([]byte(last), &res); err != nil {
		t.Fatalf("%s: result %q: %v\nstderr:\n%s", name, last, err, stderr.String())
	}
	res.Log = stderr.String()
	t.Logf("%s: %v in %s", name, res.Changes, time.Since(start).Round(100*time.Millisecond))
	return res
}

// WantChanges compares the operation's change summary with the exact one expected.
func (res ProgramResult) WantChanges(t testing.TB, step string, want map[string]int) {
	t.Helper()
	if diff := cmp.Diff(want, res.Changes); diff != "" {
		t.Fatalf("%s: change summary (-want +got):\n%s\nengine output:\n%s", step, diff, res.Log)
	}
}
