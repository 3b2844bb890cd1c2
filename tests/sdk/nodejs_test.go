package sdk_test

import (
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/toolchain"
	"path/filepath"
	"strings"
	"testing"
)

// TestNodeSDK builds the Node.js SDK as its users do and compiles programs against
// it. In a copy of sdk/nodejs: `npm install` with @pulumi/pulumi pinned to the
// interface's version, `tsc --strict` (the SDK's build), `npm pack` of the built
// package. In a program directory: `npm install` of that package, then
// `tsc --strict --noEmit` of a program using every token (both forms of each
// lookup) and of the README's example; a program with wrong names and types must
// fail to compile, and the installed package must load in node.
func TestNodeSDK(t *testing.T) {
	t.Parallel()
	env := toolchain.NodeEnv(t)
	tarball := toolchain.PackNodeSDK(t)
	pins := toolchain.NodePins()
	tmp := t.TempDir()

	// A program that installs the packed SDK.
	prog := filepath.Join(tmp, "program")
	toolchain.WriteFile(t, filepath.Join(prog, "package.json"), `{"name": "program", "private": true}`+"\n")
	toolchain.WriteFile(t, filepath.Join(prog, "program.ts"), toolchain.ReadFile(t, filepath.Join("testdata", "nodejs", "program.ts")))
	toolchain.WriteFile(t, filepath.Join(prog, "broken.ts"), toolchain.ReadFile(t, filepath.Join("testdata", "nodejs", "broken.ts")))
	toolchain.WriteFile(t, filepath.Join(prog, "readme.ts"), readmeExample(t, filepath.Join(sdkDir(t), "nodejs", "README.md"), "typescript"))
	run(t, prog, env, "npm", append([]string{"install", tarball}, pins...)...)
	tsc := filepath.Join(prog, "node_modules", ".bin", "tsc")
	tscArgs := []string{"--strict", "--noEmit", "--target", "ES2022", "--module", "nodenext", "--moduleResolution", "nodenext", "--types", "node"}
	run(t, prog, env, tsc, append(tscArgs, "program.ts", "readme.ts")...)

	out, err := command(t.Context(), prog, env, tsc, append(tscArgs, "broken.ts")...)
	if err == nil {
		t.Errorf("tsc --strict accepted broken.ts; it must reject wrong names and types:\n%s", out)
	}
	for _, want := range []string{
		"broken.ts(5,", "'continue_' does not exist",
		"broken.ts(6,", "importDataFileId",
		"broken.ts(7,", `"IPv5"`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("tsc on broken.ts does not report %q:\n%s", want, out)
		}
	}

	// The package loads, and its pulumi section names the plugin.
	script := `const e = require("@endpoints-provider/endpoints");
const fns = [e.core.v1.EndpointsList, e.discovery.v1.EndpointSlice,
  e.migration.v1alpha1.getImportDataFile, e.migration.v1alpha1.getImportDataFileOutput,
  e.accessgateway.v1.getOrganizationPartnerTenantProxyConfigIamPolicy,
  e.accessgateway.v1.getOrganizationPartnerTenantProxyConfigIamPolicyOutput];
if (fns.some(f => typeof f !== "function")) { console.error("missing exports"); process.exit(1); }
console.log(JSON.stringify(require("@endpoints-provider/endpoints/package.json").pulumi));`
	got := strings.TrimSpace(run(t, prog, env, "node", "-e", script))
	want := `{"resource":true,"name":"endpoints","version":"` + sdkVersion(t) + `","server":"` + pluginServer + `"}`
	if got != want {
		t.Errorf("installed package.json pulumi section = %s, want %s", got, want)
	}
}
