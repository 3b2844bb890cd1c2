package toolchain

import (
	"path/filepath"
	"testing"
)

// PythonEnv is the environment for pip: the shared cache, no prompts.
func PythonEnv(t testing.TB) []string {
	t.Helper()
	return []string{
		"PIP_CACHE_DIR=" + CacheDir(t, "pip"),
		"PIP_DISABLE_PIP_VERSION_CHECK=1",
		"PIP_NO_INPUT=1",
	}
}

// Venv makes a virtualenv with the given pip requirements installed; it returns the
// virtualenv's python.
func Venv(t testing.TB, requirements ...string) string {
	t.Helper()
	tmp := t.TempDir()
	venv := filepath.Join(tmp, "venv")
	if out, err := Command(t.Context(), tmp, nil, "python3", "-m", "venv", venv); err != nil {
		t.Fatalf("python3 -m venv failed (on Debian it needs the python3-venv package): %v\n%s", err, out)
	}
	python := filepath.Join(venv, "bin", "python")
	Run(t, tmp, PythonEnv(t), python, append([]string{"-m", "pip", "install", "--quiet"}, requirements...)...)
	return python
}

// PythonVenv makes a virtualenv with pulumi at the pinned version, the Python SDK
// (installed from a copy of sdk/python, since pip builds a local project in place)
// and the extra requirements; it returns the virtualenv's python.
func PythonVenv(t testing.TB, extra ...string) string {
	t.Helper()
	pkg := filepath.Join(t.TempDir(), "sdk")
	CopyDir(t, filepath.Join(RepoRoot(t), "sdk", "python"), pkg)
	return Venv(t, append([]string{"pulumi==" + PulumiVersion, pkg}, extra...)...)
}

// CSharpParser makes a virtualenv with the pinned tree-sitter C# parser and returns
// the command that parses C# files with it (tests/sdk/testdata/dotnet/parse_cs.py;
// the files are appended): there is no .NET SDK here to compile C#.
func CSharpParser(t testing.TB) []string {
	t.Helper()
	python := Venv(t, "tree-sitter==0.26.1", "tree-sitter-c-sharp==0.23.5")
	return []string{python, filepath.Join(RepoRoot(t), "tests", "sdk", "testdata", "dotnet", "parse_cs.py")}
}
