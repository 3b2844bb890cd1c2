package google

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"

	"google.golang.org/api/googleapi"

	"github.com/endpoints-provider/pulumi-endpoints/provider/internal/crash"
	"github.com/endpoints-provider/pulumi-endpoints/provider/internal/secret"
)

// RetryPolicy says how a lookup retries transient failures: 429, 500, 502, 503 and 504
// answers and connections reset or cut short. The n-th retry waits a random time
// between half and all of min(Max, Base*Factor^(n-1)), or longer when the server asks
// for it with Retry-After (up to Max). The lookup's context bounds it all.
type RetryPolicy struct {
	Base   time.Duration
	Factor float64
	Max    time.Duration
	// Attempts bounds the number of requests, the first one included.
	Attempts int
}

// backoff returns the wait before retry n (1 for the first retry). jitter(k) returns a
// number in [0, k).
func (r RetryPolicy) backoff(n int, retryAfter time.Duration, jitter func(int64) int64) time.Duration {
	ceiling := float64(r.Base) * math.Pow(r.Factor, float64(n-1))
	if ceiling > float64(r.Max) || math.IsInf(ceiling, 0) || math.IsNaN(ceiling) {
		ceiling = float64(r.Max)
	}
	d := time.Duration(ceiling)
	if half := d / 2; half > 0 {
		d = half + time.Duration(jitter(int64(d-half)+1))
	}
	if retryAfter > d {
		d = min(retryAfter, r.Max)
	}
	return d
}

// jitter is the random source of backoff.
func jitter(n int64) int64 {
	return rand.Int64N(n) //nolint:gosec // spreading retries needs no cryptographic randomness
}

// retry runs call until it succeeds, fails for good, runs out of attempts or ctx ends.
// Each attempt runs under ctx and is abandoned when ctx ends, even if the call does not
// watch ctx (token sources of the oauth2 library do not), so the lookup returns promptly.
func retry[T any](ctx context.Context, policy RetryPolicy, subj subject, call func(context.Context) (T, error)) (T, error) {
	var (
		zero T
		last error
	)
	for attempt := 1; ; attempt++ {
		v, err := runAttempt(ctx, call)
		if err == nil {
			return v, nil
		}
		if ctx.Err() != nil {
			if !isContextError(ctx, err) {
				last = err
			}
			return zero, &RetryError{Action: subj.action, Attempts: attempt, Stop: context.Cause(ctx), Last: last}
		}
		after, ok := retryable(err)
		if !ok {
			return zero, describe(subj, err)
		}
		last = err
		if attempt >= policy.Attempts {
			return zero, &RetryError{Action: subj.action, Attempts: attempt, Last: last}
		}
		wait := policy.backoff(attempt, after, jitter)
		secret.Logger(ctx).Debugf("retrying a Google API call: %s; attempt %d of %d failed (%s); next attempt in %s",
			subj.action, attempt, policy.Attempts, briefly(last), wait.Round(time.Millisecond))
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return zero, &RetryError{Action: subj.action, Attempts: attempt, Stop: context.Cause(ctx), Last: last}
		case <-timer.C:
		}
	}
}

// runAttempt runs one call, returning early with the context's cause if ctx ends first.
// A call that panics panics runAttempt (see package crash); once runAttempt has
// returned, the panic of a call it abandoned ends with that call's goroutine.
func runAttempt[T any](ctx context.Context, call func(context.Context) (T, error)) (T, error) {
	type result struct {
		v     T
		err   error
		panic *crash.Panic
	}
	done := make(chan result, 1)
	go func() {
		var r result
		r.panic = crash.Catch(func() { r.v, r.err = call(ctx) })
		done <- r
	}()
	select {
	case r := <-done:
		if r.panic != nil {
			panic(r.panic) // in the caller's goroutine, where the plugin's server recovers it
		}
		return r.v, r.err
	case <-ctx.Done():
		var zero T
		return zero, context.Cause(ctx)
	}
}

func isContextError(ctx context.Context, err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Cause(ctx))
}

// retryable reports whether a failed attempt may succeed when repeated, and how long
// the server asked to wait (zero when it did not say).
func retryable(err error) (time.Duration, bool) {
	var gerr *googleapi.Error
	if errors.As(err, &gerr) {
		switch gerr.Code {
		case http.StatusTooManyRequests, http.StatusInternalServerError, http.StatusBadGateway,
			http.StatusServiceUnavailable, http.StatusGatewayTimeout:
			return retryAfter(gerr.Header), true
		}
		return 0, false
	}
	switch {
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE),
		errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return 0, true
	}
	// Resets surface as text in some wrappings (HTTP/2 stream errors, TLS alerts).
	msg := err.Error()
	return 0, strings.Contains(msg, "connection reset by peer") || strings.Contains(msg, "http2: server sent GOAWAY")
}

// retryAfter reads a Retry-After header given in seconds.
func retryAfter(h http.Header) time.Duration {
	if s, err := strconv.Atoi(h.Get("Retry-After")); err == nil && s > 0 {
		return time.Duration(s) * time.Second
	}
	return 0
}

// RetryError is a lookup that failed although its failures were worth retrying: it ran
// out of attempts, or its context ended (a timeout or a cancellation) first.
type RetryError struct {
	// Action is what the lookup was doing.
	Action string
	// Attempts counts the requests made.
	Attempts int
	// Stop is why the lookup stopped before its attempts ran out; nil if they ran out.
	Stop error
	// Last is the last failed attempt's error, as the library returned it; nil if no
	// attempt finished.
	Last error
}

// Error says how many attempts were made, why they stopped and the last error.
func (e *RetryError) Error() string {
	var b strings.Builder
	if e.Stop == nil {
		fmt.Fprintf(&b, "%s failed after %s", e.Action, attempts(e.Attempts))
	} else {
		fmt.Fprintf(&b, "%s stopped after %s: %v", e.Action, attempts(e.Attempts), e.Stop)
	}
	if e.Last != nil {
		fmt.Fprintf(&b, "; last error: %s", briefly(e.Last))
	}
	return b.String()
}

// Unwrap returns the cause of the stop and the last error.
func (e *RetryError) Unwrap() []error {
	var errs []error
	for _, err := range []error{e.Stop, e.Last} {
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

func attempts(n int) string {
	if n == 1 {
		return "1 attempt"
	}
	return fmt.Sprintf("%d attempts", n)
}
