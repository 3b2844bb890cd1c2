package kube

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
)

// TestCheckFollowsTheClustersMinor checks that Check applies the rules of the cluster's
// Kubernetes minor, which it asks once per client (GET /version), and only when an
// input's verdict differs by minor: plain inputs ask nothing; node hints on a 1.32
// cluster (a managed one, reporting minor "32+") are left out with a warning that names
// its version; and a second such Check asks no more.
func TestCheckFollowsTheClustersMinor(t *testing.T) {
	t.Parallel()
	k, asked := clusterOfVersion(t, `{"major":"1","minor":"32+","gitVersion":"v1.32.13-gke.1000"}`)
	slice := k.EndpointSlice()
	const urn = resource.URN("urn:pulumi:dev::proj::endpoints:discovery.k8s.io/v1:EndpointSlice::webSlice")

	plain := inputsOf(t, `{"metadata":{"name":"web"},"addressType":"IPv4","endpoints":[{"addresses":["10.0.0.1"]}]}`)
	if _, err := slice.Check(t.Context(), p.CheckRequest{Urn: urn, Inputs: plain}); err != nil {
		t.Fatal(err)
	}
	if n := asked.Load(); n != 0 {
		t.Fatalf("Check of plain inputs asked the server's version %d times, want 0", n)
	}

	hinted := inputsOf(t, `{"metadata":{"name":"web"},"addressType":"IPv4","endpoints":[{"addresses":["10.0.0.1"],`+
		`"hints":{"forNodes":[{"name":"node-a"}]}}]}`)
	for range 2 {
		resp, err := slice.Check(t.Context(), p.CheckRequest{Urn: urn, Inputs: hinted})
		if err != nil || len(resp.Failures) != 0 {
			t.Fatalf("Check: %v, %v", resp.Failures, err)
		}
		hints := resp.Inputs.Get("endpoints").AsArray().Get(0).AsMap().Get("hints").AsMap()
		if _, kept := hints.GetOk("forNodes"); kept {
			t.Errorf("Check kept hints.forNodes for a 1.32 cluster, which drops them: %v", hints)
		}
	}
	if n := asked.Load(); n != 1 {
		t.Errorf("two Checks asked the server's version %d times, want 1", n)
	}
}

// clusterOfVersion is the package's resources configured for an API server that
// answers GET /version with info, and the count of those requests.
func clusterOfVersion(t *testing.T, info string) (*Kubernetes, *atomic.Int32) {
	t.Helper()
	return clusterAnswering(t, func(w http.ResponseWriter, _ *http.Request) { _, _ = fmt.Fprint(w, info) })
}

// clusterAnswering is the package's resources configured for an API server whose
// GET /version is answer, and the count of those requests.
func clusterAnswering(t *testing.T, answer http.HandlerFunc) (*Kubernetes, *atomic.Int32) {
	t.Helper()
	var asked atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/version" {
			http.NotFound(w, r)
			return
		}
		asked.Add(1)
		answer(w, r)
	}))
	t.Cleanup(srv.Close)
	return New(Config{Kubeconfig: fmt.Sprintf(`{"apiVersion": "v1", "kind": "Config",
"clusters": [{"name": "c", "cluster": {"server": %q}}],
"contexts": [{"name": "x", "context": {"cluster": "c"}}], "current-context": "x"}`, srv.URL)}), &asked
}

// TestCheckAsksTheVersionAgain checks that a failed GET /version does not pin Check to
// the newest minor's rules: Check applies them and says so once at warning level, the
// Checks within versionRetry share the failure, and a later Check asks again and, once
// the server answers, applies its minor's rules (a 1.32 cluster drops node hints).
//
//nolint:paralleltest // it swaps slog's default logger, where warnings go without an engine
func TestCheckAsksTheVersionAgain(t *testing.T) {
	var failures atomic.Int32
	k, asked := clusterAnswering(t, func(w http.ResponseWriter, _ *http.Request) {
		if failures.Add(1) <= 2 {
			http.Error(w, "the API server is starting", http.StatusInternalServerError)
			return
		}
		_, _ = fmt.Fprint(w, `{"major":"1","minor":"32","gitVersion":"v1.32.13"}`)
	})
	c, err := k.Client(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var elapsed time.Duration
	start := time.Now()
	c.serverVersion.now = func() time.Time { return start.Add(elapsed) }
	var log allWarnings
	defer slog.SetDefault(slog.Default())
	slog.SetDefault(slog.New(&log))

	slice := k.EndpointSlice()
	const urn = resource.URN("urn:pulumi:dev::proj::endpoints:discovery.k8s.io/v1:EndpointSlice::retried")
	hinted := inputsOf(t, `{"metadata":{"name":"web"},"addressType":"IPv4","endpoints":[{"addresses":["10.0.0.1"],`+
		`"hints":{"forNodes":[{"name":"node-a"}]}}]}`)
	keepsHints := func() bool {
		t.Helper()
		resp, err := slice.Check(t.Context(), p.CheckRequest{Urn: urn, Inputs: hinted})
		if err != nil || len(resp.Failures) != 0 {
			t.Fatalf("Check: %v, %v", resp.Failures, err)
		}
		_, kept := resp.Inputs.Get("endpoints").AsArray().Get(0).AsMap().Get("hints").AsMap().GetOk("forNodes")
		return kept
	}
	for i, step := range []struct {
		after time.Duration
		kept  bool
		asked int32
	}{
		{0, true, 1},                             // fails: the newest rules, which keep hints
		{versionRetry / 2, true, 1},              // the same burst: the failure is shared
		{versionRetry + time.Second, true, 2},    // asks again, fails again
		{2*versionRetry + time.Second, false, 3}, // asks again: the 1.32 rules
		{time.Hour, false, 3},                    // the answer is kept
	} {
		elapsed = step.after
		if kept := keepsHints(); kept != step.kept {
			t.Errorf("Check %d, %v after the first: hints kept = %v, want %v", i, step.after, kept, step.kept)
		}
		if n := asked.Load(); n != step.asked {
			t.Errorf("Check %d, %v after the first: the version was asked %d times, want %d", i, step.after, n, step.asked)
		}
	}
	said := 0
	for _, w := range log.texts {
		if strings.Contains(w, "could not ask the Kubernetes API server "+c.REST.Host+" its version") &&
			strings.Contains(w, "Check applies the rules of Kubernetes 1.37, the newest supported, and asks again") {
			said++
		}
	}
	if said != 1 {
		t.Errorf("the failed version request was said %d times, want once: %q", said, log.texts)
	}
}

// TestVersionOfACanceledCaller checks that a caller that gives up while its GET
// /version is in flight fails no one else: those waiting share one request of their
// own and get the version.
func TestVersionOfACanceledCaller(t *testing.T) {
	t.Parallel()
	first := make(chan struct{})
	var requests atomic.Int32
	k, asked := clusterAnswering(t, func(w http.ResponseWriter, r *http.Request) {
		if requests.Add(1) == 1 {
			close(first)
			<-r.Context().Done() // the first request is never answered; its caller gives up
			return
		}
		_, _ = fmt.Fprint(w, `{"major":"1","minor":"33","gitVersion":"v1.33.13"}`)
	})
	c, err := k.Client(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	canceled := make(chan error, 1)
	go func() {
		_, _, err := c.version(ctx)
		canceled <- err
	}()
	<-first
	const others = 3
	minors := make(chan int, others)
	for range others {
		go func() {
			minor, _, err := c.version(t.Context())
			if err != nil {
				t.Errorf("a caller waiting behind a canceled one: %v", err)
			}
			minors <- minor
		}()
	}
	cancel()
	if err := <-canceled; err == nil {
		t.Error("the canceled caller got the version")
	}
	for range others {
		if minor := <-minors; minor != 33 {
			t.Errorf("a caller waiting behind a canceled one got minor %d, want 33", minor)
		}
	}
	if n := asked.Load(); n != 2 {
		t.Errorf("the version was asked %d times, want 2: the canceled caller's and one shared by the others", n)
	}
}

// TestUpdateKeepsUnchangedEndpoints checks that a slice created with an address in a
// form 1.35 accepts (010.0.0.1) still checks, with a warning, when its cluster runs
// 1.36 and the program changes only its labels, as the API server keeps unchanged
// endpoints on an update; a change to its endpoints fails.
func TestUpdateKeepsUnchangedEndpoints(t *testing.T) {
	t.Parallel()
	k, _ := clusterOfVersion(t, `{"major":"1","minor":"36","gitVersion":"v1.36.3"}`)
	slice := k.EndpointSlice()
	const urn = resource.URN("urn:pulumi:dev::proj::endpoints:discovery.k8s.io/v1:EndpointSlice::legacySlice")
	olds := inputsOf(t, `{"metadata":{"name":"legacy","namespace":"default"},"addressType":"IPv4",`+
		`"endpoints":[{"addresses":["010.0.0.1"]}],"ports":[]}`)
	relabelled := inputsOf(t, `{"metadata":{"name":"legacy","labels":{"team":"a"}},"addressType":"IPv4",`+
		`"endpoints":[{"addresses":["010.0.0.1"]}],"ports":[]}`)
	resp, err := slice.Check(t.Context(), p.CheckRequest{Urn: urn, State: olds, Inputs: relabelled})
	if err != nil || len(resp.Failures) != 0 {
		t.Errorf("a label change of a slice with unchanged endpoints: failures %v, %v; want none", resp.Failures, err)
	}
	moved := inputsOf(t, `{"metadata":{"name":"legacy"},"addressType":"IPv4",`+
		`"endpoints":[{"addresses":["010.0.0.1","10.0.0.2"]}],"ports":[]}`)
	resp, err = slice.Check(t.Context(), p.CheckRequest{Urn: urn, State: olds, Inputs: moved})
	if err != nil || len(resp.Failures) != 1 || resp.Failures[0].Property != "endpoints[0].addresses[0]" {
		t.Errorf("a change to the endpoints: failures %v, %v; want endpoints[0].addresses[0] refused", resp.Failures, err)
	}
}

func TestLeadingNumber(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]int{"32": 32, "32+": 32, "7": 7} {
		if got, ok := leadingNumber(s); !ok || got != want {
			t.Errorf("leadingNumber(%q) = %d, %v; want %d", s, got, ok, want)
		}
	}
	for _, s := range []string{"", "+", "x1"} {
		if _, ok := leadingNumber(s); ok {
			t.Errorf("leadingNumber(%q) reads a number", s)
		}
	}
}

// TestClusterOutsideTheWindowIsSaid checks that a cluster older than the supported
// window is judged by the oldest minor's rules, and that Check says so once per client;
// its own warnings name the cluster's version.
//
//nolint:paralleltest // it swaps slog's default logger, where warnings go without an engine
func TestClusterOutsideTheWindowIsSaid(t *testing.T) {
	k, _ := clusterOfVersion(t, `{"major":"1","minor":"30","gitVersion":"v1.30.14"}`)
	slice := k.EndpointSlice()
	const urn = resource.URN("urn:pulumi:dev::proj::endpoints:discovery.k8s.io/v1:EndpointSlice::oldCluster")
	hinted := inputsOf(t, `{"metadata":{"name":"web"},"addressType":"IPv6","endpoints":[{"addresses":["2001:db8:0:0:0:0:0:1"],`+
		`"hints":{"forNodes":[{"name":"node-a"}]}}]}`)
	var log allWarnings
	defer slog.SetDefault(slog.Default())
	slog.SetDefault(slog.New(&log))
	for range 2 {
		resp, err := slice.Check(t.Context(), p.CheckRequest{Urn: urn, Inputs: hinted})
		if err != nil || len(resp.Failures) != 0 {
			t.Fatalf("Check: %v, %v; want the non-canonical IPv6 address accepted, as 1.32 does", resp.Failures, err)
		}
	}
	said := 0
	for _, w := range log.texts {
		if strings.Contains(w, "the cluster runs Kubernetes v1.30.14, outside the minors this provider supports "+
			"(1.32 to 1.37): Check applies the rules of 1.32") {
			said++
		}
	}
	if said != 1 {
		t.Errorf("the cluster outside the window was said %d times, want once: %q", said, log.texts)
	}
	if !strings.Contains(strings.Join(log.texts, "\n"), "endpoints[0].hints.forNodes: Kubernetes v1.30.14 does not know node hints") {
		t.Errorf("no node hints warning naming the cluster's version: %q", log.texts)
	}
}

// allWarnings collects every warning logged (slog's, without a host).
type allWarnings struct {
	mu    sync.Mutex
	texts []string
}

func (*allWarnings) Enabled(context.Context, slog.Level) bool { return true }
func (l *allWarnings) Handle(_ context.Context, r slog.Record) error {
	if r.Level == slog.LevelWarn {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.texts = append(l.texts, r.Message)
	}
	return nil
}
func (l *allWarnings) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *allWarnings) WithGroup(string) slog.Handler      { return l }
