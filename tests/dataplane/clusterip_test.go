package dataplane

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/dataplane"
)

// The ports the backends listen on: the Service's "http" port is 80 and targets the
// port named "web"; the slices name 8080 "http", 9090 "admin" and 7070 "web".
const (
	httpPort  = 8080
	adminPort = 9090
	webPort   = 7070
)

// slicePorts are the ports of the slices of the Service "web".
var slicePorts = fmt.Sprintf("[{name: http, port: %d}, {name: admin, port: %d}, {name: web, port: %d}]",
	httpPort, adminPort, webPort)

// endpoint renders one endpoint of a slice as a YAML list item; conditions holds
// the conditions as YAML, e.g. "{ready: false}".
func endpoint(b *dataplane.Backend, conditions string) string {
	return fmt.Sprintf("        - addresses: [%q]\n          conditions: %s\n", b.IP, conditions)
}

// TestClusterIPServesReadyEndpoints applies slices whose endpoints have each
// combination of conditions and checks which of them kube-proxy sends a ClusterIP
// Service's requests to: only the ready ones; when none is ready, the serving ones
// that are terminating; when there are neither, none (the connection is refused). A
// Service port reaches the slice port of its own name, whatever its targetPort.
func TestClusterIPServesReadyEndpoints(t *testing.T) {
	t.Parallel()
	dp := dataplane.Shared(t)
	ns := dp.Namespace(t, "clusterip")
	svc := dp.Service(t, &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: ns},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{
			{Name: "http", Port: 80, TargetPort: intstr.FromString("web")},
			{Name: "admin", Port: 81, TargetPort: intstr.FromInt32(adminPort)},
		}},
	})
	backends := make([]*dataplane.Backend, 7)
	for i := range backends {
		backends[i] = dp.Backend(t, dataplane.IPv4, httpPort, adminPort, webPort)
	}
	ready, readyUnset, notReady, servingTerminating, servingUnsetTerminating, terminating, servingNotTerminating :=
		backends[0], backends[1], backends[2], backends[3], backends[4], backends[5], backends[6]
	http, admin := svc.Spec.ClusterIP+":80", svc.Spec.ClusterIP+":81"
	byName := dataplane.ServiceName("", "web", ns) + ":80"

	cli := dp.CLI(t)
	up := func(endpoints ...string) {
		t.Helper()
		cli.WriteProject(program(serviceSlice("slice", "", ns, "web", dataplane.IPv4, slicePorts, strings.Join(endpoints, ""))))
		cli.Run("up", "--yes", "--non-interactive", "--skip-preview")
	}
	cli.InitStack(emptyProgram)

	up(endpoint(ready, "{ready: true}"),
		endpoint(readyUnset, "{}"),
		endpoint(notReady, "{ready: false}"),
		endpoint(servingTerminating, "{ready: false, serving: true, terminating: true}"),
		endpoint(servingUnsetTerminating, "{ready: false, terminating: true}"),
		endpoint(terminating, "{ready: false, serving: false, terminating: true}"),
		endpoint(servingNotTerminating, "{ready: false, serving: true, terminating: false}"))
	expectServed(t, http, ready.Endpoint(httpPort), readyUnset.Endpoint(httpPort))
	expectServed(t, admin, ready.Endpoint(adminPort), readyUnset.Endpoint(adminPort))
	expectServed(t, byName, ready.Endpoint(httpPort), readyUnset.Endpoint(httpPort))

	// No endpoint is ready: the serving and terminating ones take the traffic (serving
	// unset counts as serving).
	up(endpoint(notReady, "{ready: false}"),
		endpoint(servingTerminating, "{ready: false, serving: true, terminating: true}"),
		endpoint(servingUnsetTerminating, "{ready: false, terminating: true}"),
		endpoint(terminating, "{ready: false, serving: false, terminating: true}"),
		endpoint(servingNotTerminating, "{ready: false, serving: true, terminating: false}"))
	expectServed(t, http, servingTerminating.Endpoint(httpPort), servingUnsetTerminating.Endpoint(httpPort))

	// Neither ready nor serving and terminating: kube-proxy refuses the connection.
	up(endpoint(notReady, "{ready: false}"),
		endpoint(terminating, "{ready: false, serving: false, terminating: true}"),
		endpoint(servingNotTerminating, "{ready: false, serving: true, terminating: false}"))
	expectRefused(t, http)
}

// expectServed waits until exactly want serve target, then checks that a further
// round of requests goes to them alone.
func expectServed(t *testing.T, target string, want ...string) {
	t.Helper()
	dataplane.WaitServed(t, target, want...)
	counts := dataplane.Probe(t.Context(), target, 100)
	t.Logf("%s: %s", target, counts)
	if counts.Failed > 0 {
		t.Errorf("requests to %s failed: %s", target, counts)
	}
	if diff := cmp.Diff(sorted(want), counts.Endpoints()); diff != "" {
		t.Errorf("endpoints that served %s (-want +got):\n%s", target, diff)
	}
}

// expectRefused waits until every request to target is refused.
func expectRefused(t *testing.T, target string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		counts := dataplane.Probe(t.Context(), target, 10)
		if counts.Failed == counts.Total() && strings.Contains(strings.Join(counts.Errors, "\n"), "connection refused") {
			t.Logf("%s: %s", target, counts)
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("requests to %s are not refused: the last %s", target, counts)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
