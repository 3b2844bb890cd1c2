package examples

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// codeBlock is a fenced code block of a README: its language and the lines between
// the fences.
var codeBlock = regexp.MustCompile("(?ms)^```([a-z]*)\n(.*?)^```$")

// codeBlocks returns the fenced blocks of language lang in text, in order.
func codeBlocks(text, lang string) []string {
	var blocks []string
	for _, m := range codeBlock.FindAllStringSubmatch(text, -1) {
		if m[1] == lang {
			blocks = append(blocks, m[2])
		}
	}
	return blocks
}

// destroyLine starts the clean-up part of the steps: everything from the first
// `pulumi destroy` on.
var destroyLine = regexp.MustCompile(`(?m)^pulumi destroy\b`)

// upLine is a `pulumi up` line.
var upLine = regexp.MustCompile(`(?m)^pulumi up\b`)

// steps are a README's shell steps, split where the tests check what the program made.
type steps struct {
	// setup runs up to and with `pulumi up`; cleanup from `pulumi destroy` on.
	setup, cleanup string
}

// sharedLink is a link of an example's README (examples/<group>/<language>) to a
// section of examples/README.md, the page the examples share; it captures the anchor.
var sharedLink = regexp.MustCompile(`\]\(\.\./\.\./README\.md#([a-z0-9_-]+)\)`)

// headingLine is a Markdown heading: its level (the #s) and its text.
var headingLine = regexp.MustCompile(`(?m)^(#{1,6}) +(.+?) *$`)

// section returns the part of page under the heading whose anchor (as GitHub makes
// it: lower case, punctuation dropped, spaces as hyphens) is anchor, up to the next
// heading of the same or a higher level.
func section(page, anchor string) (string, bool) {
	drop := regexp.MustCompile(`[^a-z0-9 _-]`)
	headings := headingLine.FindAllStringSubmatchIndex(page, -1)
	for i, h := range headings {
		if strings.ReplaceAll(drop.ReplaceAllString(strings.ToLower(page[h[4]:h[5]]), ""), " ", "-") != anchor {
			continue
		}
		level, end := h[3]-h[2], len(page)
		for _, next := range headings[i+1:] {
			if next[3]-next[2] <= level {
				end = next[0]
				break
			}
		}
		return page[h[1]:end], true
	}
	return "", false
}

// parseSteps returns an example's steps: the ```sh blocks of its README, in order,
// then those of each section of shared (examples/README.md) the README links, in the
// order of the links; split before the `pulumi destroy` line. The steps must have one
// `pulumi up` before it.
func parseSteps(readme, shared string) (steps, error) {
	blocks := codeBlocks(readme, "sh")
	seen := map[string]bool{}
	for _, m := range sharedLink.FindAllStringSubmatch(readme, -1) {
		if seen[m[1]] {
			continue
		}
		seen[m[1]] = true
		text, ok := section(shared, m[1])
		if !ok {
			return steps{}, fmt.Errorf("the README links examples/README.md#%s, which has no such heading", m[1])
		}
		blocks = append(blocks, codeBlocks(text, "sh")...)
	}
	if len(blocks) == 0 {
		return steps{}, errors.New("the README has no ```sh block of steps, nor links a section of examples/README.md that has")
	}
	script := strings.Join(blocks, "")
	at := destroyLine.FindStringIndex(script)
	if at == nil {
		return steps{}, errors.New("the README's steps have no `pulumi destroy` line: a user cannot clean up")
	}
	s := steps{setup: script[:at[0]], cleanup: script[at[0]:]}
	if n := len(upLine.FindAllString(s.setup, -1)); n != 1 {
		return steps{}, fmt.Errorf("the README's steps before `pulumi destroy` have %d `pulumi up` lines, want 1", n)
	}
	return s, nil
}

// firstProgramSection is README.md's "A first program": everything from its heading
// to the next second-level one.
var firstProgramSection = regexp.MustCompile("(?ms)^## A first program\n(.*?)^## ")

// languageHeading is a third-level heading of "A first program": a language's part.
var languageHeading = regexp.MustCompile(`(?m)^### +(.+?) *$`)

// firstProgram is what README.md's "A first program" has a user run and write: the
// steps that start the cluster, in the clone, then each language's part (the key is its
// program's fence language, "yaml" or "typescript").
type firstProgram struct {
	cluster string
	langs   map[string]firstProgramLanguage
}

// firstProgramLanguage is one language's part of "A first program".
type firstProgramLanguage struct {
	// install is its first ```sh block, run in the clone (make install-<language>);
	// project its other ```sh blocks before the program, run in the program's
	// directory; program the program's text; run the ```sh blocks after it, in the
	// program's directory, which hold the one `pulumi up`.
	install, project, program, run string
}

// parseFirstProgram returns the steps and programs of README.md's "A first program":
// one ```sh block before its first "### " heading (the cluster), and under each "### "
// heading a ```sh block, maybe more, one program block (```yaml or ```typescript), and
// ```sh blocks after it with one `pulumi up`.
func parseFirstProgram(readme string) (firstProgram, error) {
	m := firstProgramSection.FindStringSubmatch(readme)
	if m == nil {
		return firstProgram{}, errors.New(`no section "## A first program" followed by another "## " section`)
	}
	body := m[1]
	headings := languageHeading.FindAllStringSubmatchIndex(body, -1)
	if len(headings) == 0 {
		return firstProgram{}, errors.New(`"A first program" has no "### " part per language`)
	}
	p := firstProgram{langs: map[string]firstProgramLanguage{}}
	cluster := codeBlocks(body[:headings[0][0]], "sh")
	if len(cluster) != 1 {
		return firstProgram{}, fmt.Errorf(`"A first program" has %d `+"```sh blocks before its first `### ` part, want 1 (the cluster)", len(cluster))
	}
	p.cluster = cluster[0]
	for i, h := range headings {
		end := len(body)
		if i+1 < len(headings) {
			end = headings[i+1][0]
		}
		name := body[h[2]:h[3]]
		lang, part, err := parseLanguagePart(body[h[1]:end])
		if err != nil {
			return firstProgram{}, fmt.Errorf(`"A first program", %q: %w`, name, err)
		}
		if _, dup := p.langs[lang]; dup {
			return firstProgram{}, fmt.Errorf(`"A first program" has two %s programs`, lang)
		}
		p.langs[lang] = part
	}
	return p, nil
}

// parseLanguagePart parses one "### " part of "A first program".
func parseLanguagePart(text string) (string, firstProgramLanguage, error) {
	var (
		part    firstProgramLanguage
		lang    string
		before  []string
		after   []string
		program int
	)
	for _, m := range codeBlock.FindAllStringSubmatch(text, -1) {
		switch {
		case m[1] == "sh" && lang == "":
			before = append(before, m[2])
		case m[1] == "sh":
			after = append(after, m[2])
		default:
			program++
			lang, part.program = m[1], m[2]
		}
	}
	switch {
	case program != 1:
		return "", part, fmt.Errorf("%d program blocks, want 1", program)
	case len(before) == 0:
		return "", part, errors.New("no ```sh block before the program (the install in the clone)")
	case len(upLine.FindAllString(strings.Join(after, ""), -1)) != 1:
		return "", part, errors.New("the ```sh blocks after the program do not have one `pulumi up` line")
	}
	part.install, part.project, part.run = before[0], strings.Join(before[1:], ""), strings.Join(after, "")
	return lang, part, nil
}
