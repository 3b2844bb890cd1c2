package kube

import (
	"maps"
	"slices"
	"strings"

	p "github.com/pulumi/pulumi-go-provider"

	"github.com/endpoints-provider/pulumi-endpoints/provider/validate"
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
// replace. Both need hold no more than the metadata and the immutable fields (see
// kind.identity): nothing else replaces.
func replaces(k kind, olds, news map[string]any) bool {
	if len(olds) == 0 {
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

// diffInputs compares the previous and new inputs of one object in the kind's
// canonical form: a change to a property that replaces the object (replacedBy)
// replaces it; anything else updates it in place. A replacement keeping a fixed name
// must delete the old object first.
func diffInputs(k kind, olds, news map[string]any) p.DiffResponse {
	d := p.DiffResponse{DetailedDiff: map[string]p.PropertyDiff{}}
	for _, f := range k.fields {
		if c, changed := change(k.form, f, olds, news, k.replacedBy(f)); changed {
			d.DetailedDiff[f] = c
		}
	}
	oldMeta, newMeta := metadataOf(olds), metadataOf(news)
	for _, key := range metadataKeys(oldMeta, newMeta) {
		if c, changed := change(validate.ObjectMetaForm, key, oldMeta, newMeta, k.replacedBy("metadata."+key)); changed {
			d.DetailedDiff["metadata."+key] = c
		}
	}
	d.HasChanges = len(d.DetailedDiff) > 0
	for _, c := range d.DetailedDiff {
		if Replaces(c.Kind) {
			oldName, _ := stringOf(oldMeta["name"])
			newName, _ := stringOf(newMeta["name"])
			oldNamespace, _ := stringOf(oldMeta["namespace"])
			newNamespace, _ := stringOf(newMeta["namespace"])
			d.DeleteBeforeReplace = oldName != "" && oldName == newName && oldNamespace == newNamespace
			break
		}
	}
	return d
}

// change tells how the property key differs between the old and new inputs, in the
// form's canonical terms: added, deleted or updated (replacing the object when
// replace is set); changed is false when it is the same.
func change(form validate.Form, key string, olds, news map[string]any, replace bool) (c p.PropertyDiff, changed bool) {
	old, cur := olds[key], news[key]
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
func metadataKeys(olds, news map[string]any) []string {
	keys := maps.Clone(olds)
	if keys == nil {
		keys = map[string]any{}
	}
	maps.Copy(keys, news)
	return slices.Sorted(maps.Keys(keys))
}
