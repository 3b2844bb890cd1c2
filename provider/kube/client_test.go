package kube

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
)

// A client without settings of its own gets schema.json's defaults of qps, burst and
// requestTimeout.
func TestClientDefaultsAreTheSchemas(t *testing.T) {
	t.Parallel()
	c, err := NewClient(Config{Kubeconfig: `{"apiVersion": "v1", "kind": "Config",
"clusters": [{"name": "c", "cluster": {"server": "http://127.0.0.1:1"}}],
"contexts": [{"name": "x", "context": {"cluster": "c"}}], "current-context": "x"}`})
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	vars := spec.MustLoad().Config.Variables
	timeout, err := time.ParseDuration(fmt.Sprint(vars["requestTimeout"].Default))
	if err != nil {
		t.Fatalf("schema.json's requestTimeout default: %v", err)
	}
	got := []any{float64(c.REST.QPS), float64(c.REST.Burst), c.REST.Timeout}
	want := []any{vars["qps"].Default, vars["burst"].Default, timeout}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the client's qps, burst and request timeout (-schema.json +client):\n%s", diff)
	}
	if DefaultQPS() != float64(c.REST.QPS) || DefaultBurst() != c.REST.Burst || DefaultRequestTimeout() != c.REST.Timeout {
		t.Errorf("DefaultQPS, DefaultBurst, DefaultRequestTimeout = %g, %d, %s; the client has %g, %d, %s",
			DefaultQPS(), DefaultBurst(), DefaultRequestTimeout(), c.REST.QPS, c.REST.Burst, c.REST.Timeout)
	}
}
