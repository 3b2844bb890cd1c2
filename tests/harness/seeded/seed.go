// Package seeded reads the seed of a seeded test from the environment, so that a
// failure's seed can be given back to run the same inputs again.
package seeded

import (
	"os"
	"strconv"
	"testing"
)

// FromEnv is the seed the environment variable name gives, or def when it is unset.
// A value that is not an unsigned integer fails the test.
func FromEnv(t *testing.T, name string, def uint64) uint64 {
	t.Helper()
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		t.Fatalf("%s=%q: want an unsigned integer: %v", name, s, err)
	}
	return n
}
