package endpoints_test

import (
	"errors"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/mod/semver"
)

// changelogSection matches a CHANGELOG.md section heading: `## [Unreleased]` or
// `## [X.Y.Z] - YYYY-MM-DD`.
var changelogSection = regexp.MustCompile(`(?m)^## \[([^\]]+)\](?: - (\d{4}-\d{2}-\d{2}))?[ \t]*$`)

// release is one section of CHANGELOG.md.
type release struct{ name, date, body string }

// parseChangelog returns the sections of a changelog, newest first.
func parseChangelog(text string) []release {
	matches := changelogSection.FindAllStringSubmatchIndex(text, -1)
	sections := make([]release, len(matches))
	for i, m := range matches {
		end := len(text)
		if i+1 < len(matches) {
			end = matches[i+1][0]
		}
		sections[i] = release{name: text[m[2]:m[3]], body: text[m[1]:end]}
		if m[4] >= 0 {
			sections[i].date = text[m[4]:m[5]]
		}
	}
	return sections
}

// changelogProblems says how a changelog disagrees with the version in VERSION: a
// prerelease (0.7.0-dev.0) goes with an `## [Unreleased]` section on top, above the
// releases before it; a release (0.6.0) with its own dated section on top and no
// [Unreleased] section. Release sections are dated, newest first, and each has its
// link at the end of the file.
func changelogProblems(version, text string) []string {
	v := "v" + version
	if semver.Canonical(v) != v {
		return []string{"VERSION " + version + " is not a semantic version such as 0.6.0 or 0.7.0-dev.0"}
	}
	sections := parseChangelog(text)
	if len(sections) == 0 {
		return []string{"CHANGELOG.md has no `## [...]` section"}
	}
	var problems []string
	switch top := sections[0].name; {
	case semver.Prerelease(v) != "" && top != "Unreleased":
		problems = append(problems, "VERSION "+version+" is a prerelease: CHANGELOG.md's first section must be `## [Unreleased]`, not ["+top+"]")
	case semver.Prerelease(v) == "" && top != version:
		problems = append(problems, "VERSION "+version+" is a release: CHANGELOG.md's first section must be `## ["+version+"] - <date>`, not ["+top+"]")
	}
	releases := sections
	if sections[0].name == "Unreleased" {
		releases = sections[1:]
	}
	previous := ""
	for _, r := range releases {
		rv := "v" + r.name
		switch {
		case !semver.IsValid(rv) || semver.Prerelease(rv) != "":
			problems = append(problems, "section ["+r.name+"] is not a release version (only the top section may be [Unreleased])")
			continue
		case r.date == "":
			problems = append(problems, "section ["+r.name+"] has no date: `## ["+r.name+"] - YYYY-MM-DD`")
		case previous != "" && semver.Compare(rv, previous) >= 0:
			problems = append(problems, "section ["+r.name+"] comes after ["+strings.TrimPrefix(previous, "v")+"]: newest first")
		case semver.Compare(rv, v) > 0:
			problems = append(problems, "section ["+r.name+"] is newer than VERSION "+version)
		}
		if !strings.Contains(text, "\n["+r.name+"]: https://") {
			problems = append(problems, "section ["+r.name+"] has no link `["+r.name+"]: https://...` at the end of the file")
		}
		previous = rv
	}
	return problems
}

// TestChangelogMatchesVersion fails when VERSION and CHANGELOG.md disagree (see
// changelogProblems and CHANGELOG.md's header).
func TestChangelogMatchesVersion(t *testing.T) {
	t.Parallel()
	version, err := os.ReadFile("VERSION")
	if err != nil {
		t.Fatal(err)
	}
	text, err := os.ReadFile("CHANGELOG.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range changelogProblems(strings.TrimSpace(string(version)), string(text)) {
		t.Error(p)
	}
}

// TestChangelogProblems checks the rules on small changelogs, each breaking one.
func TestChangelogProblems(t *testing.T) {
	t.Parallel()
	const links = "\n[0.6.0]: https://example.com/0.6.0\n[0.5.0]: https://example.com/0.5.0\n"
	const released = "## [0.6.0] - 2026-11-25\n\n- b\n\n## [0.5.0] - 2026-11-23\n\n- a\n"
	tests := []struct {
		name, version, text string
		want                []string
	}{
		{"release on top", "0.6.0", released + links, nil},
		{"prerelease under unreleased", "0.7.0-dev.0", "## [Unreleased]\n\n- c\n\n" + released + links, nil},
		{"prerelease without unreleased", "0.7.0-dev.0", released + links,
			[]string{"VERSION 0.7.0-dev.0 is a prerelease: CHANGELOG.md's first section must be `## [Unreleased]`, not [0.6.0]"}},
		{"release under unreleased", "0.6.0", "## [Unreleased]\n\n" + released + links,
			[]string{"VERSION 0.6.0 is a release: CHANGELOG.md's first section must be `## [0.6.0] - <date>`, not [Unreleased]"}},
		{"release without its section", "0.7.0", released + links,
			[]string{"VERSION 0.7.0 is a release: CHANGELOG.md's first section must be `## [0.7.0] - <date>`, not [0.6.0]"}},
		{"section newer than the prerelease", "0.6.0-dev.0", "## [Unreleased]\n\n" + released + links,
			[]string{"section [0.6.0] is newer than VERSION 0.6.0-dev.0"}},
		{"undated", "0.6.0", "## [0.6.0]\n\n- b\n" + links, []string{"section [0.6.0] has no date: `## [0.6.0] - YYYY-MM-DD`"}},
		{"out of order", "0.6.0", "## [0.6.0] - 2026-11-25\n\n## [0.6.0] - 2026-11-23\n" + links,
			[]string{"section [0.6.0] comes after [0.6.0]: newest first"}},
		{"no link", "0.6.0", released + "\n[0.5.0]: https://example.com/0.5.0\n",
			[]string{"section [0.6.0] has no link `[0.6.0]: https://...` at the end of the file"}},
		{"not a version", "0.6", released + links, []string{"VERSION 0.6 is not a semantic version such as 0.6.0 or 0.7.0-dev.0"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, changelogProblems(tt.version, tt.text)); diff != "" {
				t.Errorf("changelogProblems(%q) (-want +got):\n%s", tt.version, diff)
			}
		})
	}
}

// changelogLink is a link definition at the end of CHANGELOG.md.
var changelogLink = regexp.MustCompile(`(?m)^\[([^\]]+)\]: (https://\S+)\s*$`)

// linkRef matches what a GitHub link names: /tree/<commit>, /commits/<commit or
// branch>, /compare/<a>...<b> or /releases/tag/<tag>.
var linkRef = regexp.MustCompile(`/(tree|commits|compare|releases/tag)/(\S+)$`)

// history answers what the changelog's links ask of the repository.
type history interface {
	// versionAt returns the version a commit stamped: its VERSION file, or before
	// that file existed the Makefile's `VERSION ?=`; an error when there is no such
	// commit.
	versionAt(commit string) (string, error)
	// hasTag tells whether the repository has the tag.
	hasTag(tag string) bool
}

// fullCommit is a whole commit name, as the links give them.
var fullCommit = regexp.MustCompile(`^[0-9a-f]{40}$`)

// changelogLinkProblems says which links of a changelog do not show what they name: a
// `/tree/<commit>` link of a release section names the commit that stamped that
// version, a `/commits/<commit>` link a commit of the history, and a compare or
// release link only tags the repository has (HEAD and main aside).
func changelogLinkProblems(text string, h history) []string {
	var problems []string
	for _, m := range changelogLink.FindAllStringSubmatch(text, -1) {
		section, url := m[1], m[2]
		ref := linkRef.FindStringSubmatch(url)
		if ref == nil {
			problems = append(problems, "["+section+"]: "+url+" names no tree, commits, compare or release")
			continue
		}
		var names []string
		switch ref[1] {
		case "compare":
			names = strings.Split(ref[2], "...")
		default:
			names = []string{ref[2]}
		}
		for _, name := range names {
			problems = append(problems, linkNameProblems(section, url, ref[1], name, h)...)
		}
	}
	return problems
}

// linkNameProblems checks one commit, branch or tag a changelog link names (see
// changelogLinkProblems).
func linkNameProblems(section, url, kind, name string, h history) []string {
	prefix := "[" + section + "]: " + url + " "
	switch {
	case name == "HEAD" || name == "main":
		return nil
	case !fullCommit.MatchString(name):
		if !h.hasTag(name) {
			return []string{prefix + "names the tag " + name + ", which the repository does not have"}
		}
		return nil
	}
	version, err := h.versionAt(name)
	switch {
	case err != nil:
		return []string{prefix + "names the commit " + name + ", which the history does not hold: " + err.Error()}
	case kind == "tree" && section != "Unreleased" && version != section:
		return []string{prefix + "names the commit " + name + ", which stamped " + version + ", not " + section}
	}
	return nil
}

// gitHistory reads the repository's own history with git.
type gitHistory struct{}

// makefileVersion is the version line of the Makefile before the VERSION file.
var makefileVersion = regexp.MustCompile(`(?m)^VERSION \?= (\S+)$`)

func (gitHistory) versionAt(commit string) (string, error) {
	if out, err := exec.Command("git", "show", commit+":VERSION").Output(); err == nil {
		return strings.TrimSpace(string(out)), nil
	}
	out, err := exec.Command("git", "show", commit+":Makefile").Output()
	if err != nil {
		return "", err
	}
	if m := makefileVersion.FindSubmatch(out); m != nil {
		return string(m[1]), nil
	}
	return "", errors.New("neither a VERSION file nor a Makefile VERSION line")
}

func (gitHistory) hasTag(tag string) bool {
	return exec.Command("git", "rev-parse", "--verify", "--quiet", "refs/tags/"+tag).Run() == nil
}

// TestChangelogLinks fails when a link of CHANGELOG.md shows something else than its
// section (changelogLinkProblems). It needs the whole history: a shallow clone skips it.
func TestChangelogLinks(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("git", "rev-parse", "--is-shallow-repository").Output()
	if err != nil || strings.TrimSpace(string(out)) != "false" {
		t.Skipf("the changelog's links need the repository's whole history (git: %q, %v)", out, err)
	}
	text, err := os.ReadFile("CHANGELOG.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range changelogLinkProblems(string(text), gitHistory{}) {
		t.Error(p)
	}
}

// fakeHistory is a history of two commits and the tag v0.1.0.
type fakeHistory map[string]string

func (f fakeHistory) versionAt(commit string) (string, error) {
	if v, ok := f[commit]; ok {
		return v, nil
	}
	return "", errors.New("unknown revision")
}

func (fakeHistory) hasTag(tag string) bool { return tag == "v0.1.0" }

// TestChangelogLinkProblems checks the rules on small changelogs, each breaking one.
func TestChangelogLinkProblems(t *testing.T) {
	t.Parallel()
	const repo = "https://github.com/o/r"
	a, b := strings.Repeat("a", 40), strings.Repeat("b", 40)
	h := fakeHistory{a: "0.1.0", b: "0.2.0"}
	tests := []struct {
		name, links string
		want        []string
	}{
		{"commits and tags that are there", "[Unreleased]: " + repo + "/commits/main\n[0.2.0]: " + repo + "/tree/" + b +
			"\n[0.1.0]: " + repo + "/releases/tag/v0.1.0\n[0.0.9]: " + repo + "/commits/" + a + "\n", nil},
		{"a tag the repository lacks", "[0.2.0]: " + repo + "/compare/v0.1.0...v0.2.0\n",
			[]string{"[0.2.0]: " + repo + "/compare/v0.1.0...v0.2.0 names the tag v0.2.0, which the repository does not have"}},
		{"the commit of another version", "[0.2.0]: " + repo + "/tree/" + a + "\n",
			[]string{"[0.2.0]: " + repo + "/tree/" + a + " names the commit " + a + ", which stamped 0.1.0, not 0.2.0"}},
		{"a commit not in the history", "[0.2.0]: " + repo + "/commits/" + strings.Repeat("c", 40) + "\n",
			[]string{"[0.2.0]: " + repo + "/commits/" + strings.Repeat("c", 40) + " names the commit " + strings.Repeat("c", 40) +
				", which the history does not hold: unknown revision"}},
		{"no ref", "[0.2.0]: " + repo + "\n", []string{"[0.2.0]: " + repo + " names no tree, commits, compare or release"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, changelogLinkProblems(tt.links, h)); diff != "" {
				t.Errorf("changelogLinkProblems (-want +got):\n%s", diff)
			}
		})
	}
}
