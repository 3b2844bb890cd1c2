package endpoints_test

import (
	"os"
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
