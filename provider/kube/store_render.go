package kube

import (
	"context"
	"fmt"
	"time"

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

// ready needs nothing: the namespace is the target's.
func (s renderStore) ready(context.Context) (string, error) { return s.target.namespace(), nil }

// preview leaves unknown only the name the store is to pick.
func (renderStore) preview(fields map[string]any) map[string]any { return withNameUnknown(fields) }

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

// create writes the manifest; a file there already is the "already exists" error.
func (s renderStore) create(ctx context.Context, in intent, dryRun, _ bool) (*unstructured.Unstructured, error) {
	return s.write(ctx, in, dryRun, true)
}

// write writes the manifest of in (see RenderTarget.writeManifest for create), and
// warns of the secrets it holds in plain text (a file its owner alone reads). A
// preview writes nothing.
func (s renderStore) write(ctx context.Context, in intent, dryRun, create bool) (*unstructured.Unstructured, error) {
	if dryRun {
		return in.obj, nil
	}
	warnSecrets(ctx, in.secrets, s.target.file(s.kind, idOf(in.obj)))
	if err := s.target.writeManifest(s.kind, in.obj, create, len(in.secrets) > 0); err != nil {
		return nil, err
	}
	return in.obj, nil
}

func (s renderStore) get(_ context.Context, id objectID) (*unstructured.Unstructured, error) {
	return s.target.readManifest(s.kind, id)
}

func (s renderStore) locate(ctx context.Context, id objectID, rec recorded) (*unstructured.Unstructured, error) {
	return s.get(ctx, rec.at(id))
}

// update writes the manifest of inputs again (a file with the same bytes is left
// alone); an object whose name the store picked keeps the name its ID records.
func (s renderStore) update(ctx context.Context, id objectID, _ recorded, _ *unstructured.Unstructured, in intent,
	dryRun bool,
) (*unstructured.Unstructured, error) {
	in.obj = in.obj.DeepCopy()
	if in.obj.GetName() == "" {
		in.obj.SetName(id.name)
	}
	return s.write(ctx, in, dryRun, false)
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
func (renderStore) forItems(_ context.Context, n int, do func(i int) error) []itemResult {
	results := make([]itemResult, n)
	for i := range n {
		err := do(i)
		results[i] = itemResult{sent: true, err: err}
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

// missing names the manifest, or the directory, looked in.
func (s renderStore) missing(_ context.Context, m missed) error {
	if m.listID == "" {
		return fmt.Errorf("%s %s has no manifest: %s does not exist", s.kind.name, m.id, s.target.file(s.kind, m.id))
	}
	return fmt.Errorf("EndpointsList %q: no Endpoints manifest of namespace %s in %s matches "+
		"the label selector %q; the ID is <namespace>?labelSelector=<selector>", m.listID, m.namespace,
		s.target.Directory, m.selector)
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

// rules are the newest minor's (no server reads the manifests yet), and nothing is
// added: a manifest holds the inputs alone.
func (renderStore) rules(context.Context) (validate.Server, validate.Written) {
	return validate.Newest, validate.Written{}
}
