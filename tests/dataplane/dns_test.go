package dataplane

import (
	"fmt"
	"net/netip"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/dataplane"
)

// headlessProgram is two EndpointSlices of the headless Service "db" in namespace
// ns, one of each family: db-0 and db-1 ready in both (v4 and v6 hold their
// backends); db-2 (v4[2]) not ready, db-3 (v4[3]) not ready but serving and
// terminating.
func headlessProgram(ns string, v4, v6 []*dataplane.Backend) string {
	ports := fmt.Sprintf("[{name: http, port: %d}]", httpPort)
	return program(
		serviceSlice("v4", "", ns, "db", dataplane.IPv4, ports, hostEndpoint(v4[0], "db-0", "")+
			hostEndpoint(v4[1], "db-1", "")+
			hostEndpoint(v4[2], "db-2", "{ready: false}")+
			hostEndpoint(v4[3], "db-3", "{ready: false, serving: true, terminating: true}")),
		serviceSlice("v6", "", ns, "db", dataplane.IPv6, ports, hostEndpoint(v6[0], "db-0", "")+
			hostEndpoint(v6[1], "db-1", "")))
}

// hostEndpoint renders one endpoint of a slice with its hostname as a YAML list item;
// conditions holds the conditions as YAML, e.g. "{ready: false}", or is empty for
// none.
func hostEndpoint(b *dataplane.Backend, hostname, conditions string) string {
	item := fmt.Sprintf("        - addresses: [%q]\n          hostname: %s\n", b.IP, hostname)
	if conditions != "" {
		item += fmt.Sprintf("          conditions: %s\n", conditions)
	}
	return item
}

// TestDNSAnswersHeadlessService applies an IPv4 and an IPv6 slice of a headless
// Service and asks CoreDNS for the Service's name and its endpoints' hostnames: A
// and AAAA records of the ready endpoints, each hostname its own address, none for
// an endpoint that is not ready, serving and terminating or not.
func TestDNSAnswersHeadlessService(t *testing.T) {
	t.Parallel()
	dp := dataplane.Shared(t)
	ns := dp.Namespace(t, "dns")
	dp.Service(t, &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: ns},
		Spec: corev1.ServiceSpec{
			ClusterIP: corev1.ClusterIPNone,
			Ports:     []corev1.ServicePort{{Name: "http", Port: httpPort}},
		},
	})
	v4 := make([]*dataplane.Backend, 4)
	for i := range v4 {
		v4[i] = dp.Backend(t, dataplane.IPv4, httpPort)
	}
	v6 := []*dataplane.Backend{dp.Backend(t, dataplane.IPv6, httpPort), dp.Backend(t, dataplane.IPv6, httpPort)}

	cli := dp.CLI(t)
	cli.InitStack(headlessProgram(ns, v4, v6))
	cli.Run("up", "--yes", "--non-interactive", "--skip-preview")

	svc := dataplane.ServiceName("", "db", ns)
	for _, tc := range []struct {
		name   string
		family dataplane.Family
		want   []netip.Addr
	}{
		{svc, dataplane.IPv4, ips(v4[0], v4[1])},
		{svc, dataplane.IPv6, ips(v6[0], v6[1])},
		{dataplane.ServiceName("db-0", "db", ns), dataplane.IPv4, ips(v4[0])},
		{dataplane.ServiceName("db-0", "db", ns), dataplane.IPv6, ips(v6[0])},
		{dataplane.ServiceName("db-1", "db", ns), dataplane.IPv4, ips(v4[1])},
		{dataplane.ServiceName("db-1", "db", ns), dataplane.IPv6, ips(v6[1])},
		{dataplane.ServiceName("db-2", "db", ns), dataplane.IPv4, nil},
		{dataplane.ServiceName("db-3", "db", ns), dataplane.IPv4, nil},
	} {
		expectLookup(t, tc.name, tc.family, tc.want)
	}
}

// ips returns the backends' addresses, sorted as Lookup sorts.
func ips(backends ...*dataplane.Backend) []netip.Addr {
	var out []netip.Addr
	for _, b := range backends {
		out = append(out, b.IP)
	}
	return slices.SortedFunc(slices.Values(out), netip.Addr.Compare)
}

// expectLookup waits until CoreDNS answers name's records of family with want, and
// fails t if it does not within a minute.
func expectLookup(t *testing.T, name string, family dataplane.Family, want []netip.Addr) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		got, err := dataplane.Lookup(t.Context(), name, family)
		diff := cmp.Diff(want, got, cmp.Comparer(func(a, b netip.Addr) bool { return a == b }))
		if err == nil && diff == "" {
			t.Logf("%s %s: %v", name, family, got)
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("CoreDNS's %s answer for %s (-want +got, error %v):\n%s", family, name, err, diff)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
