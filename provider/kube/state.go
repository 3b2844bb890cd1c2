package kube

import (
	"fmt"
	"maps"
	"slices"
	"sync"

	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/endpoints-provider/pulumi-endpoints/provider/validate"
)

// outputs are a live object's properties: its fields without apiVersion and kind,
// without metadata.managedFields, the server's bookkeeping of field ownership, which
// changes on every write and would only weigh down the state, and without the
// provider's OwnerAnnotation, the resource's URN, which the state holds already (the
// provider reads it from live objects only, and puts it back on every object it
// writes: see kindClient.marked).
func outputs(k kind, obj *unstructured.Unstructured) property.Map {
	out := map[string]property.Value{}
	for _, f := range append([]string{"metadata"}, k.fields...) {
		v, ok := obj.Object[f]
		if !ok {
			continue
		}
		if meta, isMap := v.(map[string]any); isMap && f == "metadata" {
			v = withoutBookkeeping(meta)
		}
		out[f] = fromPlain(v)
	}
	return property.NewMap(out)
}

// withoutBookkeeping is an object's metadata without managedFields and the
// OwnerAnnotation (see outputs); the metadata itself when it has neither.
func withoutBookkeeping(meta map[string]any) map[string]any {
	annotations, _ := meta["annotations"].(map[string]any)
	_, owned := annotations[OwnerAnnotation]
	if _, has := meta["managedFields"]; !has && !owned {
		return meta
	}
	meta = maps.Clone(meta)
	delete(meta, "managedFields")
	if owned {
		annotations = maps.Clone(annotations)
		delete(annotations, OwnerAnnotation)
		meta["annotations"] = annotations
		if len(annotations) == 0 {
			delete(meta, "annotations")
		}
	}
	return meta
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

// fromObject turns an unstructured object into property values. The schema's property
// names are the Kubernetes JSON field names, so the two convert value by value
// (validate.Plain converts back).
func fromObject(obj map[string]any) property.Map {
	out := make(map[string]property.Value, len(obj))
	for k, v := range obj {
		out[k] = fromPlain(v)
	}
	return property.NewMap(out)
}

func fromPlain(v any) property.Value {
	switch x := v.(type) {
	case nil:
		return property.New(property.Null)
	case string:
		return property.New(x)
	case bool:
		return property.New(x)
	case int64:
		return property.New(float64(x))
	case int:
		return property.New(float64(x))
	case int32:
		return property.New(float64(x))
	case float64:
		return property.New(x)
	case []any:
		arr := make([]property.Value, len(x))
		for i, e := range x {
			arr[i] = fromPlain(e)
		}
		return property.New(arr)
	case map[string]any:
		return property.New(fromObject(x))
	default:
		return property.New(fmt.Sprint(x))
	}
}

// mapField reads a map-valued key of a property map; missing or non-map gives an empty map.
func mapField(m property.Map, key string) property.Map {
	if v, ok := m.GetOk(key); ok && v.IsMap() {
		return v.AsMap()
	}
	return property.Map{}
}

// stringField reads a known string key of a property map.
func stringField(m property.Map, key string) (string, bool) {
	v, ok := m.GetOk(key)
	if !ok || !v.IsString() {
		return "", false
	}
	return v.AsString(), true
}

// hasUnknowns tells whether any value in the map is not known yet (previews only).
func hasUnknowns(m property.Map) bool { return property.New(m).HasComputed() }

// stateObjects are the objects the engine's state holds for each resource, as
// the provider has learned them from the previous inputs Check is given. A
// replacement is checked twice, with the previous inputs, then again without them (the
// engine recomputes the inputs of a new object), so the second Check finds the object
// replaced here and names the replacement after it, not as a new resource; and a
// create never adopts an object the state holds, which is the one being replaced, not an
// interrupted create's (see kindClient.adoptable). Every call of a deployment reaches
// the same provider, so the Checks come before the create they name.
type stateObjects struct {
	mu  sync.Mutex
	ids map[resource.URN][]objectID
}

func newStateObjects() *stateObjects {
	return &stateObjects{ids: map[resource.URN][]objectID{}}
}

// note records the objects that the previous inputs olds of the resource urn name: the
// object's metadata, or each item's.
func (r *stateObjects) note(urn resource.URN, olds property.Map) {
	var ids []objectID
	for _, it := range append(itemsOf(olds), listItem{id: idOfInputs(olds)}) {
		if it.id.name != "" {
			ids = append(ids, it.id)
		}
	}
	if len(ids) == 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ids[urn] = ids
}

// of lists the objects recorded for the resource urn.
func (r *stateObjects) of(urn resource.URN) []objectID {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.ids[urn]
}

// replaced is the name of the object a Check without previous inputs olds replaces:
// the one object recorded for the resource urn, which the engine checks again without
// its previous inputs when it replaces it; "" otherwise.
func (r *stateObjects) replaced(urn resource.URN, olds property.Map) string {
	if ids := r.of(urn); olds.Len() == 0 && len(ids) == 1 {
		return ids[0].name
	}
	return ""
}

// withNamespace sets the namespace of object metadata that names none (or an empty
