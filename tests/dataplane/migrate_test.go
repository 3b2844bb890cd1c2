package dataplane

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/dataplane"
)

// list is an EndpointsList resource of a program: its resource name, its items (one
// Endpoints object per Service, named after it, with one ready address) and the
// resources it depends on.
type list struct {
	resource  string
	items     map[string]*dataplane.Backend
	dependsOn []string
}

// yaml renders the list, its items in namespace ns, as an entry of a program's
// resources.
func (l list) yaml(ns string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "  %s:\n    type: endpoints:core/v1:EndpointsList\n    properties:\n      items:\n", l.resource)
	for _, name := range slices.Sorted(maps.Keys(l.items)) {
		fmt.Fprintf(&b, "        - metadata: {name: %s, namespace: %s}\n", name, ns)
		fmt.Fprintf(&b, "          subsets: [{addresses: [{ip: %q}], ports: [{name: http, port: %d}]}]\n",
			l.items[name].IP, servicePort)
	}
	b.WriteString(dependsOn(l.dependsOn))
	return b.String()
}

// mirroringManager is the managed-by label of the slices the mirroring controller
// writes.
const mirroringManager = "endpointslicemirroring-controller.k8s.io"

// TestMoveOffEndpointsDropsNoRequest moves Services from the Endpoints of
// EndpointsList items to the provider's EndpointSlices in one `pulumi up` while a
// client sends requests to each Service through kube-proxy without pause, as the
// guide to moving off v1 Endpoints says: a Service whose list is removed from the
// program, and a Service whose item is removed from a list that stays and that
// depends on the new slices, lose no request (the engine deletes what the program no
// longer declares, and updates what depends on the slices, only after the slices
// exist). A Service whose item is removed from a list that does not depend on the
// slices may lose requests (the list's update runs beside the creates): its count is
// logged. A Service whose list is removed before its slice is added loses requests
// (which shows that the client sees the gap when there is one). The mirroring
// controller's slices of the moved Services go, the others stay, and the v1 Endpoints
// deprecation the provider shows points to the guide.
func TestMoveOffEndpointsDropsNoRequest(t *testing.T) {
	t.Parallel()
	dp := dataplane.Shared(t)
	ns := dp.Namespace(t, "migrate")
	services := []string{"whole", "kept", "stays", "parallel", "stays2", "first"}
	targets, b := map[string]string{}, map[string]*dataplane.Backend{}
	for _, name := range services {
		targets[name] = service(t, dp, ns, name, false).Spec.ClusterIP + ":80"
		b[name] = dp.Backend(t, dataplane.IPv4, servicePort)
	}
	sliceOf := func(name string) string {
		return slice{resource: name + "-slice", service: name, family: dataplane.IPv4, port: servicePort,
			endpoints: []ep{ready(b[name])}}.yaml(ns)
	}

	cli := dp.CLI(t)
	cli.InitStack(program(
		list{resource: "whole", items: map[string]*dataplane.Backend{"whole": b["whole"]}}.yaml(ns),
		list{resource: "kept", items: map[string]*dataplane.Backend{"kept": b["kept"], "stays": b["stays"]}}.yaml(ns),
		list{resource: "parallel", items: map[string]*dataplane.Backend{"parallel": b["parallel"], "stays2": b["stays2"]}}.yaml(ns),
		list{resource: "first", items: map[string]*dataplane.Backend{"first": b["first"]}}.yaml(ns)))
	out := cli.RunCombined("up", "--yes", "--non-interactive", "--skip-preview")
	if !strings.Contains(out, "v1 Endpoints is deprecated") || !strings.Contains(out, "docs/guides/moving-off-endpoints.md") {
		t.Errorf("the v1 Endpoints deprecation does not point to the guide to moving off it:\n%s", out)
	}
	for _, name := range services {
		dataplane.WaitServed(t, targets[name], b[name].Endpoint(servicePort))
	}

	counts, _ := upUnderLoad(t, cli, program(
		sliceOf("whole"), sliceOf("kept"), sliceOf("parallel"),
		list{resource: "kept", items: map[string]*dataplane.Backend{"stays": b["stays"]}, dependsOn: []string{"kept-slice"}}.yaml(ns),
		list{resource: "parallel", items: map[string]*dataplane.Backend{"stays2": b["stays2"]}}.yaml(ns)),
		nil, targets["whole"], targets["kept"], targets["parallel"], targets["first"])
	const change = "move a Service off v1 Endpoints"
	outcomes := []outcome{
		{change: change, way: "one up: slice added, its list removed", gapFree: true, counts: counts[0]},
		{change: change, way: "one up: slice added, item removed, the list dependsOn the slice", gapFree: true, counts: counts[1]},
		{change: change, way: "one up: slice added, item removed, no dependsOn", counts: counts[2]},
		{change: change, way: "delete first: list removed, the slice added in the next up", wantGap: true, counts: counts[3]},
	}
	report(t, fmt.Sprintf("requests to ClusterIP Services of %s through kube-proxy", ns), outcomes)
	for _, o := range outcomes {
		o.check(t)
	}
	cli.WriteProject(program(sliceOf("whole"), sliceOf("kept"), sliceOf("parallel"), sliceOf("first"),
		list{resource: "kept", items: map[string]*dataplane.Backend{"stays": b["stays"]}}.yaml(ns),
		list{resource: "parallel", items: map[string]*dataplane.Backend{"stays2": b["stays2"]}}.yaml(ns)))
	cli.Run("up", "--yes", "--non-interactive", "--skip-preview")
	for _, name := range services {
		dataplane.WaitServed(t, targets[name], b[name].Endpoint(servicePort))
	}
	waitMirrored(t, dp, ns, "stays", "stays2")
}

// waitMirrored waits until the mirroring controller's slices in namespace ns are
// those of exactly the Services want, and fails t if they are not within 30 s.
func waitMirrored(t *testing.T, dp *dataplane.DataPlane, ns string, want ...string) {
	t.Helper()
	slicesAPI := dp.ControlPlane().Clientset().DiscoveryV1().EndpointSlices(ns)
	deadline := time.Now().Add(30 * time.Second)
	for {
		mirrored, err := slicesAPI.List(t.Context(), metav1.ListOptions{
			LabelSelector: "endpointslice.kubernetes.io/managed-by=" + mirroringManager,
		})
		if err != nil {
			t.Fatalf("list the mirrored slices of %s: %v", ns, err)
		}
		var got []string
		for _, s := range mirrored.Items {
			got = append(got, s.Labels["kubernetes.io/service-name"])
		}
		slices.Sort(got)
		if slices.Equal(got, want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the mirroring controller's slices in %s are those of %v, want %v", ns, got, want)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
