package clouddouble

import (
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
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
// authentication.k8s.io/v1) that answers with verify: give kube-apiserver
// --authentication-token-webhook-config-file=<ConfigFile>,
// --authentication-token-webhook-version=v1 and
// --authentication-token-webhook-cache-ttl=0s (the default 2m would hide renewals).
type TokenWebhook struct {
	srv *httptest.Server
	// ConfigFile is the kubeconfig file naming the webhook, for kube-apiserver.
	ConfigFile string
}

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
	w := &TokenWebhook{}
	w.srv = httptest.NewTLSServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		var review tokenReview
		if r.Method != http.MethodPost || json.NewDecoder(r.Body).Decode(&review) != nil || review.Kind != "TokenReview" {
			http.Error(rw, "a TokenReview is expected", http.StatusBadRequest)
			return
		}
		id, err := verify(r, review.Spec.Token)
		if err != nil {
			review.Status.Error = err.Error()
		} else {
			review.Status.Authenticated = true
			review.Status.User.Username, review.Status.User.UID, review.Status.User.Groups = id.Username, id.UID, id.Groups
		}
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

// Close stops the webhook.
func (w *TokenWebhook) Close() { w.srv.Close() }

// URL is the webhook's address.
func (w *TokenWebhook) URL() string { return w.srv.URL }

// Client trusts the webhook's certificate.
func (w *TokenWebhook) Client() *http.Client { return w.srv.Client() }

func pemBase64(der []byte) string {
	return base64.StdEncoding.EncodeToString(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
}
