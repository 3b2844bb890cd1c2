package kube

import (
	"fmt"

	p "github.com/pulumi/pulumi-go-provider"
)

// unconfirmed is the error of a create whose outcome is unknown: err, and what it
// leaves in the state.
func unconfirmed(k kind, id objectID, err error) error {
	return fmt.Errorf("%w; the API server gave no answer, so %s %s may or may not exist: it is recorded in the state "+
		"and the next `pulumi up` finds it or creates it", err, k.name, id)
}

// partialFailure is the answer to a write that stopped part way, leaving an object
// that exists, or may exist, but did not finish: the partial state the engine records
// always travels with the error it reports (pulumi-go-provider requires the error to be
// non-nil alongside the state), both saying err. The error is err itself, so that what
// answers for the resource further out (see Unreachable) still finds its cause.
func partialFailure(err error) (*p.InitializationFailed, error) {
	return &p.InitializationFailed{Reasons: []string{err.Error()}}, err
}

// restated is a partial state, if any, saying err: the error that what answers for the
// resource further out (see Unreachable) made of the partial failure's. The engine
// shows the partial state's reasons, not the error.
func restated(state *p.InitializationFailed, err error) *p.InitializationFailed {
	if state == nil || err == nil {
		return state
	}
	state, _ = partialFailure(err)
	return state
}
