package e2e

import (
	"fmt"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/controlplane"
)

// markedProgram marks one address of a slice secret, the second endpoint's, and the
// whole items of an EndpointsList; %[1]s is the namespace.
const markedProgram = `name: e2e-secrets
runtime: yaml
resources:
  webSlice:
    type: endpoints:discovery.k8s.io/v1:EndpointSlice
    properties:
      metadata:
        name: secret-web
        namespace: %[1]s
      addressType: IPv4
      endpoints:
        - addresses: ["10.61.0.1"]
        - addresses:
            - fn::secret: 10.61.0.77
      ports:
        - name: http
          port: 80
  legacyList:
    type: endpoints:core/v1:EndpointsList
    properties:
      items:
        fn::secret:
          - metadata:
              name: secret-legacy
              namespace: %[1]s
            subsets:
              - addresses:
                  - ip: 10.61.1.88
                ports:
                  - name: http
                    port: 8080
`

// secretValues are the values markedProgram marks secret.
var secretValues = []string{"10.61.0.77", "10.61.1.88"}

// A value the program marks secret stays secret in everything the CLI writes and shows,
// after another client changes the objects' shape: it removes the slice's first endpoint
// (kubectl patch --type=json, remove /endpoints/0: the secret address moves to the
// first), and the user runs `pulumi refresh`, a preview and `pulumi up`, which puts the
// endpoint back. The checkpoint (`pulumi stack export`) and the commands' output never
// hold a secret value in plain text (the export held both, at the slice's
// endpoints[0].addresses[0] and in the list's items), on both ends of the window.
func TestSecretsSurviveRefresh(t *testing.T) {
	t.Parallel()
	for _, end := range []struct {
		name  string
		plane func(testing.TB) *controlplane.ControlPlane
	}{{"newest", controlplane.Shared}, {"oldest", controlplane.SharedOldest}} {
		t.Run(end.name, func(t *testing.T) {
			t.Parallel()
			cp := end.plane(t)
			ns := cp.Namespace(t, "secrets")
			s := newStack(t, cp.KubeconfigPath())
			s.init(fmt.Sprintf(markedProgram, ns))
			noSecretIn(t, "pulumi up", s.upWithPreview())
			noSecretIn(t, "the checkpoint after up", s.Run("stack", "export"))

			patch := []byte(`[{"op":"remove","path":"/endpoints/0"}]`)
			if _, err := cp.Clientset().DiscoveryV1().EndpointSlices(ns).Patch(t.Context(), "secret-web",
				types.JSONPatchType, patch, metav1.PatchOptions{}); err != nil {
				t.Fatal(err)
			}
			noSecretIn(t, "pulumi refresh", s.Run("refresh", "--yes", "--non-interactive", "--diff"))
			noSecretIn(t, "the checkpoint after refresh", s.Run("stack", "export"))
			noSecretIn(t, "pulumi preview", s.Run("preview", "--non-interactive", "--diff"))
			noSecretIn(t, "pulumi up", s.upWithPreview())
			noSecretIn(t, "the checkpoint after up again", s.Run("stack", "export"))
			s.destroyWithPreview()
		})
	}
}

// noSecretIn fails the test when text holds a value markedProgram marks secret.
func noSecretIn(t *testing.T, what, text string) {
	t.Helper()
	for _, v := range secretValues {
		if strings.Contains(text, v) {
			t.Errorf("%s holds the secret %s in plain text:\n%s", what, v, text)
		}
	}
}
