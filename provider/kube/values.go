package kube

import (
	"fmt"
	"maps"
	"strings"

	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/endpoints-provider/pulumi-endpoints/provider/validate"
)

// Property values, in one place: the resources' inputs and states decoded into
// objects (kind.object, intent with its secret paths, recorded, the IDs and the items
// they name), and the objects encoded back (outputs, a preview's, the inputs read back
// on refresh and import, a list's state and its Read's answer, a state's create ID).
// The lifecycles' entry points hand the engine's property maps to these functions and
// build their answers from what they return.

// object builds the object to send from a resource's inputs, with the kind's default
// labels.
func (k kind) object(inputs property.Map) *unstructured.Unstructured {
	obj := k.fromProperties(inputs)
	setDefaultLabels(k, obj.Object)
	return obj
}

// intent is an object to write, decoded once from a resource's inputs (see
// kind.intent): the object to send, and the paths of the inputs' secret values, which
// a manifest holds in plain text (see warnSecrets).
type intent struct {
	obj     *unstructured.Unstructured
	secrets []string
}

// intent decodes inputs, at the path at of the resource's inputs ("" for the whole),
// into the object to write (see object) and the paths of their secret values.
func (k kind) intent(inputs property.Map, at string) intent {
	in := intent{obj: k.object(inputs)}
	secretPaths(property.New(inputs), at, &in.secrets)
	return in
}

// setDefaultLabels gives obj the labels its kind carries by default, unless the
// inputs set them (an unknown value counts as set).
func setDefaultLabels(k kind, obj map[string]any) {
	if len(k.defaultLabels) == 0 {
		return
	}
	meta, _ := obj["metadata"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
		obj["metadata"] = meta
	}
	labels, _ := meta["labels"].(map[string]any)
	if labels == nil {
		labels = map[string]any{}
	}
	for key, value := range k.defaultLabels {
		if _, set := labels[key]; !set {
			labels[key] = value
		}
	}
	meta["labels"] = labels
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

// An object as property values, in one place: the outputs of a live object, what a
// preview leaves unknown, and the inputs read back on refresh and import (the reverse
// of kind.object, above).

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

// idOfInputs is the namespace/name that an object's inputs or state give.
func idOfInputs(m property.Map) objectID {
	meta := mapField(m, "metadata")
	namespace, _ := stringField(meta, "namespace")
	name, _ := stringField(meta, "name")
	return objectID{namespace: namespace, name: name}
}

// recordedIn decodes the state of an object of kind k.
func recordedIn(k kind, state property.Map) recorded {
	return recorded{obj: k.fromProperties(state), known: !hasUnknowns(state)}
}

// Reading property maps, for the whole package.

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

// recordedItems reads the items of an EndpointsList's state, in order, each with its
// state as its outputs.
func recordedItems(state property.Map) []listItem {
	items := itemsOf(state)
	for i, it := range items {
		items[i] = listItem{id: it.id, output: it.inputs}
	}
	return items
}

// itemsOf reads the items of an EndpointsList's inputs, in order; those of a state
// name the objects it records (see recordedItems for their states).
func itemsOf(m property.Map) []listItem {
	v, ok := m.GetOk("items")
	if !ok || !v.IsArray() {
		return nil
	}
	var items []listItem
	for _, item := range v.AsArray().All {
		if !item.IsMap() {
			continue
		}
		items = append(items, listItem{id: idOfInputs(item.AsMap()), inputs: item.AsMap()})
	}
	return items
}

// state is a list's state: the outputs of the items, and metadata (null: none).
func (r *EndpointsList) state(items []listItem, metadata property.Value) property.Map {
	out := make([]property.Value, 0, len(items))
	for _, it := range items {
		out = append(out, property.New(it.output))
	}
	m := map[string]property.Value{"items": property.New(out)}
	if !metadata.IsNull() {
		m["metadata"] = metadata
	}
	return property.NewMap(m)
}

// secretPaths appends the paths of the secret values within v, at path at.
func secretPaths(v property.Value, at string, out *[]string) {
	switch {
	case v.Secret():
		*out = append(*out, at)
	case v.IsMap():
		for key, e := range v.AsMap().AllStable {
			next := key
			if at != "" {
				next = at + "." + key
			}
			if strings.ContainsAny(key, ".[]\"") || strings.ContainsRune(key, '/') {
				next = fmt.Sprintf("%s[%q]", at, key)
			}
			secretPaths(e, next, out)
		}
	case v.IsArray():
		for i, e := range v.AsArray().All {
			secretPaths(e, fmt.Sprintf("%s[%d]", at, i), out)
		}
	}
}

// withCreateID records createID in the labels of a state's metadata.
func withCreateID(state property.Map, createID string) property.Map {
	meta := mapField(state, "metadata")
	labels := mapField(meta, "labels").Set(CreateIDLabel, property.New(createID))
	return state.Set("metadata", property.New(meta.Set("labels", property.New(labels))))
}

// liveItem is an item of a list as a Read finds it: the object the store holds under
// its name.
type liveItem struct {
	id  objectID
	obj *unstructured.Unstructured
}

// readAnswer is the answer of a Read that finds the items live under the list's id:
// the state records each item's outputs, and metadata (the state's own, or what an
// import read); the inputs are each item's as read back against the list's inputs
// olds (none for an import, see liveInputs), with the metadata of olds.
func (r *EndpointsList) readAnswer(id string, live []liveItem, metadata property.Value, olds property.Map,
) p.ReadResponse {
	oldInputs := map[objectID]property.Map{}
	for _, it := range itemsOf(olds) {
		oldInputs[it.id] = it.inputs
	}
	var items []listItem
	var inputs []property.Value
	for _, it := range live {
		items = append(items, listItem{id: it.id, output: outputs(r.kind, it.obj)})
		inputs = append(inputs, property.New(liveInputs(r.kind, it.obj, oldInputs[it.id])))
	}
	newInputs := map[string]property.Value{"items": property.New(inputs)}
	if v, ok := olds.GetOk("metadata"); ok {
		newInputs["metadata"] = v
	}
	return p.ReadResponse{ID: id, Properties: r.state(items, metadata), Inputs: property.NewMap(newInputs)}
}

// withNameUnknown is inputs m with metadata.name unknown, unless they give it: the
// outputs of a preview that only the name is missing from.
func withNameUnknown(m property.Map) property.Map {
	meta := mapField(m, "metadata")
	if _, named := meta.GetOk("name"); named {
		return m
	}
	return m.Set("metadata", property.New(meta.Set("name", property.New(property.Computed))))
}

// itemsWritten is the objects of the items of a list's inputs news that are known,
// without those whose canonical form is the same as in the previous inputs olds (they
// are not written).
func itemsWritten(news, olds property.Map) []*unstructured.Unstructured {
	old := map[objectID]property.Map{}
	for _, it := range itemsOf(olds) {
		old[it.id] = endpointsKind.form.Object(it.inputs)
	}
	var objs []*unstructured.Unstructured
	for _, it := range itemsOf(news) {
		if it.id.name == "" || it.id.namespace == "" || hasUnknowns(mapField(it.inputs, "metadata")) {
			continue
		}
		if prev, ok := old[it.id]; ok && prev.Equals(endpointsKind.form.Object(it.inputs)) {
			continue
		}
		objs = append(objs, endpointsKind.object(it.inputs))
	}
	return objs
}
