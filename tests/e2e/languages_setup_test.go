package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/endpoints-provider/pulumi-endpoints/tests/googledouble"
)

// Versions the Node.js and Python SDKs are installed with, as tests/sdk installs them;
// examples/typescript/package.json and examples/python/requirements.txt pin the same.
const (
	examplePulumiVersion    = "3.256.0"  // @pulumi/pulumi on npm, pulumi on PyPI
	exampleTypescript       = "5.9.3"    // typescript on npm
	exampleTypesNodeVersion = "20.19.43" // @types/node on npm
)

// exampleLanguage is one example program under examples/<dir>, and how to install it
// into a directory so that its Automation API runner can run there.
type exampleLanguage struct {
	dir string
	// install copies the example from src into dst, installs what it needs and returns
	// the runner's command line; the operation and the stack name are appended to it.
	install func(t *testing.T, src, dst string) []string
}

var exampleLanguages = []exampleLanguage{
	{dir: "typescript", install: installTypeScriptExample},
	{dir: "python", install: installPythonExample},
	{dir: "go", install: installGoExample},
}

// exampleProgram is an installed example and its stack on a local file backend.
type exampleProgram struct {
	lang string
	// argv is the runner; it runs in stack.dir, the program's directory.
	argv []string
	// stack runs the pulumi CLI on the same project, backend and environment.
	stack *stack
}

// runnerTimeout bounds one operation of a runner; each takes a few seconds.
const runnerTimeout = 5 * time.Minute

// runnerResult is the JSON line every runner prints on stdout.
type runnerResult struct {
	Changes map[string]int `json:"changes"`
	Outputs map[string]any `json:"outputs"`
	// Log is the runner's stderr: the engine's progress and diff.
	Log string `json:"-"`
}

// installExample installs the example of lang into a new stack's directory. The
// stack's environment points the provider at the control plane (kubeconfig) and at
// the Google double, and puts the pulumi CLI (which the Automation API runs) and the
// provider plugin (an ambient plugin for the engine) on PATH.
func installExample(t *testing.T, lang exampleLanguage, kubeconfig string, double *googledouble.Server) *exampleProgram {
	t.Helper()
	s := newStack(t, kubeconfig,
		"GOOGLE_OAUTH_ACCESS_TOKEN="+lookupToken,
		"GOOGLE_MIGRATION_CENTER_CUSTOM_ENDPOINT="+double.URL,
		"GOOGLE_BEYONDCORP_CUSTOM_ENDPOINT="+double.URL,
		"GOOGLE_PROJECT=demo-project",
	)
	cli, provider := pulumiCLI(t), tool(t, "TEST_ASSET_PROVIDER")
	s.env = append(s.env, "PATH="+strings.Join([]string{filepath.Dir(cli), ambientDir(t, provider), os.Getenv("PATH")}, ":"))

	start := time.Now()
	argv := lang.install(t, filepath.Join(exampleRepoRoot(t), "examples", lang.dir), s.dir)
	t.Logf("%s: example installed in %s", lang.dir, time.Since(start).Round(100*time.Millisecond))
	return &exampleProgram{lang: lang.dir, argv: argv, stack: s}
}

// run runs one operation of the runner on the stack "dev" and returns its result; a
// failing runner fails the test.
func (p *exampleProgram) run(t *testing.T, operation string) runnerResult {
	t.Helper()
	start := time.Now()
	ctx, cancel := context.WithTimeout(t.Context(), runnerTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, p.argv[0], append(slices.Clone(p.argv[1:]), operation, "dev")...)
	cmd.Dir = p.stack.dir
	// On a timeout, stop the runner and what it started (the CLI, the plugin): they
	// share its process group.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	cmd.Env = append(os.Environ(),
		"PULUMI_SKIP_UPDATE_CHECK=true",
		"PULUMI_DIY_BACKEND_NO_LEGACY_WARNING=true",
		"NO_COLOR=1",
	)
	cmd.Env = append(cmd.Env, p.stack.env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s runner %s: %v\nstderr:\n%s\nstdout:\n%s", p.lang, operation, err, stderr.String(), stdout.String())
	}
	// The result is the last line: anything the program itself printed comes before.
	var last string
	for sc := bufio.NewScanner(&stdout); sc.Scan(); {
		if line := strings.TrimSpace(sc.Text()); line != "" {
			last = line
		}
	}
	var res runnerResult
	if err := json.Unmarshal([]byte(last), &res); err != nil {
		t.Fatalf("%s runner %s: result %q: %v\nstderr:\n%s", p.lang, operation, last, err, stderr.String())
	}
	res.Log = stderr.String()
	t.Logf("%s %s: %v in %s", p.lang, operation, res.Changes, time.Since(start).Round(100*time.Millisecond))
	return res
}

// installTypeScriptExample builds the Node.js SDK as tests/sdk does (npm install with
// pinned versions, tsc, npm pack), installs the packed SDK and the example's
// package.json dependencies into dst and compiles the example with its tsconfig.json.
func installTypeScriptExample(t *testing.T, src, dst string) []string {
	t.Helper()
	env := []string{
		"npm_config_cache=" + exampleCacheDir(t, "npm"),
		"npm_config_prefer_offline=true",
		"npm_config_audit=false",
		"npm_config_fund=false",
		"npm_config_update_notifier=false",
		"npm_config_loglevel=error",
	}
	pkg := filepath.Join(t.TempDir(), "sdk")
	copyExampleTree(t, filepath.Join(exampleRepoRoot(t), "sdk", "nodejs"), pkg)
	exampleRun(t, pkg, env, "npm", "install", "--no-save",
		"@pulumi/pulumi@"+examplePulumiVersion, "typescript@"+exampleTypescript, "@types/node@"+exampleTypesNodeVersion)
	exampleRun(t, pkg, env, filepath.Join(pkg, "node_modules", ".bin", "tsc"), "--strict")
	bin := filepath.Join(pkg, "bin")
	for _, f := range []string{"package.json", "README.md"} {
		copyExampleFile(t, filepath.Join(pkg, f), filepath.Join(bin, f))
	}
	exampleRun(t, bin, env, "npm", "pack")
	tarballs, err := filepath.Glob(filepath.Join(bin, "*.tgz"))
	if err != nil || len(tarballs) != 1 {
		t.Fatalf("npm pack made %d tarballs (%v), want 1", len(tarballs), err)
	}

	copyExampleFiles(t, src, dst)
	exampleRun(t, dst, env, "npm", "install", "--no-save", tarballs[0])
	exampleRun(t, dst, env, filepath.Join(dst, "node_modules", ".bin", "tsc"))
	return []string{"node", filepath.Join(dst, "bin", "run.js")}
}

// installPythonExample makes a virtualenv with pulumi and the Python SDK installed
// from a copy of sdk/python, as tests/sdk does, and copies the example into dst.
func installPythonExample(t *testing.T, src, dst string) []string {
	t.Helper()
	tmp := t.TempDir()
	venv := filepath.Join(tmp, "venv")
	exampleRun(t, tmp, nil, "python3", "-m", "venv", venv)
	python := filepath.Join(venv, "bin", "python")
	env := []string{
		"PIP_CACHE_DIR=" + exampleCacheDir(t, "pip"),
		"PIP_DISABLE_PIP_VERSION_CHECK=1",
		"PIP_NO_INPUT=1",
	}
	// pip builds a local project in place, so install from a copy.
	pkg := filepath.Join(tmp, "sdk")
	copyExampleTree(t, filepath.Join(exampleRepoRoot(t), "sdk", "python"), pkg)
	exampleRun(t, tmp, env, python, "-m", "pip", "install", "--quiet", "pulumi=="+examplePulumiVersion, pkg)

	copyExampleFiles(t, src, dst)
	exampleRun(t, dst, nil, python, "-m", "py_compile", "__main__.py", "program.py", "run.py")
	return []string{python, filepath.Join(dst, "run.py")}
}

// installGoExample builds the runner of examples/go (its own module, which replaces
// the SDK module with ../../sdk) and vets the program `pulumi up` builds; dst gets
// the project file, where the runner keeps its stack settings.
func installGoExample(t *testing.T, src, dst string) []string {
	t.Helper()
	runner := filepath.Join(t.TempDir(), "runner")
	exampleRun(t, src, nil, "go", "build", "-tags", "runner", "-o", runner, ".")
	exampleRun(t, src, nil, "go", "vet", ".")
	copyExampleFile(t, filepath.Join(src, "Pulumi.yaml"), filepath.Join(dst, "Pulumi.yaml"))
	return []string{runner}
}

// exampleRepoRoot returns the repository root (the tests run in tests/e2e).
func exampleRepoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "schema.json")); err != nil {
		t.Fatalf("repository root not found from the test directory: %v", err)
	}
	return root
}

// exampleCacheDir returns $HOME/.cache/pulumi-endpoints/<name>, created if needed:
// the download caches of npm and pip that tests/sdk uses too.
func exampleCacheDir(t *testing.T, name string) string {
	t.Helper()
	home, err := os.UserHomeDir()
	if err != nil {
		t.Fatalf("no home directory for the download cache: %v", err)
	}
	dir := filepath.Join(home, ".cache", "pulumi-endpoints", name)
	if err := os.MkdirAll(dir, 0o750); err != nil {
		t.Fatal(err)
	}
	return dir
}

// exampleRun runs a command that must succeed in dir with the extra environment.
func exampleRun(t *testing.T, dir string, env []string, name string, args ...string) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %s (in %s): %v\n%s", name, strings.Join(args, " "), dir, err, out)
	}
}

// copyExampleFiles copies the regular files at the top of an example directory:
// not the directories a local run leaves (node_modules, bin, venv) nor its stack
// settings (Pulumi.<stack>.yaml).
func copyExampleFiles(t *testing.T, src, dst string) {
	t.Helper()
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || (strings.HasPrefix(name, "Pulumi.") && name != "Pulumi.yaml") {
			continue
		}
		copyExampleFile(t, filepath.Join(src, name), filepath.Join(dst, name))
	}
}

// copyExampleTree copies the regular files of src into dst.
func copyExampleTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		copyExampleFile(t, path, filepath.Join(dst, rel))
		return nil
	})
	if err != nil {
		t.Fatalf("copy %s to %s: %v", src, dst, err)
	}
}

func copyExampleFile(t *testing.T, src, dst string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Clean(src))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o750); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, data, 0o600); err != nil {
		t.Fatal(err)
	}
}
