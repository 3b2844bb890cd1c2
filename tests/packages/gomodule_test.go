package packages

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/module"
	modzip "golang.org/x/mod/zip"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/registries"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/toolchain"
)

// goSDKModule is the Go SDK's module, released by the tags sdk/vX.Y.Z.
const goSDKModule = registries.GoSDKModule

// TestGoModule gets the Go SDK as users do: a program's module requires
// goSDKModule at the release version, which `go get` fetches through GOPROXY, here a
// file:// module proxy serving sdk/ as that version (the module zip the proxy would
// serve for the tag sdk/v<version>) in front of the public proxy for every other
// module. It builds the program and runs its up and destroy.
//
// The checksum database does not know the SDK module (GONOSUMDB), and the module
// cache is the test's own, so the module it gets is the one served now (a shared cache
// would keep an earlier run's sdk@v<version>); the shared cache's downloads are a
// proxy in front of the network, so a second run is offline.
func TestGoModule(t *testing.T) {
	t.Parallel()
	version := "v" + toolchain.Version(t)
	proxy := goProxy(t, filepath.Join(toolchain.RepoRoot(t), "sdk"), version)

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

// goProxy writes a module proxy directory (the GOPROXY protocol's layout) that serves
// the module in dir at version, and returns it.
func goProxy(t *testing.T, dir, version string) string {
	t.Helper()
	proxy := t.TempDir()
	escaped, err := module.EscapePath(goSDKModule)
	if err != nil {
		t.Fatal(err)
	}
	base := filepath.Join(proxy, filepath.FromSlash(escaped), "@v")
	if err := os.MkdirAll(base, 0o750); err != nil {
		t.Fatal(err)
	}
	mod, err := os.ReadFile(filepath.Clean(filepath.Join(dir, "go.mod")))
	if err != nil {
		t.Fatal(err)
	}
	info, err := json.Marshal(struct {
		Version string
		Time    time.Time
	}{version, time.Now().UTC().Truncate(time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"list": []byte(version + "\n"), version + ".info": info, version + ".mod": mod} {
		if err := os.WriteFile(filepath.Join(base, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	zipFile, err := os.Create(filepath.Clean(filepath.Join(base, version+".zip")))
	if err != nil {
		t.Fatal(err)
	}
	if err := modzip.CreateFromDir(zipFile, module.Version{Path: goSDKModule, Version: version}, dir); err != nil {
		_ = zipFile.Close()
		t.Fatalf("module zip of %s (%s) at %s: %v", goSDKModule, dir, version, err)
	}
	if err := zipFile.Close(); err != nil {
		t.Fatal(err)
	}
	return proxy
}
