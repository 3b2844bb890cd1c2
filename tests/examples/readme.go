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

// firstProgram is what README.md's "A first program" has a user run and write.
type firstProgram struct {
	// npmInstall is its ```sh block, which installs the TypeScript program's SDKs;
	// typescript (index.ts) and yaml (Pulumi.yaml) are its programs.
	npmInstall, typescript, yaml string
}

// parseFirstProgram returns the steps and programs of README.md's "A first program",
// which must hold one block of each.
func parseFirstProgram(readme string) (firstProgram, error) {
	m := firstProgramSection.FindStringSubmatch(readme)
	if m == nil {
		return firstProgram{}, errors.New(`no section "## A first program" followed by another "## " section`)
	}
	var p firstProgram
	for _, b := range []struct {
		lang string
		dst  *string
	}{{"sh", &p.npmInstall}, {"typescript", &p.typescript}, {"yaml", &p.yaml}} {
		blocks := codeBlocks(m[1], b.lang)
		if len(blocks) != 1 {
			return firstProgram{}, fmt.Errorf(`"A first program" has %d `+"```%s blocks, want 1", len(blocks), b.lang)
		}
		*b.dst = blocks[0]
	}
	return p, nil
}
