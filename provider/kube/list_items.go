package kube

import (
	"context"
	"fmt"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
)

// listItem is one Endpoints object of an EndpointsList: its inputs (read from the
// list's inputs, see itemsOf) and its state, the live outputs once written (read from
// the list's state, see recordedItems).
type listItem struct {
	id     objectID
	inputs decoded
	output decoded
}

// deleteTarget is what deleting the item of the list owner deletes: read from a state,
// the object its claim holds (see claim).
func (it listItem) deleteTarget(owner resource.URN) deleteTarget {
	return deleteTarget{id: it.id, claim: it.recorded(endpointsKind).claim(owner)}
}

// recorded is what the item's state records of its object, of kind k (see recorded).
func (it listItem) recorded(k kind) recorded { return recordedIn(k, it.output) }

// itemSet is the set of items a list's state records, by namespace/name, in the order
// they were first recorded.
type itemSet struct {
	order []objectID
	byID  map[objectID]listItem
}

// newItemSet records the items of a state, each with the state's item as its outputs.
func newItemSet(state decoded) *itemSet {
	s := &itemSet{byID: map[objectID]listItem{}}
	for _, it := range recordedItems(state) {
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
// item written, with the outputs its write gave it, and each item whose create may have
// taken effect (its answer was lost, see inDoubt), with its inputs, so that it is never
// orphaned: a new item's, or the create of an update that found the item's object
// gone (see recreated), which replaces the record of the object that is gone. An item whose write failed for sure, or was never sent, keeps what the set
// recorded of it, if anything.
func (s *itemSet) recordWrites(items []listItem, results []itemResult) {
	for i, it := range items {
		res := results[i]
		switch {
		case !res.sent:
			continue
		case res.err == nil:
		case res.inDoubt && (!s.has(it.id) || recreated(res.err) != nil):
			// A create, or an update's create of an item it found gone, that may
			// have taken effect: the item is recorded as sent, with no UID, so the
			// next update or destroy finds what it made (see claim).
			it.output = it.inputs
		default:
			continue
		}
		s.record(it)
	}
}

// itemResult is the outcome of one item's call: whether it was sent, and its error;
// inDoubt says that it failed and may have taken effect all the same (see mayExist),
// which only a cluster's writes may. A call keeps what it gives in its item (see
// listItem.output).
type itemResult struct {
	sent    bool
	err     error
	inDoubt bool
}

// itemCalls is how the creates, updates and reads of a list's items run: carefully
// (see fanOut), each named by its index.
var itemCalls = fanOut{
	what:    "item(s)",
	name:    func(i int) string { return fmt.Sprintf("items[%d]", i) },
	prefix:  true,
	careful: true,
}

// forItems runs do for the items 0 to n-1 as itemCalls: the first alone, then the
// rest up to fanOutLimit at a time; after a failure, or once the engine cancels,
// nothing further is sent, and the calls in flight finish.
func forItems(ctx context.Context, n int, do func(i int) error) []itemResult {
	results := make([]itemResult, n)
	for i, c := range itemCalls.run(ctx, n, do) {
		results[i].sent, results[i].err = c.sent, c.err
	}
	return judged(results)
}

// judged is results with each write that failed and may have taken effect all the
// same marked inDoubt (see mayExist): the calls of a cluster.
func judged(results []itemResult) []itemResult {
	for i, res := range results {
		results[i].inDoubt = res.sent && res.err != nil && mayExist(res.err)
	}
	return results
}

// itemsFailed is the error of the items whose call failed, naming each (items[i] for
// results[i]), the first one first, and then, in one error, those not started because
// the engine is cancelling (see fanOut.failed); nil when none failed.
func itemsFailed(results []itemResult) error {
	errs := make([]error, len(results))
	for i, res := range results {
		errs[i] = res.err
	}
	return itemCalls.failed(errs)
}
