package kube

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

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
	var asked atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/version" {
			http.NotFound(w, r)
			return
		}
		asked.Add(1)
		fmt.Fprint(w, `{"major":"1","minor":"32+","gitVersion":"v1.32.13-gke.1000"}`)
	}))
	t.Cleanup(srv.Close)
	slice := New(Config{Kubeconfig: fmt.Sprintf(`{"apiVersion": "v1", "kind": "Config",
"clusters": [{"name": "c", "cluster": {"server": %q}}],
"contexts": [{"name": "x", "context": {"cluster": "c"}}], "current-context": "x"}`, srv.URL)}).EndpointSlice()
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
