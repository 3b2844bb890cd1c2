package kube

import (
	"fmt"

	p "github.com/pulumi/pulumi-go-provider"
)

// The labels and annotations that the provider, the Kubernetes controllers and kubectl
// write on objects by themselves, and what inputs read back from a live object (see
// liveInputs) do with each. A program does not write these, so an import leaves them
// out; a refresh keeps, of every label and annotation, only the keys the previous
// inputs set, and leaves out the provider's reserved keys besides (Check rejects a
// program that sets one, see reservedKeyFailures).

const (
	// CreateIDLabel is the label that identifies the create of an object whose name the
	// API server generated, so that an object whose create went unanswered is found (see
	// the package documentation, IDs and pending IDs).
	CreateIDLabel = "endpoints-provider.github.io/create-id"
	// OwnerAnnotation names the resource whose create made the object: its URN, which
	// names the project and the stack too. A create that meets an object of its name
	// that carries its own URN (its own create, interrupted before the state recorded
	// it) adopts the object; any other is refused (see kindClient.create).
	OwnerAnnotation = "endpoints-provider.github.io/urn"
	// ManagedByLabel names the manager of an EndpointSlice.
	ManagedByLabel = "endpointslice.kubernetes.io/managed-by"
	// ManagedBy is the provider's value of ManagedByLabel, set on the slices it writes
	// unless their inputs set the label.
	ManagedBy = "pulumi-endpoints"

	lastAppliedAnnotation = "kubectl.kubernetes.io/last-applied-configuration"
	triggerTimeAnnotation = "endpoints.kubernetes.io/last-change-trigger-time"
	// autonamedAnnotation is what pulumi-kubernetes sets on the objects it names
	// itself, to replace them under a new name; this provider names objects by their
	// inputs and reads nothing from it.
	autonamedAnnotation = "pulumi.com/autonamed"
)

// readBack is what inputs read back from a live object do with a key.
type readBack int

const (
	// leftOut: the key is not in the inputs.
	leftOut readBack = iota
	// asSet: the key is in the inputs when the previous inputs set it, as any other.
	asSet
)

// ownKey is a label or annotation that is not the program's to write.
type ownKey struct {
	// in is "labels" or "annotations".
	in  string
	key string
	// value is the writer's value; "" when every value of the key is the writer's.
	value string
	// owner is who writes it.
	owner string
	// onImport and onRefresh are what an import and a refresh do with it.
	onImport, onRefresh readBack
	// reserved, when set, says why a program may not set the key: Check rejects it.
	reserved string
}

// ownKeys are the keys other than the program's.
var ownKeys = []ownKey{
	{
		in: "labels", key: CreateIDLabel, owner: "the provider, on every create whose name the server generates",
		onImport: leftOut, onRefresh: leftOut,
		reserved: "the label is the provider's: it sets a new value on every create whose name the server generates " +
			"(metadata.generateName), to find the object if the answer is lost; leave it out",
	},
	{
		in: "annotations", key: OwnerAnnotation, owner: "the provider, on every object it creates or updates",
		onImport: leftOut, onRefresh: leftOut,
		reserved: "the annotation is the provider's: it names the resource that created the object, so that the " +
			"run after an interrupted create adopts that object and no other; leave it out",
	},
	{
		in: "labels", key: ManagedByLabel, value: ManagedBy, owner: "the provider, on slices whose inputs do not set it",
		onImport: leftOut, onRefresh: asSet,
	},
	{
		in: "annotations", key: lastAppliedAnnotation, owner: "kubectl apply",
		onImport: leftOut, onRefresh: asSet,
	},
	{
		in: "annotations", key: triggerTimeAnnotation, owner: "the endpoints and EndpointSlice controllers",
		onImport: leftOut, onRefresh: asSet,
	},
	{
		in: "annotations", key: autonamedAnnotation, owner: "pulumi-kubernetes, on the objects it autonames",
		onImport: leftOut, onRefresh: asSet,
	},
}

// ownKeyOf returns the row of ownKeys of the label or annotation (in) key with value v.
func ownKeyOf(in, key string, v any) (ownKey, bool) {
	for _, k := range ownKeys {
		if k.in == in && k.key == key && (k.value == "" || v == k.value) {
			return k, true
		}
	}
	return ownKey{}, false
}

// on is what inputs read back on import (imported), else on refresh, do with the key.
func (k ownKey) on(imported bool) readBack {
	if imported {
		return k.onImport
	}
	return k.onRefresh
}

// readBackKeys returns the labels or annotations (in) that inputs read back from a
// live object keep of the live ones: on import (no previous inputs), every key but
// those ownKeys leaves out; on refresh, the keys the previous inputs (old) set, but
// those ownKeys leaves out.
func readBackKeys(in string, live, old map[string]any, imported bool) map[string]any {
	kept := map[string]any{}
	for key, v := range live {
		_, wasSet := old[key]
		if !imported && !wasSet {
			continue
		}
		if own, isOwn := ownKeyOf(in, key, v); isOwn && own.on(imported) == leftOut {
			continue
		}
		kept[key] = v
	}
	return kept
}

// reservedKeyFailures reports a program that sets a key reserved to the provider on
// an object (inputs are the object's).
func reservedKeyFailures(inputs map[string]any) []p.CheckFailure {
	return reservedKeysAt("", inputs)
}

// reservedItemKeyFailures reports a program that sets a key reserved to the provider
// on an item of an EndpointsList (inputs are the list's), naming the item.
func reservedItemKeyFailures(inputs map[string]any) []p.CheckFailure {
	items, _ := inputs["items"].([]any)
	var failures []p.CheckFailure
	for i, item := range items {
		if m := mapOf(item); m != nil {
			failures = append(failures, reservedKeysAt(itemPath(i)+".", m)...)
		}
	}
	return failures
}

// reservedKeysAt reports the reserved keys an object's inputs set, each path prefixed
// with at (the object's place in the resource's inputs).
func reservedKeysAt(at string, inputs map[string]any) []p.CheckFailure {
	meta := metadataOf(inputs)
	var failures []p.CheckFailure
	for _, k := range ownKeys {
		if v := mapOf(meta[k.in])[k.key]; v != nil && k.reserved != "" {
			failures = append(failures, p.CheckFailure{Property: fmt.Sprintf("%smetadata.%s[%q]", at, k.in, k.key),
				Reason: k.reserved})
		}
	}
	return failures
}
