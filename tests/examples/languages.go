package examples

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/registries"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/toolchain"
)

// language is how an example of one language runs here.
type language struct {
	// prepare readies what the language's package manager resolves outside the
	// registries' environment (the Java SDK in the Maven repository); may be nil.
	prepare func(t *testing.T, r *registries.Registries)
	// runner returns the command that `pulumi up`, `preview`, `refresh` and `destroy`
	// run in the example's directory dir, the operation and its flags appended; nil:
	// the real CLI runs them through the language's real host.
	runner func(t *testing.T, dir, cli string) string
}

// languages are the languages whose examples run; the directory name is the key.
var languages = map[string]language{
	"yaml":       {},
	"java":       {prepare: func(t *testing.T, r *registries.Registries) { r.InstallMaven(t) }},
	"typescript": {runner: nodeRunner},
	"python":     {runner: pythonRunner},
	"go":         {runner: goRunner},
}

// nodeRunner runs the operation through testdata/nodejs/run.js and the project's own
// @pulumi/pulumi.
func nodeRunner(t *testing.T, _, _ string) string {
	t.Helper()
	return "node " + shellQuote(absTestdata(t, "nodejs", "run.js"))
}

// pythonRunner runs the operation through testdata/python/run.py with the python of
// the virtualenv Pulumi.yaml names (runtime.options.virtualenv), which the README's
// steps made.
func pythonRunner(t *testing.T, dir, _ string) string {
	t.Helper()
	var project struct {
		Runtime struct {
			Options struct{ Virtualenv string }
		}
	}
	if err := yaml.Unmarshal([]byte(toolchain.ReadFile(t, filepath.Join(dir, "Pulumi.yaml"))), &project); err != nil {
		t.Fatalf("%s/Pulumi.yaml: %v", dir, err)
	}
	venv := project.Runtime.Options.Virtualenv
	if venv == "" {
		t.Fatalf("%s/Pulumi.yaml names no runtime.options.virtualenv: the language host would not use the README's virtualenv", dir)
	}
	return shellQuote(filepath.Join(dir, venv, "bin", "python")) + " " + shellQuote(absTestdata(t, "python", "run.py"))
}

// goRunner runs the operation through gohost, built for the test.
func goRunner(t *testing.T, _, cli string) string {
	t.Helper()
	gohost := filepath.Join(t.TempDir(), "gohost")
	toolchain.Run(t, ".", nil, "go", "build", "-o", gohost, "./gohost")
	return shellQuote(gohost) + " " + shellQuote(cli)
}

// writeShim writes, into a new directory, the `pulumi` that hands up, preview,
// refresh and destroy to runner (with the real CLI first on PATH, for the Automation
// API) and every other command to the real CLI cli; it returns the directory.
func writeShim(t *testing.T, runner, cli string) string {
	t.Helper()
	dir := t.TempDir()
	script := fmt.Sprintf(`#!/usr/bin/env bash
# pulumi up, preview, refresh and destroy run through the Automation API (the test's
# runner); every other command is the real CLI's.
case "${1-}" in
up|preview|refresh|destroy) PATH=%s:"$PATH" exec %s "$@" ;;
esac
exec %s "$@"
`, shellQuote(filepath.Dir(cli)), runner, shellQuote(cli))
	path := filepath.Join(dir, "pulumi")
	if err := os.WriteFile(path, []byte(script), 0o700); err != nil { //nolint:gosec // an executable
		t.Fatal(err)
	}
	return dir
}

// absTestdata is the absolute path of a file under testdata/.
func absTestdata(t *testing.T, elem ...string) string {
	t.Helper()
	path, err := filepath.Abs(filepath.Join(append([]string{"testdata"}, elem...)...))
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// shellQuote quotes s for bash.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
