package docs_test

import (
	"fmt"
	"math"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

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
// MiB, KiB, GiB, bytes, requests, %, "times" or "x" ("3.4 s", "1.31 times", "49.3
// MiB", "22 requests"; "milliseconds", "seconds" and "request" count as ms, s and
// requests; "29,000" is one number; the numbers of a range or list share its unit:
// "3.4 to 3.5 s", "1167 / 1215 bytes").
//
// It is quoted when it stands in a block (lines between blank lines, outside code
// blocks) that names BENCHMARKS.md, or in a table right after one (the block is its
// caption), on README.md, a page under docs/, an example's README.md, CONTRIBUTING.md,
// CHANGELOG.md or PROFILING.md. On the pages users read (all but the last three) a block that names
// `make bench` or links to docs/guides/performance.md quotes too; CONTRIBUTING.md
// names `make bench` beside build times, CHANGELOG.md beside the figures of past runs.
//
// It is in BENCHMARKS.md when the page holds a figure of the same unit that rounds to
// it at the quoted figure's decimals: "4.6 s" is 4.58 s, "50 MiB" is 50.1 MiB. For
// "times" and "x", a number without unit or with either counts; for requests, so does
// any number in a table column whose header names requests ("22 requests" is the
// "0 / 22" of such a column). A quoting block quotes only what the page holds: figures
// of past runs, and figures worked out rather than measured, belong in blocks that
// do not quote.

// quotingPages are the pages whose figures must be in BENCHMARKS.md besides those
// users read (userPages), relative to the repository's root.
var benchQuotingPages = []string{"CONTRIBUTING.md", "CHANGELOG.md", "PROFILING.md"}

// benchPerformanceGuide is the page a link to which makes a block quote BENCHMARKS.md.
const benchPerformanceGuide = "docs/guides/performance.md"

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
	index := newBenchIndex(benchReadFile(t, "BENCHMARKS.md"))
	pages := append(userPages(t), benchQuotingPages...)
	for _, name := range pages {
		for _, q := range benchQuotedFigures(name, benchReadFile(t, name)) {
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
	for _, q := range benchQuotedFigures("README.md", page) {
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

// The figures readers found the check missed: request counts, and figures beside a
// link to the performance guide or in a block naming `make bench`, on the pages users
// read; not on CONTRIBUTING.md, which names `make bench` beside build times.
func TestQuotedFiguresBesideTheGuide(t *testing.T) {
	t.Parallel()
	index := newBenchIndex("| program | API server requests for the kind, off / on | plugin peak RSS |\n|---|---|---|\n" +
		"| 200 EndpointSlices | 0 / 22 | 50.8 MiB |\n\n" +
		"flight at QPS 200 every call waits about 10/200 s = 50 ms per request\n\n" +
		"| RSS after the first GetSchema | 39.0 MiB | ours at most 40 MiB: met |\n")
	page := "Drift costs 22 requests, where 24 requests were quoted once; see [performance](performance.md#drift).\n\n" +
		"`make bench` waits about 50 ms a call, not 60 ms; the plugin stays under 40 MiB.\n\n" +
		"[drift](" + repoURL + "/blob/main/docs/guides/performance.md#drift): 51 MiB, 2 seconds.\n\n" +
		"[troubleshooting](troubleshooting.md): 99 ms, 7 requests, not quoted.\n\n" +
		"The performance guide (performance.md, not a link): 98 ms.\n"
	figures := func(name string) []string {
		var got []string
		for _, q := range benchQuotedFigures(name, page) {
			got = append(got, fmt.Sprintf("%d %s %v", q.line, q.text, index.holds(q)))
		}
		return got
	}
	want := []string{
		"1 22 requests true", "1 24 requests false",
		"3 50 ms true", "3 60 ms false", "3 40 MiB true",
		"5 51 MiB true", "5 2 seconds false",
	}
	for _, name := range []string{"docs/guides/traffic.md", "docs/guides/README.md"} {
		if diff := cmp.Diff(want, figures(name)); diff != "" {
			t.Errorf("%s: quoted figures (-want +got):\n%s", name, diff)
		}
	}
	// From README.md the first link is to a performance.md beside it, which is not the
	// guide.
	if diff := cmp.Diff(want[2:], figures("README.md")); diff != "" {
		t.Errorf("README.md: quoted figures (-want +got):\n%s", diff)
	}
	if got := figures("CONTRIBUTING.md"); len(got) != 0 {
		t.Errorf("CONTRIBUTING.md: blocks that do not name BENCHMARKS.md quote %q", got)
	}
}

// Numbers with thousands separators are one number, a flag's list is two; unit words
// count as their units.
func TestBenchFiguresOf(t *testing.T) {
	t.Parallel()
	var got []string
	for _, f := range benchFiguresOf("none of about 29,000 requests; `-slices 200,2000`; 3 milliseconds, 1 request, 1,5 s, 4 seconds", 1) {
		got = append(got, fmt.Sprintf("%s=%g%s", f.text, f.value, f.unit))
	}
	want := []string{"29,000 requests=29000requests", "200=200", "2000=2000", "3 milliseconds=3ms", "1 request=1requests",
		"1=1", "5 s=5s", "4 seconds=4s"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("figures (-want +got):\n%s", diff)
	}
}

func TestBenchLinksTo(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		page, target string
		want         bool
	}{
		{"docs/guides/traffic.md", "performance.md#drift", true},
		{"docs/installation-configuration.md", "guides/performance.md", true},
		{"README.md", "docs/guides/performance.md", true},
		{"examples/kubernetes/yaml/README.md", "../../../docs/guides/performance.md", true},
		{"README.md", repoURL + "/blob/main/docs/guides/performance.md#drift", true},
		{"README.md", "performance.md", false},
		{"docs/guides/traffic.md", "https://example.com/docs/guides/performance.md", false},
		{"docs/guides/performance.md", "#drift", false},
	} {
		if got := benchLinksTo(tt.page, tt.target, benchPerformanceGuide); got != tt.want {
			t.Errorf("benchLinksTo(%q, %q) = %v, want %v", tt.page, tt.target, got, tt.want)
		}
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

var benchFirstNumber = regexp.MustCompile(`^-?\d+(?:,\d{3})*(?:\.\d+)?`)

// parseNumber reads the number a cell begins with.
func benchParseNumber(s string) (benchNumber, bool) {
	m := benchFirstNumber.FindString(s)
	if m == "" {
		return benchNumber{}, false
	}
	v, err := strconv.ParseFloat(strings.ReplaceAll(m, ",", ""), 64)
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
	// numberToken is a number, its thousands separated by commas or not ("29,000").
	benchNumberToken = regexp.MustCompile(`\d+(?:,\d{3})*(?:\.\d+)?`)
	// chained is the next number of a range or list ("-2.65", " to 3.5", " / 789").
	benchChained = regexp.MustCompile(`^\s*(?:-|–|to|/|and)\s*\d+(?:,\d{3})*(?:\.\d+)?`)
	benchUnit    = regexp.MustCompile(`^\s?(ms|milliseconds|MiB|KiB|GiB|bytes|requests|request|times|%|seconds|s|x)(?:$|[^\pL\pN_])`)
	// unitNames are the units written out, by the unit they count as.
	benchUnitNames = map[string]string{"milliseconds": "ms", "seconds": "s", "request": "requests"}
)

// numberTokens are the numbers of line, by their start and end. A comma joins
// thousands only in a number it does not run into another ("200,2000" is two).
func benchNumberTokens(line string) [][2]int {
	var out [][2]int
	for pos := 0; pos < len(line); {
		loc := benchNumberToken.FindStringIndex(line[pos:])
		if loc == nil {
			break
		}
		start, end := pos+loc[0], pos+loc[1]
		if comma := strings.IndexByte(line[start:end], ','); comma >= 0 && end < len(line) && line[end] >= '0' && line[end] <= '9' {
			end = start + comma
		}
		out = append(out, [2]int{start, end})
		pos = end
	}
	return out
}

// figuresOf are the numbers of a line with their units ("" for none). A number that
// is part of a word or a version (v1.34.2, go1.26, p90) is none.
func benchFiguresOf(line string, n int) []benchFigure {
	var out []benchFigure
	for _, loc := range benchNumberTokens(line) {
		start, end := loc[0], loc[1]
		if start > 0 && strings.ContainsAny(line[start-1:start], ".abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_") ||
			end+1 < len(line) && line[end] == '.' && line[end+1] >= '0' && line[end+1] <= '9' {
			continue
		}
		rest := line[end:]
		for m := benchChained.FindString(rest); m != ""; m = benchChained.FindString(rest) {
			rest = rest[len(m):]
		}
		unit, written := "", ""
		if m := benchUnit.FindStringSubmatch(rest); m != nil {
			unit, written = m[1], m[1]
			if name, ok := benchUnitNames[unit]; ok {
				unit = name
			}
		}
		num, _ := benchParseNumber(line[start:end])
		text := num.text
		switch unit {
		case "":
		case "%", "x":
			text += unit
		default:
			text += " " + written
		}
		out = append(out, benchFigure{benchNumber: num, unit: unit, text: text, context: strings.TrimSpace(line), line: n})
	}
	return out
}

// quotedFigures are the figures with a unit that page, at path name from the
// repository's root, quotes from BENCHMARKS.md.
func benchQuotedFigures(name, page string) []benchFigure {
	var out []benchFigure
	for _, lines := range benchBlocks(name, page) {
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

// benchmarkBlocks are the blocks of page (at path name) that quote BENCHMARKS.md
// (benchQuotes), and each table that follows one.
func benchBlocks(name, page string) [][]benchLine {
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
		if benchQuotes(name, b) || i > 0 && benchQuotes(name, blocks[i-1]) && benchIsTable(b) {
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

// benchQuotes reports whether a block of the page at path name quotes BENCHMARKS.md:
// it names it or, on a page users read (forUsers), names `make bench` or links to
// the performance guide.
func benchQuotes(name string, block []benchLine) bool {
	return slices.ContainsFunc(block, func(l benchLine) bool {
		if strings.Contains(l.text, "BENCHMARKS.md") {
			return true
		}
		if !forUsers(name) {
			return false
		}
		if strings.Contains(l.text, "make bench") {
			return true
		}
		for _, m := range markdownLink.FindAllStringSubmatch(l.text, -1) {
			if benchLinksTo(name, m[1], benchPerformanceGuide) {
				return true
			}
		}
		return false
	})
}

// benchLinksTo reports whether target, a link on the page at path name, is to the
// repository's file file: relative to the page, or by its full URL.
func benchLinksTo(name, target, file string) bool {
	target, _, _ = strings.Cut(target, "#")
	if m := repoLink.FindStringSubmatch(target); m != nil {
		return m[2] == file
	}
	if strings.Contains(target, "://") || target == "" {
		return false
	}
	return path.Join(path.Dir(name), target) == file
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
	// A table's request counts are numbers without unit in a column that names them.
	for _, tb := range benchTables(page) {
		for col, h := range tb.header {
			if !strings.Contains(h, "request") {
				continue
			}
			for _, row := range tb.rows {
				if col >= len(row) {
					continue
				}
				for _, f := range benchFiguresOf(row[col], 0) {
					if f.unit == "" {
						index["requests"] = append(index["requests"], f.value)
					}
				}
			}
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
