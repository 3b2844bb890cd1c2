package e2e

import (
	"fmt"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/controlplane"
)

// secretProgram is the program: a slice whose second endpoint's address is
// secret, and a list whose items are secret; %[1]s is the namespace.
const secretProgram = `name: e2e-secrets
runtime: yaml
resources:
  slice:
    type: endpoints:discovery.k8s.io/v1:EndpointSlice
    properties:
      metadata:
        name: db
        namespace: %[1]s
      addressType: IPv4
      endpoints:
        - addresses: ["10.0.0.1"]
        - addresses:
            - fn::secret: "10.0.0.2"
      ports:
        - name: pg
          port: 5432
  list:
    type: endpoints:core/v1:EndpointsList
    properties:
      items:
        fn::secret:
          - metadata:
              name: legacy-db
              namespace: %[1]s
            subsets:
              - addresses:
                  - ip: 10.0.1.1
                ports:
                  - name: pg
                    port: 5432
`

// As the issue met it with the CLI: after `pulumi up`, another client removes the
// slice's first endpoint (kubectl patch --type=json, remove /endpoints/0) and the user
// runs `pulumi refresh`; `pulumi stack export` holds neither secret address in plain
// text (it held both, at the slice's endpoints[0].addresses[0] and the list's items).
func TestSecretsSurviveRefresh(t *testing.T) {
	t.Parallel()
	cp := controlplane.Shared(t)
	ns := cp.Namespace(t, "secrets")
	s := newStack(t, cp.KubeconfigPath())
	s.init(fmt.Sprintf(secretProgram, ns))
	s.Run("up", "--yes", "--non-interactive")
	wantNoSecret(t, "after up", s.Run("stack", "export"))
	if _, err := cp.Clientset().DiscoveryV1().EndpointSlices(ns).Patch(t.Context(), "db", types.JSONPatchType,
		[]byte(`[{"op":"remove","path":"/endpoints/0"}]`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	s.Run("refresh", "--yes", "--non-interactive")
	wantNoSecret(t, "after another client's edit and a refresh", s.Run("stack", "export"))
	s.Run("destroy", "--yes", "--non-interactive")
}

// wantNoSecret fails the test if the export of a stack holds a secret of secretProgram
// in plain text.
func wantNoSecret(t *testing.T, when, export string) {
	t.Helper()
	for _, ip := range []string{"10.0.0.2", "10.0.1.1"} {
		if strings.Contains(export, ip) {
			t.Errorf("%s, the stack's export holds the secret %s in plain text", when, ip)
		}
	}
}
