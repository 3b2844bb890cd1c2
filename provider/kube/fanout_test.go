package kube

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/endpoints-provider/pulumi-endpoints/provider/internal/crash"
)

// Without care (deletes), every call is made whatever fails, at most fanOutLimit at a
// time, and the error keeps each failure as it is, the first call's first.
func TestFanOutTriesEveryCall(t *testing.T) {
	t.Parallel()
	const n = 50
	var inFlight, most, calls atomic.Int32
	f := fanOut{what: "delete(s)", name: func(i int) string { return fmt.Sprintf("the delete of %d", i) }}
	outcomes := f.run(t.Context(), n, func(i int) error {
		calls.Add(1)
		now := inFlight.Add(1)
		defer inFlight.Add(-1)
		for {
			if old := most.Load(); now <= old || most.CompareAndSwap(old, now) {
				break
			}
		}
		time.Sleep(10 * time.Millisecond)
		if i%10 == 3 {
			return fmt.Errorf("gone wrong %d", i)
		}
		return nil
	})
	if calls.Load() != n || most.Load() > fanOutLimit {
		t.Errorf("%d of %d calls made, at most %d at a time; want every call, at most %d at a time",
			calls.Load(), n, most.Load(), fanOutLimit)
	}
	errs := make([]error, n)
	for i, c := range outcomes {
		if !c.sent {
			t.Errorf("call %d was not sent", i)
		}
		errs[i] = c.err
	}
	err := f.failed(errs)
	if err == nil || !strings.HasPrefix(err.Error(), "gone wrong 3 (and 4 more delete(s) failed)\n") ||
		strings.Contains(err.Error(), "the delete of") {
		t.Errorf("failed = %v, want the first failure as it is, and 4 more", err)
	}
	if f.failed(make([]error, n)) != nil {
		t.Error("failed of successes is not nil")
	}
}

// A call that panics in its goroutine panics run in the caller's, once every call has
// ended, so that the plugin's server recovers it rather than the process ending.
func TestFanOutCarriesAPanicToTheCaller(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	f := fanOut{what: "item(s)", name: func(i int) string { return fmt.Sprintf("items[%d]", i) }}
	p := crash.Catch(func() {
		f.run(t.Context(), 5, func(i int) error {
			calls.Add(1)
			if i == 3 {
				panic("a bug in an item")
			}
			return nil
		})
	})
	if p == nil || p.Value != "a bug in an item" || !strings.Contains(string(p.Stack), "TestFanOutCarriesAPanicToTheCaller") {
		t.Fatalf("run's panic = %+v, want the item's, with the stack of its goroutine", p)
	}
	if calls.Load() != 5 {
		t.Errorf("%d calls made, want all 5", calls.Load())
	}
}
