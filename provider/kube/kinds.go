package kube

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
	"github.com/endpoints-provider/pulumi-endpoints/provider/validate"
)

// kind is one Kubernetes object kind the provider manages.
type kind struct {
	name       string
	apiVersion string
	resource   schema.GroupVersionResource
	// token is the Pulumi type that manages objects of this kind, for import hints.
	token string
	// fields are the top-level fields, besides metadata, that the resource sets.
	fields []string
	// immutable are the top-level fields whose change replaces the object.
	immutable []string
	// form is the kind's canonical form: what counts as the same value.
	form validate.Form
	// defaultLabels are the labels objects of this kind are written with unless
	// their inputs set them.
	defaultLabels map[string]string
}

var (
	endpointSliceKind = kind{
		name:       "EndpointSlice",
		apiVersion: "discovery.k8s.io/v1",
		resource:   schema.GroupVersionResource{Group: "discovery.k8s.io", Version: "v1", Resource: "endpointslices"},
		token:      spec.EndpointSliceToken,
		fields:     []string{"addressType", "endpoints", "ports"},
		immutable:  []string{"addressType"},
		form:       validate.EndpointSliceForm,
		// Kubernetes asks every manager of EndpointSlices but its own controllers to
		// name itself in this label.
		defaultLabels: map[string]string{ManagedByLabel: ManagedBy},
	}
	endpointsKind = kind{
		name:       "Endpoints",
		apiVersion: "v1",
		resource:   schema.GroupVersionResource{Version: "v1", Resource: "endpoints"},
		token:      spec.EndpointsListToken,
		fields:     []string{"subsets"},
		form:       validate.EndpointsForm,
	}
)

// objectID is the namespace/name identity of one object.
type objectID struct{ namespace, name string }

func (id objectID) String() string { return id.namespace + "/" + id.name }

// parseObjectID reads the `namespace/name` ID of one object of kind k (a bare name
// means the default namespace given).
func parseObjectID(k kind, id, fallbackNamespace string) (objectID, error) {
	ns, name, found := strings.Cut(id, "/")
	if !found {
		ns, name = fallbackNamespace, id
	}
	if ns == "" || name == "" || strings.Contains(name, "/") {
		return objectID{}, fmt.Errorf("invalid %[1]s ID %[2]q: an %[1]s ID is <namespace>/<name>, such as "+
			"default/web-1a2b3c (a bare name means the provider's namespace); an EndpointsList's ID is "+
			"<namespace>?labelSelector=<selector>, such as default?labelSelector=app%%3Dweb", k.name, id)
	}
	return objectID{namespace: ns, name: name}, nil
}
