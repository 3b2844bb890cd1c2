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

// exampleLanguage is one test program under testdata/programs/<dir> (an
// EndpointSlice, an EndpointsList and both Google lookups, with stack configuration),
// and how to install it into a directory so that its Automation API runner can run
// there.
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

// installExample installs the program of lang into a new stack's directory. The
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
	argv := lang.install(t, programDir(t, lang), s.Dir)
	t.Logf("%s: program installed in %s", lang.dir, time.Since(start).Round(100*time.Millisecond))
	return &exampleProgram{lang: lang.dir, argv: argv, stack: s}
}

// run runs one operation of the runner on the stack "dev" and returns its result; a
// failing runner fails the test.
func (p *exampleProgram) run(t *testing.T, operation string) toolchain.ProgramResult {
	t.Helper()
	return toolchain.RunProgram(t, p.lang+" "+operation, runnerTimeout, p.stack.Dir, p.stack.Environ(),
		append(slices.Clone(p.argv), operation, "dev")...)
}

// installTypeScriptExample copies the program into dst, adds the SDK's npm package
// of TEST_ASSET_DIST to its package.json's dependencies, installs them with npm and
// compiles the program with its tsconfig.json.
func installTypeScriptExample(t *testing.T, src, dst string) []string {
	t.Helper()
	env := toolchain.NodeEnv(t)
	copyExampleFiles(t, src, dst)
	manifest := filepath.Join(dst, "package.json")
	var pkg map[string]any
	if err := json.Unmarshal([]byte(toolchain.ReadFile(t, manifest)), &pkg); err != nil {
		t.Fatalf("%s/package.json: %v", src, err)
	}
	deps, _ := pkg["dependencies"].(map[string]any)
	if deps == nil {
		t.Fatalf("%s/package.json has no dependencies", src)
	}
	deps["@endpoints-provider/endpoints"] = "file:" + distArtifact(t, "endpoints-provider-endpoints-"+toolchain.ReleaseVersion(t)+".tgz")
	data, err := json.MarshalIndent(pkg, "", "    ")
	if err != nil {
		t.Fatal(err)
	}
	toolchain.WriteFile(t, manifest, string(data))
	toolchain.Run(t, dst, env, "npm", "install")
	toolchain.Run(t, dst, env, filepath.Join(dst, "node_modules", ".bin", "tsc"))
	return []string{"node", filepath.Join(dst, "bin", "run.js")}
}

// installPythonExample copies the program into dst and installs its
// requirements.txt and the SDK's wheel of TEST_ASSET_DIST into a new virtualenv.
func installPythonExample(t *testing.T, src, dst string) []string {
	t.Helper()
	copyExampleFiles(t, src, dst)
	var requirements []string
	for _, line := range strings.Split(toolchain.ReadFile(t, filepath.Join(src, "requirements.txt")), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			requirements = append(requirements, line)
		}
	}
	requirements = append(requirements, distArtifact(t, "pulumi_endpoints-"+pythonVersion(t)+"-py3-none-any.whl"))
	python := toolchain.Venv(t, requirements...)
	toolchain.Run(t, dst, nil, python, "-m", "py_compile", "program.py", "run.py")
	return []string{python, filepath.Join(dst, "run.py")}
}

// pythonVersion is the Python package's version of the release artifacts, as the
// Makefile spells it.
func pythonVersion(t *testing.T) string {
	t.Helper()
	return strings.TrimSpace(toolchain.Run(t, toolchain.RepoRoot(t), nil, "make", "-s", "python-sdk-version", "VERSION="+toolchain.ReleaseVersion(t)))
}

// distArtifact returns the release artifact name in TEST_ASSET_DIST, which must hold it.
func distArtifact(t *testing.T, name string) string {
	t.Helper()
	path := filepath.Join(tool(t, "TEST_ASSET_DIST"), name)
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("release artifact %s: %v (run `make dist-sdks`)", path, err)
	}
	return path
}

// installGoExample builds the runner of the Go program (its own module, which
// replaces the SDK module with the repository's sdk/) and vets it; dst gets the
// project file, where the runner keeps its stack settings.
func installGoExample(t *testing.T, src, dst string) []string {
	t.Helper()
	runner := filepath.Join(t.TempDir(), "runner")
	toolchain.Run(t, src, nil, "go", "build", "-o", runner, ".")
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

// programDir is the directory of lang's test program.
func programDir(t *testing.T, lang exampleLanguage) string {
	t.Helper()
	return filepath.Join(toolchain.RepoRoot(t), "tests", "e2e", "testdata", "programs", lang.dir)
}
