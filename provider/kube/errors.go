package kube

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
)

// apiError turns an API server error into a message that names the object, says what
// happened in plain words and what the user can do. A failure of the request's
// credentials is credentialsFailure's.
func apiError(verb string, k kind, id objectID, err error) error {
	if cerr := credentialsFailure(fmt.Sprintf("%s %s %s", verb, k.name, id), "", err); cerr != nil {
		return cerr
	}
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		return fmt.Errorf("%s %s %s: %w", verb, k.name, id, err)
	}
	s := status.Status()
	switch {
	case apierrors.IsAlreadyExists(err) && generatedNameTaken(id, s):
		return fmt.Errorf("%s %s %s: the name the API server generated from metadata.generateName is taken (409, %s); "+
			"the server picks a new name on every try: run `pulumi up` again, or set metadata.name: %w",
			verb, k.name, id, generatedName(s), err)
	case apierrors.IsAlreadyExists(err):
		return fmt.Errorf("%s %s already exists (409); an object this resource did not create is never adopted: "+
			"%s, or choose another name: %w", k.name, id, k.importHint(id), err)
	case apierrors.IsInvalid(err):
		return invalidError(k, id, s, err)
	case apierrors.IsForbidden(err) && strings.Contains(s.Message, "blockOwnerDeletion"):
		return fmt.Errorf("not allowed to %s %s %s (403): an ownerReference sets blockOwnerDeletion, which needs "+
			"permission to update the owner's finalizers (the %q subresource of the owner's resource): %w",
			verb, k.name, id, "finalizers", err)
	case apierrors.IsForbidden(err) && !rbacDenial.MatchString(s.Message):
		return fmt.Errorf("not allowed to %s %s %s (403): %s of the cluster denied the request, "+
			"not RBAC (the identity's permissions are not the cause): %s; change the object so that it is admitted, "+
			"or ask the cluster's administrators about the policy: %w",
			verb, k.name, id, admissionKind(s.Message), admissionReason(s.Message), err)
	case apierrors.IsForbidden(err):
		return fmt.Errorf("not allowed to %s %s %s (403): the identity in the kubeconfig needs %q permission on %s "+
			"in namespace %s: %w", verb, k.name, id, verb, k.resource.GroupResource(), id.namespace, err)
	case missingNamespace(err):
		return fmt.Errorf("%s %s %s: namespace %q does not exist (404); an object's namespace is its "+
			"metadata.namespace, else the provider's namespace setting, else the namespace of the kubeconfig "+
			"context: create the namespace (`kubectl create namespace %s`), or set another with "+
			"`pulumi config set endpoints:namespace <namespace>` or in metadata.namespace: %w",
			verb, k.name, id, id.namespace, id.namespace, err)
	case apierrors.IsConflict(err):
		return fmt.Errorf("%s %s %s: the object changed while it was being written (409 conflict); "+
			"run `pulumi refresh` and try again: %w", verb, k.name, id, err)
	default:
		return fmt.Errorf("%s %s %s: %w", verb, k.name, id, err)
	}
}

// invalidError is the error of a 422 answer: the causes the server lists, each with
// its field, then the server's message (err). A cause without a field that the
// message already says (a ValidatingAdmissionPolicy's denial, whose one cause is the
// message's own denial) is not said twice.
func invalidError(k kind, id objectID, s metav1.Status, err error) error {
	var causes []string
	if s.Details != nil {
		for _, c := range s.Details.Causes {
			switch {
			case c.Field != "":
				causes = append(causes, fmt.Sprintf("%s: %s", c.Field, c.Message))
			case !strings.Contains(s.Message, c.Message):
				causes = append(causes, c.Message)
			}
		}
	}
	if len(causes) == 0 {
		return fmt.Errorf("%s %s is invalid (422): %w", k.name, id, err)
	}
	return fmt.Errorf("%s %s is invalid (422): %s: %w", k.name, id, strings.Join(causes, "; "), err)
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

// rbacDenial matches the API server's message for a request its authorizer (RBAC)
// denied: `User "u" cannot <verb> resource "r" ...` (or `path` for a URL). Other 403
// answers come from admission: plugins, webhooks, ValidatingAdmissionPolicies.
var rbacDenial = regexp.MustCompile(`cannot [a-z]+ (resource|path) "`)

// admissionKind names what denied a request, from the API server's message.
func admissionKind(message string) string {
	switch {
	case strings.Contains(message, "ValidatingAdmissionPolicy"):
		return "a ValidatingAdmissionPolicy"
	case strings.Contains(message, "admission webhook"):
		return "an admission webhook"
	default:
		return "an admission plugin"
	}
}

// admissionReason is the denial without the API server's `<resource> "<name>" is
// forbidden: ` preamble.
func admissionReason(message string) string {
	if _, reason, found := strings.Cut(message, " is forbidden: "); found {
		return reason
	}
	return message
}

// generatedNameTaken tells whether a 409 AlreadyExists answers a create that asked
// the server to generate the name (the object's ID is then a pending ID, see
// idOrPending).
func generatedNameTaken(id objectID, s metav1.Status) bool {
	return id.pending() || strings.Contains(s.Message, "not able to generate a unique name")
}

// generatedName names the name the server picked, when the answer says it.
func generatedName(s metav1.Status) string {
	if s.Details != nil && s.Details.Name != "" {
		return fmt.Sprintf("it picked %q", s.Details.Name)
	}
	return "the name it picked exists"
}

// recordedNameTaken is the error of a create whose name is held by this resource's own
// object that the state still records (taken is the create's 409): a replacement under
// the name of the object it replaces, which the engine deletes only after the
// replacement is created; going says that object is being deleted already.
func recordedNameTaken(k kind, id objectID, going bool, taken error) error {
	if going {
		return fmt.Errorf("%s %s already exists (409): it is this resource's own object, which the state still "+
			"records, and it is being deleted; run `pulumi up` again once it is gone: %w", k.name, id, taken)
	}
	generated := ", or leave the name to be generated (no metadata.name)"
	if k.token == spec.EndpointsListToken {
		generated = "" // an item is named after its Service
	}
	return fmt.Errorf("%s %s already exists (409): it is this resource's own object, which the state still "+
		"records: the engine creates a replacement before it deletes the object it replaces, and both have this "+
		"name; give the resource the deleteBeforeReplace option%s. If the provider was replaced for a cluster "+
		"that is the same under another address or CA, set the provider's clusterIdentifier instead: %w",
		k.name, id, generated, taken)
}

// importHint says how to bring the existing object id under a stack: an EndpointSlice by
// its own ID; an Endpoints object as an EndpointsList, whose import ID selects the
// objects of a namespace, here by the object's name (a label selector takes several).
func (k kind) importHint(id objectID) string {
	if k.token == spec.EndpointsListToken {
		return fmt.Sprintf("import it as an EndpointsList with `pulumi import %s <name> "+
			"'%s?fieldSelector=metadata.name%%3D%s'` (a labelSelector instead of the fieldSelector imports "+
			"several Endpoints as one list)", k.token, id.namespace, id.name)
	}
	return fmt.Sprintf("import it with `pulumi import %s <name> %s`", k.token, id)
}
