package kube

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"golang.org/x/sync/errgroup"

	"github.com/endpoints-provider/pulumi-endpoints/provider/internal/crash"
	"github.com/endpoints-provider/pulumi-endpoints/provider/internal/interrupt"
)

// fanOutLimit bounds the calls of one fan-out in flight at once: the creates,
// updates, reads and deletes of a list's items, the deletes of the items a list lost.
const fanOutLimit = 16

// fanOut is how calls run side by side: at most fanOutLimit at a time, with no
// context of their own, so that a failure does not cancel the calls in flight and each
// outcome is known. Once the engine cancels (see package interrupt) no further call
// starts: each of those is left unsent with an error that says it was not started.
type fanOut struct {
	// what counts the calls in errors, such as "item(s)".
	what string
	// name names call i, such as "items[3]", in the error of a call not started.
	name func(i int) string
	// prefix puts the call's name before its failure too; without it, the failure
	// names its object itself.
	prefix bool
	// limit bounds the calls in flight at once; zero means fanOutLimit.
	limit int
	// careful sends the first call alone, so that a failure every call would meet (a
	// missing namespace, a denied write) costs one request, and after a failure starts
	// no further call.
	careful bool
}

// called is the outcome of one call: whether it was sent, and its error.
type called struct {
	sent bool
	err  error
}

// run makes the calls 0 to n-1 (see fanOut) and returns their outcomes. A call that
// panics panics run, once every call has ended (see package crash).
func (f fanOut) run(ctx context.Context, n int, call func(i int) error) []called {
	out := make([]called, n)
	start := func(i int) bool {
		if err := interrupt.NotStarted(ctx, f.name(i)); err != nil {
			out[i] = called{err: err}
			return false
		}
		err := call(i)
		out[i] = called{sent: true, err: err}
		return err == nil
	}
	first := 0
	if f.careful && n > 0 {
		first = 1
		if !start(0) {
			return f.notStarted(ctx, out)
		}
	}
	var (
		calls    errgroup.Group
		failed   atomic.Bool
		panicked atomic.Pointer[crash.Panic]
	)
	stopped := func() bool { return f.careful && failed.Load() }
	calls.SetLimit(cmp.Or(f.limit, fanOutLimit))
	for i := first; i < n && !stopped(); i++ {
		calls.Go(func() error {
			p := crash.Catch(func() {
				// Go waits for a free slot; a failure seen meanwhile stops this call too.
				if !stopped() && !start(i) {
					failed.Store(true)
				}
			})
			if p != nil {
				panicked.CompareAndSwap(nil, p)
				failed.Store(true)
			}
			return nil
		})
	}
	_ = calls.Wait() // every call returns nil: the outcomes are in out
	if p := panicked.Load(); p != nil {
		panic(p) // in the caller's goroutine, where the plugin's server recovers it
	}
	return f.notStarted(ctx, out)
}

// notStarted marks each call not sent as not started, once the engine is cancelling;
// otherwise it changes nothing (the calls not sent after a failure carry no error).
func (f fanOut) notStarted(ctx context.Context, out []called) []called {
	for i, c := range out {
		if !c.sent && c.err == nil {
			out[i].err = interrupt.NotStarted(ctx, f.name(i))
		}
	}
	return out
}

// failed is the error of the calls that failed (errs[i] of call i, nil for a
// success), the first one first (see joinFailures), and then, in one error, those not
// started because the engine is cancelling; nil when none failed.
func (f fanOut) failed(errs []error) error {
	var failed, unstarted []error
	for i, err := range errs {
		switch {
		case err == nil:
		case interrupt.IsNotStarted(err):
			unstarted = append(unstarted, err)
		case f.prefix:
			failed = append(failed, fmt.Errorf("%s: %w", f.name(i), err))
		default:
			failed = append(failed, err)
		}
	}
	if len(unstarted) > 0 {
		failed = append(failed, collapseNotStarted(unstarted, f.what))
	}
	return joinFailures(failed, f.what)
}

// collapseNotStarted is one error for the calls not started (each error from
// interrupt.NotStarted): it names the first and counts the others.
func collapseNotStarted(unstarted []error, what string) error {
	var first *interrupt.NotStartedError
	if len(unstarted) == 1 || !errors.As(unstarted[0], &first) {
		return unstarted[0]
	}
	return &interrupt.NotStartedError{What: fmt.Sprintf("%s and %d more %s", first.What, len(unstarted)-1, what), Many: true}
}

// joinFailures is the error of calls that ran side by side and of which some failed:
// the first failure, with the count of the others (what names what failed), then each
// of the others on a line of its own; nil when none failed. Every cause is kept, for
// errors.Is and errors.As too.
func joinFailures(failed []error, what string) error {
	switch len(failed) {
	case 0:
		return nil
	case 1:
		return failed[0]
	}
	return fmt.Errorf("%w (and %d more %s failed)\n%w", failed[0], len(failed)-1, what, errors.Join(failed[1:]...))
}
