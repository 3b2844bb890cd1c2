package toolchain

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Versions the SDKs are built and used with.
const (
	PulumiVersion     = "3.256.0"  // @pulumi/pulumi on npm, pulumi on PyPI
	TypeScriptVersion = "5.9.3"    // within the Node SDK's devDependencies (^5.0.0)
	TypesNodeVersion  = "20.19.43" // within the Node SDK's devDependencies (^20.0.0)
)

// RepoRoot returns the repository root: the nearest directory above the working
// directory that holds schema.json.
func RepoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "schema.json")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("repository root (the directory of schema.json) not found above the test directory")
		}
		dir = parent
	}
}

// CacheDir returns $HOME/.cache/pulumi-endpoints/<name>, created if needed: the
// npm and pip download caches that every run shares.
func CacheDir(t testing.TB, name string) string {
	t.Helper()
	home, err := os.UserHomeDir()
	if err != nil {
		t.Fatalf("no home directory for the download cache: %v", err)
	}
	dir := filepath.Join(home, ".cache", "pulumi-endpoints", name)
	if err := os.MkdirAll(dir, 0o750); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Command runs name in dir with the extra environment and returns its combined
// output and error.
func Command(ctx context.Context, dir string, env []string, name string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	err := cmd.Run()
	return out.String(), err
}

// Run runs a command that must succeed and returns its output.
func Run(t testing.TB, dir string, env []string, name string, args ...string) string {
	t.Helper()
	out, err := Command(t.Context(), dir, env, name, args...)
	if err != nil {
		t.Fatalf("%s %s (in %s): %v\n%s", name, strings.Join(args, " "), dir, err, out)
	}
	return out
}

// CopyDir copies the regular files of src into dst.
func CopyDir(t testing.TB, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		return copyFile(path, filepath.Join(dst, rel))
	})
	if err != nil {
		t.Fatalf("copy %s to %s: %v", src, dst, err)
	}
}

// CopyFile copies one file, creating dst's directory.
func CopyFile(t testing.TB, src, dst string) {
	t.Helper()
	if err := copyFile(src, dst); err != nil {
		t.Fatal(err)
	}
}

// WriteFile writes content to path, creating its directory.
func WriteFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// ReadFile returns the text of the file at path.
func ReadFile(t testing.TB, path string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Clean(path))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// FileNames lists the names of the entries of dir, sorted; none when dir does not
// exist.
func FileNames(t testing.TB, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

func copyFile(src, dst string) error {
	data, err := os.ReadFile(filepath.Clean(src))
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o750); err != nil {
		return err
	}
	return os.WriteFile(dst, data, 0o600)
}

// Version returns the release version: the contents of the VERSION file at the
// repository root, which the Makefile stamps into the plugin, schema and SDKs.
func Version(t testing.TB) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(RepoRoot(t), "VERSION"))
	if err != nil {
		t.Fatal(err)
	}
	v := strings.TrimSpace(string(data))
	if v == "" || strings.ContainsAny(v, " \t\n") {
		t.Fatalf("VERSION holds %q, not one version", v)
	}
	return v
}

// ReleaseVersion returns the version of the release artifacts under test:
// TEST_ASSET_VERSION, which `make test` sets to the VERSION it built them with (make
// dist VERSION=0.6.0 DIST=... builds any version into any directory), or else the
// VERSION file's.
func ReleaseVersion(t testing.TB) string {
	t.Helper()
	if v := os.Getenv("TEST_ASSET_VERSION"); v != "" {
		return v
	}
	return Version(t)
}

// PythonPackageVersion returns the Python package's version for the version v, in
// PEP 440's spelling, as the Makefile spells it (`make -s python-sdk-version`).
func PythonPackageVersion(t testing.TB, v string) string {
	t.Helper()
	return strings.TrimSpace(Run(t, RepoRoot(t), nil, "make", "-s", "python-sdk-version", "VERSION="+v))
}

// Asset returns the path in the environment variable env, which `make test` sets to
// a tool it built or an artifact under test, failing the test with what to run when
// it is missing.
func Asset(t testing.TB, env string) string {
	t.Helper()
	path := os.Getenv(env)
	if path == "" {
		t.Fatalf("%s is not set: run the tests with `make test`, which builds the tools and dist/ and sets it", env)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("%s=%s: %v (run `make tools dist`)", env, path, err)
	}
	return path
}
