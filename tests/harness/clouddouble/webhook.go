package clouddouble

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// Identity is who a verified token stands for, as the cluster sees it.
type Identity struct {
	Username string
	UID      string
	Groups   []string
}

// Verify checks a bearer token the way one cloud's cluster does (see
// STS.VerifyEKSToken, Entra.Verify, Metadata.Verify) and maps it to a cluster user.
type Verify func(r *http.Request, token string) (Identity, error)

// TokenWebhook is a kube-apiserver authentication webhook (TokenReview,
// authentication.k8s.io/v1) that answers with verify and records its answers: give
// kube-apiserver APIServerArgs (--authentication-token-webhook-config-file=<ConfigFile>,
// --authentication-token-webhook-version=v1 and
// --authentication-token-webhook-cache-ttl=0s: the default 2m would hide renewals).
type TokenWebhook struct {
	srv *httptest.Server
	// ConfigFile is the kubeconfig file naming the webhook, for kube-apiserver.
	ConfigFile string

	mu      sync.Mutex
	reviews []Review
	// tokens are the tokens reviewed, by fingerprint, for Leaked.
	tokens map[string]string
}

// Review is one TokenReview the webhook answered.
type Review struct {
	// Token is a fingerprint of the token reviewed (the first 12 hex digits of its
	// SHA-256), to tell tokens apart without keeping them.
	Token string
	// Username is who the token stands for, when it was accepted.
	Username string
	// Error says why the token was refused.
	Error string
}

// Accepted tells whether the token was accepted.
func (r Review) Accepted() bool { return r.Error == "" }

// tokenReview is the part of authentication.k8s.io/v1 TokenReview the webhook reads
// and writes.
type tokenReview struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Spec       struct {
		Token     string   `json:"token"`
		Audiences []string `json:"audiences,omitempty"`
	} `json:"spec"`
	Status tokenReviewStatus `json:"status"`
}

type tokenReviewStatus struct {
	Authenticated bool `json:"authenticated"`
	User          struct {
		Username string   `json:"username,omitempty"`
		UID      string   `json:"uid,omitempty"`
		Groups   []string `json:"groups,omitempty"`
	} `json:"user"`
	Error string `json:"error,omitempty"`
}

// StartTokenWebhook serves verify over TLS and writes its kubeconfig file in dir.
func StartTokenWebhook(dir string, verify Verify) (*TokenWebhook, error) {
	w := &TokenWebhook{tokens: map[string]string{}}
	w.srv = httptest.NewTLSServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		var review tokenReview
		if r.Method != http.MethodPost || json.NewDecoder(r.Body).Decode(&review) != nil || review.Kind != "TokenReview" {
			http.Error(rw, "a TokenReview is expected", http.StatusBadRequest)
			return
		}
		id, err := verify(r, review.Spec.Token)
		sum := sha256.Sum256([]byte(review.Spec.Token))
		record := Review{Token: hex.EncodeToString(sum[:])[:12]}
		if err != nil {
			review.Status.Error = err.Error()
			record.Error = err.Error()
		} else {
			review.Status.Authenticated = true
			review.Status.User.Username, review.Status.User.UID, review.Status.User.Groups = id.Username, id.UID, id.Groups
			record.Username = id.Username
		}
		w.mu.Lock()
		w.reviews = append(w.reviews, record)
		w.tokens[record.Token] = review.Spec.Token
		w.mu.Unlock()
		review.Spec.Token = ""
		rw.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(rw).Encode(review)
	}))
	ca := w.srv.Certificate().Raw
	config := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: token-webhook
  cluster:
    server: %s
    certificate-authority-data: %s
users:
- name: kube-apiserver
contexts:
- name: webhook
  context: {cluster: token-webhook, user: kube-apiserver}
current-context: webhook
`, w.srv.URL, pemBase64(ca))
	w.ConfigFile = filepath.Join(dir, "token-webhook.kubeconfig")
	if err := os.WriteFile(w.ConfigFile, []byte(config), 0o600); err != nil {
		w.srv.Close()
		return nil, fmt.Errorf("clouddouble: writing the webhook's kubeconfig: %w", err)
	}
	return w, nil
}

// Reviews returns the reviews answered so far, in order.
func (w *TokenWebhook) Reviews() []Review {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]Review(nil), w.reviews...)
}

// Leaked returns the fingerprints of the tokens reviewed so far that text holds, for
// a test that a token never shows where it must not (a state, an output, a log).
func (w *TokenWebhook) Leaked(text string) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for fingerprint, token := range w.tokens {
		if token != "" && strings.Contains(text, token) {
			out = append(out, fingerprint)
		}
	}
	return out
}

// APIServerArgs are the kube-apiserver flags that make it ask the webhook about every
// bearer token no other authenticator of it accepts, each time (no cache: a cached
// answer would hide a renewal or an expiry).
func (w *TokenWebhook) APIServerArgs() []string {
	return []string{
		"--authentication-token-webhook-config-file=" + w.ConfigFile,
		"--authentication-token-webhook-version=v1",
		"--authentication-token-webhook-cache-ttl=0s",
	}
}

// Close stops the webhook.
func (w *TokenWebhook) Close() { w.srv.Close() }

// URL is the webhook's address.
func (w *TokenWebhook) URL() string { return w.srv.URL }

// Client trusts the webhook's certificate.
func (w *TokenWebhook) Client() *http.Client { return w.srv.Client() }

func pemBase64(der []byte) string {
	return base64.StdEncoding.EncodeToString(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
}
