package google

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"google.golang.org/api/googleapi"

	"github.com/endpoints-provider/pulumi-endpoints/provider/internal/crash"
)

func TestBackoff(t *testing.T) {
	t.Parallel()
	policy := defaultRetry
	low := func(int64) int64 { return 0 }
	high := func(n int64) int64 { return n - 1 }
	tests := []struct {
		retry      int
		retryAfter time.Duration
		jitter     func(int64) int64
		want       time.Duration
	}{
		{1, 0, low, 100 * time.Millisecond},
		{1, 0, high, 200 * time.Millisecond},
		{2, 0, high, 400 * time.Millisecond},
		{3, 0, low, 400 * time.Millisecond},
		{6, 0, high, 6400 * time.Millisecond},
		{7, 0, high, 10 * time.Second}, // capped
		{7, 0, low, 5 * time.Second},
		{100, 0, high, 10 * time.Second}, // no overflow
		{1, 3 * time.Second, low, 3 * time.Second},
		{1, time.Minute, low, 10 * time.Second}, // Retry-After is capped too
		{6, time.Second, high, 6400 * time.Millisecond},
	}
	for _, tt := range tests {
		if got := policy.backoff(tt.retry, tt.retryAfter, tt.jitter); got != tt.want {
			t.Errorf("backoff(%d, retry-after %s) = %s, want %s", tt.retry, tt.retryAfter, got, tt.want)
		}
	}
	for range 1000 {
		if d := policy.backoff(2, 0, jitter); d < 200*time.Millisecond || d > 400*time.Millisecond {
			t.Fatalf("backoff(2) with real jitter = %s, want within [200ms, 400ms]", d)
		}
	}
}

func TestRetryable(t *testing.T) {
	t.Parallel()
	apiErr := func(code int, h http.Header) error {
		// The generated clients wrap googleapi errors; classification must see through that.
		return fmt.Errorf("wrapped: %w", &googleapi.Error{Code: code, Header: h})
	}
	tests := []struct {
		name  string
		err   error
		want  bool
		after time.Duration
	}{
		{"429", apiErr(429, nil), true, 0},
		{"429 with Retry-After", apiErr(429, http.Header{"Retry-After": {"7"}}), true, 7 * time.Second},
		{"500", apiErr(500, nil), true, 0},
		{"502", apiErr(502, nil), true, 0},
		{"503", apiErr(503, nil), true, 0},
		{"504", apiErr(504, nil), true, 0},
		{"400", apiErr(400, nil), false, 0},
		{"401", apiErr(401, nil), false, 0},
		{"403", apiErr(403, nil), false, 0},
		{"404", apiErr(404, nil), false, 0},
		{"501", apiErr(501, nil), false, 0},
		{"connection reset", &url.Error{Op: "Get", URL: "u", Err: &net.OpError{Op: "read", Err: os.NewSyscallError("read", syscall.ECONNRESET)}}, true, 0},
		{"cut short", &url.Error{Op: "Get", URL: "u", Err: io.ErrUnexpectedEOF}, true, 0},
		{"closed before answering", &url.Error{Op: "Get", URL: "u", Err: io.EOF}, true, 0},
		{"connection refused", &url.Error{Op: "Get", URL: "u", Err: &net.OpError{Op: "dial", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}}, false, 0},
		{"malformed answer", errors.New("invalid character 'x' looking for beginning of value"), false, 0},
	}
	for _, tt := range tests {
		after, ok := retryable(tt.err)
		if ok != tt.want || after != tt.after {
			t.Errorf("retryable(%s) = %s, %v; want %s, %v", tt.name, after, ok, tt.after, tt.want)
		}
	}
}

var testSubject = subject{kind: "thing", path: "things/t", action: "reading thing things/t"}

// fastPolicy retries without noticeable waits.
var fastPolicy = RetryPolicy{Base: time.Millisecond, Factor: 2, Max: 2 * time.Millisecond, Attempts: 3}

func TestRetryAttempts(t *testing.T) {
	t.Parallel()
	unavailable := &googleapi.Error{Code: 503, Message: "try later"}
	tests := []struct {
		name     string
		answers  []error // one per attempt; attempts past the list succeed
		wantErr  string
		attempts int32
	}{
		{"success at once", nil, "", 1},
		{"success on the last attempt", []error{unavailable, unavailable}, "", 3},
		{"attempts run out", []error{unavailable, unavailable, unavailable, unavailable},
			"reading thing things/t failed after 3 attempts; last error: service unavailable (503): try later", 3},
		{"a permanent failure stops at once", []error{unavailable, &googleapi.Error{Code: 403, Message: "no"}},
			"permission denied (403) reading thing things/t: no", 2},
		{"a transport failure", []error{errors.New("tls: bad certificate")}, "reading thing things/t: tls: bad certificate", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var calls atomic.Int32
			v, err := retry(t.Context(), fastPolicy, testSubject, func(context.Context) (string, error) {
				n := int(calls.Add(1))
				if n <= len(tt.answers) {
					return "", tt.answers[n-1]
				}
				return "ok", nil
			})
			switch {
			case tt.wantErr == "" && (err != nil || v != "ok"):
				t.Errorf("retry = %q, %v; want ok", v, err)
			case tt.wantErr != "" && (err == nil || err.Error() != tt.wantErr):
				t.Errorf("err = %v\nwant %s", err, tt.wantErr)
			}
			if got := calls.Load(); got != tt.attempts {
				t.Errorf("%d attempts, want %d", got, tt.attempts)
			}
		})
	}
}

func TestRetryStopsPromptlyMidBackoff(t *testing.T) {
	t.Parallel()
	cause := errors.New("the operation was canceled by the engine")
	ctx, cancel := context.WithCancelCause(t.Context())
	slow := RetryPolicy{Base: time.Hour, Factor: 2, Max: time.Hour, Attempts: 5}
	var calls atomic.Int32
	time.AfterFunc(50*time.Millisecond, func() { cancel(cause) })
	began := time.Now()
	_, err := retry(ctx, slow, testSubject, func(context.Context) (int, error) {
		calls.Add(1)
		return 0, &googleapi.Error{Code: 503, Message: "try later"}
	})
	if took := time.Since(began); took > 2*time.Second {
		t.Errorf("retry returned %s after the cancellation, want promptly", took)
	}
	want := "reading thing things/t stopped after 1 attempt: the operation was canceled by the engine; last error: service unavailable (503): try later"
	if err == nil || err.Error() != want {
		t.Errorf("err = %v\nwant %s", err, want)
	}
	if !errors.Is(err, cause) {
		t.Errorf("errors.Is(err, cause) = false; the cancellation cause must be kept")
	}
	var gerr *googleapi.Error
	if !errors.As(err, &gerr) || gerr.Code != 503 {
		t.Errorf("the last error is not reachable with errors.As: %v", err)
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("%d attempts, want 1", n)
	}
}

func TestRetryAbandonsACallThatIgnoresItsContext(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeoutCause(t.Context(), 50*time.Millisecond, errors.New("the lookup timed out after 50ms"))
	defer cancel()
	began := time.Now()
	_, err := retry(ctx, fastPolicy, testSubject, func(context.Context) (int, error) {
		time.Sleep(5 * time.Second) // like an oauth2 token source, deaf to the context
		return 1, nil
	})
	if took := time.Since(began); took > 2*time.Second {
		t.Errorf("retry returned after %s, want soon after the 50ms timeout", took)
	}
	want := "reading thing things/t stopped after 1 attempt: the lookup timed out after 50ms"
	if err == nil || err.Error() != want {
		t.Errorf("err = %v\nwant %s", err, want)
	}
}

// An attempt that panics in its goroutine panics retry in the caller's, so that the
// plugin's server recovers it rather than the process ending.
func TestRetryCarriesAnAttemptsPanicToTheCaller(t *testing.T) {
	t.Parallel()
	p := crash.Catch(func() {
		_, _ = retry(t.Context(), fastPolicy, testSubject, func(context.Context) (int, error) {
			panic("a bug in decoding")
		})
	})
	if p == nil || p.Value != "a bug in decoding" || !strings.Contains(string(p.Stack), "TestRetryCarriesAnAttemptsPanicToTheCaller") {
		t.Fatalf("retry's panic = %+v, want the attempt's, with the stack of its goroutine", p)
	}
}
