package kube

import (
	"context"
	"fmt"
	"slices"
	"strings"

	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
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
	// owner is the URN of the resource the objects created are for ("" when the
	// calls create nothing), and inState the objects the state records for it (see
	// recordedObjects): see create.
	owner   resource.URN
	inState []objectID
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
// The object created carries the owner's URN (OwnerAnnotation). When its name is taken
// by an object that carries the same URN, that object is the owner's own, made by a
// create whose run was interrupted before the state recorded it, and the create adopts
// it (see adopt). Any other holder of the name is the 409 the user must resolve.
func (o kindClient) create(ctx context.Context, obj *unstructured.Unstructured, dryRun bool) (*unstructured.Unstructured, error) {
	obj = o.marked(obj)
	opts := metav1.CreateOptions{FieldManager: FieldManager}
	if dryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	out, err := o.api(obj.GetNamespace()).Create(ctx, obj, opts)
	if apierrors.IsAlreadyExists(err) && !dryRun && !serverNamed(obj) {
		if adopted, ours, adoptErr := o.adopt(ctx, obj); ours || adoptErr != nil {
			return adopted, adoptErr
		}
	}
	if err != nil {
		return nil, apiError("create", o.kind, idOrPending(obj), err)
	}
	return out, nil
}

// marked is a copy of obj that carries the owner's URN, or obj when there is no owner.
func (o kindClient) marked(obj *unstructured.Unstructured) *unstructured.Unstructured {
	if o.owner == "" {
		return obj
	}
	obj = obj.DeepCopy()
	annotations := obj.GetAnnotations()
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[OwnerAnnotation] = string(o.owner)
	obj.SetAnnotations(annotations)
	return obj
}

// owns tells whether live carries the owner's URN: the owner's create made it.
func (o kindClient) owns(live *unstructured.Unstructured) bool {
	return o.owner != "" && live.GetAnnotations()[OwnerAnnotation] == string(o.owner)
}

// adoptable tells whether a create may take over live, the object that holds its name:
// the owner's create made it, the state does not record it (a replacement created
// under the name of the object it replaces meets that object, which the update
// deletes afterwards), and it is not being deleted (it would vanish once adopted; the
// name is free again when it is gone).
func (o kindClient) adoptable(live *unstructured.Unstructured) bool {
	return o.owns(live) && !slices.Contains(o.inState, idOf(live)) && live.GetDeletionTimestamp() == nil
}

// adopt takes over the object that holds obj's name when the owner's create made it
// (ours, see adoptable): obj is written over it, guarded by its resourceVersion, and
// the answer is the object as a create would have answered it. When another made it,
// or it is gone or going, ours is false and nothing is written.
func (o kindClient) adopt(ctx context.Context, obj *unstructured.Unstructured) (_ *unstructured.Unstructured, ours bool, _ error) {
	id := idOf(obj)
	live, err := o.get(ctx, id)
	if err != nil || live == nil || !o.adoptable(live) {
		return nil, false, err
	}
	p.GetLogger(ctx).Infof("%s %s exists and carries this resource's %s: a create of an earlier run that was "+
		"interrupted made it; adopting it", o.kind.name, id, OwnerAnnotation)
	obj = obj.DeepCopy()
	obj.SetResourceVersion(live.GetResourceVersion())
	out, err := o.api(id.namespace).Update(ctx, obj, metav1.UpdateOptions{FieldManager: FieldManager})
	if err != nil {
		return nil, true, fmt.Errorf("adopting %s %s, which an interrupted create of this resource made: %w; "+
			"if a field that cannot change differs from the program's, delete the object (`kubectl delete %s -n %s %s`) "+
			"and run `pulumi up` again", o.kind.name, id, apiError("update", o.kind, id, err),
			strings.ToLower(o.kind.name), id.namespace, id.name)
	}
	return out, true, nil
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
// held by an object this resource created (the object being replaced under the same
// name, which the update deletes first, or an interrupted create's, which `up`
// adopts), or by an object this provider wrote before objects carried their resource's
// URN. A name held by anybody else's object is the 409 that `up` would meet, reported
// now.
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
		if getErr == nil && holder != nil && (o.owns(holder) || unmarked(holder) && writtenByUs(holder)) {
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

// unmarked tells whether obj carries no resource's URN.
func unmarked(obj *unstructured.Unstructured) bool {
	_, marked := obj.GetAnnotations()[OwnerAnnotation]
	return !marked
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
