package kube

import (
	"errors"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ambiguous tells whether a failed write may have taken effect anyway: the request
// may have reached the server, but no definite answer came back (the connection
// failed, the call was canceled or timed out, the server timed out or failed
// internally).
func ambiguous(err error) bool {
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		return true
	}
	switch status.Status().Reason {
	case metav1.StatusReasonTimeout, metav1.StatusReasonServerTimeout, metav1.StatusReasonInternalError:
		return true
	}
	return false
}

// apiError turns an API server error into a message that names the object, says what
// happened in plain words and what the user can do.
func apiError(verb string, k kind, id objectID, err error) error {
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		return fmt.Errorf("%s %s %s: %w", verb, k.name, id, err)
	}
	s := status.Status()
	switch {
	case apierrors.IsAlreadyExists(err):
		return fmt.Errorf("%s %s already exists (409); existing objects are never adopted: "+
			"import it with `pulumi import %s <name> %s`, or choose another name: %w",
			k.name, id, k.token, id, err)
	case apierrors.IsInvalid(err):
		var causes []string
		if s.Details != nil {
			for _, c := range s.Details.Causes {
				causes = append(causes, fmt.Sprintf("%s: %s", c.Field, c.Message))
			}
		}
		if len(causes) == 0 {
			causes = append(causes, s.Message)
		}
		return fmt.Errorf("%s %s is invalid (422): %s: %w", k.name, id, strings.Join(causes, "; "), err)
	case apierrors.IsForbidden(err):
		return fmt.Errorf("not allowed to %s %s %s (403): the identity in the kubeconfig needs %q permission on %s "+
			"in namespace %s: %w", verb, k.name, id, verb, k.resource.GroupResource(), id.namespace, err)
	case apierrors.IsUnauthorized(err):
		return fmt.Errorf("%s %s %s: the API server rejected the credentials (401); check the kubeconfig's user: %w",
			verb, k.name, id, err)
	case missingNamespace(err):
		return fmt.Errorf("%s %s %s: namespace %q does not exist (404): %w", verb, k.name, id, id.namespace, err)
	case apierrors.IsConflict(err):
		return fmt.Errorf("%s %s %s: the object changed while it was being written (409 conflict); "+
			"run `pulumi refresh` and try again: %w", verb, k.name, id, err)
	default:
		return fmt.Errorf("%s %s %s: %w", verb, k.name, id, err)
	}
}

// missingNamespace tells whether err is the API server's answer for a namespace that
// does not exist.
func missingNamespace(err error) bool {
	var status apierrors.APIStatus
	if !apierrors.IsNotFound(err) || !errors.As(err, &status) {
		return false
	}
	d := status.Status().Details
	return d != nil && d.Kind == "namespaces"
}
