package kube

import (
	"fmt"
	"strings"

	"github.com/pulumi/pulumi/sdk/v3/go/property"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
)

// An object's ID, in one place: the namespace/name that identifies one object
// (objectID), read from an ID the engine gives (parseObjectID), from a live object
// (idOf), from inputs or a state (idOfInputs, idInState, uidOf), and the pending ID
// recorded for a create whose server was to pick the name (pendingID), which a name
// ending in pendingSuffix marks. An EndpointsList's own ID, an opaque name for the
// set, and its import IDs are list.go's and list_read.go's.

// objectID is the namespace/name identity of one object.
type objectID struct{ namespace, name string }

func (id objectID) String() string { return id.namespace + "/" + id.name }

// parseObjectID reads the `namespace/name` ID of one object of kind k (a bare name
// means the default namespace given).
func parseObjectID(k kind, id, fallbackNamespace string) (objectID, error) {
	ns, name, found := strings.Cut(id, "/")
	if !found {
		ns, name = fallbackNamespace, id
	}
	if ns == "" || name == "" || strings.Contains(name, "/") {
		return objectID{}, fmt.Errorf("invalid %[1]s ID %[2]q: an %[1]s ID is <namespace>/<name>, such as "+
			"default/web-1a2b3c (a bare name means the provider's namespace); an EndpointsList's ID is "+
			"<namespace>?labelSelector=<selector>, such as default?labelSelector=app%%3Dweb", k.name, id)
	}
	return objectID{namespace: ns, name: name}, nil
}

// idOf is the ID of a live object, or of one built to be written.
func idOf(obj *unstructured.Unstructured) objectID {
	return objectID{namespace: obj.GetNamespace(), name: obj.GetName()}
}

// idOfInputs is the namespace/name that an object's inputs or state give.
func idOfInputs(m property.Map) objectID {
	meta := mapField(m, "metadata")
	namespace, _ := stringField(meta, "namespace")
	name, _ := stringField(meta, "name")
	return objectID{namespace: namespace, name: name}
}

// uidOf reads metadata.uid of a state: the UID of the object the provider wrote ("" when
// the state does not know it, e.g. after a create whose answer never came).
func uidOf(state property.Map) types.UID {
	uid, _ := stringField(mapField(state, "metadata"), "uid")
	return types.UID(uid)
}

// pendingSuffix ends the name part of a pending ID: the server generated the name,
// and the answer that would have told it was lost.
const pendingSuffix = "*"

// pending tells whether the ID stands for an object whose generated name is not known.
func (id objectID) pending() bool { return strings.HasSuffix(id.name, pendingSuffix) }

// pendingID is the ID recorded for obj, created from metadata.generateName, when the
// answer to its create was lost.
func pendingID(obj *unstructured.Unstructured) objectID {
	return objectID{namespace: obj.GetNamespace(), name: obj.GetGenerateName() + pendingSuffix}
}

// idOrPending is the ID that names obj before it is written: its own, or its pending
// ID when the server is to pick its name.
func idOrPending(obj *unstructured.Unstructured) objectID {
	if obj.GetName() == "" {
		return pendingID(obj)
	}
	return idOf(obj)
}

// everyObjectIn stands for every object of a namespace, in messages about a list of
// them: the pending ID of an empty generateName, namespace/*.
func everyObjectIn(namespace string) objectID {
	return objectID{namespace: namespace, name: pendingSuffix}
}

// idInState is the ID of the object a state records under id: the name its outputs
// give (the name the server generated, once an update or a refresh has seen the
// object), else the ID's.
func idInState(id objectID, state property.Map) objectID {
	if name, _ := stringField(mapField(state, "metadata"), "name"); name != "" {
		id.name = name
	}
	return id
}
