package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/googledouble"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/toolchain"
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
	cli, provider := tool(t, "TEST_ASSET_PULUMI"), tool(t, "TEST_ASSET_PROVIDER")
	s.Env = append(s.Env, "PATH="+strings.Join([]string{filepath.Dir(cli), ambientDir(t, provider), os.Getenv("PATH")}, ":"))

	start := time.Now()
	argv := lang.install(t, filepath.Join(toolchain.RepoRoot(t), "examples", lang.dir), s.Dir)
	t.Logf("%s: example installed in %s", lang.dir, time.Since(start).Round(100*time.Millisecond))
	return &exampleProgram{lang: lang.dir, argv: argv, stack: s}
}

// run runs one operation of the runner on the stack "dev" and returns its result; a
// failing runner fails the test.
func (p *exampleProgram) run(t *testing.T, operation string) toolchain.ProgramResult {
	t.Helper()
	return toolchain.RunProgram(t, p.lang+" "+operation, runnerTimeout, p.stack.Dir, p.stack.Environ(),
		append(slices.Clone(p.argv), operation, "dev")...)
}

// installTypeScriptExample copies the example into dst, points its package.json's
// SDK dependency (the npm package in dist/) at the one in TEST_ASSET_DIST, installs
// the dependencies with npm and compiles the example with its tsconfig.json.
func installTypeScriptExample(t *testing.T, src, dst string) []string {
	t.Helper()
	env := toolchain.NodeEnv(t)
	copyExampleFiles(t, src, dst)
	manifest := filepath.Join(dst, "package.json")
	data, err := os.ReadFile(filepath.Clean(manifest))
	if err != nil {
		t.Fatal(err)
	}
	var pkg map[string]any
	if err := json.Unmarshal(data, &pkg); err != nil {
		t.Fatalf("%s/package.json: %v", src, err)
	}
	deps, _ := pkg["dependencies"].(map[string]any)
	sdk, _ := deps["@endpoints-provider/endpoints"].(string)
	if !strings.HasPrefix(sdk, "file:") {
		t.Fatalf("%s/package.json names the SDK as %q, want the npm package in dist/ (file:../../dist/<tarball>)", src, sdk)
	}
	deps["@endpoints-provider/endpoints"] = "file:" + distArtifact(t, src, strings.TrimPrefix(sdk, "file:"))
	if data, err = json.MarshalIndent(pkg, "", "    "); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(manifest, data, 0o600); err != nil {
		t.Fatal(err)
	}
	toolchain.Run(t, dst, env, "npm", "install")
	toolchain.Run(t, dst, env, filepath.Join(dst, "node_modules", ".bin", "tsc"))
	return []string{"node", filepath.Join(dst, "bin", "run.js")}
}

// installPythonExample copies the example into dst and installs its
// requirements.txt into a new virtualenv, the SDK's wheel (named by its path in dist/)
// taken from TEST_ASSET_DIST.
func installPythonExample(t *testing.T, src, dst string) []string {
	t.Helper()
	copyExampleFiles(t, src, dst)
	data, err := os.ReadFile(filepath.Clean(filepath.Join(src, "requirements.txt")))
	if err != nil {
		t.Fatal(err)
	}
	var requirements []string
	for _, line := range strings.Split(string(data), "\n") {
		if line = strings.TrimSpace(line); line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.HasSuffix(line, ".whl") {
			line = distArtifact(t, src, line)
		}
		requirements = append(requirements, line)
	}
	python := toolchain.Venv(t, requirements...)
	toolchain.Run(t, dst, nil, python, "-m", "py_compile", "__main__.py", "program.py", "run.py")
	return []string{python, filepath.Join(dst, "run.py")}
}

// distArtifact maps an example's path to a release artifact (relative to the example,
// in the repository's dist/) to the same file in TEST_ASSET_DIST, which must hold it.
func distArtifact(t *testing.T, example, rel string) string {
	t.Helper()
	if filepath.Base(filepath.Dir(filepath.Join(example, rel))) != "dist" {
		t.Fatalf("%s names %s, which is not in dist/", example, rel)
	}
	path := filepath.Join(tool(t, "TEST_ASSET_DIST"), filepath.Base(rel))
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("%s names %s: %v (run `make dist-sdks`; is the example's version VERSION?)", example, rel, err)
	}
	return path
}

// installGoExample builds the runner of examples/go (its own module, which replaces
// the SDK module with ../../sdk) and vets the program `pulumi up` builds; dst gets
// the project file, where the runner keeps its stack settings.
func installGoExample(t *testing.T, src, dst string) []string {
	t.Helper()
	runner := filepath.Join(t.TempDir(), "runner")
	toolchain.Run(t, src, nil, "go", "build", "-tags", "runner", "-o", runner, ".")
	toolchain.Run(t, src, nil, "go", "vet", ".")
	toolchain.CopyFile(t, filepath.Join(src, "Pulumi.yaml"), filepath.Join(dst, "Pulumi.yaml"))
	return []string{runner}
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
		toolchain.CopyFile(t, filepath.Join(src, name), filepath.Join(dst, name))
	}
}
