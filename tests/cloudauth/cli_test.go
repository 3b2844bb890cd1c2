package cloudauth_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/pulumicli"
)

// cliProgram is a YAML program with one EndpointSlice.
const cliProgram = `name: cloud-credentials
runtime: yaml
resources:
  web:
    type: endpoints:discovery.k8s.io/v1:EndpointSlice
    properties:
      metadata:
        name: web
        namespace: %s
      addressType: IPv4
      endpoints:
        - addresses: ["10.0.0.1"]
      ports:
        - name: http
          port: 80
`

// The built plugin, run by the real CLI and YAML host, with each cloud's kubeconfig
// in KUBECONFIG and no plugin program on PATH: up, a quiet refresh and destroy work,
// with the credentials of the environment the CLI passes to the plugin, the cluster
// takes the tokens for the mapped user, and pulumi up shows the provider's note on
// how it authenticates.
//
//nolint:paralleltest // the tests set PATH and the clouds' variables
func TestCLIWithoutPlugins(t *testing.T) {
	cp := cluster(t)
	for _, l := range logins() {
		if l.name != "GKE/metadata server" && l.name != "EKS/role" && l.name != "AKS/spn" {
			continue // one login per cloud: the others differ only in process
		}
		t.Run(l.name, func(t *testing.T) {
			isolate(t, l.vars(t))
			kubeconfigFile := filepath.Join(t.TempDir(), "config")
			if err := os.WriteFile(kubeconfigFile, l.kubeconfig(cp), 0o600); err != nil {
				t.Fatal(err)
			}
			ns := cp.Namespace(t, "cli")
			cli := pulumicli.NewWithProvider(t, "KUBECONFIG="+kubeconfigFile)
			cli.InitStack(fmt.Sprintf(cliProgram, ns))
			before := len(webhook.Reviews())

			up := cli.RunCombined("up", "--yes", "--non-interactive")
			slices := cp.Clientset().DiscoveryV1().EndpointSlices(ns)
			if _, err := slices.Get(t.Context(), "web", metav1.GetOptions{}); err != nil {
				t.Fatalf("the slice is not in the cluster after pulumi up: %v\n%s", err, up)
			}
			cli.RunCombined("refresh", "--yes", "--non-interactive", "--expect-no-changes")
			cli.RunCombined("destroy", "--yes", "--non-interactive")
			if _, err := slices.Get(t.Context(), "web", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				t.Errorf("the slice is still in the cluster after pulumi destroy: %v", err)
			}

			reviews := reviewsFrom(before)
			if bad := refusals(reviews); len(bad) > 0 {
				t.Errorf("the cluster refused %d tokens: %+v", len(bad), bad)
			}
			if len(tokensOf(reviews, l.user)) == 0 {
				t.Errorf("no token was taken for %s; the reviews: %+v", l.user, reviews)
			}
			if !strings.Contains(up, "made in the provider's process ("+l.program+" is not on PATH)") {
				t.Errorf("pulumi up does not show the provider's note on its credentials:\n%s", up)
			}
		})
	}
}
