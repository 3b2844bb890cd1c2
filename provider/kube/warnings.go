package kube

import (
	"context"
	"sync"

	p "github.com/pulumi/pulumi-go-provider"
)

// warningLogger passes the API server's warnings (deprecations, ignored fields) on to
// the user through the engine, attached to the resource being worked on. Within one
// operation (see WithWarningScope) each distinct warning is shown once, however many
// requests draw it.
type warningLogger struct{}

type warningScopeKey struct{}

// WithWarningScope starts an operation whose API-server warnings are shown once each.
func WithWarningScope(ctx context.Context) context.Context {
	return context.WithValue(ctx, warningScopeKey{}, &sync.Map{})
}

func (warningLogger) HandleWarningHeaderWithContext(ctx context.Context, _ int, _ string, text string) {
	if text == "" {
		return
	}
	if seen, ok := ctx.Value(warningScopeKey{}).(*sync.Map); ok {
		if _, dup := seen.LoadOrStore(text, struct{}{}); dup {
			return
		}
	}
	p.GetLogger(ctx).Warning("kubernetes API server: " + text)
}
