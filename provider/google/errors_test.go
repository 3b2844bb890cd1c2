package google

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"google.golang.org/api/googleapi"
)

func TestDescribe(t *testing.T) {
	t.Parallel()
	file := subject{kind: "import data file", path: "projects/p/locations/l/importJobs/j/importDataFiles/f",
		action: "reading import data file projects/p/locations/l/importJobs/j/importDataFiles/f"}
	html := strings.Repeat("<html><body>Not Found</body></html>\n", 20)
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"404", &googleapi.Error{Code: 404, Message: "Resource was not found"},
			"import data file projects/p/locations/l/importJobs/j/importDataFiles/f not found (404): Resource was not found"},
		{"403", fmt.Errorf("wrapped: %w", &googleapi.Error{Code: 403, Message: "Permission denied on resource"}),
			"permission denied (403) reading import data file projects/p/locations/l/importJobs/j/importDataFiles/f: Permission denied on resource"},
		{"401", &googleapi.Error{Code: 401, Message: "Request had invalid authentication credentials."},
			"unauthenticated (401) reading import data file projects/p/locations/l/importJobs/j/importDataFiles/f: " +
				"Request had invalid authentication credentials.; check the provider's accessToken or credentials setting, or the Application Default Credentials"},
		{"400", &googleapi.Error{Code: 400, Message: "Request contains an invalid argument."},
			"invalid argument (400) reading import data file projects/p/locations/l/importJobs/j/importDataFiles/f: Request contains an invalid argument."},
		{"409", &googleapi.Error{Code: 409, Message: "m"},
			"conflict (409) reading import data file projects/p/locations/l/importJobs/j/importDataFiles/f: m"},
		{"an HTML page, as from a wrong endpoint", &googleapi.Error{Code: 404, Body: html},
			"import data file projects/p/locations/l/importJobs/j/importDataFiles/f not found (404): the answer carried no Google error message; it begins \"" +
				strings.Repeat("<html><body>Not Found</body></html> ", 6)[:200] + "...\""},
		{"an empty body", &googleapi.Error{Code: 502},
			"bad gateway (502) reading import data file projects/p/locations/l/importJobs/j/importDataFiles/f: the answer carried no Google error message"},
		{"malformed JSON", &json.SyntaxError{},
			"reading import data file projects/p/locations/l/importJobs/j/importDataFiles/f: the answer is not the JSON the API documents (is the endpoint a Google API?): "},
		{"a transport failure", errors.New("dial tcp: no such host"),
			"reading import data file projects/p/locations/l/importJobs/j/importDataFiles/f: dial tcp: no such host"},
	}
	for _, tt := range tests {
		err := describe(file, tt.err)
		if err.Error() != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, err, tt.want)
		}
		if !errors.Is(err, tt.err) && !errors.As(err, new(*googleapi.Error)) {
			t.Errorf("%s: the library's error is not wrapped", tt.name)
		}
	}
}

func TestRedact(t *testing.T) {
	t.Parallel()
	cfg := Config{AccessToken: "ya29.secret-token", Credentials: "short"}
	inner := errors.New("upstream said: bad token ya29.secret-token (short)")
	err := redact(inner, cfg)
	if got, want := err.Error(), "upstream said: bad token [secret] (short)"; got != want {
		t.Errorf("redact = %q, want %q", got, want)
	}
	if !errors.Is(err, inner) {
		t.Error("redact lost the original error for errors.Is")
	}
	clean := errors.New("nothing to hide")
	if errors.As(redact(clean, cfg), new(*redactedError)) {
		t.Error("redact changed an error without secrets")
	}
}

// errors.As reaches the API error through a redacted message.
func TestRedactedErrorUnwrapsToTheAPIError(t *testing.T) {
	t.Parallel()
	cfg := Config{AccessToken: "ya29.secret-token"}
	apiErr := &APIError{Kind: "proxy config", Path: "organizations/o", Code: http.StatusForbidden, Message: "denied",
		Err: &googleapi.Error{Code: http.StatusForbidden, Message: "denied"}}
	err := redact(fmt.Errorf("calling with ya29.secret-token: %w", apiErr), cfg)
	if strings.Contains(err.Error(), cfg.AccessToken) {
		t.Errorf("redacted message shows the token: %s", err)
	}
	var got *APIError
	if !errors.As(err, &got) || got != apiErr {
		t.Errorf("errors.As(*APIError) through the redaction = %v, want %v", got, apiErr)
	}
	var gerr *googleapi.Error
	if !errors.As(err, &gerr) || gerr.Code != http.StatusForbidden {
		t.Errorf("errors.As(*googleapi.Error) through the redaction = %v, want the 403", gerr)
	}
}

func TestQuotaProjectHint(t *testing.T) {
	t.Parallel()
	file := subject{kind: "import data file", path: "projects/p/locations/l/importJobs/j/importDataFiles/f",
		action: "reading import data file projects/p/locations/l/importJobs/j/importDataFiles/f"}
	const (
		quotaMessage = "The migrationcenter.googleapis.com API requires a quota project, which is not set by default."
		denied       = "permission denied (403) reading import data file projects/p/locations/l/importJobs/j/importDataFiles/f: "
		setBoth      = "; the credentials name no quota project: set the provider's billingProject to the project " +
			"the lookups' quota is charged to, and userProjectOverride to true (endpoints:billingProject and " +
			"endpoints:userProjectOverride, or GOOGLE_BILLING_PROJECT and USER_PROJECT_OVERRIDE=true)"
		setOverride = "; the provider's billingProject is sent only when userProjectOverride is true: " +
			"set userProjectOverride to true (endpoints:userProjectOverride, or USER_PROJECT_OVERRIDE=true)"
	)
	tests := []struct {
		name string
		err  error
		cfg  Config
		want string
	}{
		{"no quota project configured", &googleapi.Error{Code: 403, Message: quotaMessage}, Config{},
			denied + quotaMessage + setBoth},
		{"billingProject without userProjectOverride", &googleapi.Error{Code: 403, Message: quotaMessage},
			Config{BillingProject: "b"}, denied + quotaMessage + setOverride},
		{"a quota project was sent", &googleapi.Error{Code: 403, Message: quotaMessage},
			Config{BillingProject: "b", UserProjectOverride: true}, denied + quotaMessage},
		{"another 403", &googleapi.Error{Code: 403, Message: "Permission 'migrationcenter.importDataFiles.get' denied"}, Config{},
			denied + "Permission 'migrationcenter.importDataFiles.get' denied"},
		{"another status", &googleapi.Error{Code: 400, Message: "Invalid quota project"}, Config{},
			"invalid argument (400) reading import data file projects/p/locations/l/importJobs/j/importDataFiles/f: Invalid quota project"},
		{"not an answer", errors.New("quota project: dial tcp: no such host"), Config{},
			"reading import data file projects/p/locations/l/importJobs/j/importDataFiles/f: quota project: dial tcp: no such host"},
	}
	for _, tt := range tests {
		if got := withQuotaProjectHint(describe(file, tt.err), tt.cfg).Error(); got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, got, tt.want)
		}
	}
}
