package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/googledouble"
)

// assertHeaders checks that the double received requests, every one of them with the
// quota project, request reason and User-Agent suffix given.
func assertHeaders(t *testing.T, double *googledouble.Server, userProject, reason, agentSuffix string) {
	t.Helper()
	reqs := double.Requests()
	if len(reqs) == 0 {
		t.Fatal("the double received no request")
	}
	for i, r := range reqs {
		if r.UserProject != userProject || r.RequestReason != reason ||
			!strings.HasPrefix(r.UserAgent, "pulumi-resource-endpoints/") || !strings.HasSuffix(r.UserAgent, agentSuffix) {
			t.Errorf("request %d %s: X-Goog-User-Project %q, X-Goog-Request-Reason %q, User-Agent %q; want %q, %q, pulumi-resource-endpoints/<version>%s",
				i+1, r.Path, r.UserProject, r.RequestReason, r.UserAgent, userProject, reason, agentSuffix)
		}
	}
}

// The stack's settings and the environment fallbacks reach both lookups' requests.
func TestLookupHeadersFromStackConfigurationAndEnvironment(t *testing.T) {
	t.Parallel()
	double := startDouble(t)
	s := googleStack(t, double)
	s.Env = append(s.Env, "GOOGLE_APPEND_USER_AGENT=e2e-agent/1.0", "CLOUDSDK_CORE_REQUEST_REASON=from the environment")
	s.init(strings.Replace(lookupProgram, "%s", "file-1", 1),
		"endpoints:billingProject", "e2e-billing", "endpoints:userProjectOverride", "true",
		"endpoints:requestReason", "change 42")
	s.Run("up", "--yes", "--skip-preview", "--non-interactive")
	assertHeaders(t, double, "e2e-billing", "change 42", " e2e-agent/1.0")
}

// User credentials without a quota project fail with an error that says to set
// billingProject; setting it with userProjectOverride makes the lookups succeed.
func TestLookupWithUserCredentialsNeedsBillingProject(t *testing.T) {
	t.Parallel()
	double := startDouble(t)
	key, err := double.AuthorizedUserKey("")
	if err != nil {
		t.Fatal(err)
	}
	keyFile := filepath.Join(t.TempDir(), "application_default_credentials.json")
	if err := os.WriteFile(keyFile, key, 0o600); err != nil {
		t.Fatal(err)
	}
	s := newStack(t, filepath.Join(t.TempDir(), "no-kubeconfig"),
		"GOOGLE_OAUTH_ACCESS_TOKEN=",
		"GOOGLE_CREDENTIALS="+keyFile,
		"GOOGLE_MIGRATION_CENTER_CUSTOM_ENDPOINT="+double.URL,
		"GOOGLE_BEYONDCORP_CUSTOM_ENDPOINT="+double.URL,
		"GOOGLE_PROJECT=demo-project",
	)
	s.init(strings.Replace(lookupProgram, "%s", "file-1", 1))
	out, err := s.Try("up", "--yes", "--skip-preview", "--non-interactive")
	if err == nil {
		t.Fatalf("up with user credentials that name no quota project succeeded:\n%s", out)
	}
	for _, want := range []string{
		"permission denied (403) reading import data file projects/demo-project/locations/us-central1/importJobs/job-1/importDataFiles/file-1: " +
			"Your application is authenticating by using local Application Default Credentials. " +
			"The migrationcenter.googleapis.com API requires a quota project",
		"the credentials name no quota project: set the provider's billingProject to the project the lookups' quota is charged to, " +
			"and userProjectOverride to true (endpoints:billingProject and endpoints:userProjectOverride, " +
			"or GOOGLE_BILLING_PROJECT and USER_PROJECT_OVERRIDE=true)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output does not contain %q:\n%s", want, out)
		}
	}
	s.Run("config", "set", "endpoints:billingProject", "e2e-billing")
	s.Run("config", "set", "endpoints:userProjectOverride", "true")
	before := len(double.Requests())
	s.Run("up", "--yes", "--skip-preview", "--non-interactive")
	for _, r := range double.Requests()[before:] {
		if r.UserProject != "e2e-billing" {
			t.Errorf("request %s: X-Goog-User-Project %q, want e2e-billing", r.Path, r.UserProject)
		}
	}
}
