package clouddouble

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"time"
)

// ManagedIdentity is the managed identity endpoint App Service, Azure Functions and
// Container Apps give an app (protocol version 2019-08-01): the local URL in
// IDENTITY_ENDPOINT answers GET ?resource=R&api-version=2019-08-01, sent with the
// header X-IDENTITY-HEADER holding IDENTITY_HEADER's value, with a token for R of the
// app's system-assigned identity, or of the user-assigned one that client_id,
// principal_id (or its alias object_id) or mi_res_id names. The Azure identity library
// (MSAL's managedidentity package) takes this endpoint when both variables are set and
// IDENTITY_SERVER_THUMBPRINT, which means Service Fabric, is not: Env gives them.
//
// A token comes as the endpoint gives it: access_token, expires_on (Unix seconds, a
// string), resource, token_type and client_id. An identity the app does not have is
// refused with 400 and {"statusCode":400,"message":"Unable to load the proper Managed
// Identity.","correlationId":...}, as App Service and Functions refuse it. The answer to
// a missing or wrong header, a missing resource, an older api-version or two identities
// at once is not documented: the double refuses them in the same envelope, 401 for the
// header and 400 for the others.
//
// (The Azure Instance Metadata Service of a VM, which the library asks when no such
// variable is set, is at the link-local 169.254.169.254 and cannot be pointed
// elsewhere: this endpoint is the one a test can stand in for.)
type ManagedIdentity struct {
	// Endpoint is IDENTITY_ENDPOINT, http://127.0.0.1:<port>/msi/token; Header is
	// IDENTITY_HEADER, the secret the endpoint checks.
	Endpoint, Header string
	srv              *httptest.Server

	mu             sync.Mutex
	systemAssigned *ManagedIdentityID
	userAssigned   []ManagedIdentityID
	granted        map[string]ManagedIdentityGrant
	requests       int
}

// ManagedIdentityID names an identity of the app: its client ID, principal (object)
// ID and, for a user-assigned one, its Azure resource ID
// (/subscriptions/.../resourceGroups/.../providers/Microsoft.ManagedIdentity/userAssignedIdentities/...).
type ManagedIdentityID struct {
	ClientID, PrincipalID, ResourceID string
}

// ManagedIdentityGrant is a token the double granted.
type ManagedIdentityGrant struct {
	Identity       ManagedIdentityID
	SystemAssigned bool
	// Resource is the token's audience, as requested.
	Resource string
	Expires  time.Time
}

// managedIdentityLifetime is how long the tokens live: a day, as managed identities'.
const managedIdentityLifetime = 24 * time.Hour

// StartManagedIdentity starts the double, for an app with no identity yet.
func StartManagedIdentity() *ManagedIdentity {
	m := &ManagedIdentity{Header: randomGUID(), granted: map[string]ManagedIdentityGrant{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /msi/token", m.token)
	m.srv = httptest.NewServer(mux)
	m.Endpoint = m.srv.URL + "/msi/token"
	return m
}

// Close stops the double.
func (m *ManagedIdentity) Close() { m.srv.Close() }

// Env is the app's environment that points the Azure identity library at the double.
func (m *ManagedIdentity) Env() map[string]string {
	return map[string]string{"IDENTITY_ENDPOINT": m.Endpoint, "IDENTITY_HEADER": m.Header}
}

// SetSystemAssigned gives the app a system-assigned identity (its ResourceID is not used).
func (m *ManagedIdentity) SetSystemAssigned(id ManagedIdentityID) {
	m.mu.Lock()
	m.systemAssigned = &id
	m.mu.Unlock()
}

// AddUserAssigned assigns a user-assigned identity to the app.
func (m *ManagedIdentity) AddUserAssigned(id ManagedIdentityID) {
	m.mu.Lock()
	m.userAssigned = append(m.userAssigned, id)
	m.mu.Unlock()
}

// TokenRequests counts the token requests answered (granted or refused).
func (m *ManagedIdentity) TokenRequests() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.requests
}

// Verify returns the grant of a token the double issued for resource (as Entra ID
// would put it in the token's audience) that has not expired.
func (m *ManagedIdentity) Verify(token, resource string) (ManagedIdentityGrant, error) {
	m.mu.Lock()
	g, ok := m.granted[token]
	m.mu.Unlock()
	switch {
	case !ok:
		return ManagedIdentityGrant{}, fmt.Errorf("the token was not issued by this managed identity double")
	case time.Now().After(g.Expires):
		return ManagedIdentityGrant{}, fmt.Errorf("the token expired at %s", g.Expires.Format(time.RFC3339))
	case g.Resource != resource:
		return ManagedIdentityGrant{}, fmt.Errorf("the token is for resource %s, not %s", g.Resource, resource)
	}
	return g, nil
}

// managedIdentityError writes the endpoint's error envelope.
func managedIdentityError(w http.ResponseWriter, status int, message string) {
	writeJSONAnswer(w, status, map[string]any{"statusCode": status, "message": message, "correlationId": randomGUID()})
}

func (m *ManagedIdentity) token(w http.ResponseWriter, r *http.Request) {
	m.mu.Lock()
	m.requests++
	m.mu.Unlock()
	q := r.URL.Query()
	if subtle.ConstantTimeCompare([]byte(r.Header.Get("X-IDENTITY-HEADER")), []byte(m.Header)) != 1 {
		managedIdentityError(w, http.StatusUnauthorized, "The X-IDENTITY-HEADER header is missing or does not match IDENTITY_HEADER.")
		return
	}
	// 2019-08-01 or later (dates compare as strings); 2017-09-01 used another header.
	if v := q.Get("api-version"); len(v) != len("2019-08-01") || v < "2019-08-01" {
		managedIdentityError(w, http.StatusBadRequest, fmt.Sprintf("The api-version %q is not supported; use 2019-08-01 or later.", v))
		return
	}
	resource := q.Get("resource")
	if resource == "" {
		managedIdentityError(w, http.StatusBadRequest, "The resource parameter is required.")
		return
	}
	var selectors []string
	for _, name := range []string{"client_id", "principal_id", "object_id", "mi_res_id"} {
		if q.Get(name) != "" {
			selectors = append(selectors, name)
		}
	}
	if len(selectors) > 1 {
		managedIdentityError(w, http.StatusBadRequest, "Only one of client_id, principal_id, object_id and mi_res_id may be given, not "+
			strings.Join(selectors, " and ")+".")
		return
	}
	principalID := q.Get("principal_id")
	if principalID == "" {
		principalID = q.Get("object_id")
	}
	id, systemAssigned, ok := m.identity(q.Get("client_id"), principalID, q.Get("mi_res_id"))
	if !ok {
		managedIdentityError(w, http.StatusBadRequest, "Unable to load the proper Managed Identity.")
		return
	}
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	token := "eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9.mi." + hex.EncodeToString(b)
	expires := time.Now().Add(managedIdentityLifetime).Truncate(time.Second)
	m.mu.Lock()
	m.granted[token] = ManagedIdentityGrant{Identity: id, SystemAssigned: systemAssigned, Resource: resource, Expires: expires}
	m.mu.Unlock()
	writeJSONAnswer(w, http.StatusOK, map[string]any{
		"access_token": token, "expires_on": strconv.FormatInt(expires.Unix(), 10), "resource": resource,
		"token_type": "Bearer", "client_id": id.ClientID,
	})
}

// identity finds the identity a request names: by client ID, principal ID or resource
// ID (IDs compare without case, as Azure's do), else the system-assigned one.
func (m *ManagedIdentity) identity(clientID, principalID, resourceID string) (ManagedIdentityID, bool, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if clientID == "" && principalID == "" && resourceID == "" {
		if m.systemAssigned == nil {
			return ManagedIdentityID{}, false, false
		}
		return *m.systemAssigned, true, true
	}
	for _, id := range m.userAssigned {
		switch {
		case clientID != "" && strings.EqualFold(id.ClientID, clientID),
			principalID != "" && strings.EqualFold(id.PrincipalID, principalID),
			resourceID != "" && strings.EqualFold(id.ResourceID, resourceID):
			return id, false, true
		}
	}
	return ManagedIdentityID{}, false, false
}
