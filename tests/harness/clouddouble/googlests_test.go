package clouddouble

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

const testAudience = "//iam.googleapis.com/projects/1/locations/global/workloadIdentityPools/p/providers/r"

func post(t *testing.T, target, contentType, bearer, body string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, target, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", contentType)
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	var answer map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&answer); err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, answer
}

func exchangeForm(audience, subject string) string {
	return url.Values{
		"grant_type": {exchangeGrantType}, "audience": {audience}, "scope": {cloudPlatformScope},
		"requested_token_type": {issuedTypeAccess}, "subject_token": {subject}, "subject_token_type": {subjectTokenTypes[0]},
	}.Encode()
}

// The token exchange takes a form or JSON, and refuses as STS does.
func TestGoogleSTSExchange(t *testing.T) {
	t.Parallel()
	g := StartGoogleSTS()
	t.Cleanup(g.Close)
	g.AddProvider(testAudience, "subject")
	jsonBody := `{"grantType":"` + exchangeGrantType + `","audience":"` + testAudience + `","scope":"` + cloudPlatformScope +
		`","requestedTokenType":"` + issuedTypeAccess + `","subjectToken":"subject","subjectTokenType":"` + subjectTokenTypes[1] + `"}`
	for _, tc := range []struct {
		name, contentType, body, wantError string
	}{
		{name: "form", contentType: "application/x-www-form-urlencoded", body: exchangeForm(testAudience, "subject")},
		{name: "JSON", contentType: "application/json; charset=utf-8", body: jsonBody},
		{name: "wrong subject", contentType: "application/x-www-form-urlencoded", body: exchangeForm(testAudience, "other"), wantError: "invalid_grant"},
		{name: "unknown provider", contentType: "application/x-www-form-urlencoded", body: exchangeForm(testAudience+"x", "subject"), wantError: "invalid_target"},
		{name: "not a provider", contentType: "application/x-www-form-urlencoded", body: exchangeForm("projects/1", "subject"), wantError: "invalid_request"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			status, answer := post(t, g.URL+"v1/token", tc.contentType, "", tc.body)
			if tc.wantError != "" {
				if status != http.StatusBadRequest || answer["error"] != tc.wantError || strings.Contains(answer["error_description"].(string), "other") {
					t.Errorf("answer %d %v, want 400 %s without the subject token", status, answer, tc.wantError)
				}
				return
			}
			if status != http.StatusOK || answer["token_type"] != "Bearer" || answer["issued_token_type"] != issuedTypeAccess || answer["expires_in"] != 3600.0 {
				t.Fatalf("answer %d %v", status, answer)
			}
			grant, err := g.Verify(answer["access_token"].(string))
			if err != nil || grant.Audience != testAudience || grant.ServiceAccount != "" {
				t.Errorf("grant %+v, %v", grant, err)
			}
		})
	}
}

// generateAccessToken takes a federated token of an allowed provider, with the
// cloud-platform scope, and answers in Google's error envelope otherwise.
func TestGoogleSTSGenerateAccessToken(t *testing.T) {
	t.Parallel()
	g := StartGoogleSTS()
	t.Cleanup(g.Close)
	g.AddProvider(testAudience, "subject")
	g.AllowImpersonation("sa@p.iam.gserviceaccount.com", testAudience)
	_, answer := post(t, g.URL+"v1/token", "application/x-www-form-urlencoded", "", exchangeForm(testAudience, "subject"))
	federated, _ := answer["access_token"].(string)
	for _, tc := range []struct {
		name, account, project, bearer, body string
		wantStatus                           int
	}{
		{name: "allowed", account: "sa@p.iam.gserviceaccount.com", project: "-", bearer: federated,
			body: `{"scope":["a","b"],"lifetime":"600s"}`, wantStatus: http.StatusOK},
		{name: "not allowed", account: "other@p.iam.gserviceaccount.com", project: "-", bearer: federated,
			body: `{"scope":["a"]}`, wantStatus: http.StatusForbidden},
		{name: "no token", account: "sa@p.iam.gserviceaccount.com", project: "-", body: `{"scope":["a"]}`, wantStatus: http.StatusUnauthorized},
		{name: "project named", account: "sa@p.iam.gserviceaccount.com", project: "p", bearer: federated,
			body: `{"scope":["a"]}`, wantStatus: http.StatusBadRequest},
		{name: "no scope", account: "sa@p.iam.gserviceaccount.com", project: "-", bearer: federated, body: `{}`, wantStatus: http.StatusBadRequest},
		{name: "too long", account: "sa@p.iam.gserviceaccount.com", project: "-", bearer: federated,
			body: `{"scope":["a"],"lifetime":"7200s"}`, wantStatus: http.StatusBadRequest},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			target := g.URL + "v1/projects/" + tc.project + "/serviceAccounts/" + tc.account + ":generateAccessToken"
			status, answer := post(t, target, "application/json", tc.bearer, tc.body)
			if status != tc.wantStatus {
				t.Fatalf("answer %d %v, want %d", status, answer, tc.wantStatus)
			}
			if status != http.StatusOK {
				if e, _ := answer["error"].(map[string]any); e["code"] != float64(status) || e["status"] == "" {
					t.Errorf("error envelope %v", answer)
				}
				return
			}
			grant, err := g.Verify(answer["accessToken"].(string))
			if err != nil || grant.ServiceAccount != tc.account || len(grant.Scopes) != 2 || answer["expireTime"] != grant.Expires.UTC().Format("2006-01-02T15:04:05Z") {
				t.Errorf("answer %v, grant %+v, %v", answer, grant, err)
			}
		})
	}
}
