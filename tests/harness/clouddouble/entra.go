package clouddouble

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"
)

// Entra is the Microsoft Entra ID (Azure AD) double: a tenant's v2.0 token endpoint for
// the client credentials grant and the tenant's OpenID configuration. It serves TLS
// with a certificate of its own (the Azure identity library accepts only https
// authorities): Client trusts it. Point the library at it with AZURE_AUTHORITY_HOST.
type Entra struct {
	// URL is the authority host, https://127.0.0.1:<port>/.
	URL string
	srv *httptest.Server

	mu       sync.Mutex
	apps     map[string]entraApp
	granted  map[string]EntraGrant
	lifetime time.Duration
	requests int
}

type entraApp struct {
	tenant, secret, federatedToken string
}

// EntraGrant is a token the double granted.
type EntraGrant struct {
	ClientID, Tenant, Scope string
	Expires                 time.Time
}

// StartEntra starts the double; its tokens live an hour unless SetLifetime says otherwise.
func StartEntra() *Entra {
	e := &Entra{apps: map[string]entraApp{}, granted: map[string]EntraGrant{}, lifetime: time.Hour}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{tenant}/v2.0/.well-known/openid-configuration", e.openIDConfiguration)
	mux.HandleFunc("POST /{tenant}/oauth2/v2.0/token", e.token)
	e.srv = httptest.NewTLSServer(mux)
	e.URL = e.srv.URL + "/"
	return e
}

// Close stops the double.
func (e *Entra) Close() { e.srv.Close() }

// Client is an HTTP client that trusts the double's certificate.
func (e *Entra) Client() *http.Client { return e.srv.Client() }

// CertificatePEM is the double's TLS certificate, for a process that must trust it
// without Client (the provider's own clients: point SSL_CERT_FILE at it).
func (e *Entra) CertificatePEM() []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: e.srv.Certificate().Raw})
}

// SetLifetime sets the expires_in of the tokens granted from now on.
func (e *Entra) SetLifetime(d time.Duration) {
	e.mu.Lock()
	e.lifetime = d
	e.mu.Unlock()
}

// TokenRequests counts the token requests answered (granted or refused).
func (e *Entra) TokenRequests() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.requests
}

// AddSecretApp registers a service principal of tenant with a client secret.
func (e *Entra) AddSecretApp(tenant, clientID, secret string) {
	e.mu.Lock()
	e.apps[clientID] = entraApp{tenant: tenant, secret: secret}
	e.mu.Unlock()
}

// AddFederatedApp registers an application of tenant whose federated credential
// accepts federatedToken as client assertion (the projected service account token of
// workload identity).
func (e *Entra) AddFederatedApp(tenant, clientID, federatedToken string) {
	e.mu.Lock()
	e.apps[clientID] = entraApp{tenant: tenant, federatedToken: federatedToken}
	e.mu.Unlock()
}

// Verify returns the grant of a token the double issued for audience (a server ID)
// that has not expired.
func (e *Entra) Verify(token, audience string) (EntraGrant, error) {
	e.mu.Lock()
	g, ok := e.granted[token]
	e.mu.Unlock()
	switch {
	case !ok:
		return EntraGrant{}, fmt.Errorf("the token was not issued by this Entra double")
	case time.Now().After(g.Expires):
		return EntraGrant{}, fmt.Errorf("the token expired at %s", g.Expires.Format(time.RFC3339))
	case g.Scope != audience+"/.default":
		return EntraGrant{}, fmt.Errorf("the token is for scope %s, not %s/.default", g.Scope, audience)
	}
	return g, nil
}

func (e *Entra) openIDConfiguration(w http.ResponseWriter, r *http.Request) {
	tenant := r.PathValue("tenant")
	base := e.URL + tenant
	writeJSONAnswer(w, http.StatusOK, map[string]any{
		"token_endpoint":                        base + "/oauth2/v2.0/token",
		"authorization_endpoint":                base + "/oauth2/v2.0/authorize",
		"device_authorization_endpoint":         base + "/oauth2/v2.0/devicecode",
		"issuer":                                base + "/v2.0",
		"jwks_uri":                              base + "/discovery/v2.0/keys",
		"token_endpoint_auth_methods_supported": []string{"client_secret_post", "private_key_jwt", "client_secret_basic"},
		"response_types_supported":              []string{"code", "id_token", "code id_token", "id_token token"},
		"tenant_region_scope":                   "EU",
	})
}

// entraError writes Entra's error envelope, AADSTS code first in the description.
func entraError(w http.ResponseWriter, status int, code string, aadsts int, description string) {
	now := time.Now().UTC()
	trace, correlation := randomGUID(), randomGUID()
	writeJSONAnswer(w, status, map[string]any{
		"error": code,
		"error_description": fmt.Sprintf("AADSTS%d: %s Trace ID: %s Correlation ID: %s Timestamp: %s",
			aadsts, description, trace, correlation, now.Format("2006-01-02 15:04:05Z")),
		"error_codes":    []int{aadsts},
		"timestamp":      now.Format("2006-01-02 15:04:05Z"),
		"trace_id":       trace,
		"correlation_id": correlation,
		"error_uri":      fmt.Sprintf("https://login.microsoftonline.com/error?code=%d", aadsts),
	})
}

func (e *Entra) token(w http.ResponseWriter, r *http.Request) {
	e.mu.Lock()
	e.requests++
	e.mu.Unlock()
	tenant := r.PathValue("tenant")
	if err := r.ParseForm(); err != nil {
		entraError(w, http.StatusBadRequest, "invalid_request", 900144, "The request body must contain the following parameter: 'grant_type'.")
		return
	}
	form := r.PostForm
	if form.Get("grant_type") != "client_credentials" {
		entraError(w, http.StatusBadRequest, "unsupported_grant_type", 70003, "The app requested an unsupported grant type '"+form.Get("grant_type")+"'.")
		return
	}
	scope := form.Get("scope")
	var resource string
	for _, s := range strings.Fields(scope) {
		if strings.HasSuffix(s, "/.default") {
			resource = s
		}
	}
	if resource == "" {
		entraError(w, http.StatusBadRequest, "invalid_scope", 1002012, "The provided value for scope "+scope+" is not valid. "+
			"Client credential flows must have a scope value with /.default suffixed to the resource identifier (application ID URI).")
		return
	}
	clientID := form.Get("client_id")
	e.mu.Lock()
	app, ok := e.apps[clientID]
	lifetime := e.lifetime
	e.mu.Unlock()
	if !ok || app.tenant != tenant {
		entraError(w, http.StatusBadRequest, "unauthorized_client", 700016, fmt.Sprintf("Application with identifier '%s' was not "+
			"found in the directory '%s'. This can happen if the application has not been installed by the administrator of the "+
			"tenant or consented to by any user in the tenant. You may have sent your authentication request to the wrong tenant.", clientID, tenant))
		return
	}
	switch {
	case app.secret != "":
		if form.Get("client_secret") != app.secret {
			entraError(w, http.StatusUnauthorized, "invalid_client", 7000215, "Invalid client secret provided. Ensure the secret being "+
				"sent in the request is the client secret value, not the client secret ID, for a secret added to app '"+clientID+"'.")
			return
		}
	default:
		if form.Get("client_assertion_type") != "urn:ietf:params:oauth:client-assertion-type:jwt-bearer" ||
			form.Get("client_assertion") != app.federatedToken {
			entraError(w, http.StatusBadRequest, "invalid_client", 700213, "No matching federated identity record found for presented "+
				"assertion subject. Check your federated identity credential Subject, Audience and Issuer against the presented assertion.")
			return
		}
	}
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	token := "eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9." + hex.EncodeToString(b)
	e.mu.Lock()
	e.granted[token] = EntraGrant{ClientID: clientID, Tenant: tenant, Scope: resource, Expires: time.Now().Add(lifetime)}
	e.mu.Unlock()
	seconds := int(lifetime / time.Second)
	writeJSONAnswer(w, http.StatusOK, map[string]any{
		"token_type": "Bearer", "expires_in": seconds, "ext_expires_in": seconds, "access_token": token,
	})
}

func randomGUID() string {
	return newRequestID()
}

func writeJSONAnswer(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store, no-cache")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
