package docs_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/snippets"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/toolchain"
)

// TestGoExamples builds and vets every Go snippet of the docs, each a main package
// of its own, in a temporary module that requires the SDK with a replace directive
// to the repository's sdk/ (its go.mod's requirements and go.sum, so nothing new is
// resolved); a snippet with a misspelt field must fail to build.
func TestGoExamples(t *testing.T) {
	t.Parallel()
	examples := snippets.Examples(t, "go")
	bad := broken(t, examples, spec.EndpointSliceToken, "AddressType: discoveryv1", "AdressType: discoveryv1")
	sdk := filepath.Join(toolchain.RepoRoot(t), "sdk")
	sdkMod, err := os.ReadFile(filepath.Clean(filepath.Join(sdk, "go.mod")))
	if err != nil {
		t.Fatal(err)
	}
	const sdkModule = "github.com/endpoints-provider/pulumi-endpoints/sdk"
	mod := t.TempDir()
	goMod := strings.Replace(string(sdkMod), "module "+sdkModule+"\n", "module docsexamples\n", 1)
	if goMod == string(sdkMod) {
		t.Fatalf("sdk/go.mod does not declare module %s", sdkModule)
	}
	goMod += "\nrequire " + sdkModule + " v0.0.0\n\nreplace " + sdkModule + " => " + sdk + "\n"
	toolchain.WriteFile(t, filepath.Join(mod, "go.mod"), goMod)
	toolchain.CopyFile(t, filepath.Join(sdk, "go.sum"), filepath.Join(mod, "go.sum"))
	pkgs := []string{}
	for _, e := range append(examples, bad) {
		toolchain.WriteFile(t, filepath.Join(mod, e.Name, "main.go"), e.Code)
		if e.Name != "broken" {
			pkgs = append(pkgs, "./"+e.Name)
		}
	}

	// -trimpath keeps the temporary directory out of the build cache's keys.
	env := []string{"GOFLAGS=-mod=mod", "GOWORK=off"}
	if out, err := toolchain.Command(t.Context(), mod, env, "go", append([]string{"vet", "-trimpath"}, pkgs...)...); err != nil {
		for _, e := range examples {
			if strings.Contains(out, e.Name+"/main.go") {
				t.Errorf("go vet rejects the example %s", e)
			}
		}
		t.Errorf("go vet of the Go examples: %v\n%s", err, out)
	}
	out, err := toolchain.Command(t.Context(), mod, env, "go", "vet", "-trimpath", "./broken")
	if err == nil || !regexp.MustCompile(`broken/main\.go:\d+:\d+: unknown field AdressType`).MatchString(out) {
		t.Errorf("go vet did not reject the broken snippet (err %v):\n%s", err, out)
	}
}
