package e2e

import (
	"fmt"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/endpoints-provider/pulumi-endpoints/provider/kube"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/controlplane"
)

// generatedSliceProgram is a slice whose name the server generates; %[1]s is the
// namespace, %[2]d the port.
const generatedSliceProgram = `name: e2e-ownership
runtime: yaml
resources:
  slice:
    type: endpoints:discovery.k8s.io/v1:EndpointSlice
    properties:
      metadata:
        generateName: web-
        namespace: %[1]s
      addressType: IPv4
      endpoints:
        - addresses: ["10.0.0.1"]
      ports:
        - name: http
          port: %[2]d
`

// A slice whose name the server generated stays the stack's when another client
// removes its create-ID label (as a `kubectl apply` of a manifest exported without it
// does): `pulumi refresh` keeps it in the state, and the `pulumi up` of a changed
// program updates it, leaving no second slice.
func TestGeneratedSliceWithoutItsCreateIDStaysTheStacks(t *testing.T) {
	t.Parallel()
	cp := controlplane.Shared(t)
	ns := cp.Namespace(t, "owner")
	slices := cp.Clientset().DiscoveryV1().EndpointSlices(ns)
	s := newStack(t, cp.KubeconfigPath())
	s.init(fmt.Sprintf(generatedSliceProgram, ns, 80))
	s.Run("up", "--yes", "--non-interactive")
	list, err := slices.List(t.Context(), metav1.ListOptions{})
	if err != nil || len(list.Items) != 1 {
		t.Fatalf("after up the namespace holds %v (%v); want one slice", list, err)
	}
	name := list.Items[0].Name
	patch := []byte(`{"metadata":{"labels":{"` + kube.CreateIDLabel + `":null}}}`)
	if _, err := slices.Patch(t.Context(), name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatalf("removing the create-ID label: %v", err)
	}

	s.Run("refresh", "--yes", "--non-interactive")
	if state := s.Run("stack", "export"); !strings.Contains(state, `"`+ns+"/"+name+`"`) {
		t.Errorf("after refresh the state does not hold the slice %s/%s", ns, name)
	}
	s.WriteProject(fmt.Sprintf(generatedSliceProgram, ns, 8080))
	s.Run("up", "--yes", "--non-interactive")
	list, err = slices.List(t.Context(), metav1.ListOptions{})
	switch {
	case err != nil:
		t.Fatal(err)
	case len(list.Items) != 1 || list.Items[0].Name != name || *list.Items[0].Ports[0].Port != 8080:
		var got []string
		for _, sl := range list.Items {
			got = append(got, fmt.Sprintf("%s (port %d)", sl.Name, *sl.Ports[0].Port))
		}
		t.Errorf("after the changed program's up the namespace holds %v; want %s alone, with port 8080", got, name)
	}
}
