package clouddouble

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"
)

// Metadata is the Google Compute Engine metadata server double: the default service
// account's token and email, and the project ID. Point the auth library at it with
// GCE_METADATA_HOST (host:port, which also tells it it runs on Google Cloud).
type Metadata struct {
	// Host is host:port, the value for GCE_METADATA_HOST.
	Host string
	srv  *httptest.Server

	mu       sync.Mutex
	lifetime time.Duration
	granted  map[string]time.Time
	scopes   []string
}

// Email is the default service account the double answers for.
const Email = "default-sa@double-project.iam.gserviceaccount.com"

// StartMetadata starts the double; its tokens live an hour unless SetLifetime says otherwise.
func StartMetadata() *Metadata {
	m := &Metadata{lifetime: time.Hour, granted: map[string]time.Time{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", m.flavored(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "computeMetadata/\n") }))
	mux.HandleFunc("GET /computeMetadata/v1/project/project-id", m.flavored(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, "double-project")
	}))
	mux.HandleFunc("GET /computeMetadata/v1/instance/service-accounts/default/email", m.flavored(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, Email)
	}))
	mux.HandleFunc("GET /computeMetadata/v1/instance/service-accounts/default/token", m.flavored(m.token))
	m.srv = httptest.NewServer(mux)
	m.Host = strings.TrimPrefix(m.srv.URL, "http://")
	return m
}

// Close stops the double.
func (m *Metadata) Close() { m.srv.Close() }

// SetLifetime sets the expires_in of the tokens granted from now on.
func (m *Metadata) SetLifetime(d time.Duration) {
	m.mu.Lock()
	m.lifetime = d
	m.mu.Unlock()
}

// Scopes returns the scopes parameter of each token request, in order.
func (m *Metadata) Scopes() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.scopes...)
}

// Verify says whether the double granted token and it has not expired.
func (m *Metadata) Verify(token string) error {
	m.mu.Lock()
	exp, ok := m.granted[token]
	m.mu.Unlock()
	switch {
	case !ok:
		return fmt.Errorf("the token was not issued by the metadata double")
	case time.Now().After(exp):
		return fmt.Errorf("the token expired at %s", exp.Format(time.RFC3339))
	}
	return nil
}

// flavored answers only requests with Metadata-Flavor: Google, as the server does, and
// marks its answers with the same header.
func (m *Metadata) flavored(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Metadata-Flavor", "Google")
		if r.Header.Get("Metadata-Flavor") != "Google" {
			w.Header().Set("Content-Type", "text/html; charset=UTF-8")
			w.WriteHeader(http.StatusForbidden)
			_, _ = io.WriteString(w, "Missing required header \"Metadata-Flavor\": \"Google\"\n")
			return
		}
		h(w, r)
	}
}

func (m *Metadata) token(w http.ResponseWriter, r *http.Request) {
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	token := "ya29.c." + hex.EncodeToString(b)
	m.mu.Lock()
	m.scopes = append(m.scopes, r.URL.Query().Get("scopes"))
	lifetime := m.lifetime
	m.granted[token] = time.Now().Add(lifetime)
	m.mu.Unlock()
	writeJSONAnswer(w, http.StatusOK, map[string]any{
		"access_token": token, "expires_in": int(lifetime / time.Second), "token_type": "Bearer",
	})
}
