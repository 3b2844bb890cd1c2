package kube

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
	"github.com/endpoints-provider/pulumi-endpoints/provider/validate"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
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

// object builds the object to send from a resource's inputs, with the kind's default
// labels.
func (k kind) object(inputs property.Map) *unstructured.Unstructured {
	obj := k.fromProperties(inputs)
	setDefaultLabels(k, obj.Object)
	return obj
}

// fromProperties is the object of the kind whose metadata and fields are those of m
// (inputs or a state).
func (k kind) fromProperties(m property.Map) *unstructured.Unstructured {
	obj := map[string]any{"apiVersion": k.apiVersion, "kind": k.name}
	for _, f := range append([]string{"metadata"}, k.fields...) {
		if v, ok := m.GetOk(f); ok {
			if x := validate.Plain(v); x != nil {
				obj[f] = x
			}
		}
	}
	return &unstructured.Unstructured{Object: obj}
}
