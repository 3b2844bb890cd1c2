package google

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"google.golang.org/api/googleapi"
)

// subject names what a lookup reads and what it does, for messages.
type subject struct {
	// kind and path name the resource: "import data file", "projects/p/...".
	kind, path string
	// action is what the lookup does: "reading import data file projects/p/...".
	action string
}

// APIError is an error answer of a Google API, described for the user: the resource,
// the HTTP status and Google's own message.
type APIError struct {
	// Kind and Path name the resource the request was about.
	Kind, Path string
	// Action is what the lookup was doing, such as "reading import data file <path>".
	Action string
	// Code is the HTTP status; Message is Google's message (or a description of a body
	// that carried none).
	Code    int
	Message string
	// Hint says what the user can do, when the provider knows; it ends the message.
	Hint string
	// Err is the library's error.
	Err *googleapi.Error
}

// Error describes the failure in one line naming the resource, the status and Google's message.
func (e *APIError) Error() string {
	if e.Code == http.StatusNotFound {
		return fmt.Sprintf("%s %s not found (404): %s", e.Kind, e.Path, e.Message)
	}
	msg := fmt.Sprintf("%s %s: %s", e.brief(), e.Action, e.Message)
	if e.Code == http.StatusUnauthorized {
		msg += "; check the provider's accessToken or credentials setting, or the Application Default Credentials"
	}
	if e.Hint != "" {
		msg += "; " + e.Hint
	}
	return msg
}

// Unwrap returns the library's error.
func (e *APIError) Unwrap() error { return e.Err }

// brief is the status phrase and code, such as "permission denied (403)".
func (e *APIError) brief() string {
	return fmt.Sprintf("%s (%d)", statusPhrase(e.Code), e.Code)
}

// statusPhrase names an HTTP status the way Google's documentation does.
func statusPhrase(code int) string {
	switch code {
	case http.StatusBadRequest:
		return "invalid argument"
	case http.StatusUnauthorized:
		return "unauthenticated"
	case http.StatusForbidden:
		return "permission denied"
	case http.StatusNotFound:
		return "not found"
	case http.StatusTooManyRequests:
		return "rate limited"
	case http.StatusInternalServerError:
		return "internal server error"
	case http.StatusServiceUnavailable:
		return "service unavailable"
	case http.StatusGatewayTimeout:
		return "gateway timeout"
	}
	if text := http.StatusText(code); text != "" {
		return strings.ToLower(text)
	}
	return "http status"
}

// describe turns a failed attempt into the error the user sees.
func describe(subj subject, err error) error {
	var gerr *googleapi.Error
	if errors.As(err, &gerr) {
		return &APIError{Kind: subj.kind, Path: subj.path, Action: subj.action, Code: gerr.Code, Message: googleMessage(gerr), Err: gerr}
	}
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	if errors.As(err, &syntax) || errors.As(err, &typ) {
		return fmt.Errorf("%s: the answer is not the JSON the API documents (is the endpoint a Google API?): %w", subj.action, err)
	}
	return fmt.Errorf("%s: %w", subj.action, err)
}

// withQuotaProjectHint adds to a lookup's error what to set when Google refused the
// request because it named no quota project (as it refuses user credentials without
// one) and the configuration sends none.
func withQuotaProjectHint(err error, cfg Config) error {
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.Code != http.StatusForbidden || cfg.quotaProject() != "" ||
		!strings.Contains(strings.ToLower(apiErr.Message), "quota project") {
		return err
	}
	if cfg.BillingProject != "" {
		apiErr.Hint = "the provider's billingProject is sent only when userProjectOverride is true: " +
			"set userProjectOverride to true (endpoints:userProjectOverride, or USER_PROJECT_OVERRIDE=true)"
	} else {
		apiErr.Hint = "the credentials name no quota project: set the provider's billingProject to the project " +
			"the lookups' quota is charged to, and userProjectOverride to true (endpoints:billingProject and " +
			"endpoints:userProjectOverride, or GOOGLE_BILLING_PROJECT and USER_PROJECT_OVERRIDE=true)"
	}
	return err
}

// briefly describes a failed attempt without naming the resource again, for the
// "last error" of a retried lookup.
func briefly(err error) string {
	var apiErr *APIError
	if errors.As(err, &apiErr) {
		return apiErr.brief() + ": " + apiErr.Message
	}
	var gerr *googleapi.Error
	if errors.As(err, &gerr) {
		return fmt.Sprintf("%s (%d): %s", statusPhrase(gerr.Code), gerr.Code, googleMessage(gerr))
	}
	return err.Error()
}

// googleMessage is Google's message of an error answer. Answers without one (an HTML
// page from a proxy or a wrong endpoint) are described by the start of their body.
func googleMessage(e *googleapi.Error) string {
	if e.Message != "" {
		return e.Message
	}
	body := strings.Join(strings.Fields(e.Body), " ")
	const limit = 200
	if len(body) > limit {
		body = body[:limit] + "..."
	}
	if body == "" {
		return "the answer carried no Google error message"
	}
	return fmt.Sprintf("the answer carried no Google error message; it begins %q", body)
}

// redact removes the configuration's secrets from an error message: a last line of
// defence, as no error is known to carry them.
func redact(err error, cfg Config) error {
	msg := err.Error()
	clean := msg
	for _, secret := range []string{cfg.AccessToken, cfg.Credentials} {
		if len(secret) >= 8 {
			clean = strings.ReplaceAll(clean, secret, "[secret]")
		}
	}
	if clean == msg {
		return err
	}
	return &redactedError{msg: clean, err: err}
}

// redactedError is an error whose message had secrets removed.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }

// Unwrap returns the original error, so that errors.Is and errors.As see its causes
// (such as an *APIError). Its message is not redacted: callers show only Error.
func (e *redactedError) Unwrap() error { return e.err }
