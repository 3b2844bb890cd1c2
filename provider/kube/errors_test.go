package kube

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
)

// forbidden is a 403 answer with the API server's message.
func forbidden(message string) error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status: metav1.StatusFailure, Code: http.StatusForbidden, Reason: metav1.StatusReasonForbidden, Message: message,
	}}
}

// wantMessage checks that err's message holds every string of want and none of
// notWant.
func wantMessage(t *testing.T, err error, want, notWant []string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("message does not contain %q:\n%v", w, err)
		}
	}
	for _, w := range notWant {
		if strings.Contains(err.Error(), w) {
			t.Errorf("message contains %q:\n%v", w, err)
		}
	}
}

func TestAPIErrorMessages(t *testing.T) {
	t.Parallel()
	slices := schema.GroupResource{Group: "discovery.k8s.io", Resource: "endpointslices"}
	id := objectID{namespace: "apps", name: "web"}
	tests := []struct {
		name    string
		id      objectID
		err     error
		want    []string
		notWant []string
	}{
		{
			name: "RBAC denial",
			id:   id,
			err: forbidden(`endpointslices.discovery.k8s.io "web" is forbidden: User "ci" cannot create resource ` +
				`"endpointslices" in API group "discovery.k8s.io" in the namespace "apps"`),
			want: []string{"not allowed to create EndpointSlice apps/web (403)", `needs "create" permission on ` +
				`endpointslices.discovery.k8s.io in namespace apps`},
			notWant: []string{"admission"},
		},
		{
			name: "ValidatingAdmissionPolicy denial",
			id:   id,
			err: forbidden(`endpointslices.discovery.k8s.io "web" is forbidden: ValidatingAdmissionPolicy 'no-web' ` +
				`with binding 'no-web' denied request: web is reserved`),
			want: []string{"not allowed to create EndpointSlice apps/web (403)", "a ValidatingAdmissionPolicy of the cluster denied",
				"not RBAC", ": ValidatingAdmissionPolicy 'no-web' with binding 'no-web' denied request: web is reserved;"},
			notWant: []string{"permission on"},
		},
		{
			name: "admission webhook denial",
			id:   id,
			err: forbidden(`admission webhook "policy.example.com" denied the request: ` +
				`endpoints must carry the team label`),
			want:    []string{"an admission webhook of the cluster denied", `"policy.example.com" denied the request`},
			notWant: []string{"permission on"},
		},
		{
			name: "admission plugin denial (namespace terminating)",
			id:   id,
			err: forbidden(`endpointslices.discovery.k8s.io "web" is forbidden: unable to create new content in ` +
				`namespace apps because it is being terminated`),
			want:    []string{"an admission plugin of the cluster denied", "because it is being terminated"},
			notWant: []string{"permission on"},
		},
		{
			name: "blockOwnerDeletion without permission on the owner",
			id:   id,
			err: forbidden(`endpointslices.discovery.k8s.io "web" is forbidden: cannot set blockOwnerDeletion if an ` +
				`ownerReference refers to a resource you can't set finalizers on: , <nil>`),
			want: []string{"not allowed to create EndpointSlice apps/web (403)", "blockOwnerDeletion",
				"permission to update the owner's finalizers"},
		},
		{
			name: "generateName collision",
			id:   objectID{namespace: "apps", name: "web-*"},
			err:  apierrors.NewGenerateNameConflict(slices, "web-x7k2p", 1),
			want: []string{"create EndpointSlice apps/web-*", `409, it picked "web-x7k2p"`,
				"run `pulumi up` again, or set metadata.name"},
			notWant: []string{"pulumi import"},
		},
		{
			name: "namespace missing",
			id:   id,
			err: &apierrors.StatusError{ErrStatus: metav1.Status{
				Status: metav1.StatusFailure, Code: http.StatusNotFound, Reason: metav1.StatusReasonNotFound,
				Message: `namespaces "apps" not found`, Details: &metav1.StatusDetails{Name: "apps", Kind: "namespaces"},
			}},
			want: []string{`create EndpointSlice apps/web: namespace "apps" does not exist (404)`,
				"metadata.namespace, else the provider's namespace setting, else the namespace of the kubeconfig context",
				"`kubectl create namespace apps`", "`pulumi config set endpoints:namespace <namespace>`"},
		},
		{
			name:    "name taken",
			id:      id,
			err:     apierrors.NewAlreadyExists(slices, "web"),
			want:    []string{"EndpointSlice apps/web already exists (409)", "pulumi import " + spec.EndpointSliceToken + " <name> apps/web"},
			notWant: []string{"generateName"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := apiError("create", endpointSliceKind, tt.id, tt.err)
			wantMessage(t, got, tt.want, tt.notWant)
			if !errors.Is(got, tt.err) {
				t.Errorf("message does not wrap the API server's error")
			}
		})
	}
}

// An Endpoints object of an EndpointsList item whose name is taken is imported as an
// EndpointsList, whose import ID is a namespace and a selector: the hint says that ID,
// selecting the object by name, never the object's namespace/name, which that import
// rejects.
func TestAPIErrorEndpointsNameTakenHintsTheListImport(t *testing.T) {
	t.Parallel()
	id := objectID{namespace: "apps", name: "web-legacy"}
	err := apierrors.NewAlreadyExists(schema.GroupResource{Resource: "endpoints"}, "web-legacy")
	got := apiError("create", endpointsKind, id, err)
	wantMessage(t, got, []string{
		"Endpoints apps/web-legacy already exists (409)",
		"`pulumi import " + spec.EndpointsListToken + " <name> 'apps?fieldSelector=metadata.name%3Dweb-legacy'`",
	}, []string{"<name> apps/web-legacy"})
	if _, _, parseErr := parseImportID("apps?fieldSelector=metadata.name%3Dweb-legacy", "default"); parseErr != nil {
		t.Errorf("the hinted ID's form does not parse as an EndpointsList import ID: %v", parseErr)
	}
}

// A ValidatingAdmissionPolicy's denial with its default reason is a 422 whose only
// cause, without a field, restates the server's message (k8s.io/apiserver's policy
// dispatcher builds it so): the error says the message once, with no empty field.
func TestAdmissionPolicyInvalidSaysTheDenialOnce(t *testing.T) {
	t.Parallel()
	denial := "ValidatingAdmissionPolicy 'reserved-endpoints' with binding 'reserved-endpoints' denied request: " +
		"addresses in 10.66.9.0/24 are reserved for the mesh"
	server := apierrors.NewForbidden(schema.GroupResource{Resource: "endpoints"}, "cache", errors.New(denial))
	server.ErrStatus.Reason, server.ErrStatus.Code = metav1.StatusReasonInvalid, http.StatusUnprocessableEntity
	server.ErrStatus.Details.Causes = append(server.ErrStatus.Details.Causes, metav1.StatusCause{Message: denial})
	got := apiError("create", endpointsKind, objectID{namespace: "default", name: "cache"}, server)
	want := `Endpoints default/cache is invalid (422): endpoints "cache" is forbidden: ` + denial
	if got.Error() != want {
		t.Errorf("message:\n%v\nwant:\n%v", got, want)
	}
	if !errors.Is(got, server) {
		t.Errorf("message does not wrap the API server's error")
	}
}
