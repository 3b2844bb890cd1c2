package docs_test

import (
	"path/filepath"
	"regexp"
	"testing"

	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/pulumicli"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/snippets"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/toolchain"
)

// mypyVersion is the type checker of the Python snippets, the version tests/sdk
// checks the SDK with.
const mypyVersion = "1.20.2"

// TestPythonExamples type-checks every Python snippet of the docs (the schema's and
// the pages' snippets.PageExamples lists) with `mypy --strict` in a virtualenv with
// pulumi at the pinned version, the SDK installed from sdk/python and pulumi-kubernetes
// at the version of the plugin `make tools` builds, each snippet a module of its own; a
// snippet with a misspelt argument must be rejected.
func TestPythonExamples(t *testing.T) {
	t.Parallel()
	examples := snippets.Examples(t, "python")
	bad := broken(t, examples, spec.EndpointSliceToken, "address_type=", "address_kind=")
	examples = append(examples, snippets.PageExamples(t, "python")...)
	python := toolchain.PythonVenv(t, "mypy=="+mypyVersion, "pulumi-kubernetes=="+pulumicli.KubernetesVersion(t))

	prog := t.TempDir()
	args := []string{"-m", "mypy", "--strict", "--no-incremental"}
	for _, e := range append(examples, bad) {
		toolchain.WriteFile(t, filepath.Join(prog, e.Name+".py"), e.Code)
		args = append(args, e.Name+".py")
	}
	out, err := toolchain.Command(t.Context(), prog, toolchain.PythonEnv(t), python, args...)
	checkReports(t, "mypy --strict", out, err, examples, ".py", regexp.MustCompile(`(?m)^([^\s:]+):\d+: error: .*$`))
}
