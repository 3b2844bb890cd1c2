package kube

import p "github.com/pulumi/pulumi-go-provider"

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
