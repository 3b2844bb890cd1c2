package kube

import (
	"context"
	"maps"
	"slices"
	"strings"

	"github.com/pulumi/pulumi/sdk/v3/go/property"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/endpoints-provider/pulumi-endpoints/provider/internal/secret"
	"github.com/endpoints-provider/pulumi-endpoints/provider/validate"
)

// Property values, in one place. The engine's property maps (a resource's inputs, its
// state) are decoded once, where a lifecycle's entry point receives them (decode), into
// plain Go values: the object's Kubernetes JSON, as an unstructured object holds it,
// with null as nil and a value not known yet (a preview's) as validate.Computed{}, and
// their secrecy beside (which fields are secret, see package secret). Past that edge
// the package works on these
// values and on the objects built from them (kind.object, intent, recorded, listItem);
// the answers are encoded once on the way out (decoded.encode), every field that held
// a secret value secret. Only Check keeps the inputs as the engine gave them: it hands them to
// validate, whose rules name their paths, and sets the names it assigns on them
// (withMetadata).

// decoded is a resource's inputs or state, decoded (see above).
type decoded struct {
	// fields are the values, plain (see validate.Decode).
	fields map[string]any
	// secret is what of them is secret: whole fields, never positions (see package
	// secret, the rule's home).
	secret secret.Secrecy
}

// decode decodes a resource's inputs or state.
func decode(m property.Map) decoded {
	return decoded{fields: validate.DecodeMap(m), secret: secret.Of(m)}
}

// identity decodes the part of a resource's inputs or state that Check reads: the
// metadata, which names the object, the kind's immutable fields, whose change replaces
// it (see replaces), and each item's metadata for a list. Check validates the rest as
// the engine gave it, and decoding it too (a slice's endpoints) would cost as much.
func (k kind) identity(m property.Map) decoded {
	part := map[string]property.Value{}
	for _, f := range append([]string{"metadata"}, k.immutable...) {
		if v, ok := m.GetOk(f); ok {
			part[f] = v
		}
	}
	if items := m.Get("items"); items.IsArray() {
		metas := make([]property.Value, 0, items.AsArray().Len())
		for _, item := range items.AsArray().All {
			if item.IsMap() {
				meta := map[string]property.Value{"metadata": item.AsMap().Get("metadata")}
				item = property.WithGoValue(item, property.NewMap(meta))
			}
			metas = append(metas, item)
		}
		part["items"] = property.WithGoValue(items, metas)
	}
	return decode(property.NewMap(part))
}

// encode is the property map of d: the engine's inputs, state or outputs, each field
// that d's secrecy holds secret secret (see secret.Secrecy.Seal).
func (d decoded) encode() property.Map { return d.secret.Seal(validate.EncodeMap(d.fields)) }

// plain is d's fields with no secret among them: what the server answered.
func plain(fields map[string]any) decoded { return decoded{fields: fields} }

// known tells whether d holds no value that is not known yet.
func (d decoded) known() bool { return !validate.HasComputed(d.fields) }

// empty tells whether d holds nothing: no previous inputs (a create), no state (a
// Read with the ID alone).
func (d decoded) empty() bool { return len(d.fields) == 0 }

// with is fields f with d's secrecy: an object's outputs or state, built from its
// inputs or its previous state, keep secret the fields those held secret, wherever
// the server puts their values.
func (d decoded) with(f map[string]any) decoded { return decoded{fields: f, secret: d.secret} }

// also is d, with what o holds secret secret as well: a refresh keeps secret what
// the previous state or the previous inputs held secret.
func (d decoded) also(o decoded) decoded {
	return decoded{fields: d.fields, secret: d.secret.Union(o.secret)}
}

// checked is an answer built from the inputs the engine gave, as they are (a preview
// of unknown items) or as Check's validate returns them (answer), with the inputs'
// secrecy (see encode): the engine records Check's as the resource's inputs.
func checked(inputs, answer property.Map) property.Map { return secret.Of(inputs).Seal(answer) }

// secretInID names the metadata keys of a slice's inputs that are secret and that its
// ID (namespace/name, or namespace/generateName* while pending) spells out: the engine
// shows and stores an ID in plain text, and nothing can mark it secret.
func secretInID(inputs property.Map) []string {
	meta := inputs.Get("metadata")
	if !meta.IsMap() {
		return nil
	}
	var out []string
	for _, key := range []string{"namespace", "name", "generateName"} {
		if v := meta.AsMap().Get(key); v.IsString() && (meta.Secret() || v.Secret()) {
			out = append(out, "metadata."+key)
		}
	}
	return out
}

// warnSecretInID warns, at Check, that a slice's ID spells out secret inputs (see
// secretInID), unless the previous inputs olds drew the warning already.
func warnSecretInID(ctx context.Context, news, olds property.Map) {
	keys := secretInID(news)
	if len(keys) == 0 || slices.Equal(keys, secretInID(olds)) {
		return
	}
	secret.Logger(ctx).Warningf("%s is secret, but the EndpointSlice's ID (namespace/name) spells it out, and "+
		"the engine shows and stores IDs in plain text: keep the name and namespace out of secrets (secret "+
		"endpoints, ports and labels stay secret)", strings.Join(keys, " and "))
}

// The Check's one write to the inputs as the engine gave them: the name and namespace
// it assigns.

// withMetadata is the inputs of an object with the metadata keys set (none: the inputs
// as they are); the metadata keeps its secrecy.
func withMetadata(inputs property.Map, set map[string]string) property.Map {
	if len(set) == 0 {
		return inputs
	}
	v := inputs.Get("metadata")
	var meta property.Map
	if v.IsMap() {
		meta = v.AsMap()
	}
	for _, key := range slices.Sorted(maps.Keys(set)) {
		meta = meta.Set(key, property.New(set[key]))
	}
	return inputs.Set("metadata", property.WithGoValue(v, meta))
}

// withItemMetadata is a list's inputs with the metadata keys set[i] set on the i-th
// item (see withMetadata).
func withItemMetadata(inputs property.Map, set map[int]map[string]string) property.Map {
	v := inputs.Get("items")
	if len(set) == 0 || !v.IsArray() {
		return inputs
	}
	items := v.AsArray().AsSlice()
	for i, keys := range set {
		items[i] = property.WithGoValue(items[i], withMetadata(items[i].AsMap(), keys))
	}
	return inputs.Set("items", property.WithGoValue(v, items))
}

// Reading plain values.

// mapOf is v as a map; nil when it is not one.
func mapOf(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// stringOf is v as a string; ok is false when it is not one.
func stringOf(v any) (s string, ok bool) {
	s, ok = v.(string)
	return s, ok
}

// metadataOf is an object's metadata, or its inputs'; nil when there is none.
func metadataOf(fields map[string]any) map[string]any { return mapOf(fields["metadata"]) }

// The objects: built from inputs (kind.object, intent), decoded from a state
// (recordedIn), and their outputs (outputs, previewOutputs, liveInputs).

// object builds the object to send from a resource's inputs, with the kind's default
// labels; what is not known yet is left out.
func (k kind) object(inputs map[string]any) *unstructured.Unstructured {
	obj := k.fromFields(inputs)
	setDefaultLabels(k, obj.Object)
	return obj
}

// intent is an object to write, built once from a resource's inputs (see kind.intent):
// the object to send, and the paths of the inputs' secret values, which a manifest
// holds in plain text (see warnSecrets).
type intent struct {
	obj     *unstructured.Unstructured
	secrets []string
}

// intent builds from inputs, at the path at of the resource's inputs ("" for the
// whole), the object to write (see object) and the paths of its fields that are secret.
func (k kind) intent(inputs decoded, at string) intent {
	var secrets []string
	for _, f := range inputs.secret.Fields(validate.EncodeMap(validate.KnownMap(inputs.fields))) {
		secrets = append(secrets, strings.TrimPrefix(at+"."+f, "."))
	}
	return intent{obj: k.object(inputs.fields), secrets: secrets}
}

// setDefaultLabels gives obj the labels its kind carries by default, unless the
// inputs set them.
func setDefaultLabels(k kind, obj map[string]any) {
	if len(k.defaultLabels) == 0 {
		return
	}
	meta := mapOf(obj["metadata"])
	if meta == nil {
		meta = map[string]any{}
		obj["metadata"] = meta
	}
	labels := mapOf(meta["labels"])
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

// fromFields is the object of the kind whose metadata and fields are those of fields
// (inputs or a state), what is not known yet left out.
func (k kind) fromFields(fields map[string]any) *unstructured.Unstructured {
	obj := map[string]any{"apiVersion": k.apiVersion, "kind": k.name}
	for _, f := range append([]string{"metadata"}, k.fields...) {
		if x := validate.Known(fields[f]); x != nil {
			obj[f] = x
		}
	}
	return &unstructured.Unstructured{Object: obj}
}

// recordedIn decodes the state of an object of kind k.
func recordedIn(k kind, state decoded) recorded {
	return recorded{obj: k.fromFields(state.fields), known: state.known()}
}

// idOfInputs is the namespace/name that an object's inputs or state give.
func idOfInputs(fields map[string]any) objectID {
	meta := metadataOf(fields)
	namespace, _ := stringOf(meta["namespace"])
	name, _ := stringOf(meta["name"])
	return objectID{namespace: namespace, name: name}
}

// outputs are a live object's properties: its fields without apiVersion and kind,
// without metadata.managedFields, the server's bookkeeping of field ownership, which
// changes on every write and would only weigh down the state, and without the
// provider's OwnerAnnotation, the resource's URN, which the state holds already (the
// provider reads it from live objects only, and puts it back on every object it
// writes: see kindClient.marked).
func outputs(k kind, obj *unstructured.Unstructured) map[string]any {
	out := map[string]any{}
	for _, f := range append([]string{"metadata"}, k.fields...) {
		v, ok := obj.Object[f]
		if !ok {
			continue
		}
		if meta, isMap := v.(map[string]any); isMap && f == "metadata" {
			v = withoutBookkeeping(meta)
		}
		out[f] = v
	}
	return out
}

// withoutBookkeeping is an object's metadata without managedFields and the
// OwnerAnnotation (see outputs); the metadata itself when it has neither.
func withoutBookkeeping(meta map[string]any) map[string]any {
	annotations := mapOf(meta["annotations"])
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

// withMeta is fields with the metadata key set to v (fields and its metadata are
// copied, not changed).
func withMeta(fields map[string]any, key string, v any) map[string]any {
	meta := maps.Clone(metadataOf(fields))
	if meta == nil {
		meta = map[string]any{}
	}
	meta[key] = v
	out := maps.Clone(fields)
	if out == nil {
		out = map[string]any{}
	}
	out["metadata"] = meta
	return out
}

// previewOutputs are the outputs of an object that could not be dry-run: the inputs,
// with what only the server knows left unknown.
func previewOutputs(inputs map[string]any) map[string]any {
	out := inputs
	for _, f := range validate.ServerSetOnCreate() {
		out = withMeta(out, f, validate.Computed{})
	}
	return withNameUnknown(out)
}

// withNameUnknown is inputs with metadata.name unknown, unless they give it: the
// outputs of a preview that only the name is missing from.
func withNameUnknown(inputs map[string]any) map[string]any {
	if _, named := metadataOf(inputs)["name"]; named {
		return inputs
	}
	return withMeta(inputs, "name", validate.Computed{})
}

// withCreateID records createID in the labels of a state's metadata.
func withCreateID(state map[string]any, createID string) map[string]any {
	labels := maps.Clone(mapOf(metadataOf(state)["labels"]))
	if labels == nil {
		labels = map[string]any{}
	}
	labels[CreateIDLabel] = createID
	return withMeta(state, "labels", labels)
}

// liveInputs are the inputs that describe a live object. On refresh they are the
// live object projected onto the shape of the previous inputs old: a field whose live
// value is the same, in the kind's canonical form, as the previous input keeps the
// input as the program wrote it (so what the server defaulted or normalised stays
// left out); a field that really changed out of band takes its live value, without
// server defaults, and shows as drift against the program. On import (no previous
// inputs) they are the object's own fields, without server defaults, with its name,
// namespace, labels, annotations, owner references and finalizers, but without what
// the provider, the controllers and kubectl add by themselves (see ownKeys): what a
// program that writes the object would set. The fields the previous inputs held
// secret stay secret.
func liveInputs(k kind, live *unstructured.Unstructured, old decoded) decoded {
	obj := outputs(k, live)
	imported := old.empty()
	in := map[string]any{}
	for _, f := range k.fields {
		oldValue, hadOld := old.fields[f]
		if !imported && k.form.Same(f, oldValue, obj[f]) {
			if hadOld {
				in[f] = oldValue
			}
			continue
		}
		if v, ok := k.form.Stripped(f, obj[f]); ok {
			in[f] = v
		}
	}
	in["metadata"] = liveMetadata(live, metadataOf(obj), metadataOf(old.fields), imported)
	return old.with(in)
}

// liveMetadata is the metadata of liveInputs: liveMeta read back against the previous
// inputs' oldMeta (see liveInputs).
func liveMetadata(live *unstructured.Unstructured, liveMeta, oldMeta map[string]any, imported bool) map[string]any {
	meta := map[string]any{"name": live.GetName(), "namespace": live.GetNamespace()}
	if v, ok := oldMeta["generateName"]; ok {
		// The server picked the name (a slice), unless Check did (an EndpointsList item,
		// whose inputs keep the name so that it stays the same).
		meta["generateName"] = v
		if _, named := oldMeta["name"]; !named {
			delete(meta, "name")
		}
	}
	for _, f := range []string{"labels", "annotations"} {
		oldMap, wasSet := oldMeta[f]
		switch {
		case imported:
			if keep := readBackKeys(f, mapOf(liveMeta[f]), nil, true); len(keep) > 0 {
				meta[f] = keep
			}
		case wasSet && mapOf(oldMap) != nil:
			meta[f] = readBackKeys(f, mapOf(liveMeta[f]), mapOf(oldMap), false)
		}
	}
	for _, f := range []string{"ownerReferences", "finalizers"} {
		_, wasSet := oldMeta[f]
		if v, ok := liveMeta[f]; ok && (imported || wasSet) {
			meta[f] = v
		}
	}
	return meta
}

// A list's items, read from its inputs or state, and its state and Read's answer
// built from them.

// itemsOf reads the items of an EndpointsList's inputs, in order, each all secret when
// the list's items are (see secret.Secrecy.Within); those of a state name the objects
// it records (see recordedItems for their states).
func itemsOf(list decoded) []listItem {
	all, _ := list.fields["items"].([]any)
	within := list.secret.Within("items")
	var items []listItem
	for _, item := range all {
		if m := mapOf(item); m != nil {
			items = append(items, listItem{id: idOfInputs(m), inputs: decoded{fields: m, secret: within}})
		}
	}
	return items
}

// recordedItems reads the items of an EndpointsList's state, in order, each with its
// state as its outputs.
func recordedItems(state decoded) []listItem {
	items := itemsOf(state)
	for i, it := range items {
		items[i] = listItem{id: it.id, output: it.inputs}
	}
	return items
}

// state is a list's state: the outputs of the items, and the metadata of from (the
// list's inputs, or its state), with from's secrecy: the items are all secret when
// from's are.
func (r *EndpointsList) state(items []listItem, from decoded) decoded {
	out := from.with(map[string]any{})
	all := make([]any, 0, len(items))
	for _, it := range items {
		all = append(all, it.output.fields)
	}
	out.fields["items"] = all
	if metadata, ok := from.fields["metadata"]; ok && metadata != nil {
		out.fields["metadata"] = metadata
	}
	return out
}

// liveItem is an item of a list as a Read finds it: the object the store holds under
// its name.
type liveItem struct {
	id  objectID
	obj *unstructured.Unstructured
}

// readAnswer is the state and inputs of a list found live: the state records each
// item's outputs, and the metadata of state (the state's own, or what an import read);
// the inputs are each item's as read back against the list's inputs olds (none for an
// import, see liveInputs), with the metadata of olds. Both keep secret what state or
// olds held secret.
func (r *EndpointsList) readAnswer(live []liveItem, olds, state decoded) (decoded, decoded) {
	oldInputs := map[objectID]decoded{}
	for _, it := range itemsOf(olds) {
		oldInputs[it.id] = it.inputs
	}
	items := make([]listItem, 0, len(live))
	inputs := make([]listItem, 0, len(live))
	for _, it := range live {
		items = append(items, listItem{id: it.id, output: plain(outputs(r.kind, it.obj))})
		inputs = append(inputs, listItem{id: it.id, output: liveInputs(r.kind, it.obj, oldInputs[it.id])})
	}
	return r.state(items, state.also(olds)), r.state(inputs, olds.also(state))
}

// itemsWritten is the objects of the items of a list's inputs news that are known,
// without those whose canonical form is the same as in the previous inputs olds (they
// are not written).
func itemsWritten(news, olds decoded) []*unstructured.Unstructured {
	old := map[objectID]map[string]any{}
	for _, it := range itemsOf(olds) {
		old[it.id] = it.inputs.fields
	}
	var objs []*unstructured.Unstructured
	for _, it := range itemsOf(news) {
		if it.id.name == "" || it.id.namespace == "" || validate.HasComputed(metadataOf(it.inputs.fields)) {
			continue
		}
		if prev, ok := old[it.id]; ok && endpointsKind.form.SameObject(prev, it.inputs.fields) {
			continue
		}
		objs = append(objs, endpointsKind.object(it.inputs.fields))
	}
	return objs
}
