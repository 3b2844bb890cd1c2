package kube

import (
	"context"
	"fmt"

	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// renderedSlice is an EndpointSlice in render mode. Check is the cluster path's (its
// namespace from the render target); Create, Read, Update, Delete and Diff's file
// comparison use the manifest. The ID is namespace/name, as on a cluster.
type renderedSlice struct {
	*EndpointSlice
	target RenderTarget
}

// rendered is the slice in render mode on target.
func (r *EndpointSlice) rendered(target RenderTarget) Lifecycle {
	return renderedSlice{EndpointSlice: r, target: target}
}

// manifest is the object the inputs render to; a slice whose name the server would
// generate keeps the name its ID records.
func (r renderedSlice) manifest(inputs property.Map, id string) *unstructured.Unstructured {
	obj := r.kind.object(inputs)
	if obj.GetName() == "" {
		if parsed, err := parseObjectID(endpointSliceKind, id, r.target.namespace()); err == nil {
			obj.SetName(parsed.name)
		}
	}
	return obj
}

// Diff is the cluster path's input diff; with no change to the inputs, a manifest that
// is missing or edited is a change, which Update writes again.
func (r renderedSlice) Diff(ctx context.Context, req p.DiffRequest) (p.DiffResponse, error) {
	d, err := r.EndpointSlice.Diff(ctx, req)
	if err != nil || d.HasChanges || hasUnknowns(req.Inputs) {
		return d, err
	}
	d.HasChanges = r.target.stale(ctx, r.kind, r.manifest(req.Inputs, req.ID))
	return d, nil
}

// renderPreview is the preview of inputs not all known yet: the inputs, the name left
// unknown when the provider is to pick it.
func renderPreview(inputs property.Map) property.Map {
	meta := mapField(inputs, "metadata")
	if _, named := meta.GetOk("name"); named {
		return inputs
	}
	return inputs.Set("metadata", property.New(meta.Set("name", property.New(property.Computed))))
}

// Create writes the manifest. A slice with metadata.generateName and no name gets a
// name of the shape the API server gives (the prefix and 5 random characters).
func (r renderedSlice) Create(ctx context.Context, req p.CreateRequest) (p.CreateResponse, error) {
	if hasUnknowns(req.Properties) {
		return p.CreateResponse{Properties: renderPreview(req.Properties)}, nil
	}
	obj := r.kind.object(req.Properties)
	if obj.GetName() == "" {
		if req.DryRun {
			return p.CreateResponse{Properties: renderPreview(outputs(r.kind, obj))}, nil
		}
		name, err := generatedItemName(nil, obj.GetGenerateName())
		if err != nil {
			return p.CreateResponse{}, fmt.Errorf("internal error: naming the slice: %w", err)
		}
		obj.SetName(name)
	}
	if req.DryRun {
		return p.CreateResponse{Properties: outputs(r.kind, obj)}, nil
	}
	warnSecrets(ctx, req.Properties, "", r.target.file(r.kind, idOf(obj)))
	if err := r.target.writeManifest(r.kind, obj, true); err != nil {
		return p.CreateResponse{}, err
	}
	return p.CreateResponse{ID: idOf(obj).String(), Properties: outputs(r.kind, obj)}, nil
}

// Read reads the manifest back: its object is the state, and the inputs are what
// liveInputs makes of it, so a hand edit shows as drift. A missing manifest is an
// object gone (an empty ID), or, for a get or an import, an error naming the file.
func (r renderedSlice) Read(ctx context.Context, req p.ReadRequest) (p.ReadResponse, error) {
	id, err := parseObjectID(endpointSliceKind, req.ID, r.target.namespace())
	if err != nil {
		return p.ReadResponse{}, err
	}
	live, err := r.target.readManifest(r.kind, id)
	switch {
	case err != nil:
		return p.ReadResponse{}, err
	case live == nil && lookup(req):
		return p.ReadResponse{}, fmt.Errorf("%s %s has no manifest: %s does not exist", r.kind.name, id,
			r.target.file(r.kind, id))
	case live == nil:
		return p.ReadResponse{}, nil
	}
	oldInputs := req.Inputs
	if lookup(req) {
		oldInputs = property.Map{}
	}
	return p.ReadResponse{
		ID:         id.String(),
		Properties: outputs(r.kind, live),
		Inputs:     liveInputs(r.kind, live, oldInputs),
	}, nil
}

// Update writes the manifest again (a file with the same bytes is left alone).
func (r renderedSlice) Update(ctx context.Context, req p.UpdateRequest) (p.UpdateResponse, error) {
	if hasUnknowns(req.Inputs) {
		return p.UpdateResponse{Properties: renderPreview(req.Inputs)}, nil
	}
	obj := r.manifest(req.Inputs, req.ID)
	if !req.DryRun {
		warnSecrets(ctx, req.Inputs, "", r.target.file(r.kind, idOf(obj)))
		if err := r.target.writeManifest(r.kind, obj, false); err != nil {
			return p.UpdateResponse{}, err
		}
	}
	return p.UpdateResponse{Properties: outputs(r.kind, obj)}, nil
}

// Delete removes the manifest.
func (r renderedSlice) Delete(_ context.Context, req p.DeleteRequest) error {
	id, err := parseObjectID(endpointSliceKind, req.ID, r.target.namespace())
	if err != nil {
		return err
	}
	return r.target.removeManifest(r.kind, id)
}
