package kube

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"

	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
)

// renderedList is an EndpointsList in render mode: one manifest per item. Check is the
// cluster path's (its namespace from the render target); the ID is an opaque name
// for the set, as on a cluster.
type renderedList struct {
	*EndpointsList
	target RenderTarget
}

// rendered is the list in render mode on target.
func (r *EndpointsList) rendered(target RenderTarget) Lifecycle {
	return renderedList{EndpointsList: r, target: target}
}

// Diff is the cluster path's input diff, without its lookups of the controllers on the
// cluster; with no change to the inputs, an item whose manifest is missing or edited
// is a change, which Update writes again.
func (r renderedList) Diff(ctx context.Context, req p.DiffRequest) (p.DiffResponse, error) {
	d := listInputsDiff(req)
	if d.HasChanges || hasUnknowns(req.Inputs) {
		return d, nil
	}
	for _, it := range itemsOf(req.Inputs) {
		if r.target.stale(ctx, r.kind, r.kind.object(it.inputs)) {
			d.HasChanges = true
		}
	}
	return d, nil
}

// writeItems writes the manifest of each item (i-th of items at items[i] of the
// inputs); set is what the state records, whose items are rewritten, the others
// created. Each item written is recorded in set with its outputs. It stops at the
// first failure.
func (r renderedList) writeItems(ctx context.Context, items []listItem, set *itemSet, dryRun bool) error {
	for i, it := range items {
		obj := r.kind.object(it.inputs)
		if !dryRun {
			warnSecrets(ctx, it.inputs, fmt.Sprintf("items[%d]", i), r.target.file(r.kind, it.id))
			if err := r.target.writeManifest(r.kind, obj, !set.has(it.id)); err != nil {
				return fmt.Errorf("items[%d]: %w", i, err)
			}
		}
		it.output = outputs(r.kind, obj)
		set.record(it)
	}
	return nil
}

// Create writes every item's manifest. On a failure the items written are the
// partial state.
func (r renderedList) Create(ctx context.Context, req p.CreateRequest) (p.CreateResponse, error) {
	if hasUnknowns(req.Properties) {
		return p.CreateResponse{Properties: req.Properties}, nil
	}
	metadata := req.Properties.Get("metadata")
	written := newItemSet(property.Map{})
	err := r.writeItems(ctx, itemsOf(req.Properties), written, req.DryRun)
	switch {
	case req.DryRun:
		return p.CreateResponse{Properties: r.state(written.items(), metadata)}, err
	case err != nil && len(written.items()) == 0:
		return p.CreateResponse{}, err
	}
	id, idErr := newListID(req.Urn)
	if idErr != nil {
		return p.CreateResponse{}, idErr
	}
	if err != nil {
		state, err := partial(err, written, false) // a file write leaves no doubt
		return p.CreateResponse{ID: id, Properties: r.state(written.items(), metadata), PartialState: state}, err
	}
	return p.CreateResponse{ID: id, Properties: r.state(written.items(), metadata)}, nil
}

// Update writes the items of the new inputs, then removes the manifests of the items
// the set lost. On a failure the partial state is the set as it is.
func (r renderedList) Update(ctx context.Context, req p.UpdateRequest) (p.UpdateResponse, error) {
	if hasUnknowns(req.Inputs) {
		return p.UpdateResponse{Properties: req.Inputs}, nil
	}
	set := newItemSet(req.State)
	desired := itemsOf(req.Inputs)
	if req.DryRun {
		preview := newItemSet(property.Map{})
		err := r.writeItems(ctx, desired, preview, true)
		return p.UpdateResponse{Properties: r.state(preview.items(), req.Inputs.Get("metadata"))}, err
	}
	if err := r.writeItems(ctx, desired, set, false); err != nil {
		return r.partialUpdate(err, set, req, false)
	}
	for _, it := range set.dropped(desired) {
		if err := r.target.removeManifest(r.kind, it.id); err != nil {
			return r.partialUpdate(err, set, req, false)
		}
		set.forget(it.id)
	}
	written := make([]listItem, 0, len(desired))
	for _, it := range desired {
		written = append(written, set.get(it.id))
	}
	return p.UpdateResponse{Properties: r.state(written, req.Inputs.Get("metadata"))}, nil
}

// Read reads the manifests of the items the state records; items whose manifest is
// gone leave the state, and a list with none left is gone. A Read with the ID alone
// (import, get) reads the manifests the ID selects (see renderedList.importSet).
func (r renderedList) Read(ctx context.Context, req p.ReadRequest) (p.ReadResponse, error) {
	if lookup(req) {
		return r.importSet(req.ID)
	}
	recorded := itemsOf(req.Properties)
	objs := make([]*unstructured.Unstructured, len(recorded)) // nil: gone
	for i, it := range recorded {
		obj, err := r.target.readManifest(r.kind, it.id)
		if err != nil {
			return p.ReadResponse{}, err
		}
		objs[i] = obj
	}
	return r.refreshed(req, recorded, objs), nil
}

// importSet reads the Endpoints manifests of the directory that the import ID
// (`<namespace>?labelSelector=<selector>`) selects, in the order of their file names.
func (r renderedList) importSet(id string) (p.ReadResponse, error) {
	namespace, opts, err := parseImportID(id, r.target.namespace())
	if err != nil {
		return p.ReadResponse{}, err
	}
	selector, err := labels.Parse(opts.LabelSelector)
	if err != nil {
		return p.ReadResponse{}, fmt.Errorf("import ID %q: the label selector: %w", id, err)
	}
	pattern := r.target.file(r.kind, objectID{namespace: "*", name: "*"})
	files, err := filepath.Glob(pattern)
	if err != nil {
		return p.ReadResponse{}, fmt.Errorf("listing the manifests %s: %w", pattern, err)
	}
	slices.Sort(files)
	var live []listItem
	var inputs []property.Value
	for _, file := range files {
		obj, _, err := readManifestFile(file)
		if err != nil {
			return p.ReadResponse{}, err
		}
		if obj == nil || obj.GetKind() != r.kind.name || obj.GetNamespace() != namespace || !selector.Matches(labels.Set(obj.GetLabels())) {
			continue
		}
		live = append(live, listItem{id: idOf(obj), output: outputs(r.kind, obj)})
		inputs = append(inputs, property.New(liveInputs(r.kind, obj, property.Map{})))
	}
	if len(live) == 0 {
		return p.ReadResponse{}, fmt.Errorf("EndpointsList %q: no Endpoints manifest of namespace %s in %s matches "+
			"the label selector %q; the ID is <namespace>?labelSelector=<selector>", id, namespace,
			r.target.Directory, opts.LabelSelector)
	}
	return p.ReadResponse{
		ID:         id,
		Properties: r.state(live, property.New(property.Null)),
		Inputs:     property.NewMap(map[string]property.Value{"items": property.New(inputs)}),
	}, nil
}

// Delete removes the manifest of every item the state records.
func (r renderedList) Delete(_ context.Context, req p.DeleteRequest) error {
	var failed []error
	for _, it := range itemsOf(req.Properties) {
		if err := r.target.removeManifest(r.kind, it.id); err != nil {
			failed = append(failed, err)
		}
	}
	return joinFailures(failed, "manifest(s)")
}
