package kube

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/pulumi/pulumi/sdk/v3/go/property"
	"golang.org/x/sync/errgroup"

	"github.com/endpoints-provider/pulumi-endpoints/provider/internal/interrupt"
)

// listItem is one Endpoints object of an EndpointsList: its inputs and, once written,
// its live outputs.
type listItem struct {
	id     objectID
	inputs property.Map
	output property.Map
}

// deleteTarget is what deleting the item deletes: read from a state, it names the UID
// of the object written.
func (it listItem) deleteTarget() deleteTarget {
	return deleteTarget{id: it.id, uid: uidOf(it.inputs)}
}

// itemsOf reads the items of an EndpointsList's inputs or state, in order.
func itemsOf(m property.Map) []listItem {
	v, ok := m.GetOk("items")
	if !ok || !v.IsArray() {
		return nil
	}
	var items []listItem
	for _, item := range v.AsArray().All {
		if !item.IsMap() {
			continue
		}
		meta := mapField(item.AsMap(), "metadata")
		ns, _ := stringField(meta, "namespace")
		name, _ := stringField(meta, "name")
		items = append(items, listItem{id: objectID{namespace: ns, name: name}, inputs: item.AsMap()})
	}
	return items
}

// itemSet is the set of items a list's state records, by namespace/name, in the order
// they were first recorded.
type itemSet struct {
	order []objectID
	byID  map[objectID]listItem
}

// newItemSet records the items of a state, each with the state's item as its outputs.
func newItemSet(state property.Map) *itemSet {
	s := &itemSet{byID: map[objectID]listItem{}}
	for _, it := range itemsOf(state) {
		it.output = it.inputs
		s.record(it)
	}
	return s
}

// record adds the item, or replaces the item of its name in its place.
func (s *itemSet) record(it listItem) {
	if _, known := s.byID[it.id]; !known {
		s.order = append(s.order, it.id)
	}
	s.byID[it.id] = it
}

func (s *itemSet) has(id objectID) bool {
	_, ok := s.byID[id]
	return ok
}

func (s *itemSet) get(id objectID) listItem { return s.byID[id] }

// forget removes the item of that name.
func (s *itemSet) forget(id objectID) { delete(s.byID, id) }

// items lists the items recorded, in order.
func (s *itemSet) items() []listItem {
	out := make([]listItem, 0, len(s.byID))
	for _, id := range s.order {
		if it, ok := s.byID[id]; ok {
			out = append(out, it)
		}
	}
	return out
}

// dropped lists the items recorded that are not among desired, in order: those an
// update removes.
func (s *itemSet) dropped(desired []listItem) []listItem {
	wanted := make(map[objectID]bool, len(desired))
	for _, it := range desired {
		wanted[it.id] = true
	}
	var out []listItem
	for _, it := range s.items() {
		if !wanted[it.id] {
			out = append(out, it)
		}
	}
	return out
}

// recordWrites records what the writes of items did (results[i] for items[i]): each
// item written, with its outputs, and each item whose create may have taken effect
// (its answer was lost), with its inputs, so that it is never orphaned. An item whose
// write failed for sure keeps what the set recorded of it, if anything.
func (s *itemSet) recordWrites(items []listItem, results []itemResult) {
	for i, it := range items {
		res := results[i]
		switch {
		case !res.sent:
			continue
		case res.err == nil:
			it.output = res.output
		case ambiguous(res.err) && !s.has(it.id):
			it.output = it.inputs
		default:
			continue
		}
		s.record(it)
	}
}

// itemResult is the outcome of one item's call: whether it was sent, and its outputs
// or error.
type itemResult struct {
	sent   bool
	output property.Map
	err    error
}

// itemParallelism bounds the creates, updates and reads of a list's items in flight
// at once.
const itemParallelism = 16

// forItems runs do for the items 0 to n-1: the first alone, so that a failure every
// item would meet (a missing namespace, a denied write) writes nothing and costs one
// request, then the rest up to itemParallelism at a time. After a failure nothing
// further is sent; the calls in flight finish, so that each outcome is known. Once the
// engine cancels (see package interrupt) no further item starts either: each of those
// is left unsent with an error that says it was not started.
func forItems(ctx context.Context, n int, do func(i int) (property.Map, error)) []itemResult {
	results := make([]itemResult, n)
	if n == 0 {
		return results
	}
	run := func(i int) bool {
		if err := interrupt.NotStarted(ctx, fmt.Sprintf("items[%d]", i)); err != nil {
			results[i] = itemResult{err: err}
			return false
		}
		output, err := do(i)
		results[i] = itemResult{sent: true, output: output, err: err}
		return err == nil
	}
	if !run(0) {
		notStarted(ctx, results)
		return results
	}
	var (
		// No context: a failure must not cancel the calls in flight.
		calls  errgroup.Group
		failed atomic.Bool
	)
	calls.SetLimit(itemParallelism)
	for i := 1; i < n && !failed.Load(); i++ {
		calls.Go(func() error {
			// Go waits for a free slot; a failure seen meanwhile stops this item too.
			if !failed.Load() && !run(i) {
				failed.Store(true)
			}
			return nil
		})
	}
	_ = calls.Wait() // every call returns nil: the outcomes are in results
	notStarted(ctx, results)
	return results
}

// notStarted marks each item not sent as not started, once the engine is cancelling;
// otherwise it changes nothing (the items not sent after a failure carry no error).
func notStarted(ctx context.Context, results []itemResult) {
	for i, res := range results {
		if !res.sent && res.err == nil {
			results[i].err = interrupt.NotStarted(ctx, fmt.Sprintf("items[%d]", i))
		}
	}
}

// itemsFailed is the error of the items whose call failed, naming each (items[i] for
// results[i]), the first one first (see joinFailures), and then, in one error, those
// not started because the engine is cancelling; nil when none failed.
func itemsFailed(results []itemResult) error {
	var failed, unstarted []error
	for i, res := range results {
		switch {
		case res.err == nil:
		case interrupt.IsNotStarted(res.err):
			unstarted = append(unstarted, res.err)
		default:
			failed = append(failed, fmt.Errorf("items[%d]: %w", i, res.err))
		}
	}
	if len(unstarted) > 0 {
		failed = append(failed, collapseNotStarted(unstarted, "item(s)"))
	}
	return joinFailures(failed, "item(s)")
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
