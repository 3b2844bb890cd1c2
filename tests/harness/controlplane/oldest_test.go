package controlplane_test

import (
	"strconv"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/controlplane"
)

// oldestMinor is the oldest Kubernetes minor the provider supports, whose
// kube-apiserver TEST_ASSET_KUBE_APISERVER_OLDEST names (`make tools` builds it
// from tools/kube-oldest).
const oldestMinor = 32

// TestOldest starts the oldest minor's API server alone, as StartOldest does,
// and shows that it serves with the flags the harness gives every API server: its
// /version is 1.32, it stores and returns an EndpointSlice, and no controller
// manager runs.
func TestOldest(t *testing.T) {
	t.Parallel()
	cp := controlplane.SharedOldest(t)
	minor, gitVersion := cp.Version()
	if minor != oldestMinor || !strings.HasPrefix(gitVersion, "v1.32.") {
		t.Errorf("Version() = %d, %q, want %d, v1.32.*", minor, gitVersion, oldestMinor)
	}
	info, err := cp.Clientset().Discovery().ServerVersion()
	if err != nil {
		t.Fatalf("GET /version: %v", err)
	}
	if info.Major != "1" || info.Minor != "32" || info.GitVersion != gitVersion {
		t.Errorf("GET /version = %+v, want major 1, minor 32, gitVersion %s", info, gitVersion)
	}
	if got := len(controlplane.PIDs(cp)); got != 2 {
		t.Errorf("%d processes, want etcd and kube-apiserver alone", got)
	}

	cs := cp.Clientset()
	ns := cp.Namespace(t, "oldest")
	want := endpointSlice(ns, "web", "10.1.2.3")
	if _, err := cs.DiscoveryV1().EndpointSlices(ns).Create(t.Context(), want, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create endpoint slice: %v", err)
	}
	got, err := cs.DiscoveryV1().EndpointSlices(ns).Get(t.Context(), "web", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get endpoint slice: %v", err)
	}
	if got.Endpoints[0].Addresses[0] != "10.1.2.3" {
		t.Errorf("stored endpoint %v, want 10.1.2.3", got.Endpoints)
	}
}

// TestVersion shows that Version names the newest control plane's minor, the one
// the API server binary was built at, and that the kubernetes Service exists
// without the endpoints of an API server reconciler (there is none: see the
// harness's --endpoint-reconciler-type).
func TestVersion(t *testing.T) {
	t.Parallel()
	cp := controlplane.Shared(t)
	minor, gitVersion := cp.Version()
	info, err := cp.Clientset().Discovery().ServerVersion()
	if err != nil {
		t.Fatalf("GET /version: %v", err)
	}
	if minor <= oldestMinor || info.GitVersion != gitVersion || info.Minor != strconv.Itoa(minor) {
		t.Errorf("Version() = %d, %q; GET /version = %+v: want the same, newer than 1.%d", minor, gitVersion, info, oldestMinor)
	}
	cs := cp.Clientset()
	if _, err := cs.CoreV1().Services(metav1.NamespaceDefault).Get(t.Context(), "kubernetes", metav1.GetOptions{}); err != nil {
		t.Errorf("get the kubernetes Service: %v", err)
	}
	_, err = cs.CoreV1().Endpoints(metav1.NamespaceDefault).Get(t.Context(), "kubernetes", metav1.GetOptions{})
	if !apierrors.IsNotFound(err) {
		t.Errorf("get the kubernetes Service's Endpoints: error %v, want NotFound (no reconciler)", err)
	}
}
