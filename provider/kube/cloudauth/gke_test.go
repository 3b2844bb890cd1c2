package cloudauth

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/clouddouble"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/googledouble"
)

const server = "https://203.0.113.10"

func writeFile(t *testing.T, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// googleEnv leaves the auth library nothing of the machine's: no key file, no gcloud
// file under HOME, no metadata server but metadataHost's.
func googleEnv(t *testing.T, keyFile, metadataHost string) {
	t.Helper()
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", keyFile)
	t.Setenv("HOME", t.TempDir())
	t.Setenv("GCE_METADATA_HOST", metadataHost)
	if metadataHost == "" {
		t.Setenv("NO_GCE_CHECK", "true")
	}
}

//nolint:paralleltest // it sets the Google environment variables
func TestGKEServiceAccountKey(t *testing.T) {
	double, err := googledouble.Start("granted-to-the-key")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = double.Close() }()
	key, err := double.ServiceAccountKey("deployer@double-project.iam.gserviceaccount.com")
	if err != nil {
		t.Fatal(err)
	}
	keyFile := writeFile(t, "key.json", key)
	googleEnv(t, keyFile, "")

	src, err := New(Plugin{Cloud: GKE, Command: "gke-gcloud-auth-plugin"}, Options{Server: server})
	if err != nil {
		t.Fatal(err)
	}
	tok, err := src.Token(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if tok.Value != "granted-to-the-key" {
		t.Errorf("token %q, want the one the token endpoint granted", tok.Value)
	}
	for _, want := range []string{"GKE cluster at " + server, "service_account key file " + keyFile, "GOOGLE_APPLICATION_CREDENTIALS"} {
		if !strings.Contains(src.Describe(), want) {
			t.Errorf("Describe() = %q, want it to name %q", src.Describe(), want)
		}
	}
}

//nolint:paralleltest // it sets the Google environment variables
func TestGKEWrongKey(t *testing.T) {
	double, err := googledouble.Start("ya29.granted")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = double.Close() }()
	other, err := googledouble.Start("ya29.other")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = other.Close() }()
	// A key the token endpoint does not know: minted by another double, sent to this one.
	key, err := other.ServiceAccountKey("deployer@double-project.iam.gserviceaccount.com")
	if err != nil {
		t.Fatal(err)
	}
	key = []byte(strings.ReplaceAll(string(key), other.URL, double.URL))
	keyFile := writeFile(t, "key.json", key)
	googleEnv(t, keyFile, "")

	src, err := New(Plugin{Cloud: GKE, Command: "gke-gcloud-auth-plugin"}, Options{Server: server})
	if err != nil {
		t.Fatal(err)
	}
	_, err = src.Token(t.Context())
	if err == nil {
		t.Fatal("a token was made with a key the token endpoint does not know")
	}
	for _, want := range []string{"GKE cluster at " + server, keyFile, "invalid_grant"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "PRIVATE KEY") {
		t.Errorf("error %q shows the key", err)
	}
}

//nolint:paralleltest // it sets the Google environment variables
func TestGKEMetadataServer(t *testing.T) {
	md := clouddouble.StartMetadata()
	defer md.Close()
	googleEnv(t, "", md.Host)

	src, err := New(Plugin{Cloud: GKE, Command: "gke-gcloud-auth-plugin"}, Options{Server: server})
	if err != nil {
		t.Fatal(err)
	}
	tok, err := src.Token(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if err := md.Verify(tok.Value); err != nil {
		t.Error(err)
	}
	if got := md.Scopes(); len(got) != 1 || got[0] != strings.Join(GKEScopes, ",") {
		t.Errorf("token requests asked for scopes %q, want %q", got, strings.Join(GKEScopes, ","))
	}
	if !strings.Contains(src.Describe(), "metadata server") {
		t.Errorf("Describe() = %q, want it to name the metadata server", src.Describe())
	}
}
