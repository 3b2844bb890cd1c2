package toolchain

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

// ToolsBuilt reads what `make -n target` would run in the repository with an empty
// tool cache and returns the tools it would build into it, sorted: each tool's recipe
// ends by moving the binary it built into the cache. It fails t when the commands would
// call sudo or apt-get, which a target that builds only what it runs never needs.
func ToolsBuilt(t testing.TB, target string) []string {
	t.Helper()
	cache := t.TempDir()
	out := Run(t, RepoRoot(t), []string{"MAKEFLAGS="}, "make", "-n", target, "CACHE="+cache)
	moved := regexp.MustCompile(`(?m)^\s*mv \S+ ` + regexp.QuoteMeta(cache) + `/\S+/(\S+)$`)
	var built []string
	for _, m := range moved.FindAllStringSubmatch(out, -1) {
		built = append(built, m[1])
	}
	slices.Sort(built)
	for _, word := range []string{"sudo", "apt-get"} {
		if strings.Contains(out, word) {
			t.Errorf("make %s runs %s:\n%s", target, word, out)
		}
	}
	return built
}
