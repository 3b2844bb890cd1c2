package google_test

import (
	"maps"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi/sdk/v3/go/common/providers"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/common/tokens"
	"github.com/pulumi/pulumi/sdk/v3/go/property"

	"github.com/endpoints-provider/pulumi-endpoints/provider"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/googledouble"
)

// headerEnv are the environment variables that set the headers these tests check:
// the provider's fallbacks and the auth library's quota project.
var headerEnv = []string{
	"GOOGLE_BILLING_PROJECT", "USER_PROJECT_OVERRIDE", "CLOUDSDK_CORE_REQUEST_REASON", "GOOGLE_APPEND_USER_AGENT",
	"GOOGLE_CLOUD_QUOTA_PROJECT",
}

// sent is what the double received of the headers a configuration sets.
type sent struct {
	UserProject, RequestReason, UserAgent string
}

func sentOf(r googledouble.Request) sent {
	return sent{UserProject: r.UserProject, RequestReason: r.RequestReason, UserAgent: r.UserAgent}
}

// userAgent is the provider's own User-Agent.
var userAgent = "pulumi-resource-endpoints/" + provider.Version

// lookups are both functions, each with arguments naming an object the double serves
// after addObjects.
var lookups = []struct {
	name  string
	token tokens.Type
	args  func() map[string]property.Value
}{
	{"getImportDataFile", importDataFile, fileArgs},
	{"getOrganizationPartnerTenantProxyConfigIamPolicy", policyToken, policyArgs},
}

func addObjects(d *googledouble.Server) {
	d.AddImportDataFile("proj", "l", "j", "f", googledouble.ImportDataFile{})
	d.SetPolicy("o", "t", "c", googledouble.Policy{})
}

// assertSent checks that every request the double received carried want.
func assertSent(t *testing.T, d *googledouble.Server, requests int, want sent) {
	t.Helper()
	reqs := d.Requests()
	if len(reqs) != requests {
		t.Errorf("the double received %d requests, want %d", len(reqs), requests)
	}
	for i, r := range reqs {
		if diff := cmp.Diff(want, sentOf(r)); diff != "" {
			t.Errorf("request %d headers (-want +got):\n%s", i+1, diff)
		}
	}
}

func TestRequestHeaders(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		settings map[string]string
		want     sent
	}{
		{"no settings", nil, sent{UserAgent: userAgent}},
		{"billingProject with userProjectOverride", map[string]string{"billingProject": "billing", "userProjectOverride": "true"},
			sent{UserProject: "billing", UserAgent: userAgent}},
		{"billingProject without userProjectOverride, as pulumi-gcp", map[string]string{"billingProject": "billing"},
			sent{UserAgent: userAgent}},
		{"billingProject with userProjectOverride false", map[string]string{"billingProject": "billing", "userProjectOverride": "false"},
			sent{UserAgent: userAgent}},
		{"requestReason", map[string]string{"requestReason": "change 1234: audit"},
			sent{RequestReason: "change 1234: audit", UserAgent: userAgent}},
		{"appendUserAgent", map[string]string{"appendUserAgent": "deployer/2.1 (ci)"},
			sent{UserAgent: userAgent + " deployer/2.1 (ci)"}},
		{"all of them", map[string]string{
			"billingProject": "billing", "userProjectOverride": "true", "requestReason": "why", "appendUserAgent": "extra",
		}, sent{UserProject: "billing", RequestReason: "why", UserAgent: userAgent + " extra"}},
	}
	for _, tt := range tests {
		for _, l := range lookups {
			t.Run(tt.name+"/"+l.name, func(t *testing.T) {
				t.Parallel()
				h := start(t, tt.settings)
				addObjects(h.double)
				h.double.Fail(1, 503) // the retry carries them too
				h.mustInvoke(l.token, l.args())
				assertSent(t, h.double, 2, tt.want)
			})
		}
	}
}

//nolint:paralleltest // it sets the environment variables provider.New reads
func TestRequestHeadersFromEnvironment(t *testing.T) {
	for _, env := range headerEnv {
		t.Setenv(env, "")
	}
	t.Setenv("GOOGLE_BILLING_PROJECT", "env-billing")
	t.Setenv("USER_PROJECT_OVERRIDE", "true")
	t.Setenv("CLOUDSDK_CORE_REQUEST_REASON", "env reason")
	t.Setenv("GOOGLE_APPEND_USER_AGENT", "env-agent/1")
	for _, l := range lookups {
		t.Run(l.name, func(t *testing.T) {
			h := start(t, nil)
			addObjects(h.double)
			h.mustInvoke(l.token, l.args())
			assertSent(t, h.double, 1, sent{UserProject: "env-billing", RequestReason: "env reason", UserAgent: userAgent + " env-agent/1"})

			// Settings beat the environment.
			h.double = startDouble(t, token)
			addObjects(h.double)
			h.configure(settingsFor(h.double, map[string]string{
				"accessToken": token, "billingProject": "cfg-billing", "requestReason": "cfg reason", "appendUserAgent": "cfg-agent/2",
			}))
			h.mustInvoke(l.token, l.args())
			assertSent(t, h.double, 1, sent{UserProject: "cfg-billing", RequestReason: "cfg reason", UserAgent: userAgent + " cfg-agent/2"})
		})
	}
	t.Run("USER_PROJECT_OVERRIDE false", func(t *testing.T) {
		t.Setenv("USER_PROJECT_OVERRIDE", "false")
		h := start(t, nil)
		addObjects(h.double)
		h.mustInvoke(importDataFile, fileArgs())
		assertSent(t, h.double, 1, sent{RequestReason: "env reason", UserAgent: userAgent + " env-agent/1"})
	})
}

// userKey writes user credentials that double mints (see
// googledouble.Server.AuthorizedUserKey) to a file and returns its path, as the
// credentials setting takes it.
func userKey(t *testing.T, double *googledouble.Server, quotaProject string) string {
	t.Helper()
	key, err := double.AuthorizedUserKey(quotaProject)
	if err != nil {
		t.Fatal(err)
	}
	return keyFile(t, key)
}

// quotaProjectMessage is Google's answer to user credentials that name no quota project.
func quotaProjectMessage(service string) string {
	return "Your application is authenticating by using local Application Default Credentials. The " + service +
		" API requires a quota project, which is not set by default. To learn how to set your quota project, " +
		"see https://cloud.google.com/docs/authentication/adc-troubleshooting/user-creds ."
}

//nolint:paralleltest // it clears the credential and header environment variables
func TestUserCredentialsWithoutQuotaProject(t *testing.T) {
	clearCredentialEnv(t)
	for _, env := range headerEnv {
		t.Setenv(env, "")
	}
	const (
		setBoth = "the credentials name no quota project: set the provider's billingProject to the project " +
			"the lookups' quota is charged to, and userProjectOverride to true (endpoints:billingProject and " +
			"endpoints:userProjectOverride, or GOOGLE_BILLING_PROJECT and USER_PROJECT_OVERRIDE=true)"
		setOverride = "the provider's billingProject is sent only when userProjectOverride is true: " +
			"set userProjectOverride to true (endpoints:userProjectOverride, or USER_PROJECT_OVERRIDE=true)"
	)
	fileDenied := "permission denied (403) reading import data file " + filePath + ": " +
		quotaProjectMessage("migrationcenter.googleapis.com") + "; "
	policyDenied := "permission denied (403) reading the IAM policy of proxy config " + configPath + ": " +
		quotaProjectMessage("beyondcorp.googleapis.com") + "; "
	tests := []struct {
		name     string
		settings map[string]string
		token    tokens.Type
		want     string
	}{
		{"getImportDataFile, nothing set", nil, importDataFile, fileDenied + setBoth},
		{"the policy lookup, nothing set", nil, policyToken, policyDenied + setBoth},
		{"billingProject without userProjectOverride", map[string]string{"billingProject": "billing"}, importDataFile,
			fileDenied + setOverride},
		{"billingProject with userProjectOverride false", map[string]string{"billingProject": "billing", "userProjectOverride": "false"},
			policyToken, policyDenied + setOverride},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			double := startDouble(t, token)
			addObjects(double)
			settings := map[string]string{"credentials": userKey(t, double, "")}
			maps.Copy(settings, tt.settings)
			h := startWith(t, double, settings)
			err := h.invokeWithin(lookupTimeout, tt.token, lookupArgs(tt.token))
			if err == nil || err.Error() != tt.want {
				t.Errorf("err = %v\nwant %s", err, tt.want)
			}
			if n := h.requests(); n != 1 {
				t.Errorf("the double received %d requests, want 1: a 403 is not retried", n)
			}
		})
	}
	const unsent = `the lookups send no X-Goog-User-Project header: billingProject billing is sent only when userProjectOverride is true`
	if !strings.Contains(logs.String(), unsent) {
		t.Errorf("no debug line says that billingProject is not sent; logs:\n%s", logs.String())
	}
	t.Run("billingProject with userProjectOverride succeeds", func(t *testing.T) {
		double := startDouble(t, token)
		addObjects(double)
		h := startWith(t, double, map[string]string{
			"credentials": userKey(t, double, ""), "billingProject": "billing", "userProjectOverride": "true",
		})
		for _, l := range lookups {
			h.mustInvoke(l.token, l.args())
		}
		assertSent(t, double, 2, sent{UserProject: "billing", UserAgent: userAgent})
	})
}

// lookupArgs are the arguments of the lookup tok for the objects of addObjects.
func lookupArgs(tok tokens.Type) map[string]property.Value {
	for _, l := range lookups {
		if l.token == tok {
			return l.args()
		}
	}
	panic("no lookup " + tok)
}

//nolint:paralleltest // it clears the credential and header environment variables
func TestUserCredentialsWithQuotaProject(t *testing.T) {
	clearCredentialEnv(t)
	for _, env := range headerEnv {
		t.Setenv(env, "")
	}
	tests := []struct {
		name     string
		settings map[string]string
		want     string
	}{
		{"the key's quota_project_id is sent by the auth library", nil, "key-quota"},
		{"and still without userProjectOverride", map[string]string{"billingProject": "billing"}, "key-quota"},
		{"billingProject with userProjectOverride wins over it",
			map[string]string{"billingProject": "billing", "userProjectOverride": "true"}, "billing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			double := startDouble(t, token)
			addObjects(double)
			settings := map[string]string{"credentials": userKey(t, double, "key-quota")}
			maps.Copy(settings, tt.settings)
			h := startWith(t, double, settings)
			for _, l := range lookups {
				h.mustInvoke(l.token, l.args())
			}
			assertSent(t, double, 2, sent{UserProject: tt.want, UserAgent: userAgent})
		})
	}
}

const noBillingProject = "userProjectOverride is true but billingProject is not set: " +
	"set billingProject (endpoints:billingProject, or GOOGLE_BILLING_PROJECT) to the project the lookups' quota is charged to, " +
	"or set userProjectOverride to false"

func TestUserProjectOverrideWithoutBillingProjectFailsTheConfiguration(t *testing.T) {
	t.Parallel()
	srv := newProvider(t)
	args := property.NewMap(map[string]property.Value{"userProjectOverride": property.New(true)})
	resp, err := srv.CheckConfig(p.CheckRequest{Urn: resource.NewURN("s", "p", "", providers.MakeProviderType(provider.Name), "default"), Inputs: args})
	if err != nil {
		t.Fatalf("CheckConfig: %v", err)
	}
	want := []p.CheckFailure{{Property: "billingProject", Reason: noBillingProject}}
	if diff := cmp.Diff(want, resp.Failures); diff != "" {
		t.Errorf("CheckConfig failures (-want +got):\n%s", diff)
	}
	err = srv.Configure(p.ConfigureRequest{Args: args})
	if want := "invalid provider configuration: " + noBillingProject; err == nil || err.Error() != want {
		t.Errorf("Configure: err = %v\nwant %s", err, want)
	}
}

//nolint:paralleltest // it sets USER_PROJECT_OVERRIDE, which provider.New reads
func TestUserProjectOverrideFromEnvironmentWithoutBillingProjectFailsTheLookups(t *testing.T) {
	for _, env := range headerEnv {
		t.Setenv(env, "")
	}
	t.Setenv("USER_PROJECT_OVERRIDE", "true")
	h := start(t, nil) // the configuration itself is accepted
	addObjects(h.double)
	for _, l := range lookups {
		err := h.invokeWithin(lookupTimeout, l.token, l.args())
		if want := l.name + ": " + noBillingProject; err == nil || err.Error() != want {
			t.Errorf("err = %v\nwant %s", err, want)
		}
	}
	if n := h.requests(); n != 0 {
		t.Errorf("the double received %d requests, want none", n)
	}
}
