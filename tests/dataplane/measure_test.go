package dataplane

import (
	"fmt"
	"maps"
	"strings"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/dataplane"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/pulumicli"
)

// servicePort is the port every backend of these tests serves on and the slices and
// Endpoints name "http", as the Services' port is named; altPort is a second port the
// backends also serve on, for a change of port.
const (
	servicePort = 8080
	altPort     = 8081
)

// Windows of a change under load: requests are counted for quiet before the `pulumi
// up`, during it, and for settle after it. kube-proxy applies a change at most a
// second (its minimum sync period) after the one before, so a gap a change opens
// shows within settle of the up's end.
const (
	quiet  = time.Second
	settle = 3 * time.Second
)

// ep is an endpoint of a program: a backend, ready or not.
type ep struct {
	backend *dataplane.Backend
	ready   bool
}

// slice is an EndpointSlice resource of a program: its resource name, its
// metadata.name (empty: autonamed), the Service it belongs to, its address family,
// the port named "http", its endpoints and the resources it depends on.
type slice struct {
	resource, name, service string
	family                  dataplane.Family
	port                    int
	endpoints               []ep
	dependsOn               []string
}

// yaml renders the slice, in namespace ns, as an entry of a program's resources.
func (s slice) yaml(ns string) string {
	var endpoints strings.Builder
	for _, e := range s.endpoints {
		fmt.Fprintf(&endpoints, "        - {addresses: [%q], conditions: {ready: %t}}\n", e.backend.IP, e.ready)
	}
	return serviceSlice(s.resource, s.name, ns, s.service, s.family, fmt.Sprintf("[{name: http, port: %d}]", s.port),
		endpoints.String()) + dependsOn(s.dependsOn)
}

// dependsOn renders the dependsOn option of a resource, if it has any.
func dependsOn(resources []string) string {
	if len(resources) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("    options:\n      dependsOn:\n")
	for _, r := range resources {
		fmt.Fprintf(&b, "        - ${%s}\n", r)
	}
	return b.String()
}

// program renders a YAML program of the given resources (each rendered by yaml).
func program(resources ...string) string {
	return "name: dataplane\nruntime: yaml\nresources:\n" + strings.Join(resources, "")
}

// phases are a client's counts in the windows of one change: before the `pulumi
// up`, during it and after it.
type phases struct {
	before, during, after dataplane.Counts
	// errors are the client's first errors, whatever the window.
	errors []string
}

// failed is the number of requests the change cost: those that failed during the
// up or after it.
func (p phases) failed() int { return p.during.Failed + p.after.Failed }

// cell renders the counts of a window as "failed/requests".
func cell(c dataplane.Counts) string { return fmt.Sprintf("%d/%d", c.Failed, c.Total()) }

// upUnderLoad writes program and runs `pulumi up` while a client sends requests to
// each target without pause (dataplane.StartLoad), and returns each target's counts
// in the windows of the change (quiet, the up, settle) and the up's output. onUp, if
// not nil, runs as soon as the up has finished.
func upUnderLoad(t *testing.T, cli *pulumicli.CLI, prog string, onUp func(), targets ...string) ([]phases, string) {
	t.Helper()
	loads := make([]*dataplane.Load, len(targets))
	for i, target := range targets {
		loads[i] = dataplane.StartLoad(t, target)
	}
	snapshot := func() []dataplane.Counts {
		counts := make([]dataplane.Counts, len(loads))
		for i, l := range loads {
			counts[i] = l.Counts()
		}
		return counts
	}
	time.Sleep(quiet)
	start := snapshot()
	cli.WriteProject(prog)
	out := cli.Run("up", "--yes", "--non-interactive", "--skip-preview")
	end := snapshot()
	if onUp != nil {
		onUp()
	}
	time.Sleep(settle)
	result := make([]phases, len(loads))
	for i, l := range loads {
		final := l.Stop()
		result[i] = phases{before: start[i], during: minus(end[i], start[i]), after: minus(final, end[i]), errors: final.Errors}
	}
	return result, out
}

// minus returns the requests counted in c and not in earlier, a snapshot of the same
// client before c.
func minus(c, earlier dataplane.Counts) dataplane.Counts {
	d := dataplane.Counts{Failed: c.Failed - earlier.Failed, Served: maps.Clone(c.Served)}
	for endpoint, n := range earlier.Served {
		d.Served[endpoint] -= n
		if d.Served[endpoint] == 0 {
			delete(d.Served, endpoint)
		}
	}
	return d
}

// outcome is one change, the way it was made, and what it cost the requests of one
// Service.
type outcome struct {
	change, way string
	// gapFree says the way is meant to drop no request; wantGap that it leaves the
	// Service without endpoints for a while, so some requests must fail (which shows
	// that the client sees a gap when there is one).
	gapFree, wantGap bool
	counts           phases
}

// check fails t if the requests failed before the change (the Service was not
// steady), if a gap-free way cost any, or if a way that leaves a gap cost none.
func (o outcome) check(t *testing.T) {
	t.Helper()
	if o.counts.before.Failed > 0 {
		t.Errorf("%s (%s): %d of %d requests failed before the change: %v",
			o.change, o.way, o.counts.before.Failed, o.counts.before.Total(), o.counts.errors)
	}
	if o.gapFree && o.counts.failed() > 0 {
		t.Errorf("%s (%s) dropped requests: %d during the up, %d after it: %v",
			o.change, o.way, o.counts.during.Failed, o.counts.after.Failed, o.counts.errors)
	}
	if o.wantGap && o.counts.failed() == 0 {
		t.Errorf("%s (%s) dropped no request, but it leaves the Service without endpoints for a while: "+
			"the client no longer sees such a gap", o.change, o.way)
	}
}

// report logs the outcomes as a table: failed/sent requests before, during and
// after each change's `pulumi up`.
func report(t *testing.T, title string, outcomes []outcome) {
	t.Helper()
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	_, _ = fmt.Fprintln(w, "change\tway\tbefore\tduring up\tafter\tfailed\twanted")
	for _, o := range outcomes {
		wanted := "any"
		switch {
		case o.gapFree:
			wanted = "0"
		case o.wantGap:
			wanted = "> 0"
		}
		_, _ = fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%d\t%s\n", o.change, o.way,
			cell(o.counts.before), cell(o.counts.during), cell(o.counts.after), o.counts.failed(), wanted)
	}
	_ = w.Flush()
	t.Logf("%s (failed/sent requests; before: %v, after: %v):\n%s", title, quiet, settle, b.String())
}
