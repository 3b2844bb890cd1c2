package cloudauth

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/clouddouble"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/googledouble"
)

// The credentials CI systems hand a job: workload identity federation for GKE (what
// google-github-actions/auth or a GitLab job's id_tokens set up), gcloud's user
// credentials, and an OIDC web identity for EKS (aws-actions/configure-aws-credentials,
// EKS pod identity's IRSA).

const (
	wifAudience = "//iam.googleapis.com/projects/123456789012/locations/global/workloadIdentityPools/ci/providers/github"
	wifAccount  = "deployer@double-project.iam.gserviceaccount.com"
	// oidcToken stands for the CI system's OIDC token (a JWT) the provider accepts.
	oidcToken = "eyJhbGciOiJSUzI1NiIsImtpZCI6ImNpIn0.eyJzdWIiOiJyZXBvOmV4YW1wbGUvYXBwIn0.c2lnbmF0dXJl" //nolint:gosec // made up, for the doubles
)

// gkeScopes are gke-gcloud-auth-plugin's scopes, written out so that a change of GKEScopes shows.
var gkeScopes = []string{"https://www.googleapis.com/auth/cloud-platform", "https://www.googleapis.com/auth/userinfo.email"}

// The GKE token is the access token of workload identity federation: with
// service_account_impersonation_url, the impersonated service account's token, asked
// with the GKE scopes for a federated token of the cloud-platform scope; without, the
// federated token itself, asked with the GKE scopes.
//
//nolint:paralleltest // it sets the Google environment variables
func TestGKEWorkloadIdentityFederation(t *testing.T) {
	for _, tc := range []struct {
		name, account  string
		exchangeScopes []string
	}{
		{name: "impersonated service account", account: wifAccount, exchangeScopes: []string{"https://www.googleapis.com/auth/cloud-platform"}},
		{name: "federated token", exchangeScopes: gkeScopes},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sts := clouddouble.StartGoogleSTS()
			defer sts.Close()
			sts.AddProvider(wifAudience, oidcToken)
			sts.AllowImpersonation(wifAccount, wifAudience)
			// The CI system writes the token with a newline; the library trims it.
			tokenFile := writeFile(t, "oidc-token", []byte(oidcToken+"\n"))
			keyFile := writeFile(t, "gha-creds.json", sts.ExternalAccount(wifAudience, tokenFile, tc.account))
			googleEnv(t, keyFile, "")

			src := newSource(t, Plugin{Cloud: GKE, Command: "gke-gcloud-auth-plugin"}, Options{Server: server})
			tok := nextToken(t, src)
			grant, err := sts.Verify(tok.Value)
			if err != nil {
				t.Fatalf("the GKE token: %v", err)
			}
			if grant.ServiceAccount != tc.account || grant.Audience != wifAudience {
				t.Errorf("the token is of service account %q through %s, want %q through %s",
					grant.ServiceAccount, grant.Audience, tc.account, wifAudience)
			}
			if diff := cmp.Diff(gkeScopes, grant.Scopes); diff != "" {
				t.Errorf("the GKE token's scopes (-want +got):\n%s", diff)
			}
			if d := tok.Expiry.Sub(grant.Expires); d < -2*time.Second || d > 2*time.Second {
				t.Errorf("the token expires at %s, the grant at %s", tok.Expiry, grant.Expires)
			}
			exchanges := sts.Exchanges()
			if len(exchanges) != 1 {
				t.Fatalf("%d token exchanges, want 1", len(exchanges))
			}
			if diff := cmp.Diff(tc.exchangeScopes, exchanges[0].Scopes); diff != "" {
				t.Errorf("the token exchange's scopes (-want +got):\n%s", diff)
			}
			for _, want := range []string{"GKE cluster at " + server, "external_account key file " + keyFile, "GOOGLE_APPLICATION_CREDENTIALS"} {
				if !strings.Contains(src.Describe(), want) {
					t.Errorf("Describe() = %q, want it to name %q", src.Describe(), want)
				}
			}
		})
	}
}

// A subject token the pool provider does not accept, or a provider not allowed to
// impersonate the service account: the error names the cluster, the credential type
// and the service's refusal, never the subject token.
//
//nolint:paralleltest // it sets the Google environment variables
func TestGKEWorkloadIdentityFederationRefused(t *testing.T) {
	const wrong = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJyZXBvOm90aGVyL2FwcCJ9.b3RoZXI"
	for _, tc := range []struct {
		name, fileToken, account string
		allow                    bool
		want                     string
	}{
		{name: "wrong subject token", fileToken: wrong, account: wifAccount, allow: true, want: "invalid_grant"},
		{name: "wrong subject token, no impersonation", fileToken: wrong, want: "invalid_grant"},
		{name: "impersonation not allowed", fileToken: oidcToken, account: wifAccount, want: "iam.serviceAccounts.getAccessToken"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sts := clouddouble.StartGoogleSTS()
			defer sts.Close()
			sts.AddProvider(wifAudience, oidcToken)
			if tc.allow {
				sts.AllowImpersonation(wifAccount, wifAudience)
			}
			tokenFile := writeFile(t, "oidc-token", []byte(tc.fileToken))
			keyFile := writeFile(t, "gha-creds.json", sts.ExternalAccount(wifAudience, tokenFile, tc.account))
			googleEnv(t, keyFile, "")

			src := newSource(t, Plugin{Cloud: GKE, Command: "gke-gcloud-auth-plugin"}, Options{Server: server})
			_, err := src.Token(t.Context())
			if err == nil {
				t.Fatal("a token was made")
			}
			for _, want := range []string{"GKE cluster at " + server, "external_account", keyFile, tc.want} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not name %q", err, want)
				}
			}
			if strings.Contains(err.Error(), tc.fileToken) {
				t.Errorf("error %q shows the subject token", err)
			}
		})
	}
}

// gcloud auth application-default login's file under HOME, with no
// GOOGLE_APPLICATION_CREDENTIALS: its refresh token is exchanged at its token_uri
// (the auth library honours token_uri for authorized_user).
//
//nolint:paralleltest // it sets the Google environment variables
func TestGKEGcloudUserCredentials(t *testing.T) {
	double, err := googledouble.Start("")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = double.Close() }()
	key, err := double.AuthorizedUserKey("")
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	file := filepath.Join(home, ".config", "gcloud", "application_default_credentials.json")
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		t.Fatal(err)
	}
	googleEnv(t, "", "")
	t.Setenv("HOME", home)

	for _, tc := range []struct {
		name    string
		refresh func(string) string
		wantErr string
	}{
		{name: "refresh token", refresh: func(r string) string { return r }},
		{name: "revoked refresh token", refresh: func(r string) string { return r + "-revoked" }, wantErr: "invalid_grant"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var creds map[string]string
			if err := json.Unmarshal(key, &creds); err != nil {
				t.Fatal(err)
			}
			creds["refresh_token"] = tc.refresh(creds["refresh_token"])
			b, err := json.Marshal(creds)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(file, b, 0o600); err != nil {
				t.Fatal(err)
			}
			src := newSource(t, Plugin{Cloud: GKE, Command: "gke-gcloud-auth-plugin"}, Options{Server: server})
			tok, err := src.Token(t.Context())
			if tc.wantErr != "" {
				if err == nil {
					t.Fatal("a token was made with a refresh token the token endpoint does not know")
				}
				for _, want := range []string{"GKE cluster at " + server, "authorized_user credentials of " + file, tc.wantErr} {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("error %q does not name %q", err, want)
					}
				}
				for _, secret := range []string{creds["refresh_token"], creds["client_secret"]} {
					if strings.Contains(err.Error(), secret) {
						t.Errorf("error %q shows a secret of the credentials", err)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !double.GrantedUserToken(tok.Value) {
				t.Errorf("token %.20q... was not granted to the user credentials", tok.Value)
			}
			if want := "GKE cluster at " + server + " with the authorized_user credentials of " + file; src.Describe() != want {
				t.Errorf("Describe() = %q, want %q", src.Describe(), want)
			}
		})
	}
}

const (
	webIdentityRole  = "arn:aws:iam::444455556666:role/github-deployer"
	webIdentityToken = "eyJhbGciOiJSUzI1NiIsImtpZCI6ImdoYSJ9.eyJzdWIiOiJyZXBvOmV4YW1wbGUvYXBwOnJlZjpyZWZzL2hlYWRzL21haW4ifQ.c2ln" //nolint:gosec // made up, for the doubles
)

// webIdentityEnv is awsEnv without static keys: AWS_ROLE_ARN and
// AWS_WEB_IDENTITY_TOKEN_FILE (holding token) and AWS_ROLE_SESSION_NAME.
func webIdentityEnv(t *testing.T, sts *clouddouble.STS, token, session string) {
	t.Helper()
	awsEnv(t, sts, clouddouble.AWSKey{})
	t.Setenv("AWS_ROLE_ARN", webIdentityRole)
	t.Setenv("AWS_WEB_IDENTITY_TOKEN_FILE", writeFile(t, "web-identity-token", []byte(token)))
	t.Setenv("AWS_ROLE_SESSION_NAME", session)
}

func startWebIdentitySTS() *clouddouble.STS {
	sts := clouddouble.StartSTS()
	sts.AddWebIdentityRole(webIdentityRole, clouddouble.WebIdentity{
		Token: webIdentityToken, Subject: "repo:example/app:ref:refs/heads/main",
		Audience: "sts.amazonaws.com", Provider: "token.actions.githubusercontent.com",
	})
	// Another role trusts another subject's token.
	sts.AddWebIdentityRole("arn:aws:iam::444455556666:role/other-repo", clouddouble.WebIdentity{
		Token: "eyJhbGciOiJSUzI1NiJ9.b3RoZXItcmVwbw.c2ln", Subject: "repo:example/other:ref:refs/heads/main",
		Audience: "sts.amazonaws.com", Provider: "token.actions.githubusercontent.com",
	})
	return sts
}

// With a web identity and no keys, the role is assumed with AssumeRoleWithWebIdentity
// and its temporary credentials sign the EKS token, which the cluster takes as the
// assumed role's.
//
//nolint:paralleltest // it sets the AWS environment variables
func TestEKSWebIdentity(t *testing.T) {
	for _, tc := range []struct{ name, session, wantARN string }{
		{name: "session name", session: "gha-run-42", wantARN: "arn:aws:sts::444455556666:assumed-role/github-deployer/gha-run-42"},
		// The SDK names the session after the time.
		{name: "no session name", wantARN: "arn:aws:sts::444455556666:assumed-role/github-deployer/1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sts := startWebIdentitySTS()
			defer sts.Close()
			webIdentityEnv(t, sts, webIdentityToken, tc.session)

			src := newSource(t, Plugin{Cloud: EKS, Command: "aws", Cluster: "demo", Region: "eu-west-1"}, Options{Server: server})
			tok := nextToken(t, src)
			arn, err := sts.VerifyEKSToken(t.Context(), tok.Value, "demo")
			if err != nil {
				t.Fatalf("the double refused the token: %v", err)
			}
			if !strings.HasPrefix(arn, tc.wantARN) {
				t.Errorf("the token is %s's, want %s", arn, tc.wantARN)
			}
			if n := sts.Calls()["AssumeRoleWithWebIdentity"]; n != 1 {
				t.Errorf("AssumeRoleWithWebIdentity answered %d times, want 1", n)
			}
			for _, want := range []string{"EKS cluster demo", webIdentityRole, "WebIdentityCredentials"} {
				if !strings.Contains(src.Describe(), want) {
					t.Errorf("Describe() = %q, want it to name %q", src.Describe(), want)
				}
			}
		})
	}
}

// A web identity token no role trusts (STS: InvalidIdentityToken, which the SDK
// retries), or one the role does not trust (AccessDenied): the error names the cluster
// and the role, never the token.
//
//nolint:paralleltest // it sets the AWS environment variables
func TestEKSWebIdentityRefused(t *testing.T) {
	for _, tc := range []struct {
		name, token, code string
		attempts          int
	}{
		{name: "unknown token", token: "eyJhbGciOiJSUzI1NiJ9.ZXhwaXJlZA.c2ln", code: "InvalidIdentityToken", attempts: 3},
		{name: "another role's token", token: "eyJhbGciOiJSUzI1NiJ9.b3RoZXItcmVwbw.c2ln", code: "AccessDenied", attempts: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sts := startWebIdentitySTS()
			defer sts.Close()
			webIdentityEnv(t, sts, tc.token, "gha-run-42")

			src := newSource(t, Plugin{Cloud: EKS, Command: "aws", Cluster: "demo", Region: "eu-west-1"}, Options{Server: server})
			_, err := src.Token(t.Context())
			if err == nil {
				t.Fatal("a token was made")
			}
			for _, want := range []string{"EKS cluster demo", webIdentityRole, tc.code} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not name %q", err, want)
				}
			}
			if strings.Contains(err.Error(), tc.token) {
				t.Errorf("error %q shows the web identity token", err)
			}
			if n := sts.Calls()[tc.code]; n != tc.attempts {
				t.Errorf("STS answered %s %d times, want %d", tc.code, n, tc.attempts)
			}
		})
	}
}

// Keys in the environment come before a web identity in the AWS default chain: the
// token is the keys' and the description does not claim the web identity role.
//
//nolint:paralleltest // it sets the AWS environment variables
func TestEKSKeysBeforeWebIdentity(t *testing.T) {
	sts := startWebIdentitySTS()
	defer sts.Close()
	webIdentityEnv(t, sts, webIdentityToken, "gha-run-42")
	key := sts.AddUser("111122223333", "ci")
	t.Setenv("AWS_ACCESS_KEY_ID", key.AccessKeyID)
	t.Setenv("AWS_SECRET_ACCESS_KEY", key.SecretAccessKey)

	src := newSource(t, Plugin{Cloud: EKS, Command: "aws", Cluster: "demo", Region: "eu-west-1"}, Options{Server: server})
	tok := nextToken(t, src)
	if arn, err := sts.VerifyEKSToken(t.Context(), tok.Value, "demo"); err != nil || arn != key.ARN {
		t.Errorf("the token is %q's (%v), want %s's", arn, err, key.ARN)
	}
	if strings.Contains(src.Describe(), "web identity") || !strings.Contains(src.Describe(), "EnvConfigCredentials") {
		t.Errorf("Describe() = %q, want the environment's keys and no web identity", src.Describe())
	}
}
