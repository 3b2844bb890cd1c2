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
