package packages

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/registries"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/toolchain"
)

// goSDKModule is the Go SDK's module, released by the tags sdk/vX.Y.Z.
const goSDKModule = registries.GoSDKModule

// TestGoModule gets the Go SDK as users do: a program's module requires
// goSDKModule at the release version, which `go get` fetches through GOPROXY, here
// the file:// module proxy `make dist` writes (dist/goproxy: the module zip, go.mod
// and info the proxy would serve for the tag sdk/v<version>) in front of the public
// proxy for every other module. It builds the program and runs its up and destroy.
//
// The checksum database does not know the SDK module (GONOSUMDB), and the module
// cache is the test's own, so the module it gets is the one served now (a shared cache
// would keep an earlier run's sdk@v<version>); the shared cache's downloads are a
// proxy in front of the network, so a second run is offline.
func TestGoModule(t *testing.T) {
	t.Parallel()
	version := "v" + toolchain.ReleaseVersion(t)
	proxy := filepath.Join(distDir(t), "goproxy")
	distFile(t, filepath.Join("goproxy", filepath.FromSlash(goSDKModule), "@v", version+".zip"))

	p := newUserProject(t, "go")
	goEnv := []string{
		"GOPROXY=" + strings.Join(append([]string{registries.FileURL(proxy)}, registries.SharedModuleDownloads(t)...), ","),
		"GONOSUMDB=" + goSDKModule,
		"GOMODCACHE=" + t.TempDir(),
		// -modcacherw: the test's module cache can be removed with its directory.
		"GOFLAGS=-mod=mod -modcacherw",
		"GOWORK=off",
		"GOTOOLCHAIN=local",
	}
	toolchain.CopyFile(t, filepath.Join("testdata", "go", "main.go"), filepath.Join(p.dir, "main.go"))
	toolchain.Run(t, p.dir, goEnv, "go", "mod", "init", "example.com/packages-go")
	toolchain.Run(t, p.dir, goEnv, "go", "get", goSDKModule+"@"+version)
	toolchain.Run(t, p.dir, goEnv, "go", "mod", "tidy")

	var got struct {
		Path, Version, Dir string
		Replace            *struct{ Path string }
	}
	out := toolchain.Run(t, p.dir, goEnv, "go", "list", "-m", "-json", goSDKModule)
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("go list -m -json %s: %v\n%s", goSDKModule, err, out)
	}
	if got.Version != version || got.Replace != nil || !strings.Contains(got.Dir, goSDKModule+"@"+version) {
		t.Errorf("the program's module has %s %s from %s (replaced: %v), want %s from the module cache", goSDKModule, got.Version, got.Dir, got.Replace != nil, version)
	}

	// -trimpath keys the build cache by module, not by this test's module cache
	// directory: a second run reuses the compiled SDK and pulumi packages.
	program := filepath.Join(t.TempDir(), "program")
	toolchain.Run(t, p.dir, goEnv, "go", "build", "-trimpath", "-o", program, ".")
	p.lifecycle(t, []string{program})
}
