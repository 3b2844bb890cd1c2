package dataplane

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/dataplane"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/pulumicli"
)

// withKubernetesProgram is a YAML program as a user of both providers writes it: one
// kubeconfig (the variable kubeconfig, the path %[5]q) given to an explicit pulumi-kubernetes
// provider and an explicit provider of this one; a Namespace and two selectorless
// Services made with pulumi-kubernetes; an EndpointSlice of the Service web whose
// kubernetes.io/service-name label is the Service's metadata.name output, and an
// EndpointsList whose item is the Endpoints of the Service legacy. Every name is
// generated. The Services' port %[1]d, named http, reaches port %[2]d of the
// endpoints: web's (the list items %[3]s), legacy's %[4]q.
const withKubernetesProgram = `name: with-kubernetes
runtime: yaml
variables:
  kubeconfig: %[5]q
resources:
  k8s:
    type: pulumi:providers:kubernetes
    properties:
      kubeconfig: ${kubeconfig}
  endpointsProvider:
    type: pulumi:providers:endpoints
    properties:
      kubeconfig: ${kubeconfig}
  apps:
    type: kubernetes:core/v1:Namespace
    options:
      provider: ${k8s}
  web:
    type: kubernetes:core/v1:Service
    properties:
      metadata:
        namespace: ${apps.metadata.name}
      spec:
        ports:
          - name: http
            port: %[1]d
    options:
      provider: ${k8s}
  webEndpoints:
    type: endpoints:discovery.k8s.io/v1:EndpointSlice
    properties:
      metadata:
        namespace: ${apps.metadata.name}
        labels:
          kubernetes.io/service-name: ${web.metadata.name}
      addressType: IPv4
      endpoints:
%[3]s      ports:
        - name: http
          port: %[2]d
    options:
      provider: ${endpointsProvider}
  legacy:
    type: kubernetes:core/v1:Service
    properties:
      metadata:
        namespace: ${apps.metadata.name}
      spec:
        ports:
          - name: http
            port: %[1]d
    options:
      provider: ${k8s}
  legacyEndpoints:
    type: endpoints:core/v1:EndpointsList
    properties:
      items:
        - metadata:
            name: ${legacy.metadata.name}
            namespace: ${apps.metadata.name}
          subsets:
            - addresses:
                - ip: %[4]q
              ports:
                - name: http
                  port: %[2]d
    options:
      provider: ${endpointsProvider}
outputs:
  namespace: ${apps.metadata.name}
  web: ${web.metadata.name}
  webIP: ${web.spec.clusterIP}
  webSlice: ${webEndpoints.metadata.name}
  legacy: ${legacy.metadata.name}
  legacyIP: ${legacy.spec.clusterIP}
`

// withKubernetesOutputs are the program's stack outputs.
type withKubernetesOutputs struct {
	Namespace, Web, WebIP, WebSlice, Legacy, LegacyIP string
}

// TestWithKubernetesCarriesTraffic runs withKubernetesProgram through the pulumi CLI
// with pulumi-kubernetes (the plugin `make tools` built, installed as a user installs
// it) and checks, through kube-proxy and CoreDNS, what a user of both providers
// expects: `pulumi up` (with its preview) makes the Services serve the program's
// endpoints by cluster IP and by name, the Service legacy through the slice the
// mirroring controller makes of the list's item; `refresh` and `preview` find no
// change; one `up` that edits the Services' port and the endpoints' port updates
// every object in place and moves the traffic to the new ports (the old one serves no
// more); `destroy` leaves no
// namespace, Service, slice or Endpoints. KUBECONFIG names no file: both providers
// reach the cluster only through the kubeconfig the program gives them.
func TestWithKubernetesCarriesTraffic(t *testing.T) {
	t.Parallel()
	dp := dataplane.Shared(t)
	web := backends(t, dp, 2)
	legacy := dp.Backend(t, dataplane.IPv4, servicePort, altPort)
	cli := dp.CLI(t, "KUBECONFIG="+filepath.Join(t.TempDir(), "none"))
	cli.InstallKubernetes()
	write := func(port, backendPort int) {
		cli.WriteProject(fmt.Sprintf(withKubernetesProgram, port, backendPort,
			fmt.Sprintf("        - addresses: [%q]\n        - addresses: [%q]\n", web[0].IP, web[1].IP), legacy.IP, dp.ControlPlane().KubeconfigPath()))
	}
	write(80, servicePort)
	cli.Run("stack", "init", "dev")

	cli.RunCombined("up", "--yes", "--non-interactive")
	out := stackOutputs(t, cli)
	expectServed(t, out.WebIP+":80", web[0].Endpoint(servicePort), web[1].Endpoint(servicePort))
	expectServed(t, dataplane.ServiceName("", out.Web, out.Namespace)+":80", web[0].Endpoint(servicePort), web[1].Endpoint(servicePort))
	expectServed(t, out.LegacyIP+":80", legacy.Endpoint(servicePort))
	expectServed(t, dataplane.ServiceName("", out.Legacy, out.Namespace)+":80", legacy.Endpoint(servicePort))
	before := dp.ControlPlane().ServiceEndpointsUIDs(t, out.Namespace, []string{out.Web, out.Legacy}, out.WebSlice, out.Legacy)

	cli.RunCombined("refresh", "--yes", "--non-interactive", "--expect-no-changes")
	cli.RunCombined("preview", "--non-interactive", "--expect-no-changes")

	write(81, altPort)
	edit := cli.RunCombined("up", "--yes", "--non-interactive")
	if strings.Contains(edit, "replace") {
		t.Errorf("the edit of the ports replaced objects:\n%s", edit)
	}
	if after := stackOutputs(t, cli); after != out {
		t.Errorf("the edit of the ports changed the outputs from %+v to %+v", out, after)
	}
	if got := dp.ControlPlane().ServiceEndpointsUIDs(t, out.Namespace, []string{out.Web, out.Legacy}, out.WebSlice, out.Legacy); got != before {
		t.Errorf("the edit of the ports recreated objects: uids %s, were %s", got, before)
	}
	expectServed(t, out.WebIP+":81", web[0].Endpoint(altPort), web[1].Endpoint(altPort))
	expectServed(t, dataplane.ServiceName("", out.Web, out.Namespace)+":81", web[0].Endpoint(altPort), web[1].Endpoint(altPort))
	expectServed(t, out.LegacyIP+":81", legacy.Endpoint(altPort))
	if counts := dataplane.Probe(t.Context(), out.WebIP+":80", 3); counts.Failed != counts.Total() {
		t.Errorf("after the edit, the old port 80 of %s still serves: %s", out.WebIP, counts)
	}

	cli.RunCombined("destroy", "--yes", "--non-interactive")
	wantNamespaceGone(t, dp, out.Namespace)
}

// stackOutputs reads the stack's outputs.
func stackOutputs(t *testing.T, cli *pulumicli.CLI) withKubernetesOutputs {
	t.Helper()
	var out withKubernetesOutputs
	raw := cli.Run("stack", "output", "--json", "--show-secrets")
	if err := json.Unmarshal([]byte(raw), &out); err != nil {
		t.Fatalf("stack outputs %s: %v", raw, err)
	}
	for name, v := range map[string]string{"namespace": out.Namespace, "web": out.Web, "webIP": out.WebIP,
		"webSlice": out.WebSlice, "legacy": out.Legacy, "legacyIP": out.LegacyIP} {
		if v == "" {
			t.Fatalf("stack output %s is empty: %s", name, raw)
		}
	}
	return out
}

// wantNamespaceGone waits until the namespace ns is gone from the API server, and with
// it every object in it, and then checks that no Service, EndpointSlice or Endpoints of
// the namespace is left.
func wantNamespaceGone(t *testing.T, dp *dataplane.DataPlane, ns string) {
	t.Helper()
	cs := dp.ControlPlane().Clientset()
	deadline := time.Now().Add(time.Minute)
	for {
		_, err := cs.CoreV1().Namespaces().Get(t.Context(), ns, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after destroy, the namespace %s is still there (err=%v)", ns, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	svcs, err := cs.CoreV1().Services(ns).List(t.Context(), metav1.ListOptions{})
	if err != nil || len(svcs.Items) > 0 {
		t.Errorf("after destroy, namespace %s holds Services %v (err=%v)", ns, svcs, err)
	}
	slices, err := cs.DiscoveryV1().EndpointSlices(ns).List(t.Context(), metav1.ListOptions{})
	if err != nil || len(slices.Items) > 0 {
		t.Errorf("after destroy, namespace %s holds EndpointSlices %v (err=%v)", ns, slices, err)
	}
	endpoints, err := cs.CoreV1().Endpoints(ns).List(t.Context(), metav1.ListOptions{}) //nolint:staticcheck // v1 Endpoints
	if err != nil || len(endpoints.Items) > 0 {
		t.Errorf("after destroy, namespace %s holds Endpoints %v (err=%v)", ns, endpoints, err)
	}
}
