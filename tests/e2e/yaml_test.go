package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/endpoints-provider/pulumi-endpoints/provider/kube"
	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/controlplane"
)

const yamlProgram = `name: e2e-yaml
runtime: yaml
resources:
  slice:
    type: endpoints:discovery.k8s.io/v1:EndpointSlice
    properties:
      metadata:
        namespace: %[1]s
        labels:
          app: web
      addressType: %[2]s
      endpoints:
        - addresses: ["%[3]s"]
          conditions:
            ready: true
      ports:
        - name: http
          port: %[4]d
  list:
    type: endpoints:core/v1:EndpointsList
    properties:
      items:
        - metadata:
            name: web
            namespace: %[1]s
          subsets:
            - addresses:
                - ip: 10.0.0.2
              ports:
                - name: http
                  port: %[4]d
outputs:
  sliceName: ${slice.metadata.name}
  sliceUid: ${slice.metadata.uid}
`

// preview -> up -> refresh (no changes) -> update in place -> replace -> destroy, with
// the real CLI and YAML host, checking the API server after each step. The control
// plane runs every controller and the list's item belongs to a selectorless Service:
// the mirroring controller copies it into a slice, which follows the update and goes
// with the destroy, and refresh stays quiet once the controllers have acted.
func TestYAMLProgramLifecycle(t *testing.T) {
	t.Parallel()
	cp := controlplane.Shared(t)
	ns := cp.Namespace(t, "e2e")
	cs := cp.Clientset()
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: ns},
		Spec:       corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "http", Port: 80}}},
	}
	if _, err := cs.CoreV1().Services(ns).Create(t.Context(), svc, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create Service %s/web: %v", ns, err)
	}
	s := newStack(t, cp.KubeconfigPath())
	s.init(fmt.Sprintf(yamlProgram, ns, "IPv4", "10.0.0.1", 80))

	out := s.Run("preview", "--non-interactive", "--diff")
	if !strings.Contains(out, spec.EndpointSliceToken) {
		t.Errorf("preview does not show the slice:\n%s", out)
	}
	if l, _ := cs.DiscoveryV1().EndpointSlices(ns).List(t.Context(), metav1.ListOptions{}); len(l.Items) != 0 {
		t.Fatalf("preview created %d slices", len(l.Items))
	}

	s.Run("up", "--yes", "--skip-preview", "--non-interactive")
	outputs := stackOutputs(t, s)
	name := outputs["sliceName"]
	live, err := cs.DiscoveryV1().EndpointSlices(ns).Get(t.Context(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("after up, slice %s/%s: %v", ns, name, err)
	}
	if string(live.UID) != outputs["sliceUid"] {
		t.Errorf("stack output uid %s, live uid %s", outputs["sliceUid"], live.UID)
	}
	if got := live.Labels[kube.ManagedByLabel]; got != kube.ManagedBy {
		t.Errorf("after up, slice %s/%s has labels %v, want %s=%s", ns, name, live.Labels, kube.ManagedByLabel, kube.ManagedBy)
	}
	if _, err := cs.CoreV1().Endpoints(ns).Get(t.Context(), "web", metav1.GetOptions{}); err != nil {
		t.Fatalf("after up, Endpoints %s/web: %v", ns, err)
	}
	waitMirrored(t, cs, ns, "web", "10.0.0.2 http:80")

	s.Run("refresh", "--yes", "--non-interactive", "--expect-no-changes")
	s.Run("preview", "--non-interactive", "--expect-no-changes")

	// Change a port: an in-place update.
	s.WriteProject(fmt.Sprintf(yamlProgram, ns, "IPv4", "10.0.0.1", 8080))
	s.Run("up", "--yes", "--skip-preview", "--non-interactive")
	updated, err := cs.DiscoveryV1().EndpointSlices(ns).Get(t.Context(), name, metav1.GetOptions{})
	if err != nil || updated.UID != live.UID || *updated.Ports[0].Port != 8080 {
		t.Fatalf("after the port change: err=%v; want the same object (uid %s) with port 8080, got %+v", err, live.UID, updated)
	}
	endpoints, _ := cs.CoreV1().Endpoints(ns).Get(t.Context(), "web", metav1.GetOptions{})
	if endpoints.Subsets[0].Ports[0].Port != 8080 {
		t.Errorf("Endpoints port = %d, want 8080", endpoints.Subsets[0].Ports[0].Port)
	}
	waitMirrored(t, cs, ns, "web", "10.0.0.2 http:8080")
	s.Run("refresh", "--yes", "--non-interactive", "--expect-no-changes")

	// Change addressType: a replacement under a new name, the old slice gone.
	s.WriteProject(fmt.Sprintf(yamlProgram, ns, "IPv6", "fd00::1", 8080))
	out = s.Run("up", "--yes", "--skip-preview", "--non-interactive")
	newName := stackOutputs(t, s)["sliceName"]
	if newName == name {
		t.Errorf("replacement kept the name %s", name)
	}
	if _, err := cs.DiscoveryV1().EndpointSlices(ns).Get(t.Context(), name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the replaced slice %s still exists (err=%v)\n%s", name, err, out)
	}
	replaced, err := cs.DiscoveryV1().EndpointSlices(ns).Get(t.Context(), newName, metav1.GetOptions{})
	if err != nil || replaced.AddressType != "IPv6" {
		t.Fatalf("replacement %s: %v %+v", newName, err, replaced)
	}

	s.Run("destroy", "--yes", "--skip-preview", "--non-interactive")
	waitMirrored(t, cs, ns, "web", "")
	if l, _ := cs.DiscoveryV1().EndpointSlices(ns).List(t.Context(), metav1.ListOptions{}); len(l.Items) != 0 {
		t.Errorf("destroy left %d slices", len(l.Items))
	}
	if l, _ := cs.CoreV1().Endpoints(ns).List(t.Context(), metav1.ListOptions{}); len(l.Items) != 0 {
		t.Errorf("destroy left %d Endpoints", len(l.Items))
	}
}

// Invalid inputs fail the preview with every failure named by its property path.
func TestYAMLPreviewReportsInvalidInputsByField(t *testing.T) {
	t.Parallel()
	cp := controlplane.Shared(t)
	s := newStack(t, cp.KubeconfigPath())
	s.init(`name: e2e-invalid
runtime: yaml
resources:
  slice:
    type: endpoints:discovery.k8s.io/v1:EndpointSlice
    properties:
      addressType: IPv4
      endpoints:
        - addresses: ["fd00::1"]
          hostname: Not_A_Label
      ports:
        - name: http
          port: 80
        - name: http
          port: 81
`)
	out, err := s.Try("preview", "--non-interactive")
	if err == nil {
		t.Fatalf("preview of invalid inputs succeeded:\n%s", out)
	}
	for _, want := range []string{"endpoints[0].addresses[0]", "endpoints[0].hostname", "ports[1].name"} {
		if !strings.Contains(out, want) {
			t.Errorf("preview output does not name %s:\n%s", want, out)
		}
	}
}

func stackOutputs(t *testing.T, s *stack) map[string]string {
	t.Helper()
	raw := s.Run("stack", "output", "--json", "--show-secrets")
	var out map[string]any
	if err := json.Unmarshal([]byte(raw), &out); err != nil {
		t.Fatalf("stack outputs %q: %v", raw, err)
	}
	m := map[string]string{}
	for k, v := range out {
		m[k] = fmt.Sprint(v)
	}
	return m
}

// The stack's autonaming configuration reaches the provider: verbatim names objects
// after their resources; disabled requires metadata.name.
func TestYAMLAutonamingConfiguration(t *testing.T) {
	t.Parallel()
	cp := controlplane.Shared(t)
	ns := cp.Namespace(t, "e2e")
	s := newStack(t, cp.KubeconfigPath())
	s.init(fmt.Sprintf(`name: e2e-autonaming
runtime: yaml
resources:
  verbatim-slice:
    type: endpoints:discovery.k8s.io/v1:EndpointSlice
    properties:
      metadata:
        namespace: %s
      addressType: IPv4
      endpoints:
        - addresses: ["10.0.0.1"]
`, ns))
	s.Run("config", "set", "--path", "pulumi:autonaming.mode", "verbatim")
	s.Run("up", "--yes", "--skip-preview", "--non-interactive")
	if _, err := cp.Clientset().DiscoveryV1().EndpointSlices(ns).Get(t.Context(), "verbatim-slice", metav1.GetOptions{}); err != nil {
		t.Errorf("with autonaming mode verbatim the slice is not named after its resource: %v", err)
	}
	s.Run("destroy", "--yes", "--skip-preview", "--non-interactive")

	s.Run("config", "set", "--path", "pulumi:autonaming.mode", "disabled")
	out, err := s.Try("preview", "--non-interactive")
	if err == nil || !strings.Contains(out, "metadata.name is required: autonaming is disabled") {
		t.Errorf("with autonaming disabled, preview = %v:\n%s", err, out)
	}
}

// mirrorTimeout bounds the wait for the mirroring controller.
const mirrorTimeout = 30 * time.Second

// waitMirrored waits until the slices the mirroring controller keeps for Service
// service are one slice, described "addresses name:port" (sorted, comma-separated;
// ready or not; an unnamed port is ":port"), or none when want is "".
func waitMirrored(t *testing.T, cs kubernetes.Interface, ns, service, want string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), mirrorTimeout)
	defer cancel()
	selector := discoveryv1.LabelServiceName + "=" + service + "," +
		discoveryv1.LabelManagedBy + "=endpointslicemirroring-controller.k8s.io"
	var got []string
	for {
		l, err := cs.DiscoveryV1().EndpointSlices(ns).List(ctx, metav1.ListOptions{LabelSelector: selector})
		if err == nil {
			got = got[:0]
			for _, slice := range l.Items {
				var addrs, ports []string
				for _, e := range slice.Endpoints {
					addrs = append(addrs, e.Addresses...)
				}
				for _, p := range slice.Ports {
					ports = append(ports, fmt.Sprintf("%s:%d", deref(p.Name), deref(p.Port)))
				}
				sort.Strings(addrs)
				got = append(got, strings.Join(addrs, ",")+" "+strings.Join(ports, ","))
			}
			if (want == "" && len(got) == 0) || (len(got) == 1 && got[0] == want) {
				return
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the mirrored slices of Service %s/%s are %q after %v, want %q", ns, service, got, mirrorTimeout, want)
		case <-time.After(100 * time.Millisecond):
		}
	}
}
