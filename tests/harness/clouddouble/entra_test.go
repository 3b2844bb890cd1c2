package clouddouble

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha1" //nolint:gosec // G505: x5t is the certificate's SHA-1 thumbprint (RFC 7515)
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// The token endpoint takes a client assertion signed with the registered
// certificate's key, as MSAL signs it (PS256 with x5t#S256) or as for ADFS (RS256 with
// x5t), and refuses one that another key signed, that names another certificate, or
// whose audience, issuer or time range is wrong, with Entra ID's AADSTS code.
func TestEntraCertificateAssertion(t *testing.T) {
	t.Parallel()
	const tenant, client = "72f988bf-86f1-41af-91ab-2d7cd011db47", "0b6e2d1c-2a27-4c38-9f07-4c8ea7c1e2d0"
	e := StartEntra()
	t.Cleanup(e.Close) // (after the parallel subtests)
	registered, err := NewClientCertificate("deployer")
	if err != nil {
		t.Fatal(err)
	}
	other, err := NewClientCertificate("deployer")
	if err != nil {
		t.Fatal(err)
	}
	e.AddCertificateApp(tenant, client, registered.Certificate)
	endpoint := e.URL + tenant + "/oauth2/v2.0/token"
	now := time.Now().Unix()
	claims := func(change func(map[string]any)) map[string]any {
		c := map[string]any{"aud": endpoint, "iss": client, "sub": client, "jti": "a1b2", "nbf": now, "exp": now + 600}
		if change != nil {
			change(c)
		}
		return c
	}
	sha256Thumbprint := func(c ClientCertificate) string {
		sum := sha256.Sum256(c.Certificate.Raw)
		return base64.StdEncoding.EncodeToString(sum[:])
	}
	sha1Thumbprint := func(c ClientCertificate) string {
		sum := sha1.Sum(c.Certificate.Raw) //nolint:gosec // G401: the x5t thumbprint
		return base64.RawURLEncoding.EncodeToString(sum[:])
	}
	for _, tt := range []struct {
		name string
		// header names the certificate; key signs; alg is PS256 or RS256.
		alg, thumbprintHeader, thumbprint string
		key                               *rsa.PrivateKey
		claims                            map[string]any
		// want is the AADSTS code of the refusal, or "" when the token is granted.
		want string
	}{
		{"PS256, x5t#S256 (MSAL)", "PS256", "x5t#S256", sha256Thumbprint(registered), registered.Key, claims(nil), ""},
		{"RS256, x5t (ADFS)", "RS256", "x5t", sha1Thumbprint(registered), registered.Key, claims(nil), ""},
		{"signed by another key", "PS256", "x5t#S256", sha256Thumbprint(registered), other.Key, claims(nil), "AADSTS700027"},
		{"another certificate", "PS256", "x5t#S256", sha256Thumbprint(other), other.Key, claims(nil), "AADSTS700027"},
		{"no thumbprint", "PS256", "kid", "k1", registered.Key, claims(nil), "AADSTS700027"},
		{"another audience", "PS256", "x5t#S256", sha256Thumbprint(registered), registered.Key,
			claims(func(c map[string]any) {
				c["aud"] = "https://login.microsoftonline.com/" + tenant + "/oauth2/v2.0/token"
			}), "AADSTS700023"},
		{"another issuer", "PS256", "x5t#S256", sha256Thumbprint(registered), registered.Key,
			claims(func(c map[string]any) { c["iss"] = "someone-else" }), "AADSTS700021"},
		{"expired", "PS256", "x5t#S256", sha256Thumbprint(registered), registered.Key,
			claims(func(c map[string]any) { c["nbf"], c["exp"] = now-1200, now-600 }), "AADSTS700024"},
		{"not yet valid", "PS256", "x5t#S256", sha256Thumbprint(registered), registered.Key,
			claims(func(c map[string]any) { c["nbf"], c["exp"] = now+1200, now+1800 }), "AADSTS700024"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assertion := signJWT(t, map[string]any{"alg": tt.alg, "typ": "JWT", tt.thumbprintHeader: tt.thumbprint}, tt.claims, tt.key)
			form := url.Values{"grant_type": {"client_credentials"}, "client_id": {client}, "scope": {"6dae42f8/.default"},
				"client_assertion_type": {jwtBearer}, "client_assertion": {assertion}}
			req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, endpoint, strings.NewReader(form.Encode()))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			resp, err := e.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = resp.Body.Close() }()
			var answer struct {
				AccessToken      string `json:"access_token"`
				ErrorDescription string `json:"error_description"`
			}
			if err := json.NewDecoder(resp.Body).Decode(&answer); err != nil {
				t.Fatal(err)
			}
			switch {
			case tt.want == "" && resp.StatusCode != http.StatusOK:
				t.Errorf("%d %s, want a token", resp.StatusCode, answer.ErrorDescription)
			case tt.want == "":
				if g, err := e.Verify(answer.AccessToken, "6dae42f8"); err != nil || g.ClientID != client {
					t.Errorf("the token granted does not verify for %s: %+v %v", client, g, err)
				}
			case resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(answer.ErrorDescription, tt.want+":"):
				t.Errorf("%d %q, want 401 %s", resp.StatusCode, answer.ErrorDescription, tt.want)
			}
		})
	}
}

// signJWT signs header and claims with key, as header's alg says (PS256 or RS256).
func signJWT(t *testing.T, header, claims map[string]any, key *rsa.PrivateKey) string {
	t.Helper()
	var segments []string
	for _, v := range []map[string]any{header, claims} {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		segments = append(segments, base64.RawURLEncoding.EncodeToString(b))
	}
	digest := sha256.Sum256([]byte(strings.Join(segments, ".")))
	var signature []byte
	var err error
	if header["alg"] == "RS256" {
		signature, err = rsa.SignPKCS1v15(rand.Reader, key, crypto.SHA256, digest[:])
	} else {
		signature, err = rsa.SignPSS(rand.Reader, key, crypto.SHA256, digest[:], &rsa.PSSOptions{SaltLength: rsa.PSSSaltLengthEqualsHash})
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(append(segments, base64.RawURLEncoding.EncodeToString(signature)), ".")
}
