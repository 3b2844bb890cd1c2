package kube

import "slices"

// unansweredNote is what the partial state of a list adds when some of its item
// writes got no answer: those items are recorded, though they may not exist (or not
// be as written), and the next update settles them.
const unansweredNote = "; the API server gave no answer to some of these writes (the connection broke, or etcd " +
	"did not confirm them), so those items may or may not have been written: they are recorded too, and the next " +
	"`pulumi up` reads each item before it writes"

// inDoubt tells whether an item write that failed with err may have taken effect: it
// was sent and no definite answer came back (see ambiguous). A write whose connection
// could not be made was never sent (see notSent), so it is not in doubt.
func inDoubt(err error) bool {
	return ambiguous(err) && !notSent(err)
}

// someUnanswered tells whether any item write was sent and failed without saying
// whether it took effect (see inDoubt). Items not sent (after a failure, or once
// the engine cancels) are not in doubt.
func someUnanswered(results []itemResult) bool {
	return slices.ContainsFunc(results, func(res itemResult) bool {
		return res.sent && res.err != nil && inDoubt(res.err)
	})
}
