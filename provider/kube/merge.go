package kube

import "k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

// lastWritten is the object a state records, as the server last answered it (outputs
// leave out managedFields, which the server keeps when an update leaves them out, and
// the owner's URN, which the update puts back: see kindClient.update), or nil when the state does not record one of id with a resourceVersion (a
// create whose answer was lost, a preview).
func (r recorded) lastWritten(id objectID) *unstructured.Unstructured {
	if idOf(r.obj) != id || r.obj.GetResourceVersion() == "" || r.uid() == "" || !r.known {
		return nil
	}
	obj := r.obj.DeepCopy()
	unstructured.RemoveNestedField(obj.Object, "metadata", "managedFields")
	return obj
}

// merge applies the object of the desired inputs to a copy of the live object, old
// the object of the previous inputs (see kindClient.update); desired is left as it is.
func (k kind) merge(live, old, desired *unstructured.Unstructured) *unstructured.Unstructured {
	out := live.DeepCopy()
	want := desired.DeepCopy().Object
	for _, f := range k.fields {
		if v, ok := want[f]; ok {
			out.Object[f] = v
		} else {
			delete(out.Object, f)
		}
	}
	oldMeta, _ := old.Object["metadata"].(map[string]any)
	newMeta, _ := want["metadata"].(map[string]any)
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
