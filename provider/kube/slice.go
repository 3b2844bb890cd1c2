package kube

import (
	"context"
	"fmt"

	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/endpoints-provider/pulumi-endpoints/provider/internal/secret"
	"github.com/endpoints-provider/pulumi-endpoints/provider/validate"
)

// EndpointSlice manages one discovery.k8s.io/v1 EndpointSlice, in the store of the
// target in force (see store). Its ID is namespace/name, which is also what `pulumi
// import` takes.
type EndpointSlice struct{ clusterResource }

// Check assigns the namespace and name, then validates the inputs, the final name and
// namespace included, offline, for the cluster's Kubernetes minor, and applies defaults;
// an update keeps endpoints the server keeps because they are unchanged
// (validate.SliceUpdate). It warns of what the change brings
// (see checkResult), and not again when the engine checks a replacement a second time.
func (r *EndpointSlice) Check(ctx context.Context, req p.CheckRequest) (p.CheckResponse, error) {
	st := r.open(req.Urn)
	namespace := defaultNamespace(ctx, st)
	olds, news := r.kind.identity(req.State), r.kind.identity(req.Inputs)
	r.inState.note(req.Urn, olds)
	replaced := r.inState.replaced(req.Urn, olds)
	set, autonamed, nameFailures := assignMetadata(ctx, endpointSliceKind, req.Urn, news, olds, namespace, replaced)
	named := withMetadata(req.Inputs, set)
	shown := req.State
	if replaced != "" {
		// The engine checks a replacement again without its previous inputs; the first
		// Check, with them, has shown these inputs' warnings.
		shown = named
	}
	server, written := st.rules(ctx)
	check := func(m property.Map) validate.Result { return validate.EndpointSlice(m, server, written) }
	res := check(named)
	if len(res.Failures) > 0 && !olds.empty() && !replaces(endpointSliceKind, olds.fields, r.kind.identity(res.Inputs).fields) {
		res = validate.SliceUpdate(res, req.State, server)
	}
	inputs, failures := checkResult(ctx, res, shown, check)
	for i, f := range failures {
		if autonamed && f.Property == "metadata.name" {
			failures[i].Reason += fmt.Sprintf(" (the name was generated for the resource %q; set metadata.name "+
				"or metadata.generateName, or change the stack's autonaming configuration)", req.Urn.Name())
		}
	}
	failures = append(failures, reservedKeyFailures(news.fields)...)
	warnSecretInID(ctx, req.Inputs, req.State)
	return p.CheckResponse{Inputs: checked(req.Inputs, inputs), Failures: append(nameFailures, failures...)}, nil
}

// Diff compares old and new inputs. A slice that changes and that a Kubernetes
// controller will take for its own draws a warning on a cluster (as at Create), and so
// does a replacement that keeps the slice's name (its endpoints are gone in between). With no
// change to the inputs, a copy in the store that must be written again (a render
// directory's manifest missing or edited) is a change, which Update writes.
func (r *EndpointSlice) Diff(ctx context.Context, req p.DiffRequest) (p.DiffResponse, error) {
	olds, news := decode(req.OldInputs), decode(req.Inputs)
	d := diffInputs(endpointSliceKind, olds.fields, news.fields)
	st := r.open(req.Urn)
	if d.HasChanges {
		if c, ok := onCluster(st); ok {
			c.warnControllers(ctx, []*unstructured.Unstructured{r.kind.object(news.fields)})
			if d.DeleteBeforeReplace {
				secret.Logger(ctx).Warning(replacedInPlaceWarning(idOfInputs(olds.fields), d))
			}
		}
		return d, nil
	}
	if news.known() {
		d.HasChanges = stale(ctx, st, r.kind.object(news.fields), req.ID)
	}
	return d, nil
}

// Create creates the slice. A preview with known inputs asks the store's verdict (a
// cluster's is a server-side dry run), so it shows before `up`.
func (r *EndpointSlice) Create(ctx context.Context, req p.CreateRequest) (p.CreateResponse, error) {
	st := r.open(req.Urn)
	inputs := decode(req.Properties)
	if req.DryRun && !inputs.known() {
		warnSlice(ctx, st, r.kind.object(inputs.fields))
		return p.CreateResponse{Properties: inputs.with(st.preview(inputs.fields)).encode()}, nil
	}
	if _, err := st.ready(ctx); err != nil {
		return p.CreateResponse{}, err
	}
	in := r.kind.intent(inputs, "")
	desired := in.obj
	warnSlice(ctx, st, desired)
	if req.DryRun {
		obj, err := st.create(ctx, in, true, true)
		if err != nil || obj == nil {
			return p.CreateResponse{Properties: inputs.with(st.preview(inputs.fields)).encode()}, err
		}
		return p.CreateResponse{Properties: inputs.with(st.preview(outputs(r.kind, obj))).encode()}, nil
	}
	if _, err := st.name(desired, ""); err != nil {
		return p.CreateResponse{}, err
	}
	obj, err := st.create(ctx, in, false, false)
	if err != nil {
		if c, ok := onCluster(st); ok && c.mayExist(err) {
			// The slice may exist now: record it, so it is never orphaned; the next
			// update finds it (by name, or by its create ID) or creates it.
			id, properties, state, err := lostCreate(r.kind, desired, inputs.fields, err)
			return p.CreateResponse{ID: id.String(), Properties: inputs.with(properties).encode(), PartialState: state}, err
		}
		return p.CreateResponse{}, err
	}
	return p.CreateResponse{ID: idOf(obj).String(), Properties: inputs.with(outputs(r.kind, obj)).encode()}, nil
}

// id reads the slice's ID, a bare name in the store's namespace.
func (r *EndpointSlice) id(ctx context.Context, st store, raw string) (objectID, error) {
	namespace, err := st.ready(ctx)
	if err != nil {
		return objectID{}, err
	}
	return parseObjectID(endpointSliceKind, raw, namespace)
}

// Read serves refresh, import and get (`EndpointSlice.get`). A slice the state records
// that has vanished answers an empty ID; a slice looked up by ID alone (get, import)
// that does not exist is an error naming it and where it was looked for.
func (r *EndpointSlice) Read(ctx context.Context, req p.ReadRequest) (p.ReadResponse, error) {
	st := r.open(req.Urn)
	id, err := r.id(ctx, st, req.ID)
	if err != nil {
		return p.ReadResponse{}, err
	}
	lookingUp := lookup(req)
	state := decode(req.Properties)
	live, err := lookUp(ctx, st, id, recordedIn(r.kind, state))
	switch {
	case err != nil:
		return p.ReadResponse{}, err
	case live == nil && lookingUp:
		return p.ReadResponse{}, st.missing(ctx, missed{rawID: req.ID, id: id})
	case live == nil:
		return p.ReadResponse{}, nil
	}
	oldInputs := decode(req.Inputs)
	if lookingUp {
		oldInputs = decoded{}
	}
	return p.ReadResponse{
		ID:         idOf(live).String(),
		Properties: state.also(oldInputs).with(outputs(r.kind, live)).encode(),
		Inputs:     liveInputs(r.kind, live, oldInputs).also(state).encode(),
	}, nil
}

// Update writes the new inputs onto the slice (see kindClient.update).
func (r *EndpointSlice) Update(ctx context.Context, req p.UpdateRequest) (p.UpdateResponse, error) {
	st := r.open(req.Urn)
	inputs := decode(req.Inputs)
	if req.DryRun && !inputs.known() {
		return p.UpdateResponse{Properties: inputs.with(st.preview(inputs.fields)).encode()}, nil
	}
	id, err := r.id(ctx, st, req.ID)
	if err != nil {
		return p.UpdateResponse{}, err
	}
	rec := recordedIn(r.kind, decode(req.State))
	if id.pending() || rec.createID() != "" {
		// The server named the slice: find it under the name the state records, or
		// by its create ID.
		live, err := st.locate(ctx, id, rec)
		if err != nil {
			return p.UpdateResponse{}, err
		}
		if live == nil {
			return r.createAgain(ctx, st, inputs, req.DryRun, rec.createID())
		}
		id = idOf(live)
	}
	obj, err := st.update(ctx, id, rec, r.kind.object(decode(req.OldInputs).fields), r.kind.intent(inputs, ""),
		req.DryRun)
	if sent := recreated(err); sent != nil {
		// The slice was gone and its create again went unanswered: the state records
		// that create, not the slice that is gone, so the next update or destroy finds
		// what it made (see lostCreate).
		_, properties, state, err := lostCreate(r.kind, sent, inputs.fields, err)
		return p.UpdateResponse{Properties: inputs.with(properties).encode(), PartialState: state}, err
	}
	if err != nil {
		return p.UpdateResponse{}, err
	}
	return p.UpdateResponse{Properties: inputs.with(outputs(r.kind, obj)).encode()}, nil
}

// createAgain creates a slice whose name the server generates and that is not there:
// its first create went unanswered and did not take effect, or it was deleted since.
// It carries the create ID the state records, recordedID, and if this answer is lost
// too, the state records the create ID again, so the next update finds the slice.
func (r *EndpointSlice) createAgain(ctx context.Context, st store, inputs decoded, dryRun bool, recordedID string,
) (p.UpdateResponse, error) {
	in := r.kind.intent(inputs, "")
	desired := in.obj
	createID, err := st.name(desired, recordedID)
	if err != nil {
		return p.UpdateResponse{}, err
	}
	obj, err := st.create(ctx, in, dryRun, false)
	if err != nil {
		if c, ok := onCluster(st); ok && c.mayExist(err) && !dryRun && createID != "" {
			_, properties, state, err := lostCreate(r.kind, desired, inputs.fields, err)
			return p.UpdateResponse{Properties: inputs.with(properties).encode(), PartialState: state}, err
		}
		return p.UpdateResponse{}, err
	}
	return p.UpdateResponse{Properties: inputs.with(outputs(r.kind, obj)).encode()}, nil
}

// Delete deletes the slice the state records (the object its claim holds, by UID, see
// claim) and waits until it is gone.
func (r *EndpointSlice) Delete(ctx context.Context, req p.DeleteRequest) error {
	st := r.open(req.Urn)
	id, err := r.id(ctx, st, req.ID)
	if err != nil {
		return err
	}
	rec := recordedIn(r.kind, decode(req.Properties))
	t := deleteTarget{id: rec.at(id), claim: rec.claim(req.Urn)}
	if rec.unconfirmed(id) {
		live, err := st.locate(ctx, id, rec)
		if err != nil || live == nil {
			return err
		}
		t = deleteTarget{id: idOf(live), claim: claim{uid: live.GetUID()}}
	}
	return st.remove(ctx, t, engineTimeout(req.Timeout))
}

// warnSlice warns, on a cluster, about a slice to be written that a controller will
// take for its own (see warnControllers).
func warnSlice(ctx context.Context, st store, obj *unstructured.Unstructured) {
	if c, ok := onCluster(st); ok {
		c.warnControllers(ctx, []*unstructured.Unstructured{obj})
	}
}

// previewOffline is the slice's inputs, with what only the server knows left unknown.
func (r *EndpointSlice) previewOffline(inputs decoded) decoded {
	return inputs.with(previewOutputs(inputs.fields))
}
