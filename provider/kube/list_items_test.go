package kube

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/endpoints-provider/pulumi-endpoints/provider/internal/interrupt"
)

// The first item goes alone: when it fails, nothing else is sent.
func TestForItemsFirstFailureSendsNothingElse(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	results := forItems(t.Context(), 40, func(int) error {
		calls.Add(1)
		return errors.New("denied")
	})
	if calls.Load() != 1 || !results[0].sent || results[1].sent {
		t.Errorf("%d calls, results[0].sent %v, results[1].sent %v; want the first call alone",
			calls.Load(), results[0].sent, results[1].sent)
	}
}

// After a failure no further item is sent; the calls in flight finish and every
// outcome is kept.
func TestForItemsStopsAfterAFailure(t *testing.T) {
	t.Parallel()
	const n, failing = 200, 3
	done := make([]bool, n)
	results := forItems(t.Context(), n, func(i int) error {
		if i == failing {
			return errors.New("denied")
		}
		if i > 0 {
			time.Sleep(100 * time.Millisecond) // the failure comes while these are in flight
		}
		done[i] = true
		return nil
	})
	sent := 0
	for i, res := range results {
		if !res.sent {
			continue
		}
		sent++
		if (res.err != nil) != (i == failing) {
			t.Errorf("results[%d].err = %v", i, res.err)
		}
		if res.err == nil && !done[i] {
			t.Errorf("results[%d] succeeded, but its call did not finish", i)
		}
	}
	if !results[failing].sent || sent > 1+fanOutLimit {
		t.Errorf("%d of %d items sent; want the first, then at most %d at a time until the failure", sent, n, fanOutLimit)
	}
}

// The error names the first failed item, counts the others and keeps every cause.
func TestItemsFailedKeepsEveryCause(t *testing.T) {
	t.Parallel()
	first, second := errors.New("first cause"), errors.New("second cause")
	results := []itemResult{{sent: true}, {sent: true, err: first}, {sent: true}, {sent: true, err: second}}
	err := itemsFailed(results)
	if err == nil || !strings.HasPrefix(err.Error(), "items[1]: first cause (and 1 more item(s) failed)") ||
		!strings.Contains(err.Error(), "items[3]: second cause") {
		t.Errorf("itemsFailed = %v, want items[1] first, then items[3]", err)
	}
	if !errors.Is(err, first) || !errors.Is(err, second) {
		t.Errorf("itemsFailed = %v does not wrap both causes", err)
	}
	if err := itemsFailed(results[:1]); err != nil {
		t.Errorf("itemsFailed of a success = %v, want nil", err)
	}
	if err := itemsFailed(results[:2]); err == nil || err.Error() != "items[1]: first cause" {
		t.Errorf("itemsFailed of one failure = %v, want items[1]: first cause", err)
	}
}

// The set keeps the order of first recording: a replaced item keeps its place, a
// forgotten one leaves, and writes that failed for sure record nothing new.
func TestItemSet(t *testing.T) {
	t.Parallel()
	item := func(name, ip string) listItem {
		return listItem{id: objectID{namespace: "n", name: name},
			inputs: plain(map[string]any{"ip": ip})}
	}
	set := &itemSet{byID: map[objectID]listItem{}}
	for _, it := range []listItem{item("a", "1"), item("b", "1"), item("c", "1")} {
		it.output = it.inputs
		set.record(it)
	}
	lost := &lostAnswer{}
	written := item("b", "2")
	written.output = written.inputs // the outputs of its write
	set.recordWrites([]listItem{written, item("d", "2"), item("e", "2"), item("f", "2")}, judged([]itemResult{
		{sent: true},
		{sent: true, err: lost}, // may have been created: recorded with its inputs
		{sent: true, err: apierrors.NewForbidden(endpointsKind.resource.GroupResource(), "e", errors.New("denied"))}, // not created
		{sent: false}, // never sent
	}))
	set.forget(objectID{namespace: "n", name: "a"})
	var got []string
	for _, it := range set.items() {
		got = append(got, it.id.name+"="+it.output.fields["ip"].(string))
	}
	if diff := cmp.Diff([]string{"b=2", "c=1", "d=2"}, got); diff != "" {
		t.Errorf("items (-want +got):\n%s", diff)
	}
}

// lostAnswer is an error without an API status: the write's outcome is unknown.
type lostAnswer struct{}

func (*lostAnswer) Error() string { return "connection reset" }

// Once the engine cancels, the items in flight finish (and are recorded) and no
// further item starts; the error counts those not started in one line.
func TestForItemsStopsStartingOnCancel(t *testing.T) {
	t.Parallel()
	cancelling, cancel := context.WithCancel(t.Context())
	ctx := interrupt.With(t.Context(), cancelling)
	const n = 100
	var calls atomic.Int32
	results := forItems(ctx, n, func(int) error {
		if calls.Add(1) == 5 {
			cancel() // the engine cancels while items are in flight
		}
		time.Sleep(50 * time.Millisecond)
		return ctx.Err()
	})
	set := newItemSet(decoded{})
	items := make([]listItem, n)
	for i := range items {
		items[i] = listItem{id: objectID{namespace: "ns", name: strconv.Itoa(i)}}
	}
	set.recordWrites(items, results)
	sent := int(calls.Load())
	if sent >= n || sent < 5 || len(set.items()) != sent {
		t.Fatalf("%d items sent, %d recorded, of %d: want those in flight at the cancel sent and recorded, no more",
			sent, len(set.items()), n)
	}
	err := itemsFailed(results)
	if !interrupt.IsNotStarted(err) ||
		!strings.Contains(err.Error(), fmt.Sprintf("] and %d more item(s) were not started: the engine is cancelling", n-sent-1)) {
		t.Errorf("error = %v, want the %d items not started counted", err, n-sent)
	}
}
