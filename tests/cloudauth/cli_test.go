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

// cliProgram is a YAML program with one EndpointSlice, as users write one: a camelCase
// logical name, no ports and no conditions.
const cliProgram = `name: cloud-credentials
runtime: yaml
resources:
  webEndpoints:
    type: endpoints:discovery.k8s.io/v1:EndpointSlice
    properties:
      metadata:
        name: web
        namespace: %s
      addressType: IPv4
      endpoints:
        - addresses: ["10.0.0.1"]
`

// The built plugin, run by the real CLI and YAML host, with each cloud's kubeconfig
// in KUBECONFIG and no plugin program on PATH: up, a quiet refresh, a quiet preview
// and destroy work,
// with the credentials of the environment the CLI passes to the plugin, the cluster
// takes the tokens for the mapped user, and pulumi up shows the provider's note on
// how it authenticates. First, with the plugin programs required (cloudCredentials
// exec, from the CLI's environment or from the stack's configuration), pulumi up
// fails naming the missing program, makes no token and creates nothing.
//
//nolint:paralleltest // the tests set PATH and the clouds' variables
func TestCLIWithoutPlugins(t *testing.T) {
	cp := cluster(t)
	// One login per cloud (the others differ only in process), and how its first up
	// requires the plugin program: each way once at least.
	execBy := map[string]string{"GKE/metadata server": "environment", "EKS/role": "configuration", "AKS/spn": "environment"}
	for _, l := range logins() {
		if execBy[l.name] == "" {
			continue
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
			slices := cp.Clientset().DiscoveryV1().EndpointSlices(ns)
			before := len(webhook.Reviews())

			exec, args := cli, []string{"up", "--yes", "--non-interactive"}
			if execBy[l.name] == "environment" {
				exec = cli.With("PULUMI_ENDPOINTS_CLOUD_CREDENTIALS=exec")
			} else {
				// A configuration file of the stack's for this run only.
				stackConfig := filepath.Join(t.TempDir(), "Pulumi.dev.yaml")
				if err := os.WriteFile(stackConfig, []byte("config:\n  endpoints:cloudCredentials: exec\n"), 0o600); err != nil {
					t.Fatal(err)
				}
				args = append(args, "--config-file", stackConfig)
			}
			out, err := exec.CombinedOutput(args...)
			// (Only the program's name and "not found": the words around them are client-go's.)
			if want := "executable " + l.program + " not found"; err == nil || !strings.Contains(out, want) {
				t.Errorf("pulumi up with cloudCredentials exec from the %s: %v, want a failure saying %q:\n%s",
					execBy[l.name], err, want, out)
			}
			if strings.Contains(out, "made in the provider's process") {
				t.Errorf("pulumi up with cloudCredentials exec made a token in the provider's process:\n%s", out)
			}
			if list, err := slices.List(t.Context(), metav1.ListOptions{}); err != nil || len(list.Items) > 0 {
				t.Errorf("slices in the namespace after pulumi up failed: %v %v", list, err)
			}
			if reviews := reviewsFrom(before); len(reviews) > 0 {
				t.Errorf("the cluster was sent tokens with cloudCredentials exec: %+v", reviews)
			}

			up := cli.RunCombined("up", "--yes", "--non-interactive")
			if _, err := slices.Get(t.Context(), "web", metav1.GetOptions{}); err != nil {
				t.Fatalf("the slice is not in the cluster after pulumi up: %v\n%s", err, up)
			}
			// The refresh with the plugins' logs at their most verbose (client-go's
			// included): no token made in process shows there, in up's output or in
			// the state, its secrets shown.
			refresh := cli.RunCombined("refresh", "--yes", "--non-interactive", "--expect-no-changes", "--logtostderr", "--logflow", "-v=9")
			cli.RunCombined("preview", "--non-interactive", "--expect-no-changes")
			state := cli.RunCombined("stack", "export", "--show-secrets")
			if leaked := webhook.Leaked(up + refresh + state); len(leaked) > 0 {
				t.Errorf("tokens %v show in pulumi up's or refresh's output or in the state", leaked)
			}
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
