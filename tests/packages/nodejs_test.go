package packages

import (
	"archive/tar"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/toolchain"
)

// nodePackage is the npm package's name.
const nodePackage = "@endpoints-provider/endpoints"

// nodePackageFiles must be in the npm package, at its root: the entry point with its
// declarations, a resource module, the metadata, README and LICENSE.
var nodePackageFiles = []string{
	"index.js", "index.d.ts", "utilities.js", "utilities.d.ts", "provider.js", "provider.d.ts",
	"discovery/v1/endpointSlice.js", "discovery/v1/endpointSlice.d.ts",
	"core/v1/endpointsList.js", "core/v1/endpointsList.d.ts",
	"package.json", "README.md", "LICENSE",
}

// TestNodePackage installs dist/'s npm tarball into an empty project with npm, as a
// user does, next to @pulumi/pulumi and TypeScript at the pinned versions; checks the
// installed package is compiled (JavaScript and .d.ts, no TypeScript sources to
// build) and names the plugin's version and server; compiles a TypeScript program
// against it; and runs the program's up and destroy.
func TestNodePackage(t *testing.T) {
	t.Parallel()
	version := toolchain.ReleaseVersion(t)
	tarball := distFile(t, "endpoints-provider-endpoints-"+version+".tgz")
	wantTarball(t, tarball)

	p := newUserProject(t, "nodejs")
	env := toolchain.NodeEnv(t)
	if err := os.WriteFile(filepath.Join(p.dir, "package.json"), []byte(`{"name": "packages-nodejs", "private": true}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	toolchain.Run(t, p.dir, env, "npm", append([]string{"install", tarball}, toolchain.NodePins()...)...)
	wantInstalledNodePackage(t, filepath.Join(p.dir, "node_modules", filepath.FromSlash(nodePackage)), version)
	wantDocumentedMinimum(t, "Node.js", nodeMinimum, "the engines of the @pulumi/pulumi "+toolchain.PulumiVersion+" npm installed",
		nodeEngine(t, filepath.Join(p.dir, "node_modules", "@pulumi", "pulumi", "package.json")))

	for _, f := range []string{"index.ts", "tsconfig.json"} {
		toolchain.CopyFile(t, filepath.Join("testdata", "nodejs", f), filepath.Join(p.dir, f))
	}
	toolchain.Run(t, p.dir, env, filepath.Join(p.dir, "node_modules", ".bin", "tsc"))
	p.lifecycle(t, []string{"node", filepath.Join(p.dir, "bin", "index.js")})
}

// wantTarball checks the npm tarball's files: every one of nodePackageFiles under
// package/, and no TypeScript source.
func wantTarball(t *testing.T, path string) {
	t.Helper()
	files := map[string]bool{}
	tarEntries(t, path, func(h *tar.Header, _ io.Reader) {
		files[h.Name] = true
		if isTypeScriptSource(h.Name) {
			t.Errorf("%s holds the TypeScript source %s: the package must be compiled", path, h.Name)
		}
	})
	for _, want := range nodePackageFiles {
		if !files["package/"+want] {
			t.Errorf("%s lacks package/%s", path, want)
		}
	}
}

// wantInstalledNodePackage checks the package npm installed: its version and plugin
// metadata, compiled files only.
func wantInstalledNodePackage(t *testing.T, dir, version string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Clean(filepath.Join(dir, "package.json")))
	if err != nil {
		t.Fatalf("npm did not install %s: %v", nodePackage, err)
	}
	var pkg struct {
		Name    string
		Version string
		Pulumi  struct {
			Resource bool
			Name     string
			Version  string
			Server   string
		}
	}
	if err := json.Unmarshal(data, &pkg); err != nil {
		t.Fatalf("%s/package.json: %v", dir, err)
	}
	if pkg.Name != nodePackage || pkg.Version != version || !pkg.Pulumi.Resource || pkg.Pulumi.Name != "endpoints" ||
		pkg.Pulumi.Version != version || pkg.Pulumi.Server != pluginServer {
		t.Errorf("installed package.json names %s %s, plugin %+v; want %s %s, plugin endpoints %s from %s",
			pkg.Name, pkg.Version, pkg.Pulumi, nodePackage, version, version, pluginServer)
	}
	for _, f := range nodePackageFiles {
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(f))); err != nil {
			t.Errorf("installed package lacks %s: %v", f, err)
		}
	}
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && isTypeScriptSource(path) {
			t.Errorf("installed package holds the TypeScript source %s, which would need a build", path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func isTypeScriptSource(name string) bool {
	return strings.HasSuffix(name, ".ts") && !strings.HasSuffix(name, ".d.ts")
}

// nodeEngine returns the minimum Node.js version a package.json declares (engines.node).
func nodeEngine(t *testing.T, packageJSON string) string {
	t.Helper()
	var pkg struct {
		Engines struct{ Node string }
	}
	if err := json.Unmarshal([]byte(toolchain.ReadFile(t, packageJSON)), &pkg); err != nil {
		t.Fatalf("%s: %v", packageJSON, err)
	}
	return minimumOf(t, pkg.Engines.Node)
}
