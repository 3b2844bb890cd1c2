package kube

import (
	"context"

	p "github.com/pulumi/pulumi-go-provider"
)

// warningLogger passes the API server's warnings (deprecations, ignored fields) on to
// the user through the engine, attached to the resource being worked on.
type warningLogger struct{}

func (warningLogger) HandleWarningHeaderWithContext(ctx context.Context, _ int, _ string, text string) {
	if text == "" {
		return
	}
	p.GetLogger(ctx).Warning("kubernetes API server: " + text)
}
