package docs_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/toolchain"
)

// RegistryPages are the pages the Pulumi Registry publishes from docs/, by file name
// (there, the overview page ./ and ./installation-configuration/).
var RegistryPages = []string{"_index.md", "installation-configuration.md"}

// repoURL is the repository's address: a registry page links to any other file of the
// repository by its full URL under repoURL/blob/main/ (a file) or /tree/main/ (a
// directory).
const repoURL = "https://github.com/endpoints-provider/pulumi-endpoints"

var (
	markdownLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	headingLine  = regexp.MustCompile(`(?m)^#{1,6} +(.+?) *$`)
	repoLink     = regexp.MustCompile(`^` + regexp.QuoteMeta(repoURL) + `/(blob|tree)/main/([^#?]+)`)
)

// linkProblem says what is wrong with the link target on a registry page whose
// headings give anchors, or "" when it resolves both where the registry publishes the
// page and on GitHub: an anchor of the page itself or a full URL; a URL into the
// repository must name a file or directory that exists under root. A relative link
// resolves in one of the two places only: the registry's path of the other registry
// page (./installation-configuration/) is no file on GitHub, and a path of the
// repository (a guide, a Markdown file) is no page on the registry.
func linkProblem(root, target string, anchors map[string]bool) string {
	path, anchor, _ := strings.Cut(target, "#")
	switch {
	case path == "":
		if !anchors[anchor] {
			return "no heading of the page has the anchor #" + anchor
		}
		return ""
	case strings.HasPrefix(path, "http://"), strings.HasPrefix(path, "https://"):
		m := repoLink.FindStringSubmatch(path)
		if m == nil {
			return ""
		}
		file := filepath.Join(root, filepath.FromSlash(m[2]))
		info, err := os.Stat(file)
		switch {
		case err != nil:
			return "the repository has no " + m[2]
		case info.IsDir() != (m[1] == "tree"):
			return "a " + m[1] + " link to " + m[2] + ": use /blob/main/ for a file, /tree/main/ for a directory"
		case anchor != "" && strings.HasSuffix(file, ".md"):
			if text, err := os.ReadFile(filepath.Clean(file)); err != nil || !anchorsOf(string(text))[anchor] {
				return "no heading of " + m[2] + " has the anchor #" + anchor
			}
		}
		return ""
	}
	return "a relative link resolves on the registry or on GitHub, not on both: " +
		"link it by its full URL under " + repoURL + "/blob/main/ (the registry's pages too)"
}

// anchorsOf returns the anchors of a page's headings, as GitHub and Hugo make them:
// lower case, punctuation dropped, spaces as hyphens.
func anchorsOf(page string) map[string]bool {
	anchors := map[string]bool{}
	drop := regexp.MustCompile(`[^a-z0-9 _-]`)
	for _, m := range headingLine.FindAllStringSubmatch(page, -1) {
		anchors[strings.ReplaceAll(drop.ReplaceAllString(strings.ToLower(m[1]), ""), " ", "-")] = true
	}
	return anchors
}

// TestRegistryPageLinks checks every link of the pages the registry publishes
// (RegistryPages) with linkProblem.
func TestRegistryPageLinks(t *testing.T) {
	t.Parallel()
	root := toolchain.RepoRoot(t)
	for _, name := range RegistryPages {
		page := toolchain.ReadFile(t, filepath.Join(root, "docs", name))
		anchors := anchorsOf(page)
		for _, m := range markdownLink.FindAllStringSubmatch(page, -1) {
			if problem := linkProblem(root, m[1], anchors); problem != "" {
				t.Errorf("docs/%s links to %s: %s", name, m[1], problem)
			}
		}
	}
}

func TestLinkProblem(t *testing.T) {
	t.Parallel()
	root := toolchain.RepoRoot(t)
	anchors := anchorsOf("# Title\n\n## Cluster identity\n\n### The plugin's archive\n")
	for _, tc := range []struct {
		target, want string
	}{
		{"#cluster-identity", ""},
		{"#the-plugins-archive", ""},
		{"#drift", "no heading of the page has the anchor #drift"},
		{"./installation-configuration/", "a relative link resolves"},
		{"./installation-configuration/#cluster-identity", "a relative link resolves"},
		{repoURL + "/blob/main/docs/installation-configuration.md#cluster-identity", ""},
		{"https://www.pulumi.com/docs/install/", ""},
		{repoURL + "/blob/main/docs/guides/migrating.md", ""},
		{repoURL + "/blob/main/docs/guides/resources.md#endpointslice", ""},
		{repoURL + "/blob/main/docs/guides/resources.md#nothing", "no heading of docs/guides/resources.md has the anchor #nothing"},
		{repoURL + "/tree/main/examples", ""},
		{repoURL + "/blob/main/docs/guides/nothing.md", "the repository has no docs/guides/nothing.md"},
		{repoURL + "/blob/main/examples", "a blob link to examples: use /blob/main/ for a file, /tree/main/ for a directory"},
		{"./guides/migrating/", "a relative link resolves"},
		{"guides/resources.md#endpointslice", "a relative link resolves"},
		{"../BENCHMARKS.md", "a relative link resolves"},
		{"installation-configuration.md", "a relative link resolves"},
	} {
		got := linkProblem(root, tc.target, anchors)
		if (tc.want == "") != (got == "") || !strings.HasPrefix(got, tc.want) {
			t.Errorf("linkProblem(%q) = %q, want %q", tc.target, got, tc.want)
		}
	}
}

// relativeLinkProblem says what is wrong with a relative link target of the
// repository page at page (a path under root), or "" when the file or directory it
// names exists and, for a Markdown file, has a heading of its anchor.
func relativeLinkProblem(root, page, target string) string {
	path, anchor, _ := strings.Cut(target, "#")
	file := filepath.Join(root, filepath.Dir(page))
	if path != "" {
		file = filepath.Join(file, filepath.FromSlash(path))
	} else {
		file = filepath.Join(root, page)
	}
	if _, err := os.Stat(file); err != nil {
		return "no such file or directory"
	}
	if anchor != "" && strings.HasSuffix(file, ".md") {
		if text, err := os.ReadFile(filepath.Clean(file)); err != nil || !anchorsOf(string(text))[anchor] {
			return "no heading there has the anchor #" + anchor
		}
	}
	return ""
}

// TestRepositoryPageLinks checks the relative links of README.md and of the pages
// under examples/ with relativeLinkProblem: the examples' READMEs link the steps they
// share on examples/README.md by anchor, and the README links the install page's.
func TestRepositoryPageLinks(t *testing.T) {
	t.Parallel()
	root := toolchain.RepoRoot(t)
	pages := []string{"README.md"}
	for _, page := range versionedPages(t, root) {
		if strings.HasPrefix(page, "examples"+string(filepath.Separator)) {
			pages = append(pages, page)
		}
	}
	for _, page := range pages {
		for _, m := range markdownLink.FindAllStringSubmatch(toolchain.ReadFile(t, filepath.Join(root, page)), -1) {
			if strings.Contains(m[1], "://") || strings.HasPrefix(m[1], "mailto:") {
				continue
			}
			if problem := relativeLinkProblem(root, page, m[1]); problem != "" {
				t.Errorf("%s links to %s: %s", page, m[1], problem)
			}
		}
	}
}
