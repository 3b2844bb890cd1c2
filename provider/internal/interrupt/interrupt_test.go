package interrupt

import (
	"context"
	"errors"
	"testing"
)

func TestNotStartedOnceCancelling(t *testing.T) {
	t.Parallel()
	cancelling, cancel := context.WithCancel(t.Context())
	ctx := With(t.Context(), cancelling)
	if err := NotStarted(ctx, "the create of x"); err != nil {
		t.Fatalf("before Cancel: %v", err)
	}
	cancel()
	err := NotStarted(ctx, "the create of x")
	if !errors.Is(err, ErrCancelling) || !IsNotStarted(err) {
		t.Fatalf("after Cancel: %v, want %v", err, ErrCancelling)
	}
	if want := "the create of x was not started: the engine is cancelling (an interrupt such as Ctrl-C); " +
		"run the command again to finish"; err.Error() != want {
		t.Errorf("error = %q, want %q", err, want)
	}
	if NotStarted(t.Context(), "x") != nil {
		t.Error("a context without the provider's cancel reports cancelling")
	}
}

func TestWaitingEndsOnCancel(t *testing.T) {
	t.Parallel()
	cancelling, cancel := context.WithCancel(t.Context())
	ctx := With(t.Context(), cancelling)
	wait, done := Waiting(ctx)
	defer done()
	if wait.Err() != nil {
		t.Fatal("the wait ended before Cancel")
	}
	cancel()
	<-wait.Done()
	if !errors.Is(context.Cause(wait), ErrCancelling) {
		t.Errorf("cause = %v, want %v", context.Cause(wait), ErrCancelling)
	}
	if ctx.Err() != nil {
		t.Error("the operation's context ended with the wait's")
	}
}
