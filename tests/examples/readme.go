package examples

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// shBlock is a fenced ```sh block of a README: the lines between the fences.
var shBlock = regexp.MustCompile("(?ms)^```sh\n(.*?)^```$")

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

// parseSteps returns the ```sh blocks of a README, in order, split before its
// `pulumi destroy` line. The README must have one `pulumi up` before it.
func parseSteps(readme string) (steps, error) {
	var blocks []string
	for _, m := range shBlock.FindAllStringSubmatch(readme, -1) {
		blocks = append(blocks, m[1])
	}
	if len(blocks) == 0 {
		return steps{}, errors.New("the README has no ```sh block of steps")
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
