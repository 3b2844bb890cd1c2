package google

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/googledouble"
)

// serviceAccountKey mints a service-account key file.
func serviceAccountKey(t *testing.T) []byte {
	t.Helper()
	double, err := googledouble.Start("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = double.Close() })
	key, err := double.ServiceAccountKey("sa@proj.iam.gserviceaccount.com")
	if err != nil {
		t.Fatal(err)
	}
	return key
}

//nolint:paralleltest // the Application Default Credentials case sets GOOGLE_APPLICATION_CREDENTIALS
func TestCredentialPrecedence(t *testing.T) {
	key := serviceAccountKey(t)
	keyFile := filepath.Join(t.TempDir(), "key.json")
	if err := os.WriteFile(keyFile, key, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", keyFile)
	const account = "target@proj.iam.gserviceaccount.com"
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{"access token first", Config{AccessToken: "tok-123456789", Credentials: string(key)},
			"the access token of the provider's accessToken setting"},
		{"credentials contents", Config{Credentials: string(key)},
			"the service_account key in the provider's credentials setting"},
		{"credentials file", Config{Credentials: keyFile},
			"the service_account key in the file named by the provider's credentials setting"},
		{"application default credentials last", Config{}, "Application Default Credentials"},
		{"impersonation on an access token", Config{AccessToken: "tok-123456789", ImpersonateServiceAccount: account},
			"the access token of the provider's accessToken setting, impersonating service account " + account},
		{"impersonation on a key", Config{Credentials: string(key), ImpersonateServiceAccount: account},
			"the service_account key in the provider's credentials setting, impersonating service account " + account},
	}
	for _, tt := range tests {
		got, err := newCredentials(t.Context(), tt.cfg, []string{cloudPlatformScope})
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if got.describe != tt.want || got.option == nil {
			t.Errorf("%s: credentials %q, want %q", tt.name, got.describe, tt.want)
		}
	}
}

func TestCredentialErrorsHideTheSetting(t *testing.T) {
	t.Parallel()
	const secretish = "not-json-but-maybe-a-secret-0123456789" //nolint:gosec // G101: a fake secret the errors must not show
	tests := []struct {
		name, credentials, want string
	}{
		{"neither JSON nor a file", secretish,
			"the provider's credentials setting is neither a JSON key nor the path of a readable key file: no such file or directory"},
		{"malformed JSON", `{"type": "service_account", "private_key": "` + secretish,
			"the provider's credentials setting is not a valid JSON key (its contents are secret and not shown): unexpected end of JSON input"},
		{"unsupported type", `{"type": "api_key", "key": "` + secretish + `"}`,
			`the key in the provider's credentials setting has type "api_key"; supported types: service_account, authorized_user, impersonated_service_account, external_account, external_account_authorized_user`},
		{"a key without its private key", `{"type": "service_account", "client_email": "sa@p.iam.gserviceaccount.com", "token_uri": "` + secretish + `"}`,
			"loading the service_account key in the provider's credentials setting: "},
	}
	for _, tt := range tests {
		_, err := newCredentials(t.Context(), Config{Credentials: tt.credentials}, []string{cloudPlatformScope})
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%s: err = %v\nwant it to begin %s", tt.name, err, tt.want)
			continue
		}
		if strings.Contains(err.Error(), secretish) {
			t.Errorf("%s: the error shows the setting: %v", tt.name, err)
		}
	}
}
