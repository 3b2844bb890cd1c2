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
// items, and the search for what a lost create made. An object the claim does not
// hold is, for the resource, not there: a refresh drops the resource (or the item)
// from the state, an update creates it again (and meets the 409 of the name another's
// object holds), a delete has nothing to delete.

// claim is what a resource says of the live object it stands for, from the most to
// the least certain: the UID its state records (the server's answer to a create, or
// a refresh since); else the create ID its state records (a server-named object whose
// create went unanswered, see labelCreate); else the resource's URN, which every
// object its creates made carries (OwnerAnnotation). A Read with the ID alone (get,
// import) claims any object (anyObject): the state records none.
type claim struct {
	uid       types.UID
	createID  string
	owner     resource.URN
	anyObject bool
}

// claim is the claim of a state for the resource owner: the UID and create ID it
// records, and the owner. A state that records no object (the Read of a get or an
// import) claims none in particular.
func (r recorded) claim(owner resource.URN) claim {
	c := claim{uid: r.uid(), createID: r.createID(), owner: owner}
	c.anyObject = c.uid == "" && c.createID == "" && r.obj.GetName() == ""
	return c
}

// ownerClaim is the claim of the resource owner on an object its state does not
// record: what a create adopts.
func ownerClaim(owner resource.URN) claim { return claim{owner: owner} }

// holds tells whether live is the object the claim stands for (see claim). A UID
// decides alone: the create ID label and the URN annotation are an object's own to
// lose or to copy (a `kubectl apply` of an exported manifest, a GitOps sync), its UID
// is not.
func (c claim) holds(live *unstructured.Unstructured) bool {
	switch {
	case live == nil:
		return false
	case c.uid != "":
		return live.GetUID() == c.uid
	case c.createID != "":
		return live.GetLabels()[CreateIDLabel] == c.createID
	case c.anyObject:
		return true
	}
	return c.owner != "" && live.GetAnnotations()[OwnerAnnotation] == string(c.owner)
}

// held is live when the claim holds it, else nil: for the resource, an object that is
// another's is not there.
func (c claim) held(live *unstructured.Unstructured) *unstructured.Unstructured {
	if !c.holds(live) {
		return nil
	}
	return live
}
