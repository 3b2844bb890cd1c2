package kube

import (
	"context"
	"fmt"
	"strings"

	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"

	"github.com/endpoints-provider/pulumi-endpoints/provider/validate"
)

// FieldManager names the provider in the objects' managedFields.
const FieldManager = "pulumi-resource-endpoints"

// kindClient runs the API calls for one kind of object on one cluster.
type kindClient struct {
	kind   kind
	client *Client
}

func (o kindClient) api(namespace string) dynamic.ResourceInterface {
	return o.client.Dynamic.Resource(o.kind.resource).Namespace(namespace)
}

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

func idOf(obj *unstructured.Unstructured) objectID {
	return objectID{namespace: obj.GetNamespace(), name: obj.GetName()}
}

// create creates the object; dryRun asks the server to validate and default it only.
func (o kindClient) create(ctx context.Context, obj *unstructured.Unstructured, dryRun bool) (*unstructured.Unstructured, error) {
	opts := metav1.CreateOptions{FieldManager: FieldManager}
	if dryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	out, err := o.api(obj.GetNamespace()).Create(ctx, obj, opts)
	if err != nil {
		return nil, apiError("create", o.kind, idOrPending(obj), err)
	}
	return out, nil
}

// get reads the object; a missing object is (nil, nil).
func (o kindClient) get(ctx context.Context, id objectID) (*unstructured.Unstructured, error) {
	out, err := o.api(id.namespace).Get(ctx, id.name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, apiError("get", o.kind, id, err)
	}
	return out, nil
}

// previewCreate is the dry-run create of a preview. Where the server cannot judge the
// object yet, it answers nil and no error, and the preview relies on Check's offline
// verdict: the namespace does not exist yet (the program may create it), or the name is
// held by an object this provider wrote (the object being replaced under the same
// name, which the update deletes first). A name held by anybody else's object is the
// 409 that `up` would meet, reported now.
func (o kindClient) previewCreate(ctx context.Context, obj *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	out, err := o.create(ctx, obj, true)
	switch {
	case err == nil:
		return out, nil
	case missingNamespace(err):
		return nil, nil
	case apierrors.IsAlreadyExists(err):
		holder, getErr := o.get(ctx, idOf(obj))
		if getErr != nil {
			p.GetLogger(ctx).Debugf("preview of %s %s: reading the object that holds the name failed, so the "+
				"name counts as taken: %v", o.kind.name, idOf(obj), getErr)
		}
		if getErr == nil && holder != nil && writtenByUs(holder) {
			return nil, nil
		}
	}
	return nil, err
}

// writtenByUs tells whether the provider created or last wrote part of the object.
func writtenByUs(obj *unstructured.Unstructured) bool {
	for _, m := range obj.GetManagedFields() {
		if m.Manager == FieldManager {
			return true
		}
	}
	return false
}

// lookup tells whether a Read looks up an object the stack does not record: a
// resource get (`EndpointSlice.get(name, id)` in a program) or an import. The engine
// sends the ID alone for an import, and for a get the ID with the properties the
// program passed, as both inputs and state: none from the SDKs' get methods, and null
// values carry no state either. A refresh always sends the state it records: a
// resource's outputs are never empty.
func lookup(req p.ReadRequest) bool {
	for _, v := range req.Properties.All {
		if !v.IsNull() {
			return false
		}
	}
	return true
}

// server names the API server a client reaches, for messages.
func (o kindClient) server() string {
	if o.client.REST == nil || o.client.REST.Host == "" {
		return "of the provider's kubeconfig"
	}
	return o.client.REST.Host
}

// notFound is the error of a lookup whose object does not exist, where a refresh
// answers an empty ID: the engine's own message for a get or an import names the ID
// alone, not the kind, the namespace a bare name means, nor the cluster.
func (o kindClient) notFound(rawID string, id objectID) error {
	hint := "the ID is namespace/name"
	if !strings.Contains(rawID, "/") {
		hint = fmt.Sprintf("the ID %q names no namespace, so it means the provider's namespace %q; "+
			"give it as namespace/name", rawID, id.namespace)
	}
	return fmt.Errorf("%s %s does not exist on the Kubernetes API server %s (404): %s",
		o.kind.name, id, o.server(), hint)
}
