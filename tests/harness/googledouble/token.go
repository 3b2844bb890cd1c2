package googledouble

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// cloudPlatformScope is the OAuth scope the double requires of token requests.
const cloudPlatformScope = "https://www.googleapis.com/auth/cloud-platform"

// ServiceAccountKey mints a service-account key file (the JSON that Google's console
// downloads) for email, whose token_uri is this double's token endpoint. The double
// grants its bearer token (any token, when it checks none) to signed assertions of that
// key that ask for the cloud-platform scope.
func (s *Server) ServiceAccountKey(email string) ([]byte, error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, fmt.Errorf("googledouble: generating a key: %w", err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, fmt.Errorf("googledouble: encoding the key: %w", err)
	}
	var id [20]byte
	if _, err := rand.Read(id[:]); err != nil {
		return nil, fmt.Errorf("googledouble: generating a key ID: %w", err)
	}
	keyID := hex.EncodeToString(id[:])
	s.mu.Lock()
	s.keys[keyID] = serviceAccountKey{email: email, key: &key.PublicKey}
	s.mu.Unlock()
	return json.Marshal(map[string]string{
		"type":           "service_account",
		"project_id":     "double-project",
		"private_key_id": keyID,
		"private_key":    string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})),
		"client_email":   email,
		"client_id":      "100000000000000000000",
		"auth_uri":       s.URL + "auth",
		"token_uri":      s.URL + "token",
	})
}

// AuthorizedUserKey mints user credentials as gcloud auth application-default login
// writes them (type authorized_user: an OAuth client and a refresh token), with
// quota_project_id when quotaProject is not empty and with this double's token
// endpoint as token_uri. The double grants access tokens of their own to their refresh
// token, and answers requests with such a token that name no quota project
// (X-Goog-User-Project) as Google does: 403, the API requires a quota project.
func (s *Server) AuthorizedUserKey(quotaProject string) ([]byte, error) {
	secret, err := randomHex(16)
	if err != nil {
		return nil, err
	}
	refresh, err := randomHex(24)
	if err != nil {
		return nil, err
	}
	clientID := "764086051850-googledouble.apps.googleusercontent.com"
	s.mu.Lock()
	s.users["1//"+refresh] = userCredential{clientID: clientID, clientSecret: "d-" + secret}
	s.mu.Unlock()
	key := map[string]string{
		"type":          "authorized_user",
		"client_id":     clientID,
		"client_secret": "d-" + secret,
		"refresh_token": "1//" + refresh,
		"token_uri":     s.URL + "token",
	}
	if quotaProject != "" {
		key["quota_project_id"] = quotaProject
	}
	return json.Marshal(key)
}

// userCredential is the OAuth client a refresh token minted by AuthorizedUserKey
// belongs to.
type userCredential struct {
	clientID, clientSecret string
}

func randomHex(n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("googledouble: generating a secret: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// TokenRequests returns how many access tokens the token endpoint has granted.
func (s *Server) TokenRequests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.grants
}

// grantToken is Google's token endpoint: the OAuth 2.0 JWT-bearer grant of service
// accounts and the refresh-token grant of user credentials.
func (s *Server) grantToken(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		writeOAuthError(w, "invalid_request", "the body is not a form")
		return
	}
	var granted string
	switch g := r.PostForm.Get("grant_type"); g {
	case "urn:ietf:params:oauth:grant-type:jwt-bearer":
		if err := s.verifyAssertion(r.PostForm.Get("assertion")); err != nil {
			writeOAuthError(w, "invalid_grant", err.Error())
			return
		}
		granted = s.token
		if granted == "" {
			granted = "googledouble-token" // any token passes a double that checks none
		}
	case "refresh_token":
		s.mu.Lock()
		user, ok := s.users[r.PostForm.Get("refresh_token")]
		s.mu.Unlock()
		if !ok || r.PostForm.Get("client_id") != user.clientID || r.PostForm.Get("client_secret") != user.clientSecret {
			writeOAuthError(w, "invalid_grant", "Bad Request")
			return
		}
		suffix, err := randomHex(16)
		if err != nil {
			writeOAuthError(w, "server_error", err.Error())
			return
		}
		granted = "ya29.googledouble-user-" + suffix
		s.mu.Lock()
		s.userTokens[granted] = true
		s.mu.Unlock()
	default:
		writeOAuthError(w, "unsupported_grant_type", fmt.Sprintf("grant type %q is not supported", g))
		return
	}
	s.mu.Lock()
	s.grants++
	s.mu.Unlock()
	writeJSON(w, map[string]any{"access_token": granted, "token_type": "Bearer", "expires_in": 3600, "scope": cloudPlatformScope})
}

// verifyAssertion checks a service account's signed JWT: a key this double minted, a
// valid RS256 signature, the token endpoint as audience, the cloud-platform scope, and
// an expiry in the future.
func (s *Server) verifyAssertion(jwt string) error {
	parts := strings.Split(jwt, ".")
	if len(parts) != 3 {
		return fmt.Errorf("the assertion is not a JWT")
	}
	var header struct {
		Alg string `json:"alg"`
		Kid string `json:"kid"`
	}
	var claims struct {
		Iss   string `json:"iss"`
		Aud   string `json:"aud"`
		Scope string `json:"scope"`
		Exp   int64  `json:"exp"`
	}
	if err := decodeSegment(parts[0], &header); err != nil {
		return fmt.Errorf("the JWT header: %w", err)
	}
	if err := decodeSegment(parts[1], &claims); err != nil {
		return fmt.Errorf("the JWT claims: %w", err)
	}
	s.mu.Lock()
	key, ok := s.keys[header.Kid]
	s.mu.Unlock()
	if !ok || header.Alg != "RS256" {
		return fmt.Errorf("unknown key %q or algorithm %q", header.Kid, header.Alg)
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil {
		return fmt.Errorf("the JWT signature: %w", err)
	}
	digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if err := rsa.VerifyPKCS1v15(key.key, crypto.SHA256, digest[:], sig); err != nil {
		return fmt.Errorf("invalid JWT signature")
	}
	switch {
	case claims.Iss != key.email:
		return fmt.Errorf("issuer %q does not own key %q", claims.Iss, header.Kid)
	case claims.Aud != s.URL+"token":
		return fmt.Errorf("audience %q is not this token endpoint", claims.Aud)
	case !strings.Contains(" "+claims.Scope+" ", " "+cloudPlatformScope+" "):
		return fmt.Errorf("scope %q lacks %s", claims.Scope, cloudPlatformScope)
	case time.Unix(claims.Exp, 0).Before(time.Now()):
		return fmt.Errorf("the assertion expired")
	}
	return nil
}

func decodeSegment(seg string, v any) error {
	b, err := base64.RawURLEncoding.DecodeString(seg)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

func writeOAuthError(w http.ResponseWriter, code, description string) {
	body, _ := json.Marshal(map[string]string{"error": code, "error_description": description})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	_, _ = w.Write(body)
}
