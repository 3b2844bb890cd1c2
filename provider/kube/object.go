package kube

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"

	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
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

// newObject builds the object to send from the resource's inputs, with the kind's
// default labels.
func (o kindClient) newObject(inputs property.Map) *unstructured.Unstructured {
	obj := map[string]any{"apiVersion": o.kind.apiVersion, "kind": o.kind.name}
	for _, f := range append([]string{"metadata"}, o.kind.fields...) {
		if v, ok := inputs.GetOk(f); ok {
			if x := toPlain(v); x != nil {
				obj[f] = x
			}
		}
	}
	setDefaultLabels(o.kind, obj)
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
	id := idOf(obj)
	if id.name == "" {
		id.name = obj.GetGenerateName() + "*"
	}
	out, err := o.api(obj.GetNamespace()).Create(ctx, obj, opts)
	if err != nil {
		return nil, apiError("create", o.kind, id, err)
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

// conflictRetries bounds how often update re-reads and retries after another client
// wrote the object between the read and the write.
const conflictRetries = 5

// update writes the inputs onto the live object: a read-modify-write guarded by the
// object's resourceVersion. Fields the resource sets are replaced; labels and
// annotations are merged three-way (keys the previous inputs set and the new ones
// drop are removed; keys other clients added are kept). A write that loses a race is
// retried on a fresh read.
//
// The first write needs no read when the state records the object (see recorded):
// guarded by the recorded resourceVersion, it succeeds only if nobody wrote the object
// since, that is, if the state is the live object. If somebody did (a conflict), or
// the object is gone, it reads the object and goes on as above.
func (o kindClient) update(ctx context.Context, id objectID, state, oldInputs, inputs property.Map, dryRun bool,
) (*unstructured.Unstructured, error) {
	opts := metav1.UpdateOptions{FieldManager: FieldManager}
	if dryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	if last := o.recorded(id, state); last != nil {
		merged := o.merge(last, oldInputs, inputs)
		if reflect.DeepEqual(merged.Object, last.Object) {
			// Nothing to write: an EndpointsList item kept as it was is left alone, as
			// the engine leaves a resource whose inputs did not change. A change made
			// outside Pulumi is found by a refresh, after which the merge differs.
			return last, nil
		}
		out, err := o.api(id.namespace).Update(ctx, merged, opts)
		switch {
		case err == nil:
			return out, nil
		case !apierrors.IsConflict(err) && !apierrors.IsNotFound(err):
			return nil, apiError("update", o.kind, id, err)
		}
	}
	for attempt := 1; ; attempt++ {
		live, err := o.get(ctx, id)
		if err != nil {
			return nil, err
		}
		if live == nil {
			// Deleted behind our back, or never confirmed created: create it.
			return o.create(ctx, o.newObject(inputs), dryRun)
		}
		merged := o.merge(live, oldInputs, inputs)
		out, err := o.api(id.namespace).Update(ctx, merged, opts)
		if apierrors.IsConflict(err) && attempt < conflictRetries {
			continue
		}
		if err != nil {
			return nil, apiError("update", o.kind, id, err)
		}
		return out, nil
	}
}

// recorded is the object a state records, as the server last answered it (outputs
// leave out only managedFields, which the server keeps when an update leaves them
// out), or nil when the state does not record one of id with a resourceVersion (a
// create whose answer was lost, a preview).
func (o kindClient) recorded(id objectID, state property.Map) *unstructured.Unstructured {
	meta := mapField(state, "metadata")
	name, _ := stringField(meta, "name")
	namespace, _ := stringField(meta, "namespace")
	version, _ := stringField(meta, "resourceVersion")
	uid, _ := stringField(meta, "uid")
	if name != id.name || namespace != id.namespace || version == "" || uid == "" || hasUnknowns(state) {
		return nil
	}
	obj := map[string]any{"apiVersion": o.kind.apiVersion, "kind": o.kind.name}
	for _, f := range append([]string{"metadata"}, o.kind.fields...) {
		if v, ok := state.GetOk(f); ok {
			if x := toPlain(v); x != nil {
				obj[f] = x
			}
		}
	}
	if m, ok := obj["metadata"].(map[string]any); ok {
		delete(m, "managedFields")
	}
	return &unstructured.Unstructured{Object: obj}
}

// merge applies the desired inputs to a copy of the live object (see update).
func (o kindClient) merge(live *unstructured.Unstructured, oldInputs, inputs property.Map) *unstructured.Unstructured {
	out := live.DeepCopy()
	desired := o.newObject(inputs).Object
	for _, f := range o.kind.fields {
		if v, ok := desired[f]; ok {
			out.Object[f] = v
		} else {
			delete(out.Object, f)
		}
	}
	oldMeta, _ := o.newObject(oldInputs).Object["metadata"].(map[string]any)
	newMeta, _ := desired["metadata"].(map[string]any)
	out.SetLabels(merge3(live.GetLabels(), stringMap(oldMeta["labels"]), stringMap(newMeta["labels"])))
	out.SetAnnotations(merge3(live.GetAnnotations(), stringMap(oldMeta["annotations"]), stringMap(newMeta["annotations"])))
	for _, f := range []string{"ownerReferences", "finalizers"} {
		_, inOld := oldMeta[f]
		v, inNew := newMeta[f]
		switch {
		case inNew:
			_ = unstructured.SetNestedField(out.Object, v, "metadata", f)
		case inOld:
			unstructured.RemoveNestedField(out.Object, "metadata", f)
		}
	}
	return out
}

// merge3 sets the desired keys on the live map and removes the keys the previous
// inputs set that the desired ones no longer have.
func merge3(live, old, desired map[string]string) map[string]string {
	out := make(map[string]string, len(live)+len(desired))
	for k, v := range live {
		if _, wasOurs := old[k]; wasOurs {
			if _, still := desired[k]; !still {
				continue
			}
		}
		out[k] = v
	}
	for k, v := range desired {
		out[k] = v
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func stringMap(v any) map[string]string {
	m, _ := v.(map[string]any)
	out := make(map[string]string, len(m))
	for k, x := range m {
		if s, ok := x.(string); ok {
			out[k] = s
		}
	}
	return out
}

// unconfirmed explains a create whose outcome is unknown.
func unconfirmed(k kind, id objectID, err error) string {
	return fmt.Sprintf("%v; the API server gave no answer, so %s %s may or may not exist: it is recorded in the state "+
		"and the next `pulumi up` finds it or creates it", err, k.name, id)
}

// partialFailure is the answer to a write that stopped part way: the partial state the
// engine records travels with the error it reports (pulumi-go-provider requires the
// error alongside the state), both saying reason.
func partialFailure(reason string) (*p.InitializationFailed, error) {
	return &p.InitializationFailed{Reasons: []string{reason}}, errors.New(reason)
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

// DeletePolicy says how a delete treats an object's dependents.
type DeletePolicy = metav1.DeletionPropagation

// DefaultDeletePolicy is the API server's own default: the object goes at once and
// the garbage collector removes its dependents afterwards. (Foreground makes every
// delete wait for the garbage collector, about 0.5 s per object even without
// dependents, and forever on a cluster whose collector is not running.)
const DefaultDeletePolicy = metav1.DeletePropagationBackground

// defaultDeleteTimeout bounds a delete that the program gave no custom timeout.
const defaultDeleteTimeout = 10 * time.Minute

// deleteTarget is one object to delete: its name and, when the state recorded it, the UID
// of the object the provider wrote. Another object under the same name (recreated by a
// controller or a person) is not the target.
type deleteTarget struct {
	id  objectID
	uid types.UID
}

// remove deletes the target and waits until it is gone. The delete names the UID as a
// precondition, so it never deletes another object of the same name, and the wait
// ends once the object with that UID is gone: a missing object, or one with another
// UID, counts as deleted. When the delete's answer shows the object already gone
// (nothing holds it), no wait is needed. When the wait ends first, the error says what
// holds the object: its finalizers, by name.
func (o kindClient) remove(ctx context.Context, t deleteTarget, policy DeletePolicy, timeout time.Duration) error {
	if timeout <= 0 {
		timeout = defaultDeleteTimeout
	}
	ctx, cancel := context.WithTimeoutCause(ctx, timeout, errDeleteTimeout)
	defer cancel()
	opts := metav1.DeleteOptions{PropagationPolicy: &policy}
	if t.uid != "" {
		opts.Preconditions = &metav1.Preconditions{UID: &t.uid}
	}
	for attempt := 1; ; attempt++ {
		answer, err := o.deleteObject(ctx, t.id, opts)
		switch {
		case apierrors.IsNotFound(err):
			return nil
		case apierrors.IsConflict(err) && t.uid != "":
			// The UID precondition failed: the name belongs to another object now, so
			// ours is gone; unless the conflict had another cause, then try again.
			live, getErr := o.get(ctx, t.id)
			if getErr == nil && (live == nil || live.GetUID() != t.uid) {
				return nil
			}
			if getErr == nil && attempt < conflictRetries {
				continue
			}
		}
		if err != nil {
			return apiError("delete", o.kind, t.id, err)
		}
		if answer == nil || (len(answer.GetFinalizers()) == 0 && answer.GetDeletionTimestamp() == nil) {
			return nil // deleted at once
		}
		if t.uid == "" {
			t.uid = answer.GetUID()
		}
		return o.waitGone(ctx, t, timeout)
	}
}

// deleteObject sends the DELETE and returns the server's answer: the object while
// something (finalizers, graceful deletion) holds it, nil when the answer is a
// Status, which the server sends once the object is gone.
func (o kindClient) deleteObject(ctx context.Context, id objectID, opts metav1.DeleteOptions,
) (*unstructured.Unstructured, error) {
	body, err := json.Marshal(opts)
	if err != nil {
		return nil, fmt.Errorf("internal error: encoding delete options: %w", err)
	}
	raw, err := o.client.raw.Delete().AbsPath(o.objectPath(id)).
		SetHeader("Content-Type", "application/json").Body(body).Do(ctx).Raw()
	if err != nil {
		return nil, err
	}
	answer := &unstructured.Unstructured{}
	if err := answer.UnmarshalJSON(raw); err != nil {
		return nil, fmt.Errorf("the API server's answer to the delete is not an object: %w", err)
	}
	if answer.GetKind() == "Status" {
		return nil, nil
	}
	return answer, nil
}

// objectPath is the URL path of one object of the kind.
func (o kindClient) objectPath(id objectID) string {
	r := o.kind.resource
	prefix := "/api/" + r.Version
	if r.Group != "" {
		prefix = "/apis/" + r.Group + "/" + r.Version
	}
	return prefix + "/namespaces/" + id.namespace + "/" + r.Resource + "/" + id.name
}

// waitGone waits until the target is gone: it watches the name from the version it
// last read, so the wait ends as soon as the server deletes the object, or as soon as
// another object (another UID) holds the name. A watch that breaks off is started
// again.
func (o kindClient) waitGone(ctx context.Context, t deleteTarget, timeout time.Duration) error {
	for {
		live, err := o.get(ctx, t.id)
		switch {
		case err == nil && (live == nil || live.GetUID() != t.uid):
			return nil
		case ctx.Err() != nil:
			last, _ := o.get(context.WithoutCancel(ctx), t.id)
			if last != nil && last.GetUID() != t.uid {
				return nil
			}
			return o.stillThere(ctx, t.id, last, timeout)
		case err != nil:
			return err
		}
		w, err := o.api(t.id.namespace).Watch(ctx, metav1.ListOptions{
			FieldSelector:   "metadata.name=" + t.id.name,
			ResourceVersion: live.GetResourceVersion(),
		})
		if err != nil {
			if ctx.Err() == nil {
				return apiError("watch", o.kind, t.id, err)
			}
			continue
		}
		for event := range w.ResultChan() {
			obj, isObject := event.Object.(*unstructured.Unstructured)
			ended := event.Type == watch.Deleted ||
				(event.Type == watch.Added || event.Type == watch.Modified) && isObject && obj.GetUID() != t.uid
			if ended {
				w.Stop()
				return nil
			}
		}
		w.Stop()
	}
}

var errDeleteTimeout = errors.New("delete timed out")

// deleteParallelism bounds the deletes of a set in flight at once, and
// itemParallelism the creates, updates and reads of an EndpointsList's items.
const (
	deleteParallelism = 16
	itemParallelism   = 16
)

// removeAll removes the targets concurrently and returns the names of those that are
// gone, with every failure joined.
func (o kindClient) removeAll(ctx context.Context, targets []deleteTarget, policy DeletePolicy, timeout time.Duration,
) ([]objectID, error) {
	var (
		mu      sync.Mutex
		wg      sync.WaitGroup
		removed []objectID
		errs    = make([]error, len(targets))
		slots   = make(chan struct{}, deleteParallelism)
	)
	for i, t := range targets {
		wg.Add(1)
		slots <- struct{}{}
		go func() {
			defer func() { <-slots; wg.Done() }()
			if errs[i] = o.remove(ctx, t, policy, timeout); errs[i] == nil {
				mu.Lock()
				removed = append(removed, t.id)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return removed, errors.Join(errs...)
}

// stillThere explains why a delete did not finish.
func (o kindClient) stillThere(ctx context.Context, id objectID, live *unstructured.Unstructured, timeout time.Duration) error {
	cause := context.Cause(ctx)
	what := fmt.Sprintf("%s %s was not deleted within %s", o.kind.name, id, timeout)
	if !errors.Is(cause, errDeleteTimeout) {
		what = fmt.Sprintf("deleting %s %s stopped before it was gone (%v)", o.kind.name, id, cause)
	}
	if live == nil {
		return errors.New(what)
	}
	finalizers := live.GetFinalizers()
	switch {
	case len(finalizers) == 0:
		return fmt.Errorf("%s; it is still present with no finalizers, so the API server has not finished deleting it", what)
	case slices.Equal(finalizers, []string{metav1.FinalizerDeleteDependents}):
		return fmt.Errorf("%s: finalizer %q holds it until the garbage collector has deleted its dependents "+
			"(is kube-controller-manager running?)", what, metav1.FinalizerDeleteDependents)
	default:
		return fmt.Errorf("%s: finalizers %q hold it; the controllers that own them must remove them "+
			"(or remove them yourself with `kubectl patch %s %s -n %s --type=merge -p '{\"metadata\":{\"finalizers\":null}}'`)",
			what, finalizers, o.kind.resource.Resource, id.name, id.namespace)
	}
}
