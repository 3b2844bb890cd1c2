package dataplane_test

import (
	"os"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/dataplane"
)

func TestMain(m *testing.M) {
	os.Exit(dataplane.RunTests(m))
}

// TestLoadCounts runs the load client against a backend of each family for a while,
// and against a port nothing listens on: it counts every request by the endpoint
// that served it, and the refused ones as failed.
func TestLoadCounts(t *testing.T) {
	t.Parallel()
	dp := dataplane.Shared(t)
	for _, family := range []dataplane.Family{dataplane.IPv4, dataplane.IPv6} {
		t.Run(string(family), func(t *testing.T) {
			t.Parallel()
			b := dp.Backend(t, family, 8080)

			served := runLoad(t, b.Endpoint(8080))
			if served.Failed > 0 || served.Total() == 0 {
				t.Errorf("load on %s: %s, want some requests, none failed", b.Endpoint(8080), served)
			}
			if diff := cmp.Diff([]string{b.Endpoint(8080)}, served.Endpoints()); diff != "" {
				t.Errorf("endpoints that served (-want +got):\n%s", diff)
			}

			refused := runLoad(t, b.Endpoint(8081))
			if refused.Failed == 0 || refused.Failed != refused.Total() {
				t.Errorf("load on %s, where nothing listens: %s, want every request failed", b.Endpoint(8081), refused)
			}
		})
	}
}

// runLoad sends requests to target without pause for half a second.
func runLoad(t *testing.T, target string) dataplane.Counts {
	t.Helper()
	l := dataplane.StartLoad(t, target)
	time.Sleep(500 * time.Millisecond)
	counts := l.Stop()
	t.Logf("%s: %s", target, counts)
	return counts
}
