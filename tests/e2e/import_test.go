package e2e

import (
	"encoding/json"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/controlplane"
)

// `pulumi import` adopts an EndpointSlice created outside Pulumi by namespace/name;
// the imported state reads back without changes, and destroy deletes the object.
func TestPulumiImportEndpointSlice(t *testing.T) {
	t.Parallel()
	cp := controlplane.Shared(t)
	ns := cp.Namespace(t, "e2e")
	port, proto, portName := int32(443), corev1.ProtocolTCP, "https"
	if _, err := cp.Clientset().DiscoveryV1().EndpointSlices(ns).Create(t.Context(), &discoveryv1.EndpointSlice{
		ObjectMeta:  metav1.ObjectMeta{Name: "outside", Labels: map[string]string{"team": "a"}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{"10.5.0.1"}}},
		Ports:       []discoveryv1.EndpointPort{{Name: &portName, Port: &port, Protocol: &proto}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	s := newStack(t, cp.KubeconfigPath())
	s.init("name: e2e-import\nruntime: yaml\n")
	out := s.Run("import", spec.EndpointSliceToken, "outside", ns+"/outside",
		"--yes", "--non-interactive", "--generate-code=false", "--protect=false")
	if !strings.Contains(out, "imported") {
		t.Errorf("import output does not report an import:\n%s", out)
	}
	var state struct {
		Deployment struct {
			Resources []struct {
				Type    string         `json:"type"`
				ID      string         `json:"id"`
				Inputs  map[string]any `json:"inputs"`
				Outputs map[string]any `json:"outputs"`
			} `json:"resources"`
		} `json:"deployment"`
	}
	if err := json.Unmarshal([]byte(s.Run("stack", "export")), &state); err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, r := range state.Deployment.Resources {
		if r.Type != spec.EndpointSliceToken {
			continue
		}
		found = true
		if r.ID != ns+"/outside" {
			t.Errorf("imported ID = %q, want %s/outside", r.ID, ns)
		}
		meta, _ := r.Outputs["metadata"].(map[string]any)
		if labels, _ := meta["labels"].(map[string]any); labels["team"] != "a" {
			t.Errorf("imported outputs lack the object's labels: %v", meta)
		}
	}
	if !found {
		t.Fatal("the imported slice is not in the state")
	}
	s.Run("refresh", "--yes", "--non-interactive", "--expect-no-changes")
	s.Run("destroy", "--yes", "--skip-preview", "--non-interactive")
	if _, err := cp.Clientset().DiscoveryV1().EndpointSlices(ns).Get(t.Context(), "outside", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("destroy of the imported slice left it in place (err=%v)", err)
	}
}
