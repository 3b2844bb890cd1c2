package docs_test

import (
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/toolchain"
)

// userPages are the pages users read, relative to the repository's root: README.md,
// every Markdown page under docs/ and every README.md under examples/ (but those of
// what an example's toolchain installs or builds, which are not the repository's).
func userPages(t *testing.T) []string {
	t.Helper()
	root := toolchain.RepoRoot(t)
	pages := []string{"README.md"}
	for _, dir := range []string{"docs", "examples"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(file string, d os.DirEntry, err error) error {
			switch {
			case err != nil:
				return err
			case d.IsDir() && (strings.HasPrefix(d.Name(), ".") || slices.Contains(exampleBuildDirs, d.Name())):
				return filepath.SkipDir
			case d.IsDir() || !strings.HasSuffix(file, ".md") || dir == "examples" && d.Name() != "README.md":
				return nil
			}
			rel, err := filepath.Rel(root, file)
			pages = append(pages, filepath.ToSlash(rel))
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return pages
}

// exampleBuildDirs hold what an example's toolchain installs or builds (.gitignore).
var exampleBuildDirs = []string{"node_modules", "venv", "bin", "obj", "target", "__pycache__"}

// forUsers reports whether the page at path name is one users read: README.md, a
// page under docs/ or an example's README.md.
func forUsers(name string) bool {
	return name == "README.md" || strings.HasPrefix(name, "docs/") ||
		strings.HasPrefix(name, "examples/") && path.Base(name) == "README.md"
}

// The pages users read are README.md, the pages under docs/ and the examples'
// README.md files, and no page an example's toolchain installed.
func TestUserPages(t *testing.T) {
	t.Parallel()
	pages := userPages(t)
	for _, want := range []string{"README.md", "docs/_index.md", "docs/guides/performance.md", "examples/README.md", "examples/kubernetes/yaml/README.md"} {
		if !slices.Contains(pages, want) {
			t.Errorf("the pages users read lack %s: %q", want, pages)
		}
	}
	for _, p := range pages {
		if !forUsers(p) || strings.Contains(p, "node_modules") {
			t.Errorf("%s is not a page users read", p)
		}
	}
	for _, p := range []string{"CONTRIBUTING.md", "CHANGELOG.md", "examples/kubernetes/yaml/Pulumi.md", "tests/README.md"} {
		if forUsers(p) {
			t.Errorf("forUsers(%q) = true", p)
		}
	}
}
