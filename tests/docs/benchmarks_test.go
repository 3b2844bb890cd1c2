package docs_test

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/toolchain"
)

// BENCHMARKS.md is written by `make bench` alone; these tests read it and the pages
// that quote it, and need no tools.
//
// Its tables must be whole: every row has as many cells as its header; a ratio
// column, one whose header is "A / B" where A and B are headers of the same table,
// holds A's cell divided by B's (each cell's first number), to the rounding the
// cells are printed with; a target column, one whose header begins with "target",
// says of every row "none" or "<target>: met" or "<target>: missed".
//
// A figure quoted elsewhere must be in it. A figure is a number with a unit: ms, s,
// MiB, KiB, GiB, bytes, %, "times" or "x" ("3.4 s", "1.31 times", "49.3 MiB"; the
// numbers of a range or list share its unit: "3.4 to 3.5 s", "1167 / 1215 bytes").
// It is quoted when it stands in a block (lines between blank lines, outside code
// blocks) of README.md, CONTRIBUTING.md, CHANGELOG.md or a page under docs/ that
// names BENCHMARKS.md, or in a table right after such a block (the block is its
// caption). It is in BENCHMARKS.md when the page holds a figure of the same unit
// (for "times" and "x", a number without unit or with either) that rounds to it
// at the quoted figure's decimals. A block that names BENCHMARKS.md quotes only
// what the page holds; figures of past runs belong in blocks that do not name it.

// quotingPages are the pages whose figures must be in BENCHMARKS.md, relative to
// the repository's root; every Markdown page under docs/ is one too.
var benchQuotingPages = []string{"README.md", "CONTRIBUTING.md", "CHANGELOG.md"}

func TestBenchmarkTables(t *testing.T) {
	t.Parallel()
	page := benchReadFile(t, "BENCHMARKS.md")
	problems, ratios, targets := benchTableProblems(page)
	for _, p := range problems {
		t.Errorf("BENCHMARKS.md: %s", p)
	}
	// The page has ratio and target columns: a test that found none checks nothing.
	if ratios == 0 || targets == 0 {
		t.Errorf("BENCHMARKS.md: %d ratio and %d target columns found; the page `make bench` writes has both", ratios, targets)
	}
}

func TestQuotedBenchmarkFigures(t *testing.T) {
	t.Parallel()
	root := toolchain.RepoRoot(t)
	index := newBenchIndex(benchReadFile(t, "BENCHMARKS.md"))
	pages := slices.Clone(benchQuotingPages)
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".md") {
			rel, _ := filepath.Rel(root, path)
			pages = append(pages, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range pages {
		for _, q := range benchQuotedFigures(benchReadFile(t, name)) {
			if !index.holds(q) {
				t.Errorf("%s:%d: %q quotes %s, which BENCHMARKS.md does not hold (to that rounding)", name, q.line, q.context, q.text)
			}
		}
	}
}

// The checks find what went wrong in BENCHMARKS.md when rows of one table were
// pasted over another's: a cell short, a time in a ratio column, a target that
// does not say whether it is met.
func TestBenchmarkTableProblems(t *testing.T) {
	t.Parallel()
	corrupted := `| program | runs | command | floor | provider | pulumi-kubernetes | provider / floor | pulumi-kubernetes / floor | pulumi-kubernetes / provider | target |
|---|---|---|---|---|---|---|---|---|---|
| 200 EndpointSlices | 3 | up | 1.89 s (1.85-2.18) | 2.21 s (2.15-2.25) | 2.57 s (2.52-2.65) | 1.36 | 1.16 | at most 1.2 |
| 200 EndpointSlices | 3 | preview | 0.84 s (0.77-0.93) | 0.90 s (0.82-0.93) | 1.25 s (1.17-1.25) | 1.07 | 1.49 | 1.39 | none |

| program | runs | command | off | on | on / off | target of on / off |
|---|---|---|---|---|---|---|
| 200 EndpointSlices | 3 | up | 1.89 s (1.85-2.18) | 2.21 s (2.15-2.25) | 2.57 s (2.52-2.65) | at most 1.2 |
| 200 EndpointSlices | 3 | up again | 1.55 s | 2.17 s | 1.40 | at most 1.10: missed |
| 200 EndpointSlices | 3 | destroy | 0.61 s | 0.68 s | 1.11 | at most 1.25: met |
`
	problems, ratios, targets := benchTableProblems(corrupted)
	want := []string{
		"line 3: 9 cells under a header of 10",
		"line 8: on / off is 2.57, not 2.21 / 1.89 (1.16 to 1.18)",
		"line 8: target of on / off says neither met nor missed: \"at most 1.2\"",
	}
	if strings.Join(problems, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(problems, "\n"), strings.Join(want, "\n"))
	}
	if ratios != 4 || targets != 2 {
		t.Errorf("%d ratio and %d target columns, want 4 and 2", ratios, targets)
	}
}

// The drifts the quote check exists for: a footprint quoted from an older run, and a
// table of times under a caption naming BENCHMARKS.md.
func TestQuotedFigures(t *testing.T) {
	t.Parallel()
	index := newBenchIndex("| 2000 EndpointSlices | 71.4 MiB / 40.6 MiB | 2.57 s (2.52-2.65 s) | 1.31 | 237 KiB |\n" +
		"overhead under 10%; 1215 / 1152 / 789 bytes; v1.34.2 and 4.25.0\n")
	page := "Intro with 49.3 MiB, not naming the page.\n\n" +
		"Met: plugin under 80 MiB at 2000 slices (49.3 MiB, BENCHMARKS.md); 71 MiB, 71.4 MiB,\n" +
		"2.6 s and 1.3 times the floor, 1.31x, under 10%, 1152 to 1215 bytes, v1.34.2.\n\n" +
		"```\n3.4 s in BENCHMARKS.md code\n```\n\n" +
		"Measured here (BENCHMARKS.md, the engine section):\n\n" +
		"| stack | up |\n|---|---|\n| 200 EndpointSlices | 3.4 to 3.5 s |\n| 200 | 2.57 s |\n\n" +
		"A later table, 9.9 s, not captioned.\n"
	var got []string
	for _, q := range benchQuotedFigures(page) {
		got = append(got, fmt.Sprintf("%d %s %v", q.line, q.text, index.holds(q)))
	}
	want := []string{
		"3 80 MiB false", "3 49.3 MiB false", "3 71 MiB true", "3 71.4 MiB true",
		"4 2.6 s true", "4 1.3 times true", "4 1.31x true", "4 10% true", "4 1152 bytes true", "4 1215 bytes true",
		"14 3.4 s false", "14 3.5 s false", "15 2.57 s true",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("quoted figures:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func benchReadFile(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(toolchain.RepoRoot(t), filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// A table is a Markdown table of a page: its header's cells and its rows', with the
// line number of each row.
type benchTable struct {
	header []string
	rows   [][]string
	lines  []int
}

var benchSeparatorRow = regexp.MustCompile(`^\|(\s*:?-+:?\s*\|)+\s*$`)

// tablesOf finds every table of page: a row followed by a separator row, and the
// rows after it.
func benchTables(page string) []benchTable {
	lines := strings.Split(page, "\n")
	var tables []benchTable
	for i := 0; i+1 < len(lines); i++ {
		if !strings.HasPrefix(lines[i], "|") || !benchSeparatorRow.MatchString(lines[i+1]) {
			continue
		}
		tb := benchTable{header: benchCells(lines[i])}
		for i += 2; i < len(lines) && strings.HasPrefix(lines[i], "|"); i++ {
			tb.rows, tb.lines = append(tb.rows, benchCells(lines[i])), append(tb.lines, i+1)
		}
		tables = append(tables, tb)
	}
	return tables
}

func benchCells(row string) []string {
	row = strings.TrimSpace(row)
	row = strings.TrimSuffix(strings.TrimPrefix(row, "|"), "|")
	out := strings.Split(row, "|")
	for i := range out {
		out[i] = strings.TrimSpace(out[i])
	}
	return out
}

var benchTargetCell = regexp.MustCompile(`^(none|.+: (met|missed))$`)

// tableProblems checks every table of page, and counts the ratio and target columns
// it checked.
func benchTableProblems(page string) (problems []string, ratios, targets int) {
	for _, tb := range benchTables(page) {
		type ratio struct{ col, a, b int }
		var rs []ratio
		var ts []int
		for i, h := range tb.header {
			if strings.HasPrefix(h, "target") {
				ts = append(ts, i)
				continue
			}
			a, b, ok := strings.Cut(h, " / ")
			if ia, ib := slices.Index(tb.header, a), slices.Index(tb.header, b); ok && ia >= 0 && ib >= 0 {
				rs = append(rs, ratio{i, ia, ib})
			}
		}
		ratios, targets = ratios+len(rs), targets+len(ts)
		for k, row := range tb.rows {
			at := fmt.Sprintf("line %d: ", tb.lines[k])
			if len(row) != len(tb.header) {
				problems = append(problems, fmt.Sprintf("%s%d cells under a header of %d", at, len(row), len(tb.header)))
				continue
			}
			for _, r := range rs {
				if p := benchRatioProblem(row[r.col], row[r.a], row[r.b]); p != "" {
					problems = append(problems, at+tb.header[r.col]+" is "+p)
				}
			}
			for _, c := range ts {
				if !benchTargetCell.MatchString(row[c]) {
					problems = append(problems, fmt.Sprintf("%s%s says neither met nor missed: %q", at, tb.header[c], row[c]))
				}
			}
		}
	}
	return problems, ratios, targets
}

// A number is a cell's or a figure's value, with the half of its last printed digit:
// 2.57 stands for anything from 2.565 to 2.575.
type benchNumber struct {
	value, half float64
	text        string
}

var benchFirstNumber = regexp.MustCompile(`^-?\d+(\.\d+)?`)

// parseNumber reads the number a cell begins with.
func benchParseNumber(s string) (benchNumber, bool) {
	m := benchFirstNumber.FindString(s)
	if m == "" {
		return benchNumber{}, false
	}
	v, err := strconv.ParseFloat(m, 64)
	if err != nil {
		return benchNumber{}, false
	}
	decimals := 0
	if _, frac, ok := strings.Cut(m, "."); ok {
		decimals = len(frac)
	}
	return benchNumber{value: v, half: math.Pow10(-decimals) / 2, text: m}, true
}

// ratioProblem says how the ratio cell differs from a/b, or "" when it is their
// quotient to the cells' rounding. A ratio may be missing ("-") only where a side is.
func benchRatioProblem(ratio, a, b string) string {
	r, okR := benchParseNumber(ratio)
	x, okA := benchParseNumber(a)
	y, okB := benchParseNumber(b)
	switch {
	case !okA || !okB:
		if okR {
			return fmt.Sprintf("%s, but %q / %q is no quotient", r.text, a, b)
		}
		return ""
	case !okR:
		return fmt.Sprintf("%q, not %s / %s", ratio, x.text, y.text)
	case y.value-y.half <= 0:
		return ""
	}
	lo, hi := (x.value-x.half)/(y.value+y.half), (x.value+x.half)/(y.value-y.half)
	if r.value+r.half < lo || r.value-r.half > hi {
		return fmt.Sprintf("%s, not %s / %s (%.2f to %.2f)", r.text, x.text, y.text, lo, hi)
	}
	return ""
}

// A figure is a number with a unit, where a page says it.
type benchFigure struct {
	benchNumber
	unit string
	// text is the figure as quoted, context the line, line its number.
	text    string
	context string
	line    int
}

var (
	benchNumberToken = regexp.MustCompile(`\d+(?:\.\d+)?`)
	// chained is the next number of a range or list ("-2.65", " to 3.5", " / 789").
	benchChained = regexp.MustCompile(`^\s*(?:-|–|to|/|and)\s*\d+(?:\.\d+)?`)
	benchUnit    = regexp.MustCompile(`^\s?(ms|MiB|KiB|GiB|bytes|times|%|s|x)(?:$|[^\pL\pN_])`)
)

// figuresOf are the numbers of a line with their units ("" for none). A number that
// is part of a word or a version (v1.34.2, go1.26, p90) is none.
func benchFiguresOf(line string, n int) []benchFigure {
	var out []benchFigure
	for _, loc := range benchNumberToken.FindAllStringIndex(line, -1) {
		start, end := loc[0], loc[1]
		if start > 0 && strings.ContainsAny(line[start-1:start], ".abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_") ||
			end+1 < len(line) && line[end] == '.' && line[end+1] >= '0' && line[end+1] <= '9' {
			continue
		}
		rest := line[end:]
		for m := benchChained.FindString(rest); m != ""; m = benchChained.FindString(rest) {
			rest = rest[len(m):]
		}
		unit := ""
		if m := benchUnit.FindStringSubmatch(rest); m != nil {
			unit = m[1]
		}
		num, _ := benchParseNumber(line[start:end])
		text := num.text
		switch unit {
		case "":
		case "%", "x":
			text += unit
		default:
			text += " " + unit
		}
		out = append(out, benchFigure{benchNumber: num, unit: unit, text: text, context: strings.TrimSpace(line), line: n})
	}
	return out
}

// quotedFigures are the figures with a unit that page quotes from BENCHMARKS.md.
func benchQuotedFigures(page string) []benchFigure {
	var out []benchFigure
	for _, lines := range benchBlocks(page) {
		for _, l := range lines {
			for _, f := range benchFiguresOf(l.text, l.n) {
				if f.unit != "" {
					out = append(out, f)
				}
			}
		}
	}
	return out
}

type benchLine struct {
	text string
	n    int
}

// benchmarkBlocks are the blocks of page that name BENCHMARKS.md, and each table
// that follows one.
func benchBlocks(page string) [][]benchLine {
	var blocks [][]benchLine
	var block []benchLine
	fenced := false
	for i, line := range strings.Split(page, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			block = benchFlush(&blocks, block)
			continue
		}
		if fenced || strings.TrimSpace(line) == "" {
			block = benchFlush(&blocks, block)
			continue
		}
		block = append(block, benchLine{line, i + 1})
	}
	benchFlush(&blocks, block)
	var out [][]benchLine
	for i, b := range blocks {
		if benchNames(b) || i > 0 && benchNames(blocks[i-1]) && benchIsTable(b) {
			out = append(out, b)
		}
	}
	return out
}

func benchFlush(blocks *[][]benchLine, block []benchLine) []benchLine {
	if len(block) > 0 {
		*blocks = append(*blocks, block)
	}
	return nil
}

func benchNames(block []benchLine) bool {
	return slices.ContainsFunc(block, func(l benchLine) bool { return strings.Contains(l.text, "BENCHMARKS.md") })
}

func benchIsTable(block []benchLine) bool {
	return !slices.ContainsFunc(block, func(l benchLine) bool { return !strings.HasPrefix(strings.TrimSpace(l.text), "|") })
}

// A figureIndex is every number of BENCHMARKS.md, by unit.
type benchIndex map[string][]float64

func newBenchIndex(page string) benchIndex {
	index := benchIndex{}
	for i, line := range strings.Split(page, "\n") {
		for _, f := range benchFiguresOf(line, i+1) {
			index[f.unit] = append(index[f.unit], f.value)
		}
	}
	return index
}

// holds reports whether the page has a figure of q's unit that rounds to q.
func (index benchIndex) holds(q benchFigure) bool {
	units := []string{q.unit}
	if q.unit == "times" || q.unit == "x" {
		units = []string{"", "times", "x"}
	}
	for _, u := range units {
		for _, v := range index[u] {
			if math.Abs(v-q.value) <= q.half+1e-9 {
				return true
			}
		}
	}
	return false
}
