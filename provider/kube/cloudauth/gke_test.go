package cloudauth

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/oauth2"

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

	src := newSource(t, Plugin{Cloud: GKE, Command: "gke-gcloud-auth-plugin"}, Options{Server: server})
	tok := nextToken(t, src)
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

	src := newSource(t, Plugin{Cloud: GKE, Command: "gke-gcloud-auth-plugin"}, Options{Server: server})
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

	src := newSource(t, Plugin{Cloud: GKE, Command: "gke-gcloud-auth-plugin"}, Options{Server: server})
	tok := nextToken(t, src)
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

// With Options.Google (the provider's own Google settings) the tokens come from it,
// asked with the GKE scopes, whatever Application Default Credentials would find (here
// a key file that does not exist); each renewal asks it again.
func TestGKEProviderCredentials(t *testing.T) {
	t.Parallel()
	var (
		mu    sync.Mutex
		calls [][]string
	)
	settings := func(_ context.Context, scopes []string) (oauth2.TokenSource, string, error) {
		mu.Lock()
		defer mu.Unlock()
		calls = append(calls, scopes)
		tok := &oauth2.Token{AccessToken: fmt.Sprintf("granted-%d", len(calls)), Expiry: time.Now().Add(time.Hour)}
		return oauth2.StaticTokenSource(tok), "the access token of the provider's accessToken setting", nil
	}
	p := Plugin{Cloud: GKE, Command: "gke-gcloud-auth-plugin",
		Env: map[string]string{"GOOGLE_APPLICATION_CREDENTIALS": filepath.Join(t.TempDir(), "missing.json")}}
	src := newSource(t, p, Options{Server: server, Google: settings})
	if want := "GKE cluster at " + server + " with the provider's Google credentials"; src.Describe() != want {
		t.Errorf("Describe() before the first token = %q, want %q", src.Describe(), want)
	}
	tok, err := src.Token(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if tok.Value != "granted-1" {
		t.Errorf("token %q, want the provider's", tok.Value)
	}
	if want := "GKE cluster at " + server + " with the access token of the provider's accessToken setting"; src.Describe() != want {
		t.Errorf("Describe() = %q, want %q", src.Describe(), want)
	}
	src.(renewer).renew()
	if tok, err := src.Token(t.Context()); err != nil || tok.Value != "granted-2" {
		t.Errorf("after renew: token %q, %v; want a new one from the provider's credentials", tok.Value, err)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, scopes := range calls {
		if diff := cmp.Diff(GKEScopes, scopes); diff != "" {
			t.Errorf("scopes asked (-want +got):\n%s", diff)
		}
	}
}

// A failure of the provider's Google credentials names the cluster and the settings.
func TestGKEProviderCredentialsFail(t *testing.T) {
	t.Parallel()
	settings := func(context.Context, []string) (oauth2.TokenSource, string, error) {
		return nil, "", errors.New("the provider's credentials setting is neither a JSON key nor the path of a readable key file")
	}
	src := newSource(t, Plugin{Cloud: GKE, Command: "gke-gcloud-auth-plugin"}, Options{Server: server, Google: settings})
	_, err := src.Token(t.Context())
	want := "GKE cluster at " + server + ": the provider's Google credentials: the provider's credentials setting"
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("err = %v, want it to begin %q", err, want)
	}
}
