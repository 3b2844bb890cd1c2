package kube

import (
	"github.com/pulumi/pulumi/sdk/v3/go/property"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// lastWritten is the object a state records, as the server last answered it (outputs
// leave out managedFields, which the server keeps when an update leaves them out, and
// the owner's URN, which the update puts back: see kindClient.update), or nil when the state does not record one of id with a resourceVersion (a
// create whose answer was lost, a preview).
func (k kind) lastWritten(id objectID, state property.Map) *unstructured.Unstructured {
	version, _ := stringField(mapField(state, "metadata"), "resourceVersion")
	if idOfInputs(state) != id || version == "" || uidOf(state) == "" || hasUnknowns(state) {
		return nil
	}
	obj := k.fromProperties(state)
	unstructured.RemoveNestedField(obj.Object, "metadata", "managedFields")
	return obj
}

// merge applies the desired inputs to a copy of the live object (see
// kindClient.update).
func (k kind) merge(live *unstructured.Unstructured, oldInputs, inputs property.Map) *unstructured.Unstructured {
	out := live.DeepCopy()
	desired := k.object(inputs).Object
	for _, f := range k.fields {
		if v, ok := desired[f]; ok {
			out.Object[f] = v
		} else {
			delete(out.Object, f)
		}
	}
	oldMeta, _ := k.object(oldInputs).Object["metadata"].(map[string]any)
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
