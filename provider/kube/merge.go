package kube

import (
	"context"
	"reflect"

	"github.com/pulumi/pulumi/sdk/v3/go/property"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// conflictRetries bounds how often a write re-reads and retries after another client
// wrote the object between the read and the write (update, and remove's UID check).
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
			return o.create(ctx, o.kind.object(inputs), dryRun)
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
	version, _ := stringField(mapField(state, "metadata"), "resourceVersion")
	if idOfInputs(state) != id || version == "" || uidOf(state) == "" || hasUnknowns(state) {
		return nil
	}
	obj := o.kind.fromProperties(state)
	unstructured.RemoveNestedField(obj.Object, "metadata", "managedFields")
	return obj
}

// merge applies the desired inputs to a copy of the live object (see update).
func (o kindClient) merge(live *unstructured.Unstructured, oldInputs, inputs property.Map) *unstructured.Unstructured {
	out := live.DeepCopy()
	desired := o.kind.object(inputs).Object
	for _, f := range o.kind.fields {
		if v, ok := desired[f]; ok {
			out.Object[f] = v
		} else {
			delete(out.Object, f)
		}
	}
	oldMeta, _ := o.kind.object(oldInputs).Object["metadata"].(map[string]any)
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
