package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// A run of some sections rewrites those and keeps every other section of the report
// byte for byte, in the report's order, under the shared header.
func TestAssembleKeepsOtherSections(t *testing.T) {
	t.Parallel()
	old := pageHeader + "\n## Check\n\nMeasured long ago.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n" +
		"\n## Drift: refreshBeforeUpdate\n\nold drift, kept\nas it was\n" +
		"\n## Start-up and footprint\n\nold start-up\n"
	page := assembleOnto(t, old, map[string]string{"Start-up and footprint": "## Start-up and footprint\n\nnew start-up\n"})
	want := pageHeader + "\n## Start-up and footprint\n\nnew start-up\n" +
		"\n## Check\n\nMeasured long ago.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n" +
		"\n## Drift: refreshBeforeUpdate\n\nold drift, kept\nas it was\n"
	if diff := cmp.Diff(want, page); diff != "" {
		t.Errorf("assembled page (-want +got):\n%s", diff)
	}
}

// assembleOnto assembles the fresh sections onto the page old, as a run with -only
// does, and checks that the page assembled again from its own sections, as the next
// run keeps them, is the same.
func assembleOnto(t *testing.T, old string, fresh map[string]string) string {
	t.Helper()
	sections, err := splitSections(old)
	if err != nil {
		t.Fatal(err)
	}
	page := assemble(sections, fresh)
	again, err := splitSections(page)
	if err != nil {
		t.Fatal(err)
	}
	if got := assemble(again, nil); got != page {
		t.Errorf("a page assembled from its own sections changed:\n%s", got)
	}
	return page
}

// A page with a section the program does not write is not one of its reports.
func TestSplitSectionsRejectsUnknownSections(t *testing.T) {
	t.Parallel()
	if _, err := splitSections(pageHeader + "\n## Check\n\nx\n\n## Notes by hand\n\ny\n"); err == nil ||
		!strings.Contains(err.Error(), `"Notes by hand"`) {
		t.Errorf("error %v, want one naming the section", err)
	}
}

// Every section names its own run: its date, the machine, the load at its start and
// end, the commit it measured, and the versions of what it ran, its tools' only.
func TestSectionsAreStamped(t *testing.T) {
	t.Parallel()
	cfg := config{version: "0.7.0", pulumiVersion: "v3.256.0", yamlVersion: "v1.10.3", kubeVersion: "v1.37.2",
		etcdVersion: "v3.5.21", durableEtcd: true, kubernetesVersion: "4.25.0"}
	at := time.Date(2026, 11, 28, 7, 30, 0, 0, time.UTC)
	r := results{
		check: []checkFigures{{name: "EndpointSlice: big"}},
		drift: &driftFigures{scenario: engineScenario{name: "200 EndpointSlices"}, off: fakeRuns(1, [steps]float64{1, 0, 1, 0, 1}, [steps]int{}), on: fakeRuns(1, [steps]float64{1, 0, 1, 0, 1}, [steps]int{})},
		stamps: map[string]stamp{
			"check": {at: at, load: [2]float64{1.5, 2.25}, commit: "0123456789ab", tools: cfg.sectionTools("check")},
			"drift": {at: at.Add(time.Hour), load: [2]float64{3, 4}, commit: "ba9876543210 + local changes", tools: cfg.sectionTools("drift")},
		},
	}
	sections := renderSections(r, cfg)
	check, drift := sections["Check"], sections["Drift: refreshBeforeUpdate"]
	wantLines(t, check, "## Check\n\nMeasured 2026-11-28 07:30 UTC on ", "; load 1.50 at the start, 2.25 at the end.\nVersions: provider 0.7.0 (commit 0123456789ab, go")
	if strings.Contains(check, "pulumi CLI") || strings.Contains(check, "etcd") {
		t.Errorf("the Check section names tools it does not run:\n%s", check)
	}
	wantLines(t, drift, "Measured 2026-11-28 08:30 UTC on ", "; load 3.00 at the start, 4.00 at the end.",
		"Versions: provider 0.7.0 (commit ba9876543210 + local changes, go",
		"; pulumi CLI v3.256.0; YAML host v1.10.3; kube-apiserver and kube-controller-manager v1.37.2; etcd v3.5.21 (fsync on")
	if strings.Contains(drift, "pulumi-kubernetes") {
		t.Errorf("the drift section names pulumi-kubernetes:\n%s", drift)
	}
	if header := render(results{}, cfg); strings.Contains(header, "2026") || strings.Contains(header, "Measured") {
		t.Errorf("the page header names a run:\n%s", header)
	}
	// A run that could not tell its commit says so.
	r.stamps["check"] = stamp{at: at}
	wantLines(t, renderSections(r, cfg)["Check"], "Versions: provider 0.7.0 (commit unknown, go")
}

// sourceCommit names the checkout's HEAD, with "+ local changes" only for tracked
// files of the provider, its commands, the bench, the module files and the schema,
// and "unknown" where git cannot tell.
func TestSourceCommit(t *testing.T) {
	t.Parallel()
	if got := sourceCommit(t.Context(), filepath.Join(t.TempDir(), "no-such-directory")); got != "unknown" {
		t.Errorf("sourceCommit of a missing directory = %q, want unknown", got)
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: only the unknown commit is checked")
	}
	dir, git, write := scratchRepo(t)
	git("init", "-q")
	for _, name := range []string{"provider/kube/slice.go", "cmd/main.go", "tests/cmd/bench/run.go", "tests/e2e/e2e_test.go", "go.mod", "README.md", "schema.json"} {
		write(name, "package x\n")
	}
	git("add", ".")
	git("commit", "-q", "-m", "first")
	head := git("rev-parse", "HEAD")[:12]
	if got := sourceCommit(t.Context(), dir); got != head {
		t.Errorf("a clean checkout: %q, want %q", got, head)
	}
	// Changes outside what the bench measures, and untracked files, are not counted;
	// the commit is the repository's from a subdirectory too.
	write("README.md", "changed\n")
	write("tests/e2e/e2e_test.go", "changed\n")
	write("provider/kube/new.go", "untracked\n")
	if got := sourceCommit(t.Context(), filepath.Join(dir, "tests")); got != head {
		t.Errorf("changes outside the measured source: %q, want %q", got, head)
	}
	for _, name := range []string{"provider/kube/slice.go", "cmd/main.go", "tests/cmd/bench/run.go", "go.mod", "schema.json"} {
		write(name, "changed\n")
		if got, want := sourceCommit(t.Context(), filepath.Join(dir, "tests")), head+" + local changes"; got != want {
			t.Errorf("%s changed: %q, want %q", name, got, want)
		}
		git("checkout", "-q", "--", name)
	}
	// A staged change counts too.
	write("go.mod", "staged\n")
	git("add", "go.mod")
	if got, want := sourceCommit(t.Context(), dir), head+" + local changes"; got != want {
		t.Errorf("a staged change: %q, want %q", got, want)
	}
}

// scratchRepo returns a new directory for a git repository, a git that runs in it with
// no configuration of the machine's, and a write of a file under it.
func scratchRepo(t *testing.T) (dir string, git func(args ...string) string, write func(name, text string)) {
	t.Helper()
	dir = t.TempDir()
	git = func(args ...string) string {
		t.Helper()
		cmd := exec.CommandContext(t.Context(), "git", append([]string{"-C", dir, "-c", "user.name=bench", "-c", "user.email=bench@example.com",
			"-c", "commit.gpgsign=false"}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	write = func(name, text string) {
		t.Helper()
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir, git, write
}

// The newest pulumi-kubernetes runs only when its plugin is given, and then in a
// section of its own.
func TestNewestSection(t *testing.T) {
	t.Parallel()
	if (config{}).measures("pulumi-kubernetes-newest") {
		t.Error("a run without -pulumi-kubernetes-newest measures its section")
	}
	if !(config{newest: "/bin/k", newestVersion: "4.32.0"}).measures("pulumi-kubernetes-newest") {
		t.Error("a run with -pulumi-kubernetes-newest does not measure its section")
	}
	f := besideFigures{scenario: besideScenario(200, 0), version: "4.32.0",
		floor: fakeRuns(1, [steps]float64{4, 1, 3, 0, 0, 2}, [steps]int{}), ours: fakeRuns(1, [steps]float64{4, 1, 3, 0, 0, 2}, [steps]int{}),
		kubernetes: fakeRuns(1, [steps]float64{4, 1, 3, 0, 0, 2}, [steps]int{})}
	cfg := config{newestVersion: "4.32.0"}
	r := results{newest: []besideFigures{f}, stamps: map[string]stamp{"pulumi-kubernetes-newest": {tools: cfg.sectionTools("pulumi-kubernetes-newest")}}}
	wantLines(t, render(r, cfg), "## Beside the newest pulumi-kubernetes\n", "; pulumi-kubernetes 4.32.0.\n",
		"built by hand from the source at its tag", "| floor | provider | pulumi-kubernetes 4.32.0 |")
}

// Where the overhead target is missed, the section says so and where the plugin's
// CPU went.
func TestRenderMissedOverhead(t *testing.T) {
	t.Parallel()
	o := overheadFigures{limits: overheadLimits[1], clientGo: latencies{}, provider: latencies{}, profile: "1.20s of samples, of which gRPC and protobuf 40%"}
	for _, op := range operations {
		o.clientGo[op] = []time.Duration{10 * time.Millisecond}
		o.provider[op] = []time.Duration{10500 * time.Microsecond}
	}
	o.provider["read"] = []time.Duration{12 * time.Millisecond}
	var b strings.Builder
	renderOverhead(func(format string, a ...any) { fmt.Fprintf(&b, format+"\n", a...) }, []overheadFigures{o})
	if strings.Contains(b.String(), "%!") {
		t.Errorf("a format verb went wrong:\n%s", b.String())
	}
	wantLines(t, b.String(),
		"| create | 10.00 ms | 10.00 ms | 10.50 ms | 10.50 ms | 1.05 | 0.50 ms | overhead under 10%: met |",
		"| read | 10.00 ms | 10.00 ms | 12.00 ms | 12.00 ms | 1.20 | 2.00 ms | overhead under 10%: missed |",
		"**Missed** for read (overhead 2.00 ms, plugin CPU 0.00 ms a call).",
		"The plugin's CPU profile of the run (`PULUMI_ENDPOINTS_CPU_PROFILE`): 1.20s of samples, of which gRPC and protobuf 40%.")
}

func TestSummarizeTop(t *testing.T) {
	t.Parallel()
	top := `File: pulumi-resource-endpoints
Type: cpu
Duration: 10.01s, Total samples = 1.20s (11.99%)
Showing nodes accounting for 1.20s, 100% of 1.20s total
      flat  flat%   sum%        cum   cum%
     0.50s 41.67% 41.67%      0.50s 41.67%  runtime.futex
     0.30s 25.00% 66.67%      0.40s 33.33%  google.golang.org/grpc/internal/transport.(*http2Server).operateHeaders
     0.20s 16.67% 83.33%      0.20s 16.67%  encoding/json.(*decodeState).object
     0.10s  8.33% 91.67%      0.10s  8.33%  github.com/endpoints-provider/pulumi-endpoints/provider/kube.(*Client).Create
     0.10s  8.33%   100%      0.10s  8.33%  main.main
`
	got, err := summarizeTop(top)
	if err != nil {
		t.Fatal(err)
	}
	want := "1.20s of samples, of which system calls and the scheduler 42%, gRPC and protobuf 25%, " +
		"JSON and Kubernetes objects 17%, other 8%"
	if got != want {
		t.Errorf("summarizeTop =\n%q, want\n%q", got, want)
	}
	if _, err := summarizeTop("no profile"); err == nil {
		t.Error("no error for output without samples")
	}
}

// A kept section of a run that named no commit says so; one that named its commit, and
// a fresh one, are left as they are, and a second assembly changes nothing.
func TestAssembleSaysWhenNoCommitWasRecorded(t *testing.T) {
	t.Parallel()
	old := pageHeader +
		"\n## Check\n\nMeasured then.\nVersions: provider 0.7.0-dev.0 (go1.26.8); etcd v3.5.21.\n" +
		"\n## Drift: refreshBeforeUpdate\n\nMeasured later.\nVersions: provider 0.7.0-dev.0 (commit 0123456789ab, go1.26.8).\n"
	fresh := "## Start-up and footprint\n\nVersions: provider 0.7.0-dev.0 (commit ba9876543210 + local changes, go1.26.8).\n"
	page := assembleOnto(t, old, map[string]string{"Start-up and footprint": fresh})
	want := pageHeader + "\n" + fresh +
		"\n## Check\n\nMeasured then.\nVersions: provider 0.7.0-dev.0 (commit not recorded, go1.26.8); etcd v3.5.21.\n" +
		"\n## Drift: refreshBeforeUpdate\n\nMeasured later.\nVersions: provider 0.7.0-dev.0 (commit 0123456789ab, go1.26.8).\n"
	if diff := cmp.Diff(want, page); diff != "" {
		t.Errorf("assembled page (-want +got):\n%s", diff)
	}
}

// The start-up section sets ours beside the framework's floor and beside the same
// plugin built without the AWS and Azure credential libraries: times, their ratios against
// 1.10, the resident set and the binary's size, with what the libraries add.
func TestRenderStartup(t *testing.T) {
	t.Parallel()
	msOf := func(v ...float64) []time.Duration {
		ds := make([]time.Duration, len(v))
		for i, x := range v {
			ds[i] = time.Duration(x * float64(time.Millisecond))
		}
		return ds
	}
	s := startupFigures{
		toSchema: msOf(44, 42, 43), floor: msOf(40, 39, 41), without: msOf(41, 40, 39),
		schemaRSS: []int64{40 << 10, 41 << 10, 40 << 10}, floorRSS: []int64{34 << 10, 35 << 10, 34 << 10},
		withoutRSS: []int64{33 << 10, 33 << 10, 34 << 10}, configure: msOf(1.25),
		rssConfigure: 41 << 10, hwmConfigure: 42 << 10, binarySize: 39 << 20, withoutSize: 33<<20 + 1<<19,
	}
	var b strings.Builder
	renderStartup(func(format string, a ...any) { fmt.Fprintf(&b, format+"\n", a...) }, &s)
	if strings.Contains(b.String(), "%!") {
		t.Errorf("a format verb went wrong:\n%s", b.String())
	}
	wantLines(t, b.String(),
		"| exec to first GetSchema answer (median of 3; p90 44.00 ms) | 43.00 ms | within 10% of the framework's floor: met |",
		"| ratio to the floor (medians) | 1.07 | at most 1.10: met |",
		"| the same plugin built without the AWS and Azure credential libraries (`-tags endpoints_no_cloud_credentials`), same runs (median; p90 41.00 ms) | 40.00 ms | none |",
		"| ratio to the build without the AWS and Azure credential libraries (medians) | 1.07 | at most 1.10: met |",
		"| RSS after the first GetSchema (median of the runs): ours / the floor's | 40.0 MiB / 34.0 MiB | ours at most 40 MiB: met |",
		"| RSS after the first GetSchema without the AWS and Azure credential libraries (median of the runs) | 33.0 MiB (ours 7.0 MiB more) | none |",
		"| plugin binary size | 39.0 MiB | none |",
		"| plugin binary size without the AWS and Azure credential libraries | 33.5 MiB (ours 5.5 MiB more) | none |",
		"| peak RSS up to Configure | 42.0 MiB | under 50 MiB: met |")

	// Ours 12% slower than the build without the libraries misses, though within 10% of
	// the floor.
	s.without = msOf(38, 38.4, 38.5)
	b.Reset()
	renderStartup(func(format string, a ...any) { fmt.Fprintf(&b, format+"\n", a...) }, &s)
	wantLines(t, b.String(), "| ratio to the build without the AWS and Azure credential libraries (medians) | 1.12 | at most 1.10: missed |",
		"| ratio to the floor (medians) | 1.07 | at most 1.10: met |")
}
