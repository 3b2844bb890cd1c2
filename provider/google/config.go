package google

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
)

// Config is the Google Cloud part of the provider configuration. It is a comparable
// value: the package keys its cached clients by it.
type Config struct {
	// Project is the default project for lookups that name none.
	Project string
	// Credentials is a service-account or authorized-user key: a file path or JSON contents.
	Credentials string
	// AccessToken is an OAuth 2.0 access token; it takes precedence over Credentials.
	AccessToken string
	// ImpersonateServiceAccount is the email of a service account to act as.
	ImpersonateServiceAccount string
	// MigrationCenterEndpoint and BeyondcorpEndpoint override the APIs' base URLs
	// (for example https://migrationcenter.googleapis.com/); the version path is appended.
	MigrationCenterEndpoint string
	BeyondcorpEndpoint      string
	// BillingProject is the project the lookups' quota and billing are charged to,
	// sent as X-Goog-User-Project when UserProjectOverride is true (as pulumi-gcp
	// does: without it the header is not sent).
	BillingProject      string
	UserProjectOverride bool
	// RequestReason is sent as X-Goog-Request-Reason; it shows in Cloud Audit Logs.
	RequestReason string
	// UserAgent identifies the provider to Google; AppendUserAgent is added to it
	// after a space.
	UserAgent       string
	AppendUserAgent string
	// Timeout bounds each lookup, retries included; zero means DefaultTimeout.
	Timeout time.Duration
}

// DefaultTimeout bounds each lookup, retries included, unless Config.Timeout is set:
// schema.json's default of the lookupTimeout setting, read from it on first use.
func DefaultTimeout() time.Duration { return defaultTimeout() }

// defaultTimeout reads the default from schema.json; one that is missing or not a
// positive duration is a build defect, which the package's tests catch.
var defaultTimeout = sync.OnceValue(func() time.Duration {
	v := spec.MustLoad().Config.Variables["lookupTimeout"].Default
	s, _ := v.(string)
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		panic(fmt.Sprintf("internal error: schema.json's default of lookupTimeout is %v", v))
	}
	return d
})

// The APIs' public endpoints.
const (
	DefaultMigrationCenterEndpoint = "https://migrationcenter.googleapis.com/"
	DefaultBeyondcorpEndpoint      = "https://beyondcorp.googleapis.com/"
)

// cloudPlatformScope is the OAuth scope both APIs accept.
const cloudPlatformScope = "https://www.googleapis.com/auth/cloud-platform"

// userAgent is the User-Agent of every request.
func (c Config) userAgent() string {
	if c.AppendUserAgent == "" {
		return c.UserAgent
	}
	return strings.TrimSpace(c.UserAgent + " " + c.AppendUserAgent)
}

// ErrNoBillingProject is the configuration that asks for a quota project and names none.
var ErrNoBillingProject = errors.New("userProjectOverride is true but billingProject is not set: " +
	"set billingProject (endpoints:billingProject, or GOOGLE_BILLING_PROJECT) to the project the lookups' quota is charged to, " +
	"or set userProjectOverride to false")

// check returns what makes the configuration unusable by the lookups, or nil.
func (c Config) check() error {
	if c.UserProjectOverride && c.BillingProject == "" {
		return ErrNoBillingProject
	}
	return nil
}

// quotaProject is the project sent as X-Goog-User-Project, or "" when none is.
func (c Config) quotaProject() string {
	if c.UserProjectOverride {
		return c.BillingProject
	}
	return ""
}

// timeout returns the bound of one lookup.
func (c Config) timeout() time.Duration {
	if c.Timeout > 0 {
		return c.Timeout
	}
	return DefaultTimeout()
}

// defaultRetry is how the lookups retry transient failures: 8 attempts, the waits from
// 200ms doubling up to 10s.
var defaultRetry = RetryPolicy{Base: 200 * time.Millisecond, Factor: 2, Max: 10 * time.Second, Attempts: 8}

// endpoint returns the base URL to use for an API: the configured one, checked and
// ending in "/", or the public one. key names the provider setting in errors.
func endpoint(configured, public, key string) (string, error) {
	if configured == "" {
		return public, nil
	}
	u, err := url.Parse(configured)
	if err != nil {
		return "", fmt.Errorf("the provider's %s setting is not a URL: %w", key, err)
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return "", fmt.Errorf("the provider's %s setting %q must be an http:// or https:// URL, such as %s", key, u.Redacted(), public)
	case u.Host == "":
		return "", fmt.Errorf("the provider's %s setting %q names no host", key, u.Redacted())
	case u.User != nil:
		return "", fmt.Errorf("the provider's %s setting %q must not contain credentials: use accessToken or credentials", key, u.Redacted())
	case u.RawQuery != "" || u.Fragment != "":
		return "", fmt.Errorf("the provider's %s setting %q must be a base URL without query or fragment", key, u.Redacted())
	}
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
		if u.RawPath != "" {
			u.RawPath += "/"
		}
	}
	return u.String(), nil
}
