package clouddouble

import (
	"bytes"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha1" //nolint:gosec // G505: x5t is the certificate's SHA-1 thumbprint (RFC 7515)
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
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
	certificate                    *x509.Certificate
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

// AddCertificateApp registers a service principal of tenant with a certificate
// credential: the token endpoint takes a client assertion signed with the
// certificate's key, checked as Entra ID checks it (see checkAssertion).
func (e *Entra) AddCertificateApp(tenant, clientID string, certificate *x509.Certificate) {
	e.mu.Lock()
	e.apps[clientID] = entraApp{tenant: tenant, certificate: certificate}
	e.mu.Unlock()
}

// ClientCertificate is a service principal's certificate credential: a self-signed
// certificate and its RSA key.
type ClientCertificate struct {
	Certificate *x509.Certificate
	Key         *rsa.PrivateKey
	// PEM is the key (unencrypted PKCS #8) and the certificate in one file, as az ad
	// sp create-for-rbac --create-cert writes it and kubelogin's --client-certificate
	// reads it.
	PEM []byte
}

// NewClientCertificate makes a certificate credential for commonName, valid for a day.
func NewClientCertificate(commonName string) (ClientCertificate, error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return ClientCertificate{}, err
	}
	now := time.Now()
	template := &x509.Certificate{
		SerialNumber: big.NewInt(now.UnixNano()), Subject: pkix.Name{CommonName: commonName},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, template, template, &key.PublicKey, key)
	if err != nil {
		return ClientCertificate{}, err
	}
	certificate, err := x509.ParseCertificate(der)
	if err != nil {
		return ClientCertificate{}, err
	}
	pkcs8, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return ClientCertificate{}, err
	}
	data := append(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pkcs8}),
		pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})...)
	return ClientCertificate{Certificate: certificate, Key: key, PEM: data}, nil
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
	if !e.clientAuthenticated(w, form, tenant, clientID, app) {
		return
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

// clientAuthenticated checks the client credential of the token request form of app
// clientID of tenant (a secret, a certificate's assertion or a federated token) and,
// when it does not hold, answers as Entra does.
func (e *Entra) clientAuthenticated(w http.ResponseWriter, form url.Values, tenant, clientID string, app entraApp) bool {
	switch {
	case app.secret != "":
		if form.Get("client_secret") != app.secret {
			entraError(w, http.StatusUnauthorized, "invalid_client", 7000215, "Invalid client secret provided. Ensure the secret being "+
				"sent in the request is the client secret value, not the client secret ID, for a secret added to app '"+clientID+"'.")
			return false
		}
	case app.certificate != nil:
		endpoint := e.URL + tenant + "/oauth2/v2.0/token"
		if form.Get("client_assertion_type") != jwtBearer {
			entraError(w, http.StatusBadRequest, "invalid_request", 7000218, "The request body must contain the following "+
				"parameter: 'client_assertion' or 'client_secret'.")
			return false
		}
		if code, description := checkAssertion(form.Get("client_assertion"), endpoint, clientID, app.certificate); code != 0 {
			entraError(w, http.StatusUnauthorized, "invalid_client", code, description)
			return false
		}
	default:
		if form.Get("client_assertion_type") != jwtBearer ||
			form.Get("client_assertion") != app.federatedToken {
			entraError(w, http.StatusBadRequest, "invalid_client", 700213, "No matching federated identity record found for presented "+
				"assertion subject. Check your federated identity credential Subject, Audience and Issuer against the presented assertion.")
			return false
		}
	}
	return true
}

// jwtBearer is the client_assertion_type of a client assertion (RFC 7523).
const jwtBearer = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer" //nolint:gosec // G101: a grant type's name, no secret

// assertionSkew is how far a client assertion's nbf may be ahead of the double's clock.
const assertionSkew = 5 * time.Minute

// verifyRSA checks a JWS signature of signingInput made with key's private key by alg,
// PS256 or RS256.
func verifyRSA(alg string, key *rsa.PublicKey, signingInput string, signature []byte) error {
	digest := sha256.Sum256([]byte(signingInput))
	switch alg {
	case "PS256":
		return rsa.VerifyPSS(key, crypto.SHA256, digest[:], signature, &rsa.PSSOptions{SaltLength: rsa.PSSSaltLengthAuto})
	case "RS256":
		return rsa.VerifyPKCS1v15(key, crypto.SHA256, digest[:], signature)
	default:
		return fmt.Errorf("algorithm %q", alg)
	}
}

// checkAssertion checks a client assertion of clientID as Entra ID checks one signed
// with a certificate credential: a JWT whose header names the certificate by its
// thumbprint (x5t#S256, SHA-256, or x5t, SHA-1: base64, either alphabet), signed with
// its key (PS256 or RS256), whose aud is the token endpoint, iss and sub the client ID,
// and whose nbf and exp hold now. It returns the AADSTS code and description of the
// first failure, or 0.
func checkAssertion(assertion, endpoint, clientID string, certificate *x509.Certificate) (int, string) {
	parts := strings.Split(assertion, ".")
	var header struct {
		Alg     string `json:"alg"`
		X5t     string `json:"x5t"`
		X5tS256 string `json:"x5t#S256"`
	}
	var claims struct {
		Aud string  `json:"aud"`
		Iss string  `json:"iss"`
		Sub string  `json:"sub"`
		Exp float64 `json:"exp"`
		Nbf float64 `json:"nbf"`
	}
	signature, err := base64.RawURLEncoding.DecodeString(parts[len(parts)-1])
	if len(parts) != 3 || err != nil || decodeSegment(parts[0], &header) != nil || decodeSegment(parts[1], &claims) != nil {
		return 50027, "JWT token is invalid or malformed."
	}
	var used, registered []byte
	switch {
	case header.X5tS256 != "":
		sum := sha256.Sum256(certificate.Raw)
		used, registered = decodeThumbprint(header.X5tS256), sum[:]
	case header.X5t != "":
		sum := sha1.Sum(certificate.Raw) //nolint:gosec // G401: x5t is the certificate's SHA-1 thumbprint (RFC 7515)
		used, registered = decodeThumbprint(header.X5t), sum[:]
	}
	keyNotFound := fmt.Sprintf("Client assertion contains an invalid signature. [Reason - The key was not found., Thumbprint "+
		"of key used by client: '%X', Please visit the Azure Portal, Graph Explorer or directly use MS Graph to see configured "+
		"keys for app Id '%s'.]", used, clientID)
	key, isRSA := certificate.PublicKey.(*rsa.PublicKey)
	if used == nil || !bytes.Equal(used, registered) || !isRSA {
		return 700027, keyNotFound
	}
	if verifyRSA(header.Alg, key, parts[0]+"."+parts[1], signature) != nil {
		return 700027, "Client assertion contains an invalid signature. [Reason - The provided signature value did not match " +
			"the expected signature value., Thumbprint of key used by client: '" + fmt.Sprintf("%X", used) + "']"
	}
	if claims.Aud != endpoint {
		return 700023, "Client assertion audience claim does not match Realm issuer. Review the documentation at " +
			"https://learn.microsoft.com/entra/identity-platform/certificate-credentials ."
	}
	if claims.Iss != clientID || claims.Sub != clientID {
		return 700021, "Client assertion application identifier doesn't match 'client_id' parameter. Review the documentation " +
			"at https://learn.microsoft.com/entra/identity-platform/certificate-credentials ."
	}
	now := time.Now()
	if exp := time.Unix(int64(claims.Exp), 0); !now.Before(exp) || time.Unix(int64(claims.Nbf), 0).After(now.Add(assertionSkew)) {
		return 700024, "Client assertion is not within its valid time range. Ensure that the assertion's nbf and exp claims " +
			"hold the current time."
	}
	return 0, ""
}

// decodeSegment decodes a JWT segment into v.
func decodeSegment(segment string, v any) error {
	raw, err := base64.RawURLEncoding.DecodeString(segment)
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, v)
}

// decodeThumbprint reads a thumbprint in base64, URL-safe as RFC 7515 writes it or
// standard as MSAL does, padded or not; nil when it is neither.
func decodeThumbprint(s string) []byte {
	for _, enc := range []*base64.Encoding{base64.RawURLEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.StdEncoding} {
		if b, err := enc.DecodeString(s); err == nil {
			return b
		}
	}
	return nil
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
