package docs_test

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/toolchain"
)

// published are the versions whose packages and plugin archives can be downloaded:
// a GitHub release v<version> at the plugin's download source
// (github://api.github.com/endpoints-provider/pulumi-endpoints) and the packages on
// npm, PyPI, the Go module proxy and Maven Central. None is yet, whatever CHANGELOG.md
// lists as released; add a version here once its release is published.
var published []string

// versionFacts are what a page's version may be checked against.
type versionFacts struct {
	// released are the versions of CHANGELOG.md's dated sections; next is the release
	// VERSION's prerelease leads to (0.7.0 for 0.7.0-dev.0), or VERSION itself.
	released []string
	next     string
	// major is VERSION's major version: a version X.Y.Z on a page is this
	// provider's when X is major (no tool the pages name, Kubernetes 1.x,
	// pulumi-kubernetes 4.x, the Pulumi CLI 3.x, has the provider's major, 0).
	major string
}

// releasedSection is a dated section heading of CHANGELOG.md: `## [X.Y.Z] - date`.
var releasedSection = regexp.MustCompile(`(?m)^## \[(\d+\.\d+\.\d+)\] - \d{4}-\d{2}-\d{2}\s*$`)

// readVersionFacts reads the released versions from CHANGELOG.md and the next one
// from VERSION.
func readVersionFacts(t *testing.T, root string) versionFacts {
	t.Helper()
	var f versionFacts
	for _, m := range releasedSection.FindAllStringSubmatch(toolchain.ReadFile(t, filepath.Join(root, "CHANGELOG.md")), -1) {
		f.released = append(f.released, m[1])
	}
	version := strings.TrimSpace(toolchain.ReadFile(t, filepath.Join(root, "VERSION")))
	f.next, _, _ = strings.Cut(version, "-")
	f.major, _, _ = strings.Cut(version, ".")
	if len(f.released) == 0 || f.major == "" {
		t.Fatalf("CHANGELOG.md lists no released version, or VERSION %q has no major version", version)
	}
	return f
}

// versionPattern matches a version of the provider (of facts.major) as a page writes
// it, with an optional v, not inside a longer version.
func (f versionFacts) versionPattern() string {
	return `v?(` + regexp.QuoteMeta(f.major) + `\.\d+\.\d+)\b(?:[^-.\d]|$)`
}

// The claims a text unit (a sentence, or a code block) can make about a version;
// each pattern is joined with facts.versionPattern, its version captured.
var (
	// fromMark: "(from 0.7.0)", "From 0.7.0, ...": what a version brings.
	fromMark = `\b[Ff]rom `
	// releaseClaim: the words of a sentence that calls a version released or the
	// newest release; negated says where "released" is not a claim ("not released",
	// "not yet released", "never released"; "unreleased" is no match).
	releaseClaim = regexp.MustCompile(`\b(?:newest|latest|last|current)\s+release\b|\breleased\b`)
	negated      = regexp.MustCompile(`\b(?:not|not yet|never)\s+$`)
	// The lines that download a version from where it is published: a YAML or
	// TypeScript version option beside pluginDownloadURL (in one code block or
	// sentence), `pulumi plugin install` without --file, and the package managers'
	// version pins.
	pluginDownloadURL = regexp.MustCompile(`\bpluginDownloadURL\b`)
	versionOption     = `\bversion:\s*["']?`
	pluginInstall     = regexp.MustCompile(`pulumi plugin install resource endpoints ("?[^\s"]+"?)(?:\\\n|[^\n])*`)
	packagePins       = []string{
		`github\.com/endpoints-provider/pulumi-endpoints/sdk@`,
		`@endpoints-provider/endpoints@\^?`,
		`pulumi-endpoints\s*==\s*`,
		`com\.endpointsprovider:endpoints:`,
	}
)

// textUnits splits a page into what the checks read as one statement: each fenced
// code block whole, and each sentence of the prose (sentences end at ". ", a blank
// line, a heading, a list item or a table row); each with the line it starts on.
func textUnits(page string) []textUnit {
	var units []textUnit
	lines := strings.Split(page, "\n")
	var current []string
	start := 0
	flush := func() {
		if len(current) > 0 {
			units = append(units, sentences(strings.Join(current, "\n"), start)...)
		}
		current = nil
	}
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "```") {
			flush()
			end := i + 1
			for end < len(lines) && !strings.HasPrefix(strings.TrimSpace(lines[end]), "```") {
				end++
			}
			code := strings.Join(lines[i+1:min(end, len(lines))], "\n")
			units = append(units, textUnit{line: i + 2, text: code, code: true})
			i = end
			continue
		}
		if trimmed == "" || strings.HasPrefix(trimmed, "#") || strings.HasPrefix(trimmed, "|") ||
			strings.HasPrefix(trimmed, "- ") || strings.HasPrefix(trimmed, "* ") {
			flush()
		}
		if trimmed != "" {
			if len(current) == 0 {
				start = i
			}
			current = append(current, line)
		}
	}
	flush()
	return units
}

// textUnit is a sentence or code block of a page and the line (1-based) its text
// starts on.
type textUnit struct {
	line int
	text string
	code bool
}

// sentenceEnd ends a sentence: a full stop, question or exclamation mark before
// white space.
var sentenceEnd = regexp.MustCompile(`[.!?]\s+`)

// sentences splits a paragraph that starts at line (0-based) into sentences.
func sentences(paragraph string, line int) []textUnit {
	var units []textUnit
	from := 0
	for _, end := range append(sentenceEnd.FindAllStringIndex(paragraph, -1), []int{len(paragraph), len(paragraph)}) {
		if text := strings.TrimSpace(paragraph[from:end[0]]); text != "" {
			units = append(units, textUnit{line: line + 1 + strings.Count(paragraph[:from], "\n"), text: text})
		}
		from = end[1]
	}
	return units
}

// versionProblems returns what a page says about the provider's versions that
// CHANGELOG.md, VERSION and the published releases contradict, one entry per
// problem, each starting with the line it is on.
func versionProblems(page string, f versionFacts) []string {
	var problems []string
	add := func(u textUnit, format string, args ...any) {
		problems = append(problems, fmt.Sprintf("line %d: ", u.line)+fmt.Sprintf(format, args...))
	}
	version := f.versionPattern()
	from := regexp.MustCompile(fromMark + version)
	mention := regexp.MustCompile(`(?:^|[^\w.-])` + version)
	option := regexp.MustCompile(versionOption + version)
	for _, u := range textUnits(page) {
		for _, m := range from.FindAllStringSubmatch(u.text, -1) {
			if m[1] != f.next && !slices.Contains(f.released, m[1]) {
				add(u, "\"from %s\" names %s, neither a release in CHANGELOG.md (%s) nor the next, %s", m[1], m[1], strings.Join(f.released, ", "), f.next)
			}
		}
		if !u.code && claimsRelease(u.text) {
			// A version in a "from" mark is what brings a feature, not what is called released.
			for _, m := range mention.FindAllStringSubmatch(from.ReplaceAllString(u.text, " "), -1) {
				if !slices.Contains(f.released, m[1]) {
					add(u, "calls %s released, which CHANGELOG.md does not list as released: %q", m[1], u.text)
				}
			}
		}
		problems = append(problems, downloadProblems(u, f, option)...)
	}
	return problems
}

// claimsRelease says whether a sentence calls something released or the newest
// release.
func claimsRelease(sentence string) bool {
	for _, m := range releaseClaim.FindAllStringIndex(sentence, -1) {
		if !negated.MatchString(sentence[:m[0]]) {
			return true
		}
	}
	return false
}

// downloadProblems returns the lines of u that download a version that is not
// published.
func downloadProblems(u textUnit, f versionFacts, option *regexp.Regexp) []string {
	type pin struct {
		version string
		at      int // the offset in u.text
	}
	var pinned []pin
	if pluginDownloadURL.MatchString(u.text) {
		for _, m := range option.FindAllStringSubmatchIndex(u.text, -1) {
			pinned = append(pinned, pin{u.text[m[2]:m[3]], m[0]})
		}
	}
	release := regexp.MustCompile(`^` + regexp.QuoteMeta(f.major) + `\.\d+\.\d+$`)
	for _, m := range pluginInstall.FindAllStringSubmatchIndex(u.text, -1) {
		v := strings.TrimPrefix(strings.Trim(u.text[m[2]:m[3]], `"`), "v")
		if !strings.Contains(u.text[m[0]:m[1]], "--file") && release.MatchString(v) {
			pinned = append(pinned, pin{v, m[0]})
		}
	}
	for _, p := range packagePins {
		for _, m := range regexp.MustCompile(p+f.versionPattern()).FindAllStringSubmatchIndex(u.text, -1) {
			pinned = append(pinned, pin{u.text[m[2]:m[3]], m[0]})
		}
	}
	var problems []string
	for _, p := range pinned {
		if !slices.Contains(published, p.version) {
			problems = append(problems, fmt.Sprintf("line %d: downloads %s, which has no published release (no GitHub release at "+
				"the plugin's download source, no package in the registries): install from a clone's dist/, or write <version>",
				u.line+strings.Count(u.text[:p.at], "\n"), p.version))
		}
	}
	return problems
}

// compareLink is a link definition at the end of CHANGELOG.md.
var compareLink = regexp.MustCompile(`(?m)^\[([^\]]+)\]: (https://\S+)\s*$`)

// linkedTags returns the tags a GitHub compare link (.../compare/A...B) or release
// link (.../releases/tag/A) names, HEAD left out.
func linkedTags(url string) []string {
	var tags []string
	if _, tail, ok := strings.Cut(url, "/compare/"); ok {
		tags = strings.Split(tail, "...")
	} else if _, tail, ok := strings.Cut(url, "/releases/tag/"); ok {
		tags = []string{tail}
	}
	return slices.DeleteFunc(tags, func(tag string) bool { return tag == "HEAD" })
}

// changelogLinkProblems returns the link definitions of CHANGELOG.md that name a tag
// of a version it does not list as released.
func changelogLinkProblems(changelog string, f versionFacts) []string {
	var problems []string
	for _, m := range compareLink.FindAllStringSubmatch(changelog, -1) {
		for _, tag := range linkedTags(m[2]) {
			if !slices.Contains(f.released, strings.TrimPrefix(tag, "v")) {
				problems = append(problems, fmt.Sprintf("[%s]: %s names the tag %s, which is not a release in CHANGELOG.md (%s)",
					m[1], m[2], tag, strings.Join(f.released, ", ")))
			}
		}
	}
	return problems
}

// versionedPages are the pages checked: README.md, CONTRIBUTING.md, CHANGELOG.md and
// every Markdown file under docs/ and examples/, relative to root.
func versionedPages(t *testing.T, root string) []string {
	t.Helper()
	pages := []string{"README.md", "CONTRIBUTING.md", "CHANGELOG.md"}
	for _, dir := range []string{"docs", "examples"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(path, ".md") {
				rel, relErr := filepath.Rel(root, path)
				pages = append(pages, rel)
				return relErr
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return pages
}

// schemaDescriptions returns every "description" string of schema.json, joined as
// one page of paragraphs.
func schemaDescriptions(t *testing.T, root string) string {
	t.Helper()
	var schema any
	if err := json.Unmarshal([]byte(toolchain.ReadFile(t, filepath.Join(root, "schema.json"))), &schema); err != nil {
		t.Fatal(err)
	}
	var texts []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, e := range v {
				if s, ok := e.(string); ok && k == "description" {
					texts = append(texts, s)
				}
				walk(e)
			}
		case []any:
			for _, e := range v {
				walk(e)
			}
		}
	}
	walk(schema)
	slices.Sort(texts)
	return strings.Join(texts, "\n\n")
}

// TestVersionsAgree checks what README.md, CONTRIBUTING.md, CHANGELOG.md, the pages
// under docs/ and examples/ and schema.json's descriptions say about the provider's
// versions, against CHANGELOG.md's released sections, VERSION and published: a
// "from X.Y.Z" mark names a release or the next version; no sentence calls a version
// released (the newest release, ...) that CHANGELOG.md does not list as released; no
// line downloads a version that has no published release (a version option beside
// pluginDownloadURL, `pulumi plugin install` without --file, a package pin); and
// CHANGELOG.md's compare links name only tags of its releases.
func TestVersionsAgree(t *testing.T) {
	t.Parallel()
	root := toolchain.RepoRoot(t)
	f := readVersionFacts(t, root)
	for _, page := range versionedPages(t, root) {
		for _, p := range versionProblems(toolchain.ReadFile(t, filepath.Join(root, page)), f) {
			t.Errorf("%s %s", page, p)
		}
	}
	for _, p := range versionProblems(schemaDescriptions(t, root), f) {
		t.Errorf("schema.json, a description (of the sorted descriptions, joined) at %s", p)
	}
	for _, p := range changelogLinkProblems(toolchain.ReadFile(t, filepath.Join(root, "CHANGELOG.md")), f) {
		t.Errorf("CHANGELOG.md %s", p)
	}
}

func TestVersionProblems(t *testing.T) {
	t.Parallel()
	f := versionFacts{released: []string{"0.5.0", "0.6.0"}, next: "0.7.0", major: "0"}
	for _, tc := range []struct {
		name, page string
		want       []string // the start of each problem, in order
	}{
		{name: "marks of a release and of the next", page: "It lists (from 0.7.0) and reads (from 0.6.0).\n"},
		{name: "a mark of neither", page: "Text.\n\nIt lists (from 0.8.0) too.\n", want: []string{`line 3: "from 0.8.0" names 0.8.0`}},
		{name: "other tools' versions", page: "From 1.36, and from 4.25.0, the newest release of pulumi-kubernetes.\n"},
		{name: "a release called the newest", page: "0.6.0, the newest release, lacks it.\n"},
		{name: "the next called the newest", page: "Text. 0.7.0, the newest\nrelease, has it.\n", want: []string{"line 1: calls 0.7.0 released"}},
		{name: "released, unreleased", page: "0.7.0 is not yet released. 0.7.0 is unreleased. Version 0.7.0 was released.\n",
			want: []string{"line 1: calls 0.7.0 released"}},
		{name: "a prerelease is not a release", page: "Built as 0.7.0-dev.0, not released.\n"},
		{
			name: "a version option beside pluginDownloadURL",
			page: "```yaml\noptions:\n  version: 0.6.0\n  pluginDownloadURL: github://api.github.com/x/y\n```\n",
			want: []string{"line 3: downloads 0.6.0"},
		},
		{name: "a version option alone", page: "```yaml\noptions:\n  version: 4.25.0\n```\n\n`version: 0.6.0` names it.\n"},
		{
			name: "plugin install from the server and from a file",
			page: "```sh\npulumi plugin install resource endpoints 0.6.0 \\\n  --server github://x\n" +
				"pulumi plugin install resource endpoints 0.6.0 \\\n  --file x.tar.gz\n" +
				"pulumi plugin install resource endpoints \"$V\" --file x\n```\n",
			want: []string{"line 2: downloads 0.6.0"},
		},
		{name: "a package pin", page: "Run `go get github.com/endpoints-provider/pulumi-endpoints/sdk@v0.6.0`.\n", want: []string{"line 1: downloads 0.6.0"}},
		{name: "a placeholder", page: "Run `go get github.com/endpoints-provider/pulumi-endpoints/sdk@v<version>`.\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := versionProblems(tc.page, f)
			if len(got) != len(tc.want) {
				t.Fatalf("versionProblems = %q, want %d problems starting %q", got, len(tc.want), tc.want)
			}
			for i := range got {
				if !strings.HasPrefix(got[i], tc.want[i]) {
					t.Errorf("problem %d = %q, want it to start %q", i, got[i], tc.want[i])
				}
			}
		})
	}
}

func TestChangelogLinkProblems(t *testing.T) {
	t.Parallel()
	f := versionFacts{released: []string{"0.5.0", "0.6.0"}, next: "0.7.0", major: "0"}
	changelog := "## [0.6.0] - 2026-01-01\n\n" +
		"[Unreleased]: https://github.com/o/r/compare/v0.6.0...HEAD\n" +
		"[0.6.0]: https://github.com/o/r/compare/v0.5.0...v0.6.0\n" +
		"[0.5.0]: https://github.com/o/r/releases/tag/v0.5.0\n" +
		"[0.4.0]: https://github.com/o/r/compare/v0.3.0...v0.4.0\n"
	got := changelogLinkProblems(changelog, f)
	want := []string{"[0.4.0]: https://github.com/o/r/compare/v0.3.0...v0.4.0 names the tag v0.3.0", "[0.4.0]: https://github.com/o/r/compare/v0.3.0...v0.4.0 names the tag v0.4.0"}
	if len(got) != len(want) {
		t.Fatalf("changelogLinkProblems = %q, want %d problems", got, len(want))
	}
	for i := range got {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("problem %d = %q, want it to start %q", i, got[i], want[i])
		}
	}
}
