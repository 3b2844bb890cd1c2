package google

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// gkeScopes are the scopes a GKE cluster's tokens are asked with.
var gkeScopes = []string{
	"https://www.googleapis.com/auth/cloud-platform",
	"https://www.googleapis.com/auth/userinfo.email",
}

// A service-account key's tokens are asked for with the scopes given, from the key's
// token endpoint, and keep coming after the context TokenSource had is cancelled.
func TestTokenSourceOfAKey(t *testing.T) {
	t.Parallel()
	var (
		mu     sync.Mutex
		scopes []string
	)
	// A token endpoint that grants every assertion and records the scope it asks for.
	endpoint := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		var claims struct {
			Scope string `json:"scope"`
		}
		if parts := strings.Split(r.PostForm.Get("assertion"), "."); len(parts) == 3 {
			payload, _ := base64.RawURLEncoding.DecodeString(parts[1])
			_ = json.Unmarshal(payload, &claims)
		}
		mu.Lock()
		scopes = append(scopes, claims.Scope)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"access_token":"granted","token_type":"Bearer","expires_in":3600}`))
	}))
	t.Cleanup(endpoint.Close)
	var key map[string]any
	if err := json.Unmarshal(serviceAccountKey(t), &key); err != nil {
		t.Fatal(err)
	}
	key["token_uri"] = endpoint.URL + "/token"
	keyJSON, err := json.Marshal(key)
	if err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithCancel(t.Context())
	ts, describe, err := TokenSource(ctx, Config{Credentials: string(keyJSON)}, gkeScopes)
	cancel()
	if err != nil {
		t.Fatal(err)
	}
	if want := "the service_account key in the provider's credentials setting"; describe != want {
		t.Errorf("description %q, want %q", describe, want)
	}
	tok, err := ts.Token()
	if err != nil {
		t.Fatal(err)
	}
	if tok.AccessToken != "granted" {
		t.Errorf("token %q, want the one the endpoint granted", tok.AccessToken)
	}
	mu.Lock()
	defer mu.Unlock()
	if want := strings.Join(gkeScopes, " "); len(scopes) != 1 || scopes[0] != want {
		t.Errorf("the endpoint was asked for scopes %q, want once %q", scopes, want)
	}
}

func TestTokenSourceOfAnAccessToken(t *testing.T) {
	t.Parallel()
	ts, describe, err := TokenSource(t.Context(), Config{AccessToken: "ya29.the-setting"}, gkeScopes)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := ts.Token()
	if err != nil || tok.AccessToken != "ya29.the-setting" {
		t.Errorf("token %v, %v; want the setting's", tok, err)
	}
	if want := "the access token of the provider's accessToken setting"; describe != want {
		t.Errorf("description %q, want %q", describe, want)
	}
	const account = "deployer@proj.iam.gserviceaccount.com"
	_, describe, err = TokenSource(t.Context(), Config{AccessToken: "ya29.the-setting", ImpersonateServiceAccount: account}, gkeScopes)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(describe, ", impersonating service account "+account) {
		t.Errorf("description %q, want it to name the impersonated account", describe)
	}
}

func TestSetsCredentials(t *testing.T) {
	t.Parallel()
	tests := []struct {
		cfg  Config
		want bool
	}{
		{Config{}, false},
		{Config{Project: "p", BillingProject: "b", UserProjectOverride: true}, false},
		{Config{AccessToken: "ya29.x"}, true},
		{Config{Credentials: "/key.json"}, true},
		{Config{ImpersonateServiceAccount: "sa@p.iam.gserviceaccount.com"}, true},
	}
	for _, tt := range tests {
		if got := tt.cfg.SetsCredentials(); got != tt.want {
			t.Errorf("%+v.SetsCredentials() = %v, want %v", tt.cfg, got, tt.want)
		}
	}
}
