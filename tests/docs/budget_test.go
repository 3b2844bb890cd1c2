package docs_test

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
)

// userDocsWordBudget is the most words the pages users read (userPages) may hold
// together: the front door, the guides and the examples' steps, not a manual that
// repeats itself.
const userDocsWordBudget = 15000

// TestUserDocsWordBudget holds README.md, the pages under docs/ and the examples'
// README.md files to userDocsWordBudget words, counted as `wc -w` counts them.
func TestUserDocsWordBudget(t *testing.T) {
	t.Parallel()
	counts := map[string]int{}
	for _, name := range userPages(t) {
		counts[name] = wordCount(benchReadFile(t, name))
	}
	if report, over := wordBudgetReport(counts, userDocsWordBudget); over {
		t.Error(report)
	}
}

// wordCount counts words as `wc -w` does: runs of characters other than space, tab,
// newline, vertical tab, form feed and carriage return.
func wordCount(text string) int {
	return len(strings.FieldsFunc(text, func(r rune) bool { return strings.ContainsRune(" \t\n\v\f\r", r) }))
}

// wordBudgetReport is what a test says of counts, words by page, against budget: the
// total, then each page's count, largest first; over is whether the total exceeds it.
func wordBudgetReport(counts map[string]int, budget int) (report string, over bool) {
	names := make([]string, 0, len(counts))
	total := 0
	for name, n := range counts {
		names = append(names, name)
		total += n
	}
	slices.SortFunc(names, func(a, b string) int { return cmp.Or(cmp.Compare(counts[b], counts[a]), strings.Compare(a, b)) })
	var b strings.Builder
	fmt.Fprintf(&b, "the pages users read hold %d words together, %d over the budget of %d (README.md, docs/**/*.md, examples/**/README.md; as `wc -w` counts):\n",
		total, total-budget, budget)
	for _, name := range names {
		fmt.Fprintf(&b, "%7d %s\n", counts[name], name)
	}
	return b.String(), total > budget
}

func TestWordBudgetReport(t *testing.T) {
	t.Parallel()
	if got := wordCount("A first\tprogram:\n\n  `pulumi up`  --yes\r\nend"); got != 7 {
		t.Errorf("wordCount = %d, want 7", got)
	}
	report, over := wordBudgetReport(map[string]int{"docs/b.md": 40, "README.md": 70, "docs/a.md": 40}, 100)
	want := "the pages users read hold 150 words together, 50 over the budget of 100 (README.md, docs/**/*.md, examples/**/README.md; as `wc -w` counts):\n" +
		"     70 README.md\n     40 docs/a.md\n     40 docs/b.md\n"
	if diff := gocmp.Diff(want, report); diff != "" || !over {
		t.Errorf("over %v (want true); report (-want +got):\n%s", over, diff)
	}
	if _, over := wordBudgetReport(map[string]int{"README.md": 100}, 100); over {
		t.Error("a total at the budget is over it")
	}
}
