package packages

import (
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/toolchain"
)

// Statements of a minimum version in the pages users and contributors read, such as
// "Node.js 22 or later": each captures the version.
var (
	nodeMinimum   = regexp.MustCompile(`Node\.js (\d+(?:\.\d+)*) or (?:later|newer)`)
	pythonMinimum = regexp.MustCompile(`Python (\d+(?:\.\d+)*) or (?:later|newer)`)
	goMinimum     = regexp.MustCompile(`\bGo (\d+(?:\.\d+)*) or (?:later|newer)`)
	jdkMinimum    = regexp.MustCompile(`JDK (\d+) or (?:later|newer)`)
)

// documentedPages are the Markdown pages that state prerequisites: README.md,
// CONTRIBUTING.md, docs/ and the examples' READMEs.
func documentedPages(t *testing.T) []string {
	t.Helper()
	root := toolchain.RepoRoot(t)
	pages := []string{filepath.Join(root, "README.md"), filepath.Join(root, "CONTRIBUTING.md")}
	for _, dir := range []string{"docs", "examples"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(path, ".md") {
				pages = append(pages, path)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return pages
}

// wantDocumentedMinimum checks that every statement re finds in documentedPages names
// one of the versions allowed (a trailing ".0" left out either way), where what is
// the tool and why says where the allowed versions come from; it also fails when no
// page states one.
func wantDocumentedMinimum(t *testing.T, what string, re *regexp.Regexp, why string, allowed ...string) {
	t.Helper()
	for i, v := range allowed {
		allowed[i] = strings.TrimSuffix(v, ".0")
	}
	found := 0
	root := toolchain.RepoRoot(t)
	for _, page := range documentedPages(t) {
		for _, m := range re.FindAllStringSubmatch(toolchain.ReadFile(t, page), -1) {
			found++
			if !slices.Contains(allowed, strings.TrimSuffix(m[1], ".0")) {
				rel, _ := filepath.Rel(root, page)
				t.Errorf("%s says %q: want %s %s (%s)", rel, m[0], what, strings.Join(allowed, " or "), why)
			}
		}
	}
	if found == 0 {
		t.Errorf("no page states the %s version needed (%s)", what, why)
	}
}

// minimumOf returns the version of a requirement such as ">=22" or ">= 3.10".
func minimumOf(t *testing.T, requirement string) string {
	t.Helper()
	m := regexp.MustCompile(`^>=\s*(\d+(?:\.\d+)*)$`).FindStringSubmatch(strings.TrimSpace(requirement))
	if m == nil {
		t.Fatalf("requirement %q is not of the form >=X", requirement)
	}
	return m[1]
}

// goLine returns the version of a go.mod's go line.
func goLine(t *testing.T, gomod string) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^go (\S+)$`).FindStringSubmatch(toolchain.ReadFile(t, gomod))
	if m == nil {
		t.Fatalf("%s has no go line", gomod)
	}
	return m[1]
}

// javaRelease returns the Java release a pom.xml compiles for.
func javaRelease(t *testing.T, pom string) string {
	t.Helper()
	m := regexp.MustCompile(`<maven\.compiler\.release>(\d+)</maven\.compiler\.release>`).FindStringSubmatch(toolchain.ReadFile(t, pom))
	if m == nil {
		t.Fatalf("%s names no maven.compiler.release", pom)
	}
	return m[1]
}

// TestGoAndJavaPrerequisitesDocumented checks the Go and JDK versions the pages state
// against the go lines of the Go SDK's module (what a user's program needs) and of
// the repository's module (what building from a clone needs), and against the Java
// releases of the Java SDK's pom and of the Java example's.
func TestGoAndJavaPrerequisitesDocumented(t *testing.T) {
	t.Parallel()
	root := toolchain.RepoRoot(t)
	wantDocumentedMinimum(t, "Go", goMinimum, "the go lines of sdk/go.mod and go.mod",
		goLine(t, filepath.Join(root, "sdk", "go.mod")), goLine(t, filepath.Join(root, "go.mod")))
	wantDocumentedMinimum(t, "JDK", jdkMinimum, "the Java releases of sdk/java/pom.xml and examples/kubernetes/java/pom.xml",
		javaRelease(t, filepath.Join(root, "sdk", "java", "pom.xml")),
		javaRelease(t, filepath.Join(root, "examples", "kubernetes", "java", "pom.xml")))
}
