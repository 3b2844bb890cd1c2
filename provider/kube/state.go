package kube

import (
	"maps"
	"slices"

	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/endpoints-provider/pulumi-endpoints/provider/validate"
)

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
	meta := mapField(inputs, "metadata")
	for _, f := range validate.ServerSetOnCreate() {
		meta = meta.Set(f, property.New(property.Computed))
	}
	if _, named := meta.GetOk("name"); !named {
		meta = meta.Set("name", property.New(property.Computed))
	}
	return inputs.Set("metadata", property.New(meta))
}

// liveInputs are the inputs that describe a live object. On refresh they are the
// live object projected onto the shape of the previous inputs: a field whose live
// value is the same, in the kind's canonical form, as the previous input keeps the
// input as the program wrote it (so what the server defaulted or normalised stays
// left out); a field that really changed out of band takes its live value, without
// server defaults, and shows as drift against the program. On import (no previous
// inputs) they are the object's own fields, without server defaults, with its name,
// namespace, labels, annotations, owner references and finalizers, but without what
// the provider, the controllers and kubectl add by themselves (see ownKeys): what a
// program that writes the object would set.
func liveInputs(k kind, live *unstructured.Unstructured, old property.Map) property.Map {
	obj := outputs(k, live)
	imported := old.Len() == 0
	in := map[string]property.Value{}
	for _, f := range k.fields {
		oldValue, hadOld := old.GetOk(f)
		if !imported && k.form.Same(f, oldValue, obj.Get(f)) {
			if hadOld {
				in[f] = oldValue
			}
			continue
		}
		if v, ok := k.form.Stripped(f, obj.Get(f)); ok {
			in[f] = v
		}
	}
	liveMeta := mapField(obj, "metadata")
	oldMeta := mapField(old, "metadata")
	meta := map[string]property.Value{
		"name":      property.New(live.GetName()),
		"namespace": property.New(live.GetNamespace()),
	}
	if v, ok := oldMeta.GetOk("generateName"); ok {
		// The server picked the name (a slice), unless Check did (an EndpointsList item,
		// whose inputs keep the name so that it stays the same).
		meta["generateName"] = v
		if _, named := oldMeta.GetOk("name"); !named {
			delete(meta, "name")
		}
	}
	for _, f := range []string{"labels", "annotations"} {
		oldMap, wasSet := oldMeta.GetOk(f)
		switch {
		case imported:
			if keep := readBackKeys(f, mapField(liveMeta, f), property.Map{}, true); keep.Len() > 0 {
				meta[f] = property.New(keep)
			}
		case wasSet && oldMap.IsMap():
			meta[f] = property.New(readBackKeys(f, mapField(liveMeta, f), oldMap.AsMap(), false))
		}
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

// diffInputs compares the previous and new inputs of one object in the kind's
// canonical form: a change to a property that replaces the object (replacedBy)
// replaces it; anything else updates it in place. A replacement keeping a fixed name
// must delete the old object first.
func diffInputs(k kind, olds, news property.Map) p.DiffResponse {
	d := p.DiffResponse{DetailedDiff: map[string]p.PropertyDiff{}}
	for _, f := range k.fields {
		if c, changed := change(k.form, f, olds, news, k.replacedBy(f)); changed {
			d.DetailedDiff[f] = c
		}
	}
	oldMeta, newMeta := mapField(olds, "metadata"), mapField(news, "metadata")
	for _, key := range metadataKeys(oldMeta, newMeta) {
		if c, changed := change(validate.ObjectMetaForm, key, oldMeta, newMeta, k.replacedBy("metadata."+key)); changed {
			d.DetailedDiff["metadata."+key] = c
		}
	}
	d.HasChanges = len(d.DetailedDiff) > 0
	for _, c := range d.DetailedDiff {
		if Replaces(c.Kind) {
			oldName, _ := stringField(oldMeta, "name")
			newName, _ := stringField(newMeta, "name")
			oldNamespace, _ := stringField(oldMeta, "namespace")
			newNamespace, _ := stringField(newMeta, "namespace")
			d.DeleteBeforeReplace = oldName != "" && oldName == newName && oldNamespace == newNamespace
			break
		}
	}
	return d
}

// change tells how the property key differs between the old and new inputs, in the
// form's canonical terms: added, deleted or updated (replacing the object when
// replace is set); changed is false when it is the same.
func change(form validate.Form, key string, olds, news property.Map, replace bool) (c p.PropertyDiff, changed bool) {
	old, cur := olds.Get(key), news.Get(key)
	if form.Same(key, old, cur) {
		return c, false
	}
	_, hadOld := form.Stripped(key, old)
	_, hasNew := form.Stripped(key, cur)
	diffKind := p.Update
	switch {
	case !hadOld:
		diffKind = p.Add
	case !hasNew:
		diffKind = p.Delete
	}
	if replace {
		diffKind = Replacing(diffKind)
	}
	return p.PropertyDiff{Kind: diffKind, InputDiff: true}, true
}

// metadataKeys are the keys of two objects' metadata, sorted.
func metadataKeys(olds, news property.Map) []string {
	keys := map[string]struct{}{}
	for key := range olds.All {
		keys[key] = struct{}{}
	}
	for key := range news.All {
		keys[key] = struct{}{}
	}
	return slices.Sorted(maps.Keys(keys))
}
