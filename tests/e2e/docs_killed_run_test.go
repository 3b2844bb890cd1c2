package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/controlplane"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/toolchain"
)

// attrsProgram is one slice, the program of TestEmptyAttributesFile.
const attrsProgram = `name: docs-attrs
runtime: yaml
resources:
  web:
    type: endpoints:discovery.k8s.io/v1:EndpointSlice
    properties:
      metadata:
        namespace: %s
      addressType: IPv4
      endpoints:
        - addresses: ["10.0.0.1"]
`

// The troubleshooting guide (docs/guides/troubleshooting.md, "After a crashed or killed
// run"): a kill while the file backend writes a checkpoint's attributes leaves
// <backend>/.pulumi/stacks/<project>/<stack>.json.attrs empty, every command then fails
// with "failed to load checkpoint: EOF", and the guide's `find ... -empty -delete`
// brings the stack back as it was. The empty file is written here as the kill leaves
// it, in the backend of the real CLI.
func TestEmptyAttributesFile(t *testing.T) {
	t.Parallel()
	cp := controlplane.Shared(t)
	ns := cp.Namespace(t, "e2e")
	s := newStack(t, cp.KubeconfigPath())
	s.init(fmt.Sprintf(attrsProgram, ns))
	s.Run("up", "--yes", "--non-interactive")

	stacks := filepath.Join(backendDir(t, s), ".pulumi", "stacks")
	attrs := filepath.Join(stacks, "docs-attrs", "dev.json.attrs")
	if _, err := os.Stat(attrs); err != nil {
		t.Fatalf("the file backend wrote no attributes file where the guide says: %v", err)
	}
	if err := os.WriteFile(attrs, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"preview", "--non-interactive"},
		{"up", "--yes", "--non-interactive"},
		{"cancel", "--yes"},
		{"stack", "export"},
	} {
		out, err := s.Try(args...)
		if err == nil || !strings.Contains(out, "failed to load checkpoint: EOF") {
			t.Errorf("pulumi %s with an empty %s: %v; want it to fail with \"failed to load checkpoint: EOF\":\n%s",
				strings.Join(args, " "), attrs, err, out)
		}
	}

	// The guide's command as written, under the backend's directory instead of ~/.pulumi.
	command := strings.Replace(guideCommand(t, troubleshootingGuide, "### failed to load checkpoint: EOF", "find "),
		"~/.pulumi/stacks", stacks, 1)
	if out, err := exec.CommandContext(t.Context(), "sh", "-c", command).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", command, err, out)
	}
	if _, err := os.Stat(attrs); !os.IsNotExist(err) {
		t.Fatalf("the guide's find left %s: %v", attrs, err)
	}
	s.Run("preview", "--non-interactive", "--expect-no-changes")
	s.Run("refresh", "--yes", "--non-interactive", "--expect-no-changes")
	s.Run("destroy", "--yes", "--non-interactive")
}

// troubleshootingGuide is the guide whose killed-run steps TestEmptyAttributesFile runs.
const troubleshootingGuide = "docs/guides/troubleshooting.md"

// guideCommand returns the line of the guide's first ```sh block under heading that
// starts with prefix, its comment left out.
func guideCommand(t *testing.T, guide, heading, prefix string) string {
	t.Helper()
	page := toolchain.ReadFile(t, filepath.Join(toolchain.RepoRoot(t), filepath.FromSlash(guide)))
	_, section, ok := strings.Cut(page, "\n"+heading+"\n")
	block := regexp.MustCompile("(?s)```sh\n(.*?)```").FindStringSubmatch(section)
	if !ok || block == nil {
		t.Fatalf("%s has no ```sh block under %q", guide, heading)
	}
	for line := range strings.SplitSeq(block[1], "\n") {
		if strings.HasPrefix(line, prefix) {
			command, _, _ := strings.Cut(line, " #")
			return strings.TrimSpace(command)
		}
	}
	t.Fatalf("%s, %q: no command starting %q", guide, heading, prefix)
	return ""
}

// backendDir is the directory of the stack's local file backend.
func backendDir(t *testing.T, s *stack) string {
	t.Helper()
	for _, kv := range s.Env {
		if dir, ok := strings.CutPrefix(kv, "PULUMI_BACKEND_URL=file://"); ok {
			return dir
		}
	}
	t.Fatal("the stack's environment names no file:// backend")
	return ""
}
