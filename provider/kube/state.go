package kube

import (
	"maps"
	"reflect"
	"slices"

	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// serverMetadata are the metadata fields the server fills in; in a preview whose
// object cannot be dry-run they are unknown.
var serverMetadata = []string{"uid", "resourceVersion", "creationTimestamp", "generation"}

// importedAnnotations are annotations other tools keep for themselves, left out of the
// inputs of an imported object.
var importedAnnotations = []string{"kubectl.kubernetes.io/last-applied-configuration"}

// outputs are a live object's properties: its fields without apiVersion and kind, and
// without metadata.managedFields, the server's bookkeeping of field ownership, which
// changes on every write and would only weigh down the state.
func outputs(k kind, obj *unstructured.Unstructured) property.Map {
	out := map[string]property.Value{}
	for _, f := range append([]string{"metadata"}, k.fields...) {
		v, ok := obj.Object[f]
		if !ok {
			continue
		}
		if meta, isMap := v.(map[string]any); isMap && f == "metadata" {
			if _, has := meta["managedFields"]; has {
				meta = maps.Clone(meta)
				delete(meta, "managedFields")
				v = meta
			}
		}
		out[f] = fromPlain(v)
	}
	return property.NewMap(out)
}

// previewOutputs are the outputs of an object that could not be dry-run: the inputs,
// with what only the server knows left unknown.
func previewOutputs(inputs property.Map) property.Map {
	meta := nested(inputs, "metadata")
	for _, f := range serverMetadata {
		meta = meta.Set(f, property.New(property.Computed))
	}
	if _, named := meta.GetOk("name"); !named {
		meta = meta.Set("name", property.New(property.Computed))
	}
	return inputs.Set("metadata", property.New(meta))
}

// liveInputs are the inputs that describe a live object: on refresh, the fields the
// previous inputs set, with their live values (so drift shows as a diff against the
// program); on import (no previous inputs), the object's own fields with its name,
// namespace, labels, annotations, owner references and finalizers.
func liveInputs(k kind, live *unstructured.Unstructured, old property.Map) property.Map {
	obj := outputs(k, live)
	in := map[string]property.Value{}
	for _, f := range k.fields {
		if v, ok := obj.GetOk(f); ok {
			in[f] = v
		}
	}
	liveMeta := nested(obj, "metadata")
	oldMeta := nested(old, "metadata")
	meta := map[string]property.Value{
		"name":      property.New(live.GetName()),
		"namespace": property.New(live.GetNamespace()),
	}
	imported := old.Len() == 0
	if v, ok := oldMeta.GetOk("generateName"); ok {
		meta["generateName"] = v
		delete(meta, "name")
	}
	for _, f := range []string{"labels", "annotations"} {
		liveMap := nested(liveMeta, f)
		if imported {
			keep := liveMap.Delete(importedAnnotations...)
			if keep.Len() > 0 {
				meta[f] = property.New(keep)
			}
			continue
		}
		oldMap, ok := oldMeta.GetOk(f)
		if !ok || !oldMap.IsMap() {
			continue
		}
		kept := map[string]property.Value{}
		for key := range oldMap.AsMap().All {
			if v, ok := liveMap.GetOk(key); ok {
				kept[key] = v
			}
		}
		meta[f] = property.New(kept)
	}
	for _, f := range []string{"ownerReferences", "finalizers"} {
		_, wasSet := oldMeta.GetOk(f)
		if v, ok := liveMeta.GetOk(f); ok && (imported || wasSet) {
			meta[f] = v
		}
	}
	in["metadata"] = property.New(meta)
	return property.NewMap(in)
}

// diffInputs compares the previous and new inputs of one object: a change to an
// immutable field, the name or the namespace replaces it; anything else updates it in
// place. A replacement keeping a fixed name must delete the old object first.
func diffInputs(k kind, olds, news property.Map) p.DiffResponse {
	d := p.DiffResponse{DetailedDiff: map[string]p.PropertyDiff{}}
	replaces := false
	record := func(path string, old, cur property.Value, hadOld, hasNew, replace bool) {
		kind := p.Update
		switch {
		case !hadOld && !hasNew:
			return
		case !hadOld:
			kind = p.Add
		case !hasNew:
			kind = p.Delete
		case sameValue(old, cur):
			return
		}
		if replace {
			replaces = true
			kind = map[p.DiffKind]p.DiffKind{p.Add: p.AddReplace, p.Delete: p.DeleteReplace, p.Update: p.UpdateReplace}[kind]
		}
		d.DetailedDiff[path] = p.PropertyDiff{Kind: kind, InputDiff: true}
	}
	for _, f := range k.fields {
		old, hadOld := olds.GetOk(f)
		cur, hasNew := news.GetOk(f)
		record(f, old, cur, hadOld, hasNew, slices.Contains(k.immutable, f))
	}
	oldMeta, newMeta := nested(olds, "metadata"), nested(news, "metadata")
	keys := map[string]struct{}{}
	for key := range oldMeta.All {
		keys[key] = struct{}{}
	}
	for key := range newMeta.All {
		keys[key] = struct{}{}
	}
	for _, key := range slices.Sorted(maps.Keys(keys)) {
		old, hadOld := oldMeta.GetOk(key)
		cur, hasNew := newMeta.GetOk(key)
		identity := key == "name" || key == "namespace" || key == "generateName"
		record("metadata."+key, old, cur, hadOld, hasNew, identity)
	}
	d.HasChanges = len(d.DetailedDiff) > 0
	if replaces {
		oldName, _ := str(oldMeta, "name")
		newName, _ := str(newMeta, "name")
		oldNamespace, _ := str(oldMeta, "namespace")
		newNamespace, _ := str(newMeta, "namespace")
		d.DeleteBeforeReplace = oldName != "" && oldName == newName && oldNamespace == newNamespace
	}
	return d
}

// sameValue compares two property values as the API server would see them: secrets by
// their value; an unknown value is never the same as anything.
func sameValue(a, b property.Value) bool {
	if a.HasComputed() || b.HasComputed() {
		return false
	}
	return reflect.DeepEqual(toPlain(a), toPlain(b))
}
