package dataplane

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/dataplane"
)

// endpointsProgram is an EndpointsList item for the Service "legacy": two ready
// addresses and one not ready, on the port named "http".
const endpointsProgram = `name: dataplane
runtime: yaml
resources:
  list:
    type: endpoints:core/v1:EndpointsList
    properties:
      items:
        - metadata:
            name: legacy
            namespace: %[1]s
          subsets:
            - addresses:
                - ip: %[2]s
                - ip: %[3]s
              notReadyAddresses:
                - ip: %[4]s
              ports:
                - name: http
                  port: %[5]d
                - name: admin
                  port: %[6]d
`

// TestEndpointsListCarriesTraffic applies an EndpointsList item for a selectorless
// Service: the EndpointSlice mirroring controller turns it into slices, and kube-proxy
// sends the Service's requests to the ready addresses only, on the port of the
// Service port's name.
func TestEndpointsListCarriesTraffic(t *testing.T) {
	t.Parallel()
	dp := dataplane.Shared(t)
	ns := dp.Namespace(t, "mirroring")
	svc := dp.Service(t, &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "legacy", Namespace: ns},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{
			{Name: "http", Port: 80},
			{Name: "admin", Port: 81},
		}},
	})
	ready1 := dp.Backend(t, dataplane.IPv4, httpPort, adminPort)
	ready2 := dp.Backend(t, dataplane.IPv4, httpPort, adminPort)
	notReady := dp.Backend(t, dataplane.IPv4, httpPort, adminPort)

	cli := dp.CLI(t)
	cli.InitStack(fmt.Sprintf(endpointsProgram, ns, ready1.IP, ready2.IP, notReady.IP, httpPort, adminPort))
	cli.Run("up", "--yes", "--non-interactive", "--skip-preview")

	expectServed(t, svc.Spec.ClusterIP+":80", ready1.Endpoint(httpPort), ready2.Endpoint(httpPort))
	expectServed(t, svc.Spec.ClusterIP+":81", ready1.Endpoint(adminPort), ready2.Endpoint(adminPort))
}
