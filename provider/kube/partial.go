package kube

import (
	"errors"
	"fmt"

	p "github.com/pulumi/pulumi-go-provider"
)

// unconfirmed explains a create whose outcome is unknown.
func unconfirmed(k kind, id objectID, err error) string {
	return fmt.Sprintf("%v; the API server gave no answer, so %s %s may or may not exist: it is recorded in the state "+
		"and the next `pulumi up` finds it or creates it", err, k.name, id)
}

// partialFailure is the answer to a write that stopped part way, leaving an object
// that exists, or may exist, but did not finish: the partial state the engine records
// always travels with the error it reports (pulumi-go-provider requires the error to be
// non-nil alongside the state), both saying reason.
func partialFailure(reason string) (*p.InitializationFailed, error) {
	return &p.InitializationFailed{Reasons: []string{reason}}, errors.New(reason)
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
