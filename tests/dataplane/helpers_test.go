package dataplane

import "slices"

// emptyProgram is a YAML project without resources, to create a stack with before
// the test writes its program.
const emptyProgram = "name: dataplane\nruntime: yaml\n"

// sorted returns a sorted copy of s.
func sorted(s []string) []string { return slices.Sorted(slices.Values(s)) }
