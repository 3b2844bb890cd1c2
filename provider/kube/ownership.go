package kube

import (
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
)

// Ownership, in one place: whose is a live object. Every path that writes, deletes or
// records a live object for a resource asks claim.holds first: a create's adoption of
// the object that holds its name, an update's read-modify-write, a delete (which then
// names the object's UID as its precondition), a refresh of a slice or of a list's
// items, an import, the dry run of a preview, and the search for what a lost create
// made. An object the claim does not hold is, for the resource, not there: a refresh
// drops the resource (or the item) from the state, an update creates it again (and
// meets the 409 of the name another's object holds), a delete has nothing to delete.
//
// Whether an object the claim holds may be written over is not ownership: a create
// never adopts the object that the state still records for the resource (a
// replacement under the name of the object it replaces, see kindClient.adopt), nor one
// being deleted.

// claim is what a resource says of the live object it stands for, from the most to
// the least certain: the UID its state records (the server's answer to a create, or
// a refresh since); else the create ID its state records (a server-named object whose
// create went unanswered, see labelCreate); else the resource's URN, which every
// object its creates made carries (OwnerAnnotation). A Read with the ID alone (get,
// import) claims any object (anyObject): the state records none. A state that records
// its object by name alone (no UID, no create ID: a create or a list item whose answer
// was lost) claims, besides, an object that carries no URN and that this provider
// wrote (legacy): version 0.6.0 recorded such states and wrote no URN, and the first
// answer about the object records its UID, which decides from then on.
type claim struct {
	uid       types.UID
	createID  string
	owner     resource.URN
	anyObject bool
	legacy    bool
}

// claim is the claim of a state for the resource owner: the UID and create ID it
// records, and the owner. A state that records no object (the Read of a get or an
// import) claims none in particular.
func (r recorded) claim(owner resource.URN) claim {
	c := claim{uid: r.uid(), createID: r.createID(), owner: owner}
	c.anyObject = c.uid == "" && c.createID == "" && r.obj.GetName() == ""
	c.legacy = c.uid == "" && c.createID == "" && !c.anyObject
	return c
}

// ownerClaim is the claim of the resource owner on an object its state does not
// record: what a create adopts.
func ownerClaim(owner resource.URN) claim { return claim{owner: owner} }

// holds tells whether live is the object the claim stands for (see claim), the one
// rule of ownership. The recorded UID holds its object whatever its labels and
// annotations say (another client may drop them: a `kubectl apply` of an exported
// manifest, a GitOps sync). Another object under the recorded name is the resource's
// when it carries the resource's URN, the mark only this resource's writes put there
// (Check refuses it in a program): its own create made it after the recorded object
// was deleted, in an update whose answer was lost, say; left alone, it would keep
// serving after `pulumi destroy`. A recorded create ID that the object does not carry
// says another create made it, whatever URN it carries.
func (c claim) holds(live *unstructured.Unstructured) bool {
	switch {
	case live == nil:
		return false
	case c.anyObject:
		return true
	case c.uid != "" && live.GetUID() == c.uid:
		return true
	case c.createID != "":
		return live.GetLabels()[CreateIDLabel] == c.createID
	case c.owner != "" && live.GetAnnotations()[OwnerAnnotation] == string(c.owner):
		return true
	}
	return c.legacy && unmarked(live) && writtenByUs(live)
}

// held is live when the claim holds it, else nil: for the resource, an object that is
// another's is not there.
func (c claim) held(live *unstructured.Unstructured) *unstructured.Unstructured {
	if !c.holds(live) {
		return nil
	}
	return live
}

// writtenByUs tells whether the provider created or last wrote part of the object.
func writtenByUs(obj *unstructured.Unstructured) bool {
	for _, m := range obj.GetManagedFields() {
		if m.Manager == FieldManager {
			return true
		}
	}
	return false
}

// unmarked tells whether obj carries no resource's URN.
func unmarked(obj *unstructured.Unstructured) bool {
	_, marked := obj.GetAnnotations()[OwnerAnnotation]
	return !marked
}
