package clouddouble

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The token exchange's constants, as Google's Security Token Service takes them.
const (
	exchangeGrantType   = "urn:ietf:params:oauth:grant-type:token-exchange"
	issuedTypeAccess    = "urn:ietf:params:oauth:token-type:access_token"
	cloudPlatformScope  = "https://www.googleapis.com/auth/cloud-platform"
	maxImpersonatedLife = time.Hour
)

// subjectTokenTypes are the types of the OIDC tokens an OIDC provider of a workload
// identity pool takes.
var subjectTokenTypes = []string{"urn:ietf:params:oauth:token-type:jwt", "urn:ietf:params:oauth:token-type:id_token"}

// GoogleSTS is the double of workload identity federation's two Google services: the
// Security Token Service's token exchange (sts.googleapis.com POST /v1/token), which
// grants a federated access token for the OIDC token of a CI system, and the IAM
// Service Account Credentials API's generateAccessToken
// (iamcredentials.googleapis.com), which grants a service account's access token to a
// federated token allowed to impersonate it. Both listen on 127.0.0.1 over plain HTTP:
// ExternalAccount writes the credential configuration that points the auth library at
// them (golang.org/x/oauth2 takes token_url and service_account_impersonation_url as
// written, whatever their host).
type GoogleSTS struct {
	// URL is the base URL, ending in "/".
	URL string
	srv *httptest.Server

	mu sync.Mutex
	// providers holds the subject token each pool provider (audience) accepts.
	providers map[string]string
	// impersonators holds, for each service account, the providers whose federated
	// tokens may impersonate it (roles/iam.workloadIdentityUser).
	impersonators map[string][]string
	granted       map[string]GoogleGrant
	lifetime      time.Duration
	exchanges     []GoogleGrant
}

// GoogleGrant is an access token the double granted.
type GoogleGrant struct {
	// Audience is the workload identity pool provider whose subject token was exchanged.
	Audience string
	// ServiceAccount is the impersonated service account; empty for a federated token.
	ServiceAccount string
	Scopes         []string
	Expires        time.Time
}

// StartGoogleSTS starts the double; its federated tokens live an hour unless
// SetLifetime says otherwise.
func StartGoogleSTS() *GoogleSTS {
	g := &GoogleSTS{providers: map[string]string{}, impersonators: map[string][]string{},
		granted: map[string]GoogleGrant{}, lifetime: time.Hour}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/token", g.exchange)
	mux.HandleFunc("POST /v1/projects/{project}/serviceAccounts/{method}", g.generateAccessToken)
	g.srv = httptest.NewServer(mux)
	g.URL = g.srv.URL + "/"
	return g
}

// Close stops the double.
func (g *GoogleSTS) Close() { g.srv.Close() }

// SetLifetime sets the expires_in of the federated tokens granted from now on.
func (g *GoogleSTS) SetLifetime(d time.Duration) {
	g.mu.Lock()
	g.lifetime = d
	g.mu.Unlock()
}

// AddProvider registers a workload identity pool's OIDC provider, named by its
// audience (//iam.googleapis.com/projects/N/locations/global/workloadIdentityPools/P/providers/R),
// that accepts subjectToken: the token stands for an OIDC token of the provider's
// issuer that its attribute conditions admit.
func (g *GoogleSTS) AddProvider(audience, subjectToken string) {
	g.mu.Lock()
	g.providers[audience] = subjectToken
	g.mu.Unlock()
}

// AllowImpersonation lets the federated tokens of the provider audience impersonate
// the service account email.
func (g *GoogleSTS) AllowImpersonation(email, audience string) {
	g.mu.Lock()
	g.impersonators[email] = append(g.impersonators[email], audience)
	g.mu.Unlock()
}

// Exchanges returns the grants of the token exchange, oldest first.
func (g *GoogleSTS) Exchanges() []GoogleGrant {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]GoogleGrant(nil), g.exchanges...)
}

// Verify returns the grant of a token the double issued that has not expired.
func (g *GoogleSTS) Verify(token string) (GoogleGrant, error) {
	g.mu.Lock()
	grant, ok := g.granted[token]
	g.mu.Unlock()
	switch {
	case !ok:
		return GoogleGrant{}, fmt.Errorf("the token was not issued by the Google STS double")
	case time.Now().After(grant.Expires):
		return GoogleGrant{}, fmt.Errorf("the token expired at %s", grant.Expires.Format(time.RFC3339))
	}
	return grant, nil
}

// ExternalAccount is the credential configuration of workload identity federation
// (type external_account), as gcloud iam workload-identity-pools create-cred-config
// writes it for an OIDC token file: the provider audience, the subject token read
// from tokenFile, this double's token exchange, and, when serviceAccount is not
// empty, its generateAccessToken to impersonate it.
func (g *GoogleSTS) ExternalAccount(audience, tokenFile, serviceAccount string) []byte {
	config := map[string]any{
		"type":               "external_account",
		"audience":           audience,
		"subject_token_type": subjectTokenTypes[0],
		"token_url":          g.URL + "v1/token",
		"credential_source":  map[string]any{"file": tokenFile, "format": map[string]string{"type": "text"}},
		"universe_domain":    "googleapis.com",
	}
	if serviceAccount != "" {
		config["service_account_impersonation_url"] = g.URL + "v1/projects/-/serviceAccounts/" + serviceAccount + ":generateAccessToken"
	}
	b, _ := json.Marshal(config)
	return b
}

// exchangeRequest is the token exchange's body (RFC 8693), form or JSON.
type exchangeRequest struct {
	GrantType          string `json:"grantType"`
	Audience           string `json:"audience"`
	Scope              string `json:"scope"`
	RequestedTokenType string `json:"requestedTokenType"`
	SubjectToken       string `json:"subjectToken"`
	SubjectTokenType   string `json:"subjectTokenType"`
}

func readExchange(r *http.Request) (exchangeRequest, error) {
	media, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if media == "application/json" {
		var req exchangeRequest
		err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&req)
		return req, err
	}
	if err := r.ParseForm(); err != nil {
		return exchangeRequest{}, err
	}
	f := r.PostForm
	return exchangeRequest{
		GrantType: f.Get("grant_type"), Audience: f.Get("audience"), Scope: f.Get("scope"),
		RequestedTokenType: f.Get("requested_token_type"), SubjectToken: f.Get("subject_token"),
		SubjectTokenType: f.Get("subject_token_type"),
	}, nil
}

// exchange is STS's POST /v1/token for an OIDC subject token. Its errors are OAuth
// 2.0's (error, error_description); none repeats the subject token.
func (g *GoogleSTS) exchange(w http.ResponseWriter, r *http.Request) {
	req, err := readExchange(r)
	if err != nil {
		oauthError(w, "invalid_request", "The request body is neither a form nor JSON.")
		return
	}
	g.mu.Lock()
	accepted, known := g.providers[req.Audience]
	lifetime := g.lifetime
	g.mu.Unlock()
	switch {
	case req.GrantType != exchangeGrantType:
		oauthError(w, "unsupported_grant_type", fmt.Sprintf("Invalid value for \"grant_type\": %q is not supported.", req.GrantType))
	case req.RequestedTokenType != issuedTypeAccess:
		oauthError(w, "invalid_request", "Invalid value for \"requested_token_type\". It must be "+issuedTypeAccess+".")
	case !slices.Contains(subjectTokenTypes, req.SubjectTokenType):
		oauthError(w, "invalid_request", "Invalid value for \"subject_token_type\". An OIDC provider takes "+strings.Join(subjectTokenTypes, " or ")+".")
	case !strings.HasPrefix(req.Audience, "//iam.googleapis.com/"):
		oauthError(w, "invalid_request", "Invalid value for \"audience\". This value should be the full resource name of the Identity "+
			"Provider. See https://cloud.google.com/iam/docs/reference/sts/rest/v1/TopLevel/token for the list of possible formats.")
	case !known:
		oauthError(w, "invalid_target", "The target service indicated by the \"audience\" parameters is invalid. This might either be "+
			"because the pool or provider is disabled or deleted or because it doesn't exist.")
	case req.Scope == "":
		oauthError(w, "invalid_request", "Invalid value for \"scope\": the scope is required to exchange an external credential.")
	case req.SubjectToken != accepted:
		oauthError(w, "invalid_grant", "The subject token could not be verified with the keys of the provider's issuer.")
	default:
		grant := GoogleGrant{Audience: req.Audience, Scopes: strings.Fields(req.Scope), Expires: time.Now().Add(lifetime)}
		token := g.grant("ya29.d.", grant)
		g.mu.Lock()
		g.exchanges = append(g.exchanges, grant)
		g.mu.Unlock()
		writeJSONAnswer(w, http.StatusOK, map[string]any{
			"access_token": token, "issued_token_type": issuedTypeAccess, "token_type": "Bearer",
			"expires_in": int(lifetime / time.Second),
		})
	}
}

func (g *GoogleSTS) grant(prefix string, grant GoogleGrant) string {
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	token := prefix + hex.EncodeToString(b)
	g.mu.Lock()
	g.granted[token] = grant
	g.mu.Unlock()
	return token
}

// generateAccessToken is IAM Credentials' POST
// /v1/projects/-/serviceAccounts/{email}:generateAccessToken: the caller's bearer token
// must be a federated token of this double with the cloud-platform scope, from a
// provider allowed to impersonate the account.
func (g *GoogleSTS) generateAccessToken(w http.ResponseWriter, r *http.Request) {
	email, ok := strings.CutSuffix(r.PathValue("method"), ":generateAccessToken")
	if !ok {
		googleError(w, http.StatusNotFound, "NOT_FOUND", fmt.Sprintf("Method not found: %s %s", r.Method, r.URL.EscapedPath()))
		return
	}
	bearer, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	caller, err := g.Verify(bearer)
	if err != nil || caller.ServiceAccount != "" {
		googleError(w, http.StatusUnauthorized, "UNAUTHENTICATED", "Request had invalid authentication credentials. Expected OAuth 2 "+
			"access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.")
		return
	}
	if !slices.Contains(caller.Scopes, cloudPlatformScope) {
		googleError(w, http.StatusForbidden, "PERMISSION_DENIED", "Request had insufficient authentication scopes.")
		return
	}
	if r.PathValue("project") != "-" {
		googleError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "The project of the resource name must be the wildcard '-'.")
		return
	}
	g.mu.Lock()
	allowed := slices.Contains(g.impersonators[email], caller.Audience)
	g.mu.Unlock()
	if !allowed {
		googleError(w, http.StatusForbidden, "PERMISSION_DENIED", "Permission 'iam.serviceAccounts.getAccessToken' denied on resource (or it may not exist).")
		return
	}
	var body struct {
		Scope    []string `json:"scope"`
		Lifetime string   `json:"lifetime"`
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&body); err != nil {
		googleError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "Invalid JSON payload received: "+err.Error())
		return
	}
	if len(body.Scope) == 0 {
		googleError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "Scope required.")
		return
	}
	lifetime := maxImpersonatedLife
	if body.Lifetime != "" {
		s, err := strconv.ParseFloat(strings.TrimSuffix(body.Lifetime, "s"), 64)
		if err != nil || !strings.HasSuffix(body.Lifetime, "s") || s <= 0 || time.Duration(s*float64(time.Second)) > maxImpersonatedLife {
			googleError(w, http.StatusBadRequest, "INVALID_ARGUMENT", fmt.Sprintf("Invalid lifetime %q: it must be a duration of at most 3600s.", body.Lifetime))
			return
		}
		lifetime = time.Duration(s * float64(time.Second))
	}
	grant := GoogleGrant{Audience: caller.Audience, ServiceAccount: email, Scopes: body.Scope, Expires: time.Now().Add(lifetime)}
	token := g.grant("ya29.c.", grant)
	writeJSONAnswer(w, http.StatusOK, map[string]string{"accessToken": token, "expireTime": grant.Expires.UTC().Format(time.RFC3339)})
}

// oauthError writes an OAuth 2.0 error, as STS answers a refused exchange.
func oauthError(w http.ResponseWriter, code, description string) {
	writeJSONAnswer(w, http.StatusBadRequest, map[string]string{"error": code, "error_description": description})
}

// googleError writes Google's API error envelope.
func googleError(w http.ResponseWriter, code int, status, message string) {
	writeJSONAnswer(w, code, map[string]any{"error": map[string]any{"code": code, "message": message, "status": status}})
}
