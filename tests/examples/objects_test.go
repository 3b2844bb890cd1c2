package examples

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/controlplane"
)

// groupChecks check, after the README's `pulumi up`, what every example of a group
// must have made on the API server (ns is the namespace of the user's kubeconfig
// context); each returns what to check after the README's clean-up, or nil.
var groupChecks = map[string]func(t *testing.T, cp *controlplane.ControlPlane, ns string, u *user) func(){
	"kubernetes":      wantKubernetesObjects,
	"with-kubernetes": wantWithKubernetesExample,
}

// mirrorTimeout bounds the wait for the mirroring controller; it acts within seconds.
const mirrorTimeout = time.Minute

// wantKubernetesObjects checks the objects of the Kubernetes examples: the slice of
// Service web, the Endpoints web-legacy and db-legacy, and the slices the mirroring
// controller made of them.
func wantKubernetesObjects(t *testing.T, cp *controlplane.ControlPlane, ns string, _ *user) func() {
	t.Helper()
	wantObjects(t, cp, ns, map[string]string{
		"EndpointSlice web":         "10.0.0.10@zone-a,10.0.0.11@zone-b notReady - http:8080",
		"Endpoints web-legacy":      "10.0.0.10,10.0.0.11 notReady - http:8080",
		"Endpoints db-legacy":       "10.0.1.5 notReady 10.0.1.6 :5432",
		"mirrored slice web-legacy": "10.0.0.10,10.0.0.11 notReady - http:8080",
		"mirrored slice db-legacy":  "10.0.1.5 notReady 10.0.1.6 :5432",
	})
	return nil
}

// wantObjects waits until the EndpointSlices and Endpoints of ns are want, as
// liveObjects describes them: each "<addresses> notReady <addresses> <name>:<port> ...".
func wantObjects(t *testing.T, cp *controlplane.ControlPlane, ns string, want map[string]string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), mirrorTimeout)
	defer cancel()
	var got map[string]string
	for {
		var err error
		if got, err = liveObjects(ctx, cp, ns); err == nil && cmp.Equal(want, got) {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("after pulumi up, the objects in namespace %s (err=%v; -want +got):\n%s", ns, err, cmp.Diff(want, got))
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// liveObjects describes the EndpointSlices and Endpoints of ns: the slices by the
// Service they belong to (the mirrored ones apart), the Endpoints by name.
func liveObjects(ctx context.Context, cp *controlplane.ControlPlane, ns string) (map[string]string, error) {
	got := map[string]string{}
	slices, err := cp.Clientset().DiscoveryV1().EndpointSlices(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	for _, s := range slices.Items {
		key := "EndpointSlice " + s.Labels[discoveryv1.LabelServiceName]
		if s.Labels[discoveryv1.LabelManagedBy] == "endpointslicemirroring-controller.k8s.io" {
			key = "mirrored slice " + s.Labels[discoveryv1.LabelServiceName]
		}
		got[key] = describeSlice(s)
	}
	endpoints, err := cp.Clientset().CoreV1().Endpoints(ns).List(ctx, metav1.ListOptions{}) //nolint:staticcheck // v1 Endpoints are what the list manages
	if err != nil {
		return nil, err
	}
	for _, e := range endpoints.Items {
		got["Endpoints "+e.Name] = describeEndpoints(e) //nolint:staticcheck // v1 Endpoints
	}
	return got, nil
}

func describeSlice(s discoveryv1.EndpointSlice) string {
	var ready, notReady, ports []string
	for _, e := range s.Endpoints {
		a := strings.Join(e.Addresses, ",")
		if e.Zone != nil {
			a += "@" + *e.Zone
		}
		if e.Conditions.Ready != nil && !*e.Conditions.Ready {
			notReady = append(notReady, a)
		} else {
			ready = append(ready, a)
		}
	}
	for _, p := range s.Ports {
		ports = append(ports, fmt.Sprintf("%s:%d", deref(p.Name), deref(p.Port)))
	}
	return describe(ready, notReady, ports)
}

func describeEndpoints(e corev1.Endpoints) string { //nolint:staticcheck // v1 Endpoints
	var ready, notReady, ports []string
	for _, ss := range e.Subsets {
		for _, a := range ss.Addresses {
			ready = append(ready, a.IP)
		}
		for _, a := range ss.NotReadyAddresses {
			notReady = append(notReady, a.IP)
		}
		for _, p := range ss.Ports {
			ports = append(ports, fmt.Sprintf("%s:%d", p.Name, p.Port))
		}
	}
	return describe(ready, notReady, ports)
}

func describe(ready, notReady, ports []string) string {
	list := func(s []string) string {
		if len(s) == 0 {
			return "-"
		}
		slices.Sort(s)
		return strings.Join(s, ",")
	}
	return list(ready) + " notReady " + list(notReady) + " " + strings.Join(ports, " ")
}

// wantNothingLeft checks that the README's clean-up left in namespace ns no Endpoints
// or EndpointSlices (the mirrored ones go with their Endpoints) and no Services but
// the sorted services it keeps.
func wantNothingLeft(t *testing.T, cp *controlplane.ControlPlane, ns string, services ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), mirrorTimeout)
	defer cancel()
	for {
		got, err := liveObjects(ctx, cp, ns)
		names, serr := serviceNames(ctx, cp, ns)
		if err == nil && serr == nil && len(got) == 0 && slices.Equal(names, services) {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("after the README's clean-up, namespace %s holds %v and the Services %v, want no objects and the Services %v (err=%v, %v)",
				ns, got, names, services, err, serr)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// serviceNames returns the sorted names of the Services of ns.
func serviceNames(ctx context.Context, cp *controlplane.ControlPlane, ns string) ([]string, error) {
	list, err := cp.Clientset().CoreV1().Services(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	var names []string
	for _, s := range list.Items {
		names = append(names, s.Name)
	}
	slices.Sort(names)
	return names, nil
}
