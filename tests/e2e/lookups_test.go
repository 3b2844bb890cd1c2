package e2e

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/googledouble"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/toolchain"
)

const lookupToken = "e2e-access-token"

// googleStack is a stack whose provider is configured for the Google double.
func googleStack(t *testing.T, double *googledouble.Server) *stack {
	t.Helper()
	s := newStack(t, filepath.Join(t.TempDir(), "no-kubeconfig"),
		"GOOGLE_OAUTH_ACCESS_TOKEN="+lookupToken,
		"GOOGLE_MIGRATION_CENTER_CUSTOM_ENDPOINT="+double.URL,
		"GOOGLE_BEYONDCORP_CUSTOM_ENDPOINT="+double.URL,
		"GOOGLE_PROJECT=demo-project",
	)
	return s
}

// startDouble starts a double of the Google APIs serving the examples' fixture.
func startDouble(t *testing.T) *googledouble.Server {
	t.Helper()
	return googledouble.StartT(t, lookupToken, filepath.Join(toolchain.RepoRoot(t), "examples", "fixtures", "google.json"))
}

const lookupProgram = `name: e2e-lookups
runtime: yaml
variables:
  dataFile:
    fn::invoke:
      function: endpoints:migration/v1alpha1:getImportDataFile
      arguments:
        location: us-central1
        importJobId: job-1
        importDataFileId: %s
  policy:
    fn::invoke:
      function: endpoints:accessgateway/v1:getOrganizationPartnerTenantProxyConfigIamPolicy
      arguments:
        organizationId: "123456789"
        partnerTenantId: tenant-1
        proxyConfigId: proxy-1
        optionsRequestedPolicyVersion: 3
outputs:
  state: ${dataFile.state}
  headers: ${dataFile.uploadFileInfo.headers}
  version: ${policy.version}
  bindings: ${policy.bindings}
`

// The double answers 503 for a while; the lookups retry and the up succeeds. The
// program uses no Kubernetes resource, so it needs no kubeconfig.
func TestLookupsThroughTheEngineRetryUnavailable(t *testing.T) {
	t.Parallel()
	double := startDouble(t)
	s := googleStack(t, double)
	s.init(strings.Replace(lookupProgram, "%s", "file-1", 1))
	double.Fail(3, 503)
	s.Run("up", "--yes", "--skip-preview", "--non-interactive")

	var out struct {
		State    string            `json:"state"`
		Headers  map[string]string `json:"headers"`
		Version  float64           `json:"version"`
		Bindings []struct {
			Role      string            `json:"role"`
			Condition map[string]string `json:"condition"`
		} `json:"bindings"`
	}
	if err := json.Unmarshal([]byte(s.Run("stack", "output", "--json")), &out); err != nil {
		t.Fatal(err)
	}
	if out.State != "ACTIVE" || out.Version != 3 || len(out.Bindings) != 2 || out.Headers == nil {
		t.Errorf("outputs = %+v", out)
	}
	if len(out.Bindings) == 2 && len(out.Bindings[0].Condition) != 4 {
		t.Errorf("an unconditional binding's condition should still have all four strings: %v", out.Bindings[0].Condition)
	}
	var unavailable int
	for _, r := range double.Requests() {
		if r.Authorized && strings.Contains(r.Path, "importDataFiles") {
			unavailable++
		}
	}
	if unavailable < 2 {
		t.Errorf("the double saw %d import-data-file requests; the 503s were not retried", unavailable)
	}
}

// A lookup that fails prints one clear error naming the resource and Google's message,
// and never the access token.
func TestLookupFailurePrintsClearError(t *testing.T) {
	t.Parallel()
	double := startDouble(t)
	s := googleStack(t, double)
	s.init(strings.Replace(lookupProgram, "%s", "missing-file", 1))
	out, err := s.Try("up", "--yes", "--skip-preview", "--non-interactive")
	if err == nil {
		t.Fatalf("up with a missing import data file succeeded:\n%s", out)
	}
	want := "import data file projects/demo-project/locations/us-central1/importJobs/job-1/importDataFiles/missing-file not found (404)"
	if !strings.Contains(out, want) {
		t.Errorf("output does not contain %q:\n%s", want, out)
	}
	if strings.Contains(out, lookupToken) {
		t.Error("the access token appears in the output")
	}
}
