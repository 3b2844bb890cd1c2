package kube

import (
	"context"
	"time"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// store is where a resource's objects live: the cluster (clusterStore), or the render
// directory (renderStore) when the renderDirectory setting names one. Each resource's
// lifecycle (slice.go, list.go) is written once against it; render mode is the choice
// of store, made at each call from the settings in force (see clusterResource.open).
// Objects are identified by namespace/name; a method that fails names the object.
type store interface {
	// ready makes sure the store can be used: a cluster's client is built (its error
	// is the kubeconfig's).
	ready(ctx context.Context) error
	// namespace is the namespace of IDs that name none.
	namespace(ctx context.Context) (string, error)
	// preview is what a preview shows of an object's outputs, or of inputs the store
	// could not judge: what only a server would set is left unknown.
	preview(m property.Map) property.Map
	// name gives obj, before it is created, the name the store gives an object with
	// metadata.generateName, and returns the create ID it carries ("" for none; see
	// labelCreate). createID, when given, is the one the state records.
	name(obj *unstructured.Unstructured, createID string) (string, error)
	// create creates obj (built from inputs, at the path at of the resource's inputs,
	// for messages). dryRun only judges it; judged says to answer nil, without an
	// error, for an object the store cannot judge yet (see kindClient.previewCreate).
	create(ctx context.Context, obj *unstructured.Unstructured, inputs property.Map, at string, dryRun, judged bool,
	) (*unstructured.Unstructured, error)
	// get reads the object; nil when there is none.
	get(ctx context.Context, id objectID) (*unstructured.Unstructured, error)
	// locate finds the object a state records under id (see kindClient.locate); nil
	// when there is none.
	locate(ctx context.Context, id objectID, state property.Map) (*unstructured.Unstructured, error)
	// update writes inputs over the object id that state records (see
	// kindClient.update), creating it when it is gone.
	update(ctx context.Context, id objectID, state, oldInputs, inputs property.Map, at string, dryRun bool,
	) (*unstructured.Unstructured, error)
	// remove deletes the target and waits until it is gone.
	remove(ctx context.Context, t deleteTarget, timeout time.Duration) error
	// removeAll deletes the targets and returns the IDs of those gone; every target is
	// tried, and the error keeps every failure.
	removeAll(ctx context.Context, targets []deleteTarget, timeout time.Duration) ([]objectID, error)
	// forItems runs do for the items 0 to n-1 of a list (see forItems).
	forItems(ctx context.Context, n int, do func(i int) (property.Map, error)) []itemResult
	// readItems reads the objects of the items a list's state records (nil: gone).
	readItems(ctx context.Context, recorded []listItem) ([]*unstructured.Unstructured, error)
	// list lists, for the import of a list by importID, the objects of namespace that
	// opts select, every page, and the version of the list ("" when there is none).
	list(ctx context.Context, importID, namespace string, opts metav1.ListOptions,
	) ([]*unstructured.Unstructured, string, error)
	// notFound is the error of a get or import of id (rawID as given) that finds nothing.
	notFound(ctx context.Context, rawID string, id objectID) error
	// noneSelected is the error of a list import (ID id) that selects nothing.
	noneSelected(ctx context.Context, id, namespace, selector string) error
	// stale tells Diff that the store's copy of obj (rawID its resource's ID, "" for a
	// list's item) must be written again although the inputs did not change.
	stale(ctx context.Context, obj *unstructured.Unstructured, rawID string) bool
	// warnItems warns about the items of a list (news, olds: the list's inputs) that a
	// controller will overwrite or delete (see warnControllers).
	warnItems(ctx context.Context, news, olds property.Map)
	// warnControllers warns about the objects a controller will overwrite or delete.
	warnControllers(ctx context.Context, objs []*unstructured.Unstructured)
	// mayExist tells whether a create that failed with err may have taken effect.
	mayExist(err error) bool
}

var (
	_ store = clusterStore{}
	_ store = renderStore{}
)

// open is the store of the target in force, for the resource urn: the objects it
// creates carry its URN, and it adopts none the state records for it (see
// kindClient.create).
func (b clusterResource) open(urn resource.URN) store {
	if target := b.options().Render; target.Rendering() {
		return renderStore{target: target, kind: b.kind}
	}
	return clusterStore{b: b, owner: urn}
}
