package sdk_test

import (
	"encoding/json"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/toolchain"
	"path/filepath"
	"strings"
	"testing"
)

// TestPythonSDK installs the Python SDK as its users do and type-checks programs
// against it: a virtualenv, `pip install` of a copy of sdk/python with pulumi
// pinned to the interface's version, an import of every token, then
// `mypy --strict` on a program using every token (both forms of each lookup) and
// on the README's example; a program with wrong names and types must fail.
func TestPythonSDK(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	env := toolchain.PythonEnv(t)
	python := toolchain.PythonVenv(t, "mypy=="+mypyVersion)

	// Every token imports, and the installed package carries its plugin metadata.
	script := `import importlib.resources, json
import pulumi_endpoints as e
fns = [e.core.v1.EndpointsList, e.discovery.v1.EndpointSlice,
       e.migration.v1alpha1.get_import_data_file, e.migration.v1alpha1.get_import_data_file_output,
       e.accessgateway.v1.get_organization_partner_tenant_proxy_config_iam_policy,
       e.accessgateway.v1.get_organization_partner_tenant_proxy_config_iam_policy_output]
assert all(callable(f) for f in fns), fns
print(importlib.resources.files("pulumi_endpoints").joinpath("pulumi-plugin.json").read_text())`
	var plugin map[string]any
	out := run(t, tmp, env, python, "-c", script)
	if err := json.Unmarshal([]byte(out), &plugin); err != nil {
		t.Fatalf("installed pulumi-plugin.json: %v\n%s", err, out)
	}
	want := map[string]any{"resource": true, "name": "endpoints", "version": sdkVersion(t), "server": pluginServer}
	if len(plugin) != len(want) || plugin["resource"] != true || plugin["name"] != want["name"] ||
		plugin["version"] != want["version"] || plugin["server"] != want["server"] {
		t.Errorf("installed pulumi-plugin.json = %v, want %v", plugin, want)
	}

	// Type checks, outside the copy so that mypy sees the installed package.
	prog := filepath.Join(tmp, "program")
	toolchain.WriteFile(t, filepath.Join(prog, "program.py"), toolchain.ReadFile(t, filepath.Join("testdata", "python", "program.py")))
	toolchain.WriteFile(t, filepath.Join(prog, "broken.py"), toolchain.ReadFile(t, filepath.Join("testdata", "python", "broken.py")))
	toolchain.WriteFile(t, filepath.Join(prog, "readme.py"), readmeExample(t, filepath.Join(sdkDir(t), "python", "README.md"), "python"))
	mypy := []string{"-m", "mypy", "--strict", "--no-incremental"}
	run(t, prog, env, python, append(mypy, "program.py", "readme.py")...)

	out, err := command(t.Context(), prog, env, python, append(mypy, "broken.py")...)
	if err == nil {
		t.Errorf("mypy --strict accepted broken.py; it must reject wrong names and types:\n%s", out)
	}
	for _, want := range []string{
		`broken.py:7: error: Argument "continue_" to "ListMetaArgs" has incompatible type "int"`,
		`broken.py:8: error: Unexpected keyword argument "continue__" for "ListMetaArgs"`,
		`broken.py:9: error: Argument "location" to "get_import_data_file" has incompatible type "int"`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("mypy on broken.py does not report %q:\n%s", want, out)
		}
	}
}
