package kube

import (
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/endpoints-provider/pulumi-endpoints/provider/kube/cloudauth"
)

// Requests that fail for their credentials, in one place: a token that could not be
// made in the provider's process (cloudauth.CredentialsError), and a 401 answer; and
// the words the user reads for each (credentialsFailure). Neither is an unreachable
// cluster, and neither leaves a write in doubt (both are API statuses, see ambiguous).

// credentialsFailure is the error of the request what (`create EndpointSlice ns/web`)
// that failed with err for its credentials, or nil when err is no such failure: no
// token could be made in the provider's process (without the transport's `Post
// "<url>":`: the URL was not asked), or the API server, named by server when not "",
// answered 401 (to a token made in process, with what cloudauth says to check on the
// cloud).
func credentialsFailure(what, server string, err error) error {
	if server != "" {
		server = " " + server
	}
	var made *cloudauth.CredentialsError
	switch {
	case errors.As(err, &made) && made.Renewal:
		return &reworded{err: err, msg: fmt.Sprintf("%s: the API server%s rejected the token made in the provider's "+
			"process (401), and no new token could be made: %v", what, server, made.Err)}
	case errors.As(err, &made):
		return &reworded{err: err, msg: fmt.Sprintf("%s: no token for the cluster could be made in the provider's "+
			"process, so no request was sent: %v", what, made.Err)}
	case cloudauth.Refused(err):
		return fmt.Errorf("%s: the API server%s rejected the credentials (401): %w", what, server, err)
	case apierrors.IsUnauthorized(err):
		return fmt.Errorf("%s: the API server%s rejected the credentials (401); check the kubeconfig's user: %w",
			what, server, err)
	}
	return nil
}

// reworded is err said in other words: errors.Is and errors.As still reach err.
type reworded struct {
	msg string
	err error
}

func (e *reworded) Error() string { return e.msg }
func (e *reworded) Unwrap() error { return e.err }
