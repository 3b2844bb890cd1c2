package dataplane

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/dataplane"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/pulumicli"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/toolchain"
)

// migrationGuide is the guide TestFromPulumiKubernetesDropsNoRequest follows, and
// walkthroughHeading the heading of its section that it runs.
const (
	migrationGuide     = "docs/guides/migrating.md"
	walkthroughHeading = "## From a pulumi-kubernetes stack, start to finish"
)

// walkthrough is the guide's section of that heading: the pulumi-kubernetes program a
// user starts from and the shell steps, block by block, in order.
type walkthrough struct {
	program string
	steps   []string
}

// walkthroughSteps says what each shell block of the walkthrough does, by a command it
// must hold: the test edits the program between some of them, so a block added,
// removed or moved must change the test too.
var walkthroughSteps = []string{
	"kubectl get endpoints -n apps -l", // note the UIDs, check the selector
	"pulumi import",                    // import, each to a file; the program takes the code
	"pulumi preview --expect-no-changes",
	"pulumi state delete", // pulumi-kubernetes forgets; the program drops its entries
	"pulumi refresh --expect-no-changes",
}

// fence is a fenced code block, possibly indented under a list item: its indentation,
// language and text.
var fence = regexp.MustCompile("(?ms)^( *)```([a-z]*)\n(.*?)^ *```$")

// walkthroughSection is the walkthrough's text, up to the next second-level heading.
var walkthroughSection = regexp.MustCompile("(?ms)^" + regexp.QuoteMeta(walkthroughHeading) + "\n(.*?)(^## |\\z)")

// readWalkthrough reads the walkthrough of the migration guide, and fails t unless it
// has one YAML program and the shell steps walkthroughSteps names.
func readWalkthrough(t *testing.T) walkthrough {
	t.Helper()
	page, err := os.ReadFile(filepath.Join(toolchain.RepoRoot(t), migrationGuide))
	if err != nil {
		t.Fatal(err)
	}
	section := walkthroughSection.FindStringSubmatch(string(page))
	if section == nil {
		t.Fatalf("%s has no section %q", migrationGuide, walkthroughHeading)
	}
	var w walkthrough
	var programs []string
	for _, m := range fence.FindAllStringSubmatch(section[1], -1) {
		code := regexp.MustCompile("(?m)^"+m[1]).ReplaceAllString(m[3], "")
		switch m[2] {
		case "yaml":
			programs = append(programs, code)
		case "sh":
			w.steps = append(w.steps, code)
		}
	}
	if len(programs) != 1 {
		t.Fatalf("%s %q has %d YAML programs, want 1: the pulumi-kubernetes program", migrationGuide, walkthroughHeading, len(programs))
	}
	w.program = programs[0]
	if len(w.steps) != len(walkthroughSteps) {
		t.Fatalf("%s %q has %d shell blocks, want %d", migrationGuide, walkthroughHeading, len(w.steps), len(walkthroughSteps))
	}
	for i, cmd := range walkthroughSteps {
		if !strings.Contains(w.steps[i], cmd) {
			t.Fatalf("%s %q: shell block %d does not run %q:\n%s", migrationGuide, walkthroughHeading, i+1, cmd, w.steps[i])
		}
	}
	return w
}

// guideNamespace is the namespace the guide's commands and program name; the test runs
// them in a namespace of its own.
var guideNamespace = regexp.MustCompile(`\bapps\b`)

// TestFromPulumiKubernetesDropsNoRequest follows the guide's walkthrough of a move
// from pulumi-kubernetes, its program and commands as they are written (only the
// namespace and the backends' addresses are the test's own): a stack whose
// pulumi-kubernetes program manages two selectorless Services, the EndpointSlice of
// one and the Endpoints of the other, takes the slice and the Endpoints under this
// provider while a client sends requests to each Service through kube-proxy without
// pause. No request fails, from the first command to the last; the `up` after the move
// changes nothing, preview and refresh find nothing to change, and the UIDs stay. An
// edit of the slice's endpoints afterwards is an update in place that drops no request
// either, and refresh finds nothing to change after it.
func TestFromPulumiKubernetesDropsNoRequest(t *testing.T) {
	t.Parallel()
	guide := readWalkthrough(t)
	dp := dataplane.Shared(t)
	ns := dp.Namespace(t, "from-kubernetes")
	web, legacy, next := dp.Backend(t, dataplane.IPv4, servicePort), dp.Backend(t, dataplane.IPv4, servicePort),
		dp.Backend(t, dataplane.IPv4, servicePort)
	cli := shellCLI(t, dp)
	cli.InstallKubernetes()
	addresses := strings.NewReplacer("10.20.0.1", web.IP.String(), "10.30.0.1", legacy.IP.String())
	oldProgram := addresses.Replace(guideNamespace.ReplaceAllString(guide.program, ns))
	cli.InitStack(oldProgram)
	cli.Run("up", "--yes", "--non-interactive", "--skip-preview")

	targets := map[string]string{"web": clusterIP(t, dp, ns, "web"), "web-legacy": clusterIP(t, dp, ns, "web-legacy")}
	dataplane.WaitServed(t, targets["web"], web.Endpoint(servicePort))
	dataplane.WaitServed(t, targets["web-legacy"], legacy.Endpoint(servicePort))
	loads := map[string]*dataplane.Load{}
	for name, target := range targets {
		loads[name] = dataplane.StartLoad(t, target)
	}

	run := func(step int) string { return runStep(t, cli, guideNamespace.ReplaceAllString(guide.steps[step], ns)) }
	uidsBefore := uidTable(run(0))
	for _, object := range []string{"EndpointSlice web-a", "Endpoints web-legacy"} {
		if uidsBefore[object] == "" {
			t.Fatalf("the guide's kubectl get lists no %s: %v", object, uidsBefore)
		}
	}
	run(1)
	program := oldProgram + importedEntries(t, cli, "web-a.yaml") + importedEntries(t, cli, "legacy.yaml")
	cli.WriteProject(program)
	run(2)
	run(3)
	program = withoutResources(t, program, "web-endpointslice", "web-legacy-endpoints")
	cli.WriteProject(program)
	if diff := cmp.Diff(uidsBefore, uidTable(run(4))); diff != "" {
		t.Errorf("UIDs after the move (-before +after):\n%s", diff)
	}
	for name, l := range loads {
		counts := l.Stop()
		t.Logf("requests to %s/%s during the move: %s", ns, name, counts)
		if counts.Failed > 0 || counts.Total() == 0 {
			t.Errorf("requests to %s/%s during the move: %d of %d failed: %v", ns, name, counts.Failed, counts.Total(), counts.Errors)
		}
	}

	counts, _ := upUnderLoad(t, cli, strings.Replace(program, "- "+web.IP.String()+"\n", "- "+next.IP.String()+"\n", 1),
		nil, targets["web"])
	edit := outcome{change: "the first edit after the move", way: "a slice's endpoint replaced, in place", gapFree: true, counts: counts[0]}
	report(t, fmt.Sprintf("requests to the ClusterIP Service %s/web through kube-proxy", ns), []outcome{edit})
	edit.check(t)
	dataplane.WaitServed(t, targets["web"], next.Endpoint(servicePort))
	cli.Run("refresh", "--yes", "--non-interactive", "--expect-no-changes")
	cli.Run("preview", "--non-interactive", "--expect-no-changes")
}

// shellCLI is the pulumi CLI of dp for a user's shell: the pinned pulumi and kubectl
// first on PATH, and confirmations answered yes, as a user at a terminal answers them
// (PULUMI_SKIP_CONFIRMATIONS).
func shellCLI(t *testing.T, dp *dataplane.DataPlane) *pulumicli.CLI {
	t.Helper()
	cli := dp.CLI(t, "PULUMI_SKIP_CONFIRMATIONS=true")
	cli.PrependPath(filepath.Dir(toolchain.Asset(t, "TEST_ASSET_PULUMI")))
	cli.PrependPath(filepath.Dir(toolchain.Asset(t, "TEST_ASSET_KUBECTL")))
	return cli
}

// runStep runs the shell commands of one step with bash in the project's directory and
// the CLI's environment, fails t if one fails, and returns their output.
func runStep(t *testing.T, cli *pulumicli.CLI, commands string) string {
	t.Helper()
	out, err := toolchain.Command(t.Context(), cli.Dir, cli.Environ(), "bash", "-euo", "pipefail", "-c", commands)
	if err != nil {
		t.Fatalf("%s: %v\n%s", commands, err, out)
	}
	t.Logf("%s\n%s", commands, out)
	return out
}

// uidLine is a line of `kubectl get ... -o custom-columns=KIND:.kind,NAME:.metadata.name,UID:.metadata.uid`.
var uidLine = regexp.MustCompile(`(?m)^(EndpointSlice|Endpoints)\s+(\S+)\s+([0-9a-f-]{36})$`)

// uidTable returns the UIDs that the kubectl lines of out list, by kind and name.
func uidTable(out string) map[string]string {
	uids := map[string]string{}
	for _, m := range uidLine.FindAllStringSubmatch(out, -1) {
		uids[m[1]+" "+m[2]] = m[3]
	}
	return uids
}

// importedEntries returns the resources of the code `pulumi import --out file` wrote,
// to paste under a program's `resources:`.
func importedEntries(t *testing.T, cli *pulumicli.CLI, file string) string {
	t.Helper()
	code, err := os.ReadFile(filepath.Clean(filepath.Join(cli.Dir, file)))
	if err != nil {
		t.Fatalf("the code pulumi import wrote: %v", err)
	}
	entries, ok := strings.CutPrefix(string(code), "resources:\n")
	if !ok || !strings.Contains(entries, "protect: true") {
		t.Fatalf("%s is not the resources of an import, protected:\n%s", file, code)
	}
	return entries
}

// withoutResources returns the YAML program without the entries of the resources
// named (each a key under `resources:`, indented by two spaces).
func withoutResources(t *testing.T, program string, names ...string) string {
	t.Helper()
	for _, name := range names {
		entry := regexp.MustCompile("(?ms)^  " + regexp.QuoteMeta(name) + ":\n.*?(^  \\S|\\z)")
		m := entry.FindStringSubmatchIndex(program)
		if m == nil {
			t.Fatalf("the program has no resource %s:\n%s", name, program)
		}
		program = program[:m[0]] + program[m[2]:]
	}
	return program
}

// clusterIP returns the address and port 80 of the Service ns/name.
func clusterIP(t *testing.T, dp *dataplane.DataPlane, ns, name string) string {
	t.Helper()
	svc, err := dp.ControlPlane().Clientset().CoreV1().Services(ns).Get(t.Context(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("the Service %s/%s: %v", ns, name, err)
	}
	return svc.Spec.ClusterIP + ":80"
}
