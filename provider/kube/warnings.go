package kube

import (
	"context"
	"regexp"
	"strings"
	"sync"

	p "github.com/pulumi/pulumi-go-provider"
)

// warningLogger passes the API server's warnings (deprecations, ignored fields) on to
// the user through the engine, attached to the resource being worked on. Within one
// operation (see WithWarningScope) each distinct warning is shown once, however many
// requests draw it. A warning that the requested API version is deprecated is shown
// once per Deprecations record (one per provider, so once per command), and not at
// all in a scope without one.
type warningLogger struct{}

type warningScopeKey struct{}

// warningScope is what one operation has shown, and where API deprecations are
// recorded.
type warningScope struct {
	seen sync.Map
	// deprecations records the API deprecations shown; nil hides them.
	deprecations *Deprecations
}

// Deprecations records the API deprecation warnings a provider has shown, so that
// each is shown once in the provider's life. The engine starts a provider for each
// command (preview, up, refresh, destroy), so that is once per command.
type Deprecations struct {
	said sync.Map
}

// WithWarningScope starts an operation whose API-server warnings are shown once each.
// Warnings that the requested API version is deprecated are shown once per
// deprecations record, across operations; with a nil record they are not shown (a
// delete, or the suppressDeprecationWarnings setting).
func WithWarningScope(ctx context.Context, deprecations *Deprecations) context.Context {
	return context.WithValue(ctx, warningScopeKey{}, &warningScope{deprecations: deprecations})
}

// apiDeprecation matches the warning the API server sends with every request to a
// deprecated API version (k8s.io/apiserver/pkg/endpoints/deprecation): "<group/version>
// <Kind> is deprecated in v1.X+, unavailable in v1.Y+; use <replacement>", such as
// "v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice".
// Warnings about a field or value ("spec.addressType: FQDN endpoints are deprecated")
// are not API deprecations.
var apiDeprecation = regexp.MustCompile(`^(?:[a-z0-9]([a-z0-9.-]*[a-z0-9])?/)?v[0-9]+(?:(?:alpha|beta)[0-9]+)? [A-Z][A-Za-z0-9]* is deprecated\b`)

// IsAPIDeprecation tells whether an API-server warning says that the requested API
// version is deprecated.
func IsAPIDeprecation(text string) bool {
	return apiDeprecation.MatchString(text)
}

func (warningLogger) HandleWarningHeaderWithContext(ctx context.Context, _ int, _ string, text string) {
	if text == "" {
		return
	}
	if scope, ok := ctx.Value(warningScopeKey{}).(*warningScope); ok {
		if IsAPIDeprecation(text) {
			if scope.deprecations == nil {
				return
			}
			if _, dup := scope.deprecations.said.LoadOrStore(text, struct{}{}); dup {
				return
			}
		}
		if _, dup := scope.seen.LoadOrStore(text, struct{}{}); dup {
			return
		}
	}
	p.GetLogger(ctx).Warning("kubernetes API server: " + text + endpointsAdvice(text))
}

// MovingOffEndpointsGuide is the guide to moving the Services of an EndpointsList to
// EndpointSlices without dropping a request.
const MovingOffEndpointsGuide = "https://github.com/endpoints-provider/pulumi-endpoints/blob/main/docs/guides/moving-off-endpoints.md"

// endpointsAdvice is what the provider adds to the API server's warning text: for the
// deprecation of v1 Endpoints, where to read how to move off it; nothing otherwise.
func endpointsAdvice(text string) string {
	if !IsAPIDeprecation(text) || !strings.HasPrefix(text, "v1 Endpoints ") {
		return ""
	}
	return " (to move an EndpointsList's Services to EndpointSlices without dropping a request, see " +
		MovingOffEndpointsGuide + ")"
}
