package cloudauth_test

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/clouddouble"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/controlplane"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/inprocess"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/toolchain"
)

// The GKE guide's program writes the kubeconfig of the cluster it creates: that
// kubeconfig, as the page spells it, with this cluster's address and CA in the place
// of the created cluster's, works with no plugin program installed.
//
//nolint:paralleltest // it sets PATH and the clouds' variables
func TestGKEGuideKubeconfig(t *testing.T) {
	cp := cluster(t)
	isolate(t, metadataVariables())
	before := len(webhook.Reviews())
	srv := inprocess.New(t, guideKubeconfig(t, cp, "docs/guides/gke.md"), nil)
	newSlice(t, srv, cp, "web-gke-guide").lifecycle()
	if reviews := reviewsFrom(before); len(tokensOf(reviews, clouddouble.Email)) == 0 || len(refusals(reviews)) > 0 {
		t.Errorf("the cluster took no token for %s, or refused one: %+v", clouddouble.Email, reviews)
	}
}

// guideKubeconfig is the kubeconfig the program of the guide at page (relative to the
// repository's root) writes with pulumi.interpolate, the cluster's endpoint and CA
// being cp's.
func guideKubeconfig(t *testing.T, cp *controlplane.ControlPlane, page string) []byte {
	t.Helper()
	text, err := os.ReadFile(filepath.Join(toolchain.RepoRoot(t), filepath.FromSlash(page)))
	if err != nil {
		t.Fatal(err)
	}
	_, template, found := strings.Cut(string(text), "pulumi.interpolate`")
	template, _, closed := strings.Cut(template, "`;")
	if !found || !closed {
		t.Fatalf("%s has no kubeconfig written with pulumi.interpolate`...`;", page)
	}
	rc := cp.RESTConfig()
	kubeconfig := strings.NewReplacer(
		"https://${cluster.endpoint}", rc.Host,
		"${cluster.masterAuth.clusterCaCertificate}", base64.StdEncoding.EncodeToString(rc.CAData),
	).Replace(template)
	if strings.Contains(kubeconfig, "${") {
		t.Fatalf("the kubeconfig of %s has an output this test does not fill in:\n%s", page, kubeconfig)
	}
	return []byte(kubeconfig)
}
