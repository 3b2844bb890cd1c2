package googledouble_test

import (
	"context"
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/googledouble"
)

const token = "double-test-token"

func start(t *testing.T) *googledouble.Server {
	t.Helper()
	s, err := googledouble.Start(token)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

type answer struct {
	status int
	body   map[string]any
}

// get sends an authorized GET and decodes the JSON answer.
func get(t *testing.T, s *googledouble.Server, path, bearer string) (answer, error) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, s.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	req.Header.Set("User-Agent", "double-test/1.0")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return answer{}, err
	}
	defer func() { _ = res.Body.Close() }()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		return answer{status: res.StatusCode}, err
	}
	var body map[string]any
	if err := json.Unmarshal(raw, &body); err != nil {
		return answer{status: res.StatusCode}, err
	}
	return answer{status: res.StatusCode, body: body}, nil
}

func mustGet(t *testing.T, s *googledouble.Server, path string) answer {
	t.Helper()
	a, err := get(t, s, path, token)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	return a
}

func envelope(code int, status, message string) map[string]any {
	return map[string]any{"error": map[string]any{"code": float64(code), "status": status, "message": message}}
}

const (
	filePath   = "v1alpha1/projects/p/locations/l/importJobs/j/importDataFiles/f"
	policyPath = "v1/organizations/o/locations/global/partnerTenants/t/proxyConfigs/c:getIamPolicy"
)

func TestImportDataFile(t *testing.T) {
	t.Parallel()
	s := start(t)
	s.AddImportDataFile("p", "l", "j", "f", googledouble.ImportDataFile{State: "ACTIVE",
		UploadFileInfo: &googledouble.UploadFileInfo{SignedURI: "https://u", Headers: map[string]string{"h": "v"}}})

	got := mustGet(t, s, filePath+"?alt=json")
	want := answer{200, map[string]any{
		"name":           "projects/p/locations/l/importJobs/j/importDataFiles/f",
		"state":          "ACTIVE",
		"uploadFileInfo": map[string]any{"signedUri": "https://u", "headers": map[string]any{"h": "v"}},
	}}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(answer{})); diff != "" {
		t.Errorf("answer (-want +got):\n%s", diff)
	}
	missing := mustGet(t, s, "v1alpha1/projects/p/locations/l/importJobs/j/importDataFiles/nope")
	wantMissing := answer{404, envelope(404, "NOT_FOUND", "Resource 'projects/p/locations/l/importJobs/j/importDataFiles/nope' was not found")}
	if diff := cmp.Diff(wantMissing, missing, cmp.AllowUnexported(answer{})); diff != "" {
		t.Errorf("missing file (-want +got):\n%s", diff)
	}
	reqs := s.Requests()
	if len(reqs) != 2 || reqs[0].Path != "/"+filePath || reqs[0].Query.Get("alt") != "json" ||
		reqs[0].UserAgent != "double-test/1.0" || !reqs[0].Authorized {
		t.Errorf("recorded requests = %+v", reqs)
	}
}

func TestPolicyVersions(t *testing.T) {
	t.Parallel()
	s := start(t)
	s.SetPolicy("o", "t", "c", googledouble.Policy{Version: 3, Etag: []byte{1, 2, 3}, Bindings: []googledouble.Binding{
		{Role: "roles/r", Members: []string{"user:a"}, Condition: &googledouble.Expr{Expression: "true"}},
	}})
	s.SetPolicy("o", "t", "empty", googledouble.Policy{})
	conditional := map[string]any{
		"version": 3.0, "etag": "AQID",
		"bindings": []any{map[string]any{"role": "roles/r", "members": []any{"user:a"}, "condition": map[string]any{"expression": "true"}}},
	}
	const needs3 = "The policy of 'organizations/o/locations/global/partnerTenants/t/proxyConfigs/c' contains conditional role bindings; " +
		"request policy version 3 to read it (requested version %s)."
	tests := []struct {
		path string
		want answer
	}{
		{policyPath + "?options.requestedPolicyVersion=3", answer{200, conditional}},
		{policyPath, answer{400, envelope(400, "INVALID_ARGUMENT", strings.Replace(needs3, "%s", "0", 1))}},
		{policyPath + "?options.requestedPolicyVersion=1", answer{400, envelope(400, "INVALID_ARGUMENT", strings.Replace(needs3, "%s", "1", 1))}},
		{policyPath + "?options.requestedPolicyVersion=2", answer{400, envelope(400, "INVALID_ARGUMENT",
			"Invalid requested policy version 2: valid versions are 0, 1 and 3.")}},
		{strings.Replace(policyPath, "/c:", "/empty:", 1), answer{200, map[string]any{"etag": "ACAB"}}},
		{strings.Replace(policyPath, "/c:", "/none:", 1), answer{404, envelope(404, "NOT_FOUND",
			"Resource 'organizations/o/locations/global/partnerTenants/t/proxyConfigs/none' was not found")}},
		{strings.TrimSuffix(policyPath, ":getIamPolicy"), answer{404, envelope(404, "NOT_FOUND",
			"Method not found: GET /v1/organizations/o/locations/global/partnerTenants/t/proxyConfigs/c")}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, mustGet(t, s, tt.path), cmp.AllowUnexported(answer{})); diff != "" {
			t.Errorf("GET %s (-want +got):\n%s", tt.path, diff)
		}
	}
}

func TestBearerToken(t *testing.T) {
	t.Parallel()
	s := start(t)
	s.AddImportDataFile("p", "l", "j", "f", googledouble.ImportDataFile{})
	want := answer{401, envelope(401, "UNAUTHENTICATED", "Request had invalid authentication credentials. "+
		"Expected OAuth 2 access token, login cookie or other valid authentication credential. "+
		"See https://developers.google.com/identity/sign-in/web/devconsole-project.")}
	for _, bearer := range []string{"", "wrong"} {
		got, err := get(t, s, filePath, bearer)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got, cmp.AllowUnexported(answer{})); diff != "" {
			t.Errorf("bearer %q (-want +got):\n%s", bearer, diff)
		}
	}
	for _, r := range s.Requests() {
		if r.Authorized {
			t.Errorf("request %+v recorded as authorized", r)
		}
	}
}

func TestFaults(t *testing.T) {
	t.Parallel()
	s := start(t)
	s.AddImportDataFile("p", "l", "j", "f", googledouble.ImportDataFile{})
	s.Fail(2, 503)
	s.Enqueue(googledouble.Fault{Status: 429, Message: "slow down", RetryAfter: 2 * time.Second})
	s.Enqueue(googledouble.Fault{MalformedJSON: true})
	s.ResetConnections(1)

	for range 2 {
		if got := mustGet(t, s, filePath); got.status != 503 || got.body["error"].(map[string]any)["status"] != "UNAVAILABLE" {
			t.Errorf("queued 503: got %+v", got)
		}
	}
	if got := mustGet(t, s, filePath); got.status != 429 || got.body["error"].(map[string]any)["message"] != "slow down" {
		t.Errorf("queued 429: got %+v", got)
	}
	var syntax *json.SyntaxError
	if _, err := get(t, s, filePath, token); !errors.As(err, &syntax) {
		t.Errorf("malformed JSON fault: err = %v, want a JSON syntax error", err)
	}
	if _, err := get(t, s, filePath, token); err == nil {
		t.Error("reset fault: the answer was read in full, want a connection error")
	}
	if got := mustGet(t, s, filePath); got.status != 200 {
		t.Errorf("after the faults: status %d, want 200", got.status)
	}
	if n := len(s.Requests()); n != 6 {
		t.Errorf("%d requests recorded, want 6", n)
	}
}

func TestDelayEndsWithTheClient(t *testing.T) {
	t.Parallel()
	s := start(t)
	s.SetDelay(time.Hour)
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+filePath, nil)
	began := time.Now()
	_, err := http.DefaultClient.Do(req)
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(began) > 2*time.Second {
		t.Errorf("a delayed answer: err = %v after %s, want the client's deadline", err, time.Since(began))
	}
	s.SetDelay(0)
	if got := mustGet(t, s, "v1/unknown"); got.status != 404 {
		t.Errorf("after the delay was lifted: status %d", got.status)
	}
}

func TestTokenEndpoint(t *testing.T) {
	t.Parallel()
	s := start(t)
	keyJSON, err := s.ServiceAccountKey("sa@p.iam.gserviceaccount.com")
	if err != nil {
		t.Fatal(err)
	}
	var key struct {
		PrivateKey   string `json:"private_key"`
		PrivateKeyID string `json:"private_key_id"`
		ClientEmail  string `json:"client_email"`
		TokenURI     string `json:"token_uri"`
	}
	if err := json.Unmarshal(keyJSON, &key); err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode([]byte(key.PrivateKey))
	parsed, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	signer := parsed.(*rsa.PrivateKey)
	assertion := func(claims map[string]any) string {
		enc := func(v any) string {
			b, _ := json.Marshal(v)
			return base64.RawURLEncoding.EncodeToString(b)
		}
		signed := enc(map[string]string{"alg": "RS256", "typ": "JWT", "kid": key.PrivateKeyID}) + "." + enc(claims)
		digest := sha256.Sum256([]byte(signed))
		sig, err := rsa.SignPKCS1v15(nil, signer, crypto.SHA256, digest[:])
		if err != nil {
			t.Fatal(err)
		}
		return signed + "." + base64.RawURLEncoding.EncodeToString(sig)
	}
	good := map[string]any{"iss": key.ClientEmail, "aud": key.TokenURI, "scope": "https://www.googleapis.com/auth/cloud-platform",
		"iat": time.Now().Unix(), "exp": time.Now().Add(time.Hour).Unix()}
	with := func(k string, v any) map[string]any {
		c := map[string]any{}
		for kk, vv := range good {
			c[kk] = vv
		}
		c[k] = v
		return c
	}
	tests := []struct {
		name, assertion, wantToken, wantError string
	}{
		{"a good assertion", assertion(good), token, ""},
		{"another scope", assertion(with("scope", "https://www.googleapis.com/auth/userinfo.email")), "", "invalid_grant"},
		{"another issuer", assertion(with("iss", "other@p.iam.gserviceaccount.com")), "", "invalid_grant"},
		{"expired", assertion(with("exp", time.Now().Add(-time.Minute).Unix())), "", "invalid_grant"},
		{"a forged signature", assertion(good)[:len(assertion(good))-4] + "AAAA", "", "invalid_grant"},
	}
	for _, tt := range tests {
		form := url.Values{"grant_type": {"urn:ietf:params:oauth:grant-type:jwt-bearer"}, "assertion": {tt.assertion}}
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, key.TokenURI, strings.NewReader(form.Encode()))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var body struct {
			AccessToken string `json:"access_token"`
			Error       string `json:"error"`
		}
		_ = json.NewDecoder(res.Body).Decode(&body)
		_ = res.Body.Close()
		if body.AccessToken != tt.wantToken || body.Error != tt.wantError {
			t.Errorf("%s: access_token %q, error %q; want %q, %q", tt.name, body.AccessToken, body.Error, tt.wantToken, tt.wantError)
		}
	}
	if n := s.TokenRequests(); n != 1 {
		t.Errorf("TokenRequests = %d, want 1", n)
	}
	if n := len(s.Requests()); n != 0 {
		t.Errorf("token requests were recorded as API requests: %d", n)
	}
}

func TestFixture(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "fixture.json")
	fixture := `{
  "importDataFiles": [{"project": "p", "location": "l", "importJob": "j", "id": "f", "file": {"state": "ACTIVE"}}],
  "policies": [{"organization": "o", "partnerTenant": "t", "proxyConfig": "c", "policy": {"etag": "AQID"}}]
}`
	if err := os.WriteFile(path, []byte(fixture), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := googledouble.ReadFixture(path)
	if err != nil {
		t.Fatal(err)
	}
	s := start(t)
	s.Load(f)
	if got := mustGet(t, s, filePath); got.body["state"] != "ACTIVE" {
		t.Errorf("fixture file: %+v", got)
	}
	if got := mustGet(t, s, policyPath); got.body["etag"] != "AQID" {
		t.Errorf("fixture policy: %+v", got)
	}

	if err := os.WriteFile(path, []byte(`{"importDataFile": []}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := googledouble.ReadFixture(path); err == nil || !strings.Contains(err.Error(), "importDataFile") {
		t.Errorf("a fixture with a misspelt field: err = %v, want it named", err)
	}
}

func TestListenServesLoopbackOnly(t *testing.T) {
	t.Parallel()
	if _, err := googledouble.Listen("0.0.0.0:0", token); err == nil {
		t.Error("Listen on 0.0.0.0 succeeded; the double must serve only this machine")
	}
	s, err := googledouble.Listen("127.0.0.1:0", token)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(s.URL, "http://127.0.0.1:") || !strings.HasSuffix(s.URL, "/") {
		t.Errorf("URL = %q", s.URL)
	}
	if err := s.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}

// postForm posts form to u.
func postForm(t *testing.T, u string, form url.Values) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, u, strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// exchange trades a user credential's refresh token for an access token at the
// double's token endpoint, as the OAuth client libraries do.
func exchange(t *testing.T, keyJSON []byte) string {
	t.Helper()
	var key map[string]string
	if err := json.Unmarshal(keyJSON, &key); err != nil {
		t.Fatal(err)
	}
	form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {key["refresh_token"]},
		"client_id": {key["client_id"]}, "client_secret": {key["client_secret"]}}
	res := postForm(t, key["token_uri"], form)
	defer func() { _ = res.Body.Close() }()
	var body struct {
		AccessToken string `json:"access_token"`
		Error       string `json:"error"`
	}
	if err := json.NewDecoder(res.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	if body.AccessToken == "" {
		t.Fatalf("the token endpoint granted no token: %q", body.Error)
	}
	return body.AccessToken
}

func TestUserCredentialsNeedAQuotaProject(t *testing.T) {
	t.Parallel()
	s := start(t)
	s.AddImportDataFile("p", "l", "j", "f", googledouble.ImportDataFile{})
	s.SetPolicy("o", "t", "c", googledouble.Policy{})
	keyJSON, err := s.AuthorizedUserKey("")
	if err != nil {
		t.Fatal(err)
	}
	var key map[string]string
	if err := json.Unmarshal(keyJSON, &key); err != nil {
		t.Fatal(err)
	}
	if key["type"] != "authorized_user" || key["refresh_token"] == "" || key["client_secret"] == "" {
		t.Errorf("key = %v, want an authorized_user key", key)
	}
	if _, ok := key["quota_project_id"]; ok {
		t.Errorf("key = %v, want no quota_project_id", key)
	}
	userToken := exchange(t, keyJSON)

	send := func(path, userProject string) answer {
		t.Helper()
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, s.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+userToken)
		req.Header.Set("X-Goog-Request-Reason", "audit 7")
		if userProject != "" {
			req.Header.Set("X-Goog-User-Project", userProject)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = res.Body.Close() }()
		var body map[string]any
		if err := json.NewDecoder(res.Body).Decode(&body); err != nil {
			t.Fatal(err)
		}
		return answer{status: res.StatusCode, body: body}
	}
	for _, tt := range []struct{ path, service string }{
		{filePath, "migrationcenter.googleapis.com"},
		{policyPath, "beyondcorp.googleapis.com"},
	} {
		message := "Your application is authenticating by using local Application Default Credentials. The " + tt.service +
			" API requires a quota project, which is not set by default. To learn how to set your quota project, " +
			"see https://cloud.google.com/docs/authentication/adc-troubleshooting/user-creds ."
		want := answer{403, map[string]any{"error": map[string]any{
			"code": float64(403), "status": "PERMISSION_DENIED", "message": message,
			"details": []any{
				map[string]any{
					"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "SERVICE_DISABLED", "domain": "googleapis.com",
					"metadata": map[string]any{"service": tt.service, "consumer": "projects/764086051850"},
				},
				map[string]any{"@type": "type.googleapis.com/google.rpc.LocalizedMessage", "locale": "en-US", "message": message},
			},
		}}}
		if diff := cmp.Diff(want, send(tt.path, ""), cmp.AllowUnexported(answer{})); diff != "" {
			t.Errorf("%s without a quota project (-want +got):\n%s", tt.path, diff)
		}
		if got := send(tt.path, "billing-proj"); got.status != 200 {
			t.Errorf("%s with a quota project: %+v, want 200", tt.path, got)
		}
	}
	reqs := s.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests recorded, want 4", len(reqs))
	}
	for i, r := range reqs {
		want := ""
		if i%2 == 1 {
			want = "billing-proj"
		}
		if r.UserProject != want || r.RequestReason != "audit 7" || !r.Authorized {
			t.Errorf("request %d recorded as %+v, want X-Goog-User-Project %q and X-Goog-Request-Reason %q", i, r, want, "audit 7")
		}
	}
	// The double's own token needs no quota project: service accounts are charged to
	// their own project.
	if got := mustGet(t, s, filePath); got.status != 200 {
		t.Errorf("a service account's token without a quota project: %+v, want 200", got)
	}
}

func TestUserCredentialsWithAWrongSecret(t *testing.T) {
	t.Parallel()
	s := start(t)
	keyJSON, err := s.AuthorizedUserKey("quota-proj")
	if err != nil {
		t.Fatal(err)
	}
	var key map[string]string
	if err := json.Unmarshal(keyJSON, &key); err != nil {
		t.Fatal(err)
	}
	if key["quota_project_id"] != "quota-proj" {
		t.Errorf("quota_project_id = %q, want quota-proj", key["quota_project_id"])
	}
	form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {key["refresh_token"]},
		"client_id": {key["client_id"]}, "client_secret": {"wrong"}}
	res := postForm(t, key["token_uri"], form)
	defer func() { _ = res.Body.Close() }()
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != 400 || !strings.Contains(string(body), `"invalid_grant"`) {
		t.Errorf("a wrong client secret: %d %s, want 400 invalid_grant", res.StatusCode, body)
	}
	if n := s.TokenRequests(); n != 0 {
		t.Errorf("TokenRequests = %d, want 0", n)
	}
}
