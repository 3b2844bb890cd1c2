package clouddouble

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"testing"
	"time"
)

// The endpoint grants a token of the identity a request names (none: the
// system-assigned one) for its resource, and refuses a request without the header
// secret, with an older api-version, without a resource, naming two identities or one
// the app does not have.
func TestManagedIdentityEndpoint(t *testing.T) {
	t.Parallel()
	m := StartManagedIdentity()
	t.Cleanup(m.Close) // (after the parallel subtests)
	system := ManagedIdentityID{ClientID: "5e29463d-71da-4fe0-8e69-999b57db23b0", PrincipalID: "0d2f7f4c-7f1e-4f53-a8f5-0c6c4b0b8d11"}
	user := ManagedIdentityID{ClientID: "9eba17f1-3e2c-4b7e-8f0a-1d2c3b4a5e6f", PrincipalID: "c1a2b3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d",
		ResourceID: "/subscriptions/a9e7f2c1-0d0e-4b8e-9c55-3f0e0c1d2b3a/resourceGroups/ci/providers/Microsoft.ManagedIdentity/userAssignedIdentities/deployer"}
	m.SetSystemAssigned(system)
	m.AddUserAssigned(user)
	const resource = "6dae42f8-4368-4678-94ff-3960e28e3630"
	for _, tt := range []struct {
		name   string
		header string
		query  url.Values
		// status is the answer's; want the identity granted when it is 200.
		status int
		want   ManagedIdentityID
	}{
		{name: "system-assigned", header: m.Header, query: url.Values{"api-version": {"2019-08-01"}, "resource": {resource}},
			status: http.StatusOK, want: system},
		{name: "client_id", header: m.Header, query: url.Values{"api-version": {"2019-08-01"}, "resource": {resource},
			"client_id": {user.ClientID}}, status: http.StatusOK, want: user},
		{name: "object_id", header: m.Header, query: url.Values{"api-version": {"2019-08-01"}, "resource": {resource},
			"object_id": {user.PrincipalID}}, status: http.StatusOK, want: user},
		{name: "mi_res_id", header: m.Header, query: url.Values{"api-version": {"2019-08-01"}, "resource": {resource},
			"mi_res_id": {user.ResourceID}}, status: http.StatusOK, want: user},
		{name: "no header", query: url.Values{"api-version": {"2019-08-01"}, "resource": {resource}}, status: http.StatusUnauthorized},
		{name: "wrong header", header: "853b9a84-5bfa-4b22-a3f3-0b9a43d9ad8a",
			query: url.Values{"api-version": {"2019-08-01"}, "resource": {resource}}, status: http.StatusUnauthorized},
		{name: "api-version 2017-09-01", header: m.Header, query: url.Values{"api-version": {"2017-09-01"}, "resource": {resource}},
			status: http.StatusBadRequest},
		{name: "no resource", header: m.Header, query: url.Values{"api-version": {"2019-08-01"}}, status: http.StatusBadRequest},
		{name: "two identities", header: m.Header, query: url.Values{"api-version": {"2019-08-01"}, "resource": {resource},
			"client_id": {user.ClientID}, "mi_res_id": {user.ResourceID}}, status: http.StatusBadRequest},
		{name: "an identity the app does not have", header: m.Header, query: url.Values{"api-version": {"2019-08-01"},
			"resource": {resource}, "client_id": {"0b6e2d1c-2a27-4c38-9f07-4c8ea7c1e2d0"}}, status: http.StatusBadRequest},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, m.Endpoint+"?"+tt.query.Encode(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if tt.header != "" {
				req.Header.Set("X-IDENTITY-HEADER", tt.header)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = resp.Body.Close() }()
			var body map[string]any
			if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d (%v), want %d", resp.StatusCode, body, tt.status)
			}
			if tt.status != http.StatusOK {
				if body["statusCode"] != float64(tt.status) || body["message"] == "" {
					t.Errorf("error %v, want the endpoint's envelope", body)
				}
				if tt.name == "an identity the app does not have" && body["message"] != "Unable to load the proper Managed Identity." {
					t.Errorf("error %v, want the endpoint's message for an unknown identity", body)
				}
				return
			}
			token, _ := body["access_token"].(string)
			g, err := m.Verify(token, resource)
			if err != nil {
				t.Fatal(err)
			}
			if g.Identity != tt.want || body["client_id"] != tt.want.ClientID || body["resource"] != resource || body["token_type"] != "Bearer" {
				t.Errorf("granted %+v, answered %v; want %+v", g, body, tt.want)
			}
			expiresOn, _ := body["expires_on"].(string)
			if sec, err := strconv.ParseInt(expiresOn, 10, 64); err != nil || !time.Unix(sec, 0).Equal(g.Expires) {
				t.Errorf("expires_on %q, want the Unix seconds of %s as a string", expiresOn, g.Expires)
			}
			if _, err := m.Verify(token, resource+"/.default"); err == nil {
				t.Error("the token verified for another resource")
			}
		})
	}
}
