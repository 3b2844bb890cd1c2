package controlplane

import (
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ServiceEndpointsUIDs returns, as one comparable string, the UIDs of the Services
// services of namespace ns, then of its EndpointSlice slice and its Endpoints object
// endpoints: what a test compares before and after a change that must update those
// objects in place. A missing object fails the test.
func (c *ControlPlane) ServiceEndpointsUIDs(t testing.TB, ns string, services []string, slice, endpoints string) string {
	t.Helper()
	cs := c.Clientset()
	var uids []string
	for _, name := range services {
		svc, err := cs.CoreV1().Services(ns).Get(t.Context(), name, metav1.GetOptions{})
		if err != nil {
			t.Fatalf("get the Service %s/%s: %v", ns, name, err)
		}
		uids = append(uids, string(svc.UID))
	}
	sl, err := cs.DiscoveryV1().EndpointSlices(ns).Get(t.Context(), slice, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get the EndpointSlice %s/%s: %v", ns, slice, err)
	}
	ep, err := cs.CoreV1().Endpoints(ns).Get(t.Context(), endpoints, metav1.GetOptions{}) //nolint:staticcheck // v1 Endpoints are what an EndpointsList manages
	if err != nil {
		t.Fatalf("get the Endpoints %s/%s: %v", ns, endpoints, err)
	}
	return fmt.Sprint(append(uids, string(sl.UID), string(ep.UID)))
}
