package packages

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/toolchain"
)

// pythonPackageFiles must be in the wheel's and the sdist's package directory.
var pythonPackageFiles = []string{
	"__init__.py", "_utilities.py", "provider.py", "py.typed", "pulumi-plugin.json",
	"discovery/v1/endpoint_slice.py", "core/v1/endpoints_list.py",
}

// TestPythonVersion checks the Python package's version for each form of VERSION:
// PEP 440's spelling of a semver prerelease, and an error for one it cannot spell so
// that the SDK reads it back as VERSION.
func TestPythonVersion(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ version, want string }{
		{"0.5.0", "0.5.0"},
		{"0.5.0-alpha.1", "0.5.0a1"},
		{"1.2.3-beta.2", "1.2.3b2"},
		{"1.2.3-rc.10", "1.2.3rc10"},
		{"1.2.3-dev.4", "1.2.3.dev4"},
		{"0.7.0-dev.0", "0.7.0.dev0"},
		// 0.7.0.dev0 reads back as 0.7.0-dev.0: the SDK would ask for a plugin 0.7.0-dev no release holds.
		{"0.7.0-dev", ""},
		{"1.2.3-alpha.1+g1a2b", "1.2.3a1+g1a2b"},
		{"1.2.3-preview.1", ""},
		{"v1.2.3", ""},
	} {
		t.Run(tc.version, func(t *testing.T) {
			t.Parallel()
			out, err := toolchain.Command(t.Context(), toolchain.RepoRoot(t), nil,
				"make", "-s", "python-sdk-version", "VERSION="+tc.version)
			got := strings.TrimSpace(out)
			switch {
			case tc.want == "" && err == nil:
				t.Errorf("VERSION=%s: Python version %q, want an error (no PEP 440 form)", tc.version, got)
			case tc.want != "" && (err != nil || got != tc.want):
				t.Errorf("VERSION=%s: Python version %q (err=%v), want %q", tc.version, got, err, tc.want)
			}
		})
	}
}

// pythonVersion is the Python package's version of the release under test.
func pythonVersion(t *testing.T) string {
	t.Helper()
	return toolchain.PythonPackageVersion(t, toolchain.ReleaseVersion(t))
}

// TestPythonWheel checks dist/'s wheel (its files, version, plugin metadata and
// LICENSE), installs it with pip into a new virtualenv with pulumi at the pinned
// version, as a user does, and runs a program's up and destroy with it.
func TestPythonWheel(t *testing.T) {
	t.Parallel()
	version, pyVersion := toolchain.ReleaseVersion(t), pythonVersion(t)
	wheel := distFile(t, "pulumi_endpoints-"+pyVersion+"-py3-none-any.whl")
	files := wheelFiles(t, wheel)
	for _, f := range pythonPackageFiles {
		if _, ok := files["pulumi_endpoints/"+f]; !ok {
			t.Errorf("%s lacks pulumi_endpoints/%s", wheel, f)
		}
	}
	distInfo := "pulumi_endpoints-" + pyVersion + ".dist-info/"
	for _, f := range []string{"METADATA", "RECORD", "WHEEL", "licenses/LICENSE"} {
		if _, ok := files[distInfo+f]; !ok {
			t.Errorf("%s lacks %s%s", wheel, distInfo, f)
		}
	}
	metadata := files[distInfo+"METADATA"]
	for _, want := range []string{"Name: pulumi_endpoints\n", "Version: " + pyVersion + "\n", "Requires-Dist: pulumi<4.0.0,>=3"} {
		if !strings.Contains(metadata, want) {
			t.Errorf("%s: METADATA lacks %q:\n%s", wheel, want, metadata)
		}
	}
	wantPluginJSON(t, wheel, files["pulumi_endpoints/pulumi-plugin.json"], version)

	python := toolchain.Venv(t, "pulumi=="+toolchain.PulumiVersion, wheel)
	wantInstalledPythonPackage(t, python, pyVersion)
	requiresPython := toolchain.Run(t, t.TempDir(), nil, python, "-c",
		`import importlib.metadata as m; print(m.metadata("pulumi")["Requires-Python"])`)
	wantDocumentedMinimum(t, "Python", pythonMinimum, "the Requires-Python of the pulumi "+toolchain.PulumiVersion+" pip installed",
		minimumOf(t, requiresPython))

	p := newUserProject(t, "python")
	toolchain.CopyFile(t, filepath.Join("testdata", "python", "main.py"), filepath.Join(p.dir, "main.py"))
	p.lifecycle(t, []string{python, filepath.Join(p.dir, "main.py")})
}

// TestPythonSdist checks that dist/'s sdist holds the sources, py.typed, the project
// metadata and the LICENSE, and that pip builds and installs it into a new
// virtualenv (with the build backend from PyPI, as for any user) as a package with
// py.typed that imports.
func TestPythonSdist(t *testing.T) {
	t.Parallel()
	version, pyVersion := toolchain.ReleaseVersion(t), pythonVersion(t)
	sdist := distFile(t, "pulumi_endpoints-"+pyVersion+".tar.gz")
	files := sdistFiles(t, sdist)
	root := "pulumi_endpoints-" + pyVersion + "/"
	for _, f := range []string{"pyproject.toml", "PKG-INFO", "README.md", "LICENSE"} {
		if _, ok := files[root+f]; !ok {
			t.Errorf("%s lacks %s%s", sdist, root, f)
		}
	}
	for _, f := range pythonPackageFiles {
		if _, ok := files[root+"pulumi_endpoints/"+f]; !ok {
			t.Errorf("%s lacks %spulumi_endpoints/%s", sdist, root, f)
		}
	}
	if !strings.Contains(files[root+"PKG-INFO"], "Version: "+pyVersion+"\n") {
		t.Errorf("%s: PKG-INFO lacks Version: %s:\n%s", sdist, pyVersion, files[root+"PKG-INFO"])
	}
	wantPluginJSON(t, sdist, files[root+"pulumi_endpoints/pulumi-plugin.json"], version)

	python := toolchain.Venv(t, "pulumi=="+toolchain.PulumiVersion, sdist)
	wantInstalledPythonPackage(t, python, pyVersion)
}

// wantInstalledPythonPackage checks the package pip installed into python's
// virtualenv: its version, its place (the virtualenv, not a source tree), py.typed and
// the plugin metadata beside the code.
func wantInstalledPythonPackage(t *testing.T, python, pyVersion string) {
	t.Helper()
	out := toolchain.Run(t, t.TempDir(), nil, python, "-c", `
import importlib.metadata, os, sys
import pulumi_endpoints
d = os.path.dirname(pulumi_endpoints.__file__)
print(importlib.metadata.version("pulumi_endpoints"))
print(os.path.relpath(d, sys.prefix))
print(os.path.isfile(os.path.join(d, "py.typed")), os.path.isfile(os.path.join(d, "pulumi-plugin.json")))
`)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || lines[0] != pyVersion || !strings.HasPrefix(lines[1], "lib") ||
		!strings.HasSuffix(lines[1], filepath.Join("site-packages", "pulumi_endpoints")) || lines[2] != "True True" {
		t.Errorf("installed pulumi_endpoints: version, place in the virtualenv, py.typed and pulumi-plugin.json are\n%s\nwant %s, lib/.../site-packages/pulumi_endpoints, True True", out, pyVersion)
	}
}

// wantPluginJSON checks the pulumi-plugin.json of an archive: the plugin, its version
// and the server it downloads from.
func wantPluginJSON(t *testing.T, archive, data, version string) {
	t.Helper()
	var plugin struct {
		Resource bool
		Name     string
		Version  string
		Server   string
	}
	if err := json.Unmarshal([]byte(data), &plugin); err != nil {
		t.Errorf("%s: pulumi-plugin.json %q: %v", archive, data, err)
		return
	}
	if !plugin.Resource || plugin.Name != "endpoints" || plugin.Version != version || plugin.Server != pluginServer {
		t.Errorf("%s: pulumi-plugin.json is %+v, want resource endpoints %s from %s", archive, plugin, version, pluginServer)
	}
}

// wheelFiles returns the files of a wheel: name -> contents.
func wheelFiles(t *testing.T, path string) map[string]string {
	t.Helper()
	r, err := zip.OpenReader(path)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	defer func() { _ = r.Close() }()
	files := map[string]string{}
	for _, f := range r.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatalf("%s: %s: %v", path, f.Name, err)
		}
		data, err := io.ReadAll(io.LimitReader(rc, 1<<20))
		_ = rc.Close()
		if err != nil {
			t.Fatalf("%s: %s: %v", path, f.Name, err)
		}
		files[f.Name] = string(data)
	}
	return files
}

// sdistFiles returns the regular files of a .tar.gz: name -> contents.
func sdistFiles(t *testing.T, path string) map[string]string {
	t.Helper()
	files := map[string]string{}
	tarEntries(t, path, func(h *tar.Header, r io.Reader) {
		if h.Typeflag != tar.TypeReg {
			return
		}
		data, err := io.ReadAll(io.LimitReader(r, 1<<20))
		if err != nil {
			t.Fatalf("%s: %s: %v", path, h.Name, err)
		}
		files[h.Name] = string(data)
	})
	return files
}

// tarEntries calls f with each entry of the .tar.gz at path, in order, and a reader
// of its contents.
func tarEntries(t *testing.T, path string, f func(h *tar.Header, r io.Reader)) {
	t.Helper()
	file, err := os.Open(filepath.Clean(path))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = file.Close() }()
	gz, err := gzip.NewReader(file)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	for tr := tar.NewReader(gz); ; {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		f(h, tr)
	}
}
