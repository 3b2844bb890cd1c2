package sdk_test

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Versions the SDKs are built against, as the interface requires.
const (
	pulumiVersion     = "3.256.0"  // @pulumi/pulumi on npm, pulumi on PyPI
	typescriptVersion = "5.9.3"    // within the SDK's devDependencies (^5.0.0)
	typesNodeVersion  = "20.19.43" // within the SDK's devDependencies (^20.0.0)
	mypyVersion       = "1.20.2"
)

// repoRoot returns the repository root (tests run in tests/sdk).
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "schema.json")); err != nil {
		t.Fatalf("repository root not found from the test directory: %v", err)
	}
	return root
}

func sdkDir(t *testing.T) string {
	t.Helper()
	return filepath.Join(repoRoot(t), "sdk")
}

// cacheDir returns $HOME/.cache/pulumi-endpoints/<name>, created if needed: the
// download caches of npm and pip, shared by every run.
func cacheDir(t *testing.T, name string) string {
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

// sdkVersion is the version `make gen` stamps by default: VERSION in the Makefile.
func sdkVersion(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot(t), "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^VERSION \?= (\S+)$`).FindSubmatch(data)
	if m == nil {
		t.Fatal("no `VERSION ?= ...` line in the Makefile")
	}
	return string(m[1])
}

// command runs name in dir with the extra environment and returns its combined
// output and error.
func command(ctx context.Context, dir string, env []string, name string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	err := cmd.Run()
	return out.String(), err
}

// run runs a command that must succeed and returns its output.
func run(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	out, err := command(t.Context(), dir, env, name, args...)
	if err != nil {
		t.Fatalf("%s %s (in %s): %v\n%s", name, strings.Join(args, " "), dir, err, out)
	}
	return out
}

// copyDir copies the regular files of src into dst.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o750)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o600)
	})
	if err != nil {
		t.Fatalf("copy %s to %s: %v", src, dst, err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// readmeExample returns the first code block of the given language in a README:
// the example that users copy, which the language tests compile.
func readmeExample(t *testing.T, readme, lang string) string {
	t.Helper()
	m := regexp.MustCompile("(?s)```" + lang + "\n(.*?)```").FindStringSubmatch(readFile(t, readme))
	if m == nil {
		t.Fatalf("%s has no ```%s example", readme, lang)
	}
	return m[1]
}
