package kube

import (
	"context"
	"fmt"
	"time"

	"github.com/pulumi/pulumi/sdk/v3/go/property"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/endpoints-provider/pulumi-endpoints/provider/validate"
)

// renderStore is the store of render mode: one manifest per object in the render
// directory (see render.go). No client is built and no cluster contacted. The outputs
// are the objects as written: no server sets anything. A name the server would
// generate (an EndpointSlice's metadata.generateName) is chosen by the store on
// create, in the server's shape, and kept by updates (it is in the ID).
type renderStore struct {
	target RenderTarget
	kind   kind
}

func (renderStore) ready(context.Context) error { return nil }

func (s renderStore) namespace(context.Context) (string, error) { return s.target.namespace(), nil }

// preview leaves unknown only the name the store is to pick.
func (renderStore) preview(m property.Map) property.Map {
	meta := mapField(m, "metadata")
	if _, named := meta.GetOk("name"); named {
		return m
	}
	return m.Set("metadata", property.New(meta.Set("name", property.New(property.Computed))))
}

// name gives an object with metadata.generateName and no name a name of the shape the
// API server gives (the prefix and 5 random characters); it needs no create ID.
func (renderStore) name(obj *unstructured.Unstructured, _ string) (string, error) {
	if obj.GetName() != "" {
		return "", nil
	}
	name, err := generatedItemName(nil, obj.GetGenerateName())
	if err != nil {
		return "", fmt.Errorf("internal error: naming the %s: %w", obj.GetKind(), err)
	}
	obj.SetName(name)
	return "", nil
}

// create writes the manifest; a file there already is the "already exists" error. A
// preview writes nothing.
func (s renderStore) create(ctx context.Context, obj *unstructured.Unstructured, inputs property.Map, at string,
	dryRun, _ bool,
) (*unstructured.Unstructured, error) {
	if dryRun {
		return obj, nil
	}
	warnSecrets(ctx, inputs, at, s.target.file(s.kind, idOf(obj)))
	if err := s.target.writeManifest(s.kind, obj, true); err != nil {
		return nil, err
	}
	return obj, nil
}

func (s renderStore) get(_ context.Context, id objectID) (*unstructured.Unstructured, error) {
	return s.target.readManifest(s.kind, id)
}

func (s renderStore) locate(ctx context.Context, id objectID, state property.Map) (*unstructured.Unstructured, error) {
	return s.get(ctx, idInState(id, state))
}

func (s renderStore) read(ctx context.Context, id objectID, state property.Map) (*unstructured.Unstructured, error) {
	return s.locate(ctx, id, state)
}

// update writes the manifest of inputs again (a file with the same bytes is left
// alone); an object whose name the store picked keeps the name its ID records.
func (s renderStore) update(ctx context.Context, id objectID, _, _, inputs property.Map, at string, dryRun bool,
) (*unstructured.Unstructured, error) {
	obj := s.kind.object(inputs)
	if obj.GetName() == "" {
		obj.SetName(id.name)
	}
	if dryRun {
		return obj, nil
	}
	warnSecrets(ctx, inputs, at, s.target.file(s.kind, idOf(obj)))
	if err := s.target.writeManifest(s.kind, obj, false); err != nil {
		return nil, err
	}
	return obj, nil
}

func (s renderStore) remove(_ context.Context, t deleteTarget, _ time.Duration) error {
	return s.target.removeManifest(s.kind, t.id)
}

// removeAll removes the manifests one by one; every one is tried.
func (s renderStore) removeAll(ctx context.Context, targets []deleteTarget, timeout time.Duration) ([]objectID, error) {
	var (
		removed []objectID
		failed  []error
	)
	for _, t := range targets {
		if err := s.remove(ctx, t, timeout); err != nil {
			failed = append(failed, err)
			continue
		}
		removed = append(removed, t.id)
	}
	return removed, joinFailures(failed, "manifest(s)")
}

// forItems writes the items one by one, in order, and stops at the first failure: a
// file write leaves no doubt.
func (renderStore) forItems(_ context.Context, n int, do func(i int) (property.Map, error)) []itemResult {
	results := make([]itemResult, n)
	for i := range n {
		output, err := do(i)
		results[i] = itemResult{sent: true, output: output, err: err}
		if err != nil {
			break
		}
	}
	return results
}

func (s renderStore) readItems(ctx context.Context, recorded []listItem) ([]*unstructured.Unstructured, error) {
	objs := make([]*unstructured.Unstructured, len(recorded))
	for i, it := range recorded {
		obj, err := s.get(ctx, it.id)
		if err != nil {
			return nil, err
		}
		objs[i] = obj
	}
	return objs, nil
}

// page reads the manifests of the render directory (see renderedPage).
func (s renderStore) page(_ context.Context, q listQuery, limit int64, cont string) (listed, error) {
	return renderedPage(s.target, q, limit, cont)
}

func (s renderStore) notFound(_ context.Context, _ string, id objectID) error {
	return fmt.Errorf("%s %s has no manifest: %s does not exist", s.kind.name, id, s.target.file(s.kind, id))
}

func (s renderStore) noneSelected(_ context.Context, id, namespace, selector string) error {
	return fmt.Errorf("EndpointsList %q: no Endpoints manifest of namespace %s in %s matches "+
		"the label selector %q; the ID is <namespace>?labelSelector=<selector>", id, namespace,
		s.target.Directory, selector)
}

// stale tells whether obj's manifest is missing, unreadable or edited (see
// RenderTarget.stale); an object whose name the store picked is named as its ID
// (rawID) records.
func (s renderStore) stale(ctx context.Context, obj *unstructured.Unstructured, rawID string) bool {
	if obj.GetName() == "" {
		if parsed, err := parseObjectID(s.kind, rawID, s.target.namespace()); err == nil {
			obj.SetName(parsed.name)
		}
	}
	return s.target.stale(ctx, s.kind, obj)
}

// warnItems: no cluster, no controllers to warn about.
func (renderStore) warnItems(context.Context, property.Map, property.Map, bool) {}

// warnControllers: no cluster, no controllers to warn about.
func (renderStore) warnControllers(context.Context, []*unstructured.Unstructured) {}

// mayExist: a file write that failed wrote nothing.
func (renderStore) mayExist(error) bool { return false }

// rules are the newest minor's (no server reads the manifests yet), and nothing is
// added: a manifest holds the inputs alone.
func (renderStore) rules(context.Context) (validate.Server, validate.Written) {
	return validate.Newest, validate.Written{}
}
