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

// headlessProgram is two EndpointSlices of the headless Service "db", one of each
// family: db-0 and db-1 ready in both; db-2 (IPv4) not ready, db-3 (IPv4) not ready
// but serving and terminating.
const headlessProgram = `name: dataplane
runtime: yaml
resources:
  v4:
    type: endpoints:discovery.k8s.io/v1:EndpointSlice
    properties:
      metadata:
        namespace: %[1]s
        labels:
          kubernetes.io/service-name: db
      addressType: IPv4
      ports:
        - name: http
          port: %[2]d
      endpoints:
        - addresses: [%[3]q]
          hostname: db-0
        - addresses: [%[4]q]
          hostname: db-1
        - addresses: [%[5]q]
          hostname: db-2
          conditions:
            ready: false
        - addresses: [%[8]q]
          hostname: db-3
          conditions:
            ready: false
            serving: true
            terminating: true
  v6:
    type: endpoints:discovery.k8s.io/v1:EndpointSlice
    properties:
      metadata:
        namespace: %[1]s
        labels:
          kubernetes.io/service-name: db
      addressType: IPv6
      ports:
        - name: http
          port: %[2]d
      endpoints:
        - addresses: [%[6]q]
          hostname: db-0
        - addresses: [%[7]q]
          hostname: db-1
`

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
	cli.InitStack(fmt.Sprintf(headlessProgram, ns, httpPort, v4[0].IP, v4[1].IP, v4[2].IP, v6[0].IP, v6[1].IP, v4[3].IP))
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
