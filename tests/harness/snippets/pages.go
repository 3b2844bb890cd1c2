package snippets

import (
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/toolchain"
)

// Pages are the repository's Markdown pages besides IndexPage whose snippets are
// checked in the languages they hold, relative to the repository root: the README's
// first programs, the configuration page's explicit provider, the resources guide's
// reads of existing objects, the traffic and moving-off-Endpoints guides' programs, and
// the program of the guide to using the provider beside pulumi-kubernetes.
var Pages = []string{"README.md", "docs/installation-configuration.md", "docs/guides/resources.md",
	"docs/guides/traffic.md", "docs/guides/moving-off-endpoints.md", "docs/guides/with-kubernetes.md"}

// LanguagePages are pages whose snippets are checked in the languages listed only: the
// migration guide's before and after programs in TypeScript and Python (its YAML
// programs are run by the migration tests, against a cluster).
var LanguagePages = map[string][]string{"docs/guides/migrating.md": {"typescript", "python"}}

// PageExamples returns the snippets of language lang of every page of Pages, and of
// LanguagePages for that language, in order. It fails the test when a page cannot be
// read.
func PageExamples(t testing.TB, lang string) []Example {
	t.Helper()
	var out []Example
	pages := slices.Clone(Pages)
	for _, source := range slices.Sorted(maps.Keys(LanguagePages)) {
		if slices.Contains(LanguagePages[source], lang) {
			pages = append(pages, source)
		}
	}
	for _, source := range pages {
		page, err := os.ReadFile(filepath.Clean(filepath.Join(toolchain.RepoRoot(t), filepath.FromSlash(source))))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ParsePage(source, string(page)) {
			if e.Lang == lang {
				out = append(out, e)
			}
		}
	}
	return out
}

// wholeProject matches a YAML snippet that is a whole Pulumi.yaml: one that names its
// project, as a program a user copies does.
var wholeProject = regexp.MustCompile(`(?m)^name:`)

// YAMLProject returns the Pulumi.yaml that runs a YAML snippet: the snippet itself when
// it is a whole project, else the snippet under a project name of its own.
func YAMLProject(e Example) string {
	if wholeProject.MatchString(e.Code) {
		return e.Code
	}
	return "name: docs-" + strings.ToLower(e.Name) + "\nruntime: yaml\n" + e.Code
}
