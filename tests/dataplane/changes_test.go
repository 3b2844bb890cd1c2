package dataplane

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/dataplane"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/pulumicli"
)

// step is one change of a sequence, applied with `pulumi up` under load: the
// program's slices after it, the endpoints that serve the Service then, and a backend
// to stop as soon as the up has finished (stopAtUp) or once the change has settled
// (stopAfter), as a server taken out of service stops.
type step struct {
	change, way         string
	gapFree, wantGap    bool
	slices              []slice
	served              []string
	stopAtUp, stopAfter *dataplane.Backend
}

// changes applies the steps in turn to the stack of cli (whose program holds the
// slices of namespace ns) while a client sends requests to target without pause,
// waits after each until exactly its endpoints serve target, and returns what each
// cost.
func changes(t *testing.T, cli *pulumicli.CLI, ns, target string, steps []step) []outcome {
	t.Helper()
	outcomes := make([]outcome, 0, len(steps))
	for _, s := range steps {
		var onUp func()
		if s.stopAtUp != nil {
			onUp = func() { stop(t, s.stopAtUp) }
		}
		counts, _ := upUnderLoad(t, cli, slicesProgram(ns, s.slices), onUp, target)
		dataplane.WaitServed(t, target, s.served...)
		if s.stopAfter != nil {
			stop(t, s.stopAfter)
		}
		outcomes = append(outcomes, outcome{change: s.change, way: s.way, gapFree: s.gapFree, wantGap: s.wantGap, counts: counts[0]})
	}
	return outcomes
}

// start creates the stack of cli with the slices, runs `pulumi up` and waits until
// exactly served serve target.
func start(t *testing.T, cli *pulumicli.CLI, ns, target string, slices []slice, served ...string) {
	t.Helper()
	cli.InitStack(slicesProgram(ns, slices))
	cli.Run("up", "--yes", "--non-interactive", "--skip-preview")
	dataplane.WaitServed(t, target, served...)
}

// slicesProgram is a program of the slices, in namespace ns.
func slicesProgram(ns string, slices []slice) string {
	resources := make([]string, len(slices))
	for i, s := range slices {
		resources[i] = s.yaml(ns)
	}
	return program(resources...)
}

func stop(t *testing.T, b *dataplane.Backend) {
	t.Helper()
	if err := b.Stop(); err != nil {
		t.Fatal(err)
	}
}

// backends starts n IPv4 backends on servicePort and altPort.
func backends(t *testing.T, dp *dataplane.DataPlane, n int) []*dataplane.Backend {
	t.Helper()
	bs := make([]*dataplane.Backend, n)
	for i := range bs {
		bs[i] = dp.Backend(t, dataplane.IPv4, servicePort, altPort)
	}
	return bs
}

// service creates a Service without a selector in namespace ns, its port 80 named
// "http"; headless, it has no cluster IP.
func service(t *testing.T, dp *dataplane.DataPlane, ns, name string, headless bool) *corev1.Service {
	t.Helper()
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{
			{Name: "http", Port: 80, TargetPort: intstr.FromInt32(servicePort)},
		}},
	}
	if headless {
		svc.Spec.ClusterIP = corev1.ClusterIPNone
	}
	return dp.Service(t, svc)
}

// ready and notReady are endpoints of b.
func ready(b *dataplane.Backend) ep    { return ep{backend: b, ready: true} }
func notReady(b *dataplane.Backend) ep { return ep{backend: b} }

// TestChangesDropNoRequest applies each change of a ClusterIP Service's slices with
// `pulumi up` while a client sends requests to the Service through kube-proxy
// without pause, and counts the requests that fail: none for adding and removing an
// endpoint, changing the port, moving endpoints to another slice in two ups or in one
// in which the slice that loses them depends on the slice that gains them, and
// marking an endpoint not ready before removing it (its backend stopped in between,
// so a request sent to it would fail). Moving endpoints in one up with the dependency
// the wrong way round (the losing slice's update first; the Service has no endpoints
// until kube-proxy's next sync, unless a sync already due takes both updates at once)
// or without one (the two updates race), and removing an endpoint whose backend stops
// as the up ends, may cost requests: their counts are logged.
func TestChangesDropNoRequest(t *testing.T) {
	t.Parallel()
	dp := dataplane.Shared(t)
	ns := dp.Namespace(t, "changes")
	target := service(t, dp, ns, "web", false).Spec.ClusterIP + ":80"
	b := backends(t, dp, 4)
	at := func(port int, bs ...*dataplane.Backend) []string {
		endpoints := make([]string, len(bs))
		for i, x := range bs {
			endpoints[i] = x.Endpoint(port)
		}
		return endpoints
	}
	a := func(port int, deps []string, eps ...ep) slice {
		return slice{resource: "a", service: "web", family: dataplane.IPv4, port: port, endpoints: eps, dependsOn: deps}
	}
	c := func(port int, eps ...ep) slice {
		return slice{resource: "b", service: "web", family: dataplane.IPv4, port: port, endpoints: eps}
	}
	const port, newPort = servicePort, altPort
	cli := dp.CLI(t)
	start(t, cli, ns, target, []slice{a(port, nil, ready(b[0]), ready(b[1])), c(port)}, at(port, b[0], b[1])...)
	moved := []string{"b"}
	outcomes := changes(t, cli, ns, target, []step{
		{change: "add an endpoint", way: "update in place", gapFree: true,
			slices: []slice{a(port, nil, ready(b[0]), ready(b[1]), ready(b[2])), c(port)}, served: at(port, b[0], b[1], b[2])},
		{change: "remove an endpoint", way: "update in place", gapFree: true,
			slices: []slice{a(port, nil, ready(b[0]), ready(b[1])), c(port)}, served: at(port, b[0], b[1])},
		{change: "change the port", way: "update in place", gapFree: true,
			slices: []slice{a(newPort, nil, ready(b[0]), ready(b[1])), c(newPort)}, served: at(newPort, b[0], b[1])},
		{change: "move endpoints to another slice", way: "one up, both slices updated in parallel",
			slices: []slice{a(newPort, nil), c(newPort, ready(b[0]), ready(b[1]))}, served: at(newPort, b[0], b[1])},
		{change: "move endpoints to another slice", way: "up 1 of 2: add them to the new slice", gapFree: true,
			slices: []slice{a(newPort, nil, ready(b[0]), ready(b[1])), c(newPort, ready(b[0]), ready(b[1]))},
			served: at(newPort, b[0], b[1])},
		{change: "move endpoints to another slice", way: "up 2 of 2: remove them from the old slice", gapFree: true,
			slices: []slice{a(newPort, nil, ready(b[0]), ready(b[1])), c(newPort)}, served: at(newPort, b[0], b[1])},
		{change: "move endpoints to another slice", way: "one up, the old slice dependsOn the new", gapFree: true,
			slices: []slice{a(newPort, moved), c(newPort, ready(b[0]), ready(b[1]))}, served: at(newPort, b[0], b[1])},
		{change: "move endpoints to another slice", way: "one up, the new slice dependsOn the old (the wrong way)",
			slices: []slice{a(newPort, moved, ready(b[0]), ready(b[1])), c(newPort)}, served: at(newPort, b[0], b[1])},
		{change: "remove an endpoint", way: "its backend stops as the up ends",
			slices: []slice{a(newPort, moved, ready(b[0])), c(newPort)}, served: at(newPort, b[0]),
			stopAtUp: b[1]},
		{change: "add an endpoint", way: "update in place", gapFree: true,
			slices: []slice{a(newPort, moved, ready(b[0]), ready(b[3])), c(newPort)}, served: at(newPort, b[0], b[3])},
		{change: "mark an endpoint not ready", way: "up 1 of 2 (its backend then stops)", gapFree: true,
			slices: []slice{a(newPort, moved, ready(b[0]), notReady(b[3])), c(newPort)}, served: at(newPort, b[0]),
			stopAfter: b[3]},
		{change: "remove the not-ready endpoint", way: "up 2 of 2", gapFree: true,
			slices: []slice{a(newPort, moved, ready(b[0])), c(newPort)}, served: at(newPort, b[0])},
	})
	report(t, fmt.Sprintf("requests to the ClusterIP Service %s/web through kube-proxy", ns), outcomes)
	for _, o := range outcomes {
		o.check(t)
	}
}

// TestReplaceSliceDropsNoRequest replaces a headless Service's slice with one of the
// other addressType (IPv4 and IPv6 in turn) while a client resolves the Service's name
// with CoreDNS and sends requests to the addresses it answers, without pause: a slice
// whose replacement gets a new name (a name of its own or an autoname) is created
// before the old one is deleted, and no request fails; a slice that keeps its fixed
// name must be deleted first, and some of the requests in between find no address.
func TestReplaceSliceDropsNoRequest(t *testing.T) {
	t.Parallel()
	dp := dataplane.Shared(t)
	ns := dp.Namespace(t, "replace")
	service(t, dp, ns, "names", true)
	target := dataplane.ServiceName("", "names", ns) + fmt.Sprint(":", servicePort)
	v4, v6 := dp.Backend(t, dataplane.IPv4, servicePort), dp.Backend(t, dataplane.IPv6, servicePort)
	named := func(name string, b *dataplane.Backend) []slice {
		family := dataplane.IPv4
		if b.IP.Is6() {
			family = dataplane.IPv6
		}
		return []slice{{resource: "names", name: name, service: "names", family: family, port: servicePort, endpoints: []ep{ready(b)}}}
	}
	cli := dp.CLI(t)
	start(t, cli, ns, target, named("names-a", v4), v4.Endpoint(servicePort))
	const change = "replace a slice (a new addressType)"
	outcomes := changes(t, cli, ns, target, []step{
		{change: change, way: "named, the same name: deleted first", wantGap: true,
			slices: named("names-a", v6), served: []string{v6.Endpoint(servicePort)}},
		{change: change, way: "named, a new name: created first", gapFree: true,
			slices: named("names-b", v4), served: []string{v4.Endpoint(servicePort)}},
		{change: change, way: "from a name to an autoname: created first", gapFree: true,
			slices: named("", v6), served: []string{v6.Endpoint(servicePort)}},
		{change: change, way: "autonamed: a new autoname, created first", gapFree: true,
			slices: named("", v4), served: []string{v4.Endpoint(servicePort)}},
	})
	report(t, fmt.Sprintf("requests to the headless Service %s/names by its DNS name (CoreDNS)", ns), outcomes)
	for _, o := range outcomes {
		o.check(t)
	}
}
