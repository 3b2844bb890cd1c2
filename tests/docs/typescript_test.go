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

// TestTypeScriptExamples type-checks every TypeScript snippet of the docs with
// `tsc --strict --noEmit` against the Node.js SDK built and packed from sdk/nodejs
// (@pulumi/pulumi, TypeScript and @types/node at the pinned versions, and
// @pulumi/kubernetes at the version of the plugin `make tools` builds, which the pages'
// programs use beside this provider), each snippet in a file of its own, with the
// TypeScript of the pages snippets.Pages lists (the README's program among them); a snippet
// with a misspelt property must be rejected.
func TestTypeScriptExamples(t *testing.T) {
	t.Parallel()
	examples := snippets.Examples(t, "typescript")
	bad := broken(t, examples, spec.EndpointSliceToken, `addressType: "IPv4"`, `adressType: "IPv4"`)
	examples = append(examples, snippets.PageExamples(t, "typescript")...)
	env := toolchain.NodeEnv(t)
	tarball := toolchain.PackNodeSDK(t)

	prog := t.TempDir()
	toolchain.WriteFile(t, filepath.Join(prog, "package.json"), `{"name": "docs-examples", "private": true}`+"\n")
	args := []string{"--strict", "--noEmit", "--target", "ES2022", "--module", "nodenext", "--moduleResolution", "nodenext", "--types", "node"}
	for _, e := range append(examples, bad) {
		toolchain.WriteFile(t, filepath.Join(prog, e.Name+".ts"), e.Code)
		args = append(args, e.Name+".ts")
	}
	toolchain.Run(t, prog, env, "npm", append([]string{"install", tarball, "@pulumi/kubernetes@" + pulumicli.KubernetesVersion(t)},
		toolchain.NodePins()...)...)
	out, err := toolchain.Command(t.Context(), prog, env, filepath.Join(prog, "node_modules", ".bin", "tsc"), args...)
	checkReports(t, "tsc", out, err, examples, ".ts", regexp.MustCompile(`(?m)^([^\s(]+)\(\d+,\d+\): error .*$`))
}
