package kube

// unansweredNote is what the partial state of a list adds when some of its item
// writes got no answer: those items are recorded, though they may not exist (or not
// be as written), and the next update settles them.
const unansweredNote = "; the API server gave no answer to some of these writes (the connection broke, or etcd " +
	"did not confirm them), so those items may or may not have been written: they are recorded too, and the next " +
	"`pulumi up` reads each item before it writes"

// someUnanswered tells whether any of the item failures joined in err (see
// itemsFailed) is a write whose outcome is unknown.
func someUnanswered(err error) bool {
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range joined.Unwrap() {
			if someUnanswered(e) {
				return true
			}
		}
		return false
	}
	return err != nil && ambiguous(err)
}
