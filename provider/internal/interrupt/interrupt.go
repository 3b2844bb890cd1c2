package interrupt

import (
	"context"
	"errors"
	"fmt"
)

// ErrCancelling is the cause of an operation not started, or a wait ended, because the
// engine is cancelling.
var ErrCancelling = errors.New("the engine is cancelling (an interrupt such as Ctrl-C)")

type key struct{}

// With returns ctx carrying cancelling, a context that ends when the engine first
// calls Cancel.
func With(ctx, cancelling context.Context) context.Context {
	return context.WithValue(ctx, key{}, cancelling)
}

// Cancelling tells whether the engine has called Cancel on ctx's provider.
func Cancelling(ctx context.Context) bool {
	c, _ := ctx.Value(key{}).(context.Context)
	return c != nil && c.Err() != nil
}

// NotStarted is nil until the engine cancels; then it is the error of what (such as
// "the create of EndpointSlice web"), which is not started: a *NotStartedError.
func NotStarted(ctx context.Context, what string) error {
	if !Cancelling(ctx) {
		return nil
	}
	return &NotStartedError{What: what}
}

// NotStartedError is the error of an operation not started because the engine is
// cancelling. It wraps ErrCancelling.
type NotStartedError struct {
	// What names the operation, such as "the create of EndpointSlice web".
	What string
	// Many tells that What names more than one operation.
	Many bool
}

func (e *NotStartedError) Error() string {
	verb := "was"
	if e.Many {
		verb = "were"
	}
	return fmt.Sprintf("%s %s not started: %v; run the command again to finish", e.What, verb, ErrCancelling)
}

func (e *NotStartedError) Unwrap() error { return ErrCancelling }

// IsNotStarted tells whether err is, or wraps, a *NotStartedError.
func IsNotStarted(err error) bool {
	var e *NotStartedError
	return errors.As(err, &e)
}

// Waiting derives the context of a wait that is not a request (for an object to be
// gone, for a retry's backoff): it ends with ctx or, with ErrCancelling as its cause,
// when the engine cancels.
func Waiting(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(ctx)
	c, _ := ctx.Value(key{}).(context.Context)
	if c == nil {
		return ctx, func() { cancel(nil) }
	}
	stop := context.AfterFunc(c, func() { cancel(ErrCancelling) })
	return ctx, func() {
		stop()
		cancel(nil)
	}
}
