package kube

import (
	"slices"
	"strings"

	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
)

// identityKeys are the metadata keys that name an object.
var identityKeys = []string{"name", "namespace", "generateName"}

// replacedBy tells whether a change to the property of an object of kind k replaces
// the object: one of the kind's immutable fields, or metadata.name, .namespace or
// .generateName (a property is a top-level field, or "metadata.<key>"). Anything else
// is updated in place. It is the one rule of what replaces an object: Diff marks the
// change of such a property as a replacement (diffInputs), and Check keeps an
// autoname unless one changes (replaces).
func (k kind) replacedBy(property string) bool {
	if key, ok := strings.CutPrefix(property, "metadata."); ok {
		return slices.Contains(identityKeys, key)
	}
	return slices.Contains(k.immutable, property)
}

// replaces tells whether the new inputs of an object of kind k replace the object the
// old ones describe: Diff (diffInputs, the one walk over the properties replacedBy
// judges) marks a replacement. Without old inputs (a create) there is nothing to
// replace.
func replaces(k kind, olds, news property.Map) bool {
	if olds.Len() == 0 {
		return false
	}
	for _, c := range diffInputs(k, olds, news).DetailedDiff {
		if Replaces(c.Kind) {
			return true
		}
	}
	return false
}

// Replacing returns the kind of change that replaces the object for a change of
// kind k: an add, delete or update becomes its replacing form; any other kind is
// returned as it is.
func Replacing(k p.DiffKind) p.DiffKind {
	switch k {
	case p.Add:
		return p.AddReplace
	case p.Delete:
		return p.DeleteReplace
	case p.Update:
		return p.UpdateReplace
	default:
		return k
	}
}

// Replaces tells whether a change of kind k replaces the object.
func Replaces(k p.DiffKind) bool {
	return k == p.AddReplace || k == p.DeleteReplace || k == p.UpdateReplace
}
