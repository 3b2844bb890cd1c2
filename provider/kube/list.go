package kube

import (
	"context"
	"fmt"
	"strconv"

	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/property"

	"github.com/endpoints-provider/pulumi-endpoints/provider/validate"
)

// EndpointsList manages a set of core/v1 Endpoints objects, one per item, as one
// resource.
//
// Identity: each item is identified by its namespace/name (metadata.name is required
// for items; the namespace defaults to the provider's). The resource's ID is an opaque
// name for the set; the set itself is the `items` in the state, so Read, Update and
// Delete act on exactly the objects the state records.
//
// Import: `pulumi import endpoints:core/v1:EndpointsList <name> '<namespace>?labelSelector=<selector>&limit=<n>'`
// lists the Endpoints of a namespace matching a label selector (both optional parts),
// page by page (limit items per request, default 500, following ListMeta.continue), and
// adopts them as the items.
//
// Partial failure: Create and Update write the first item alone, then the rest up to
// 16 at a time; a failure stops the writes not yet started (those in flight finish).
// Every item written is recorded in the resource's partial state, so every object
// that exists is tracked; the next `pulumi up` completes the set.
//
// metadata: the list's own metadata is not stored in the cluster (a list is not an
// object); its outputs are the inputs given, and after an import the resourceVersion
// of the list the objects were read from.
type EndpointsList struct{ clusterResource }

// Check defaults each item's namespace, names the items that ask for a generated name,
// then validates every item, final names and namespaces included.
//
// An item with metadata.generateName and no name gets its name here, not from the
// server, but with a name of the same shape (see generatedItemName). The name is kept on
// later updates (the i-th item with a given prefix keeps the name the i-th such item
// had), so the item is updated in place rather than recreated. Items whose metadata is
// not known yet (preview) are left as they are.
func (r *EndpointsList) Check(ctx context.Context, req p.CheckRequest) (p.CheckResponse, error) {
	st := r.open(req.Urn)
	namespace := defaultNamespace(ctx, st)
	olds, news := r.kind.identity(req.State), r.kind.identity(req.Inputs)
	r.inState.note(req.Urn, olds)
	set, err := itemNames(news.fields, olds, namespace, req.Urn)
	if err != nil {
		return p.CheckResponse{}, err
	}
	inputs := withItemMetadata(req.Inputs, set)
	server, written := st.rules(ctx)
	check := func(m property.Map) validate.Result { return validate.EndpointsList(m, namespace, server, written) }
	res := check(inputs)
	if len(res.Failures) > 0 && !olds.empty() {
		res = validate.ListUpdate(res, req.State, namespace, server)
	}
	answer, failures := checkResult(ctx, res, req.State, check)
	failures = append(failures, reservedItemKeyFailures(news.fields)...)
	return p.CheckResponse{Inputs: checked(req.Inputs, answer), Failures: failures}, nil
}

// itemNames are the metadata keys Check sets on the items of a list's inputs, by
// index: each known item's namespace, when it names none, and its name, when it asks
// for a generated one (see itemName). olds are the previous inputs.
func itemNames(inputs map[string]any, olds decoded, namespace string, urn resource.URN,
) (map[int]map[string]string, error) {
	items, _ := inputs["items"].([]any)
	previous, taken := generatedNames(olds)
	set := map[int]map[string]string{}
	for i, item := range items {
		meta, known := knownMetadata(mapOf(item))
		if mapOf(item) == nil || !known {
			continue
		}
		keys := namespaceToSet(meta, namespace)
		if name, err := itemName(meta, previous, taken, urn, i); err != nil {
			return nil, err
		} else if name != "" {
			keys["name"] = name
		}
		if len(keys) > 0 {
			set[i] = keys
		}
	}
	return set, nil
}

// itemName returns the name to give an item that has generateName and no name (or an
// empty one), taking the next unused name the previous inputs gave to the same
// prefix; "" when the item needs none. A new name is drawn from the list's URN and the
// item's index (see derivedName), so the run after an interrupted create names the
// item as the interrupted one did and finds the object; it is none of the names taken.
func itemName(meta map[string]any, previous map[string][]string, taken map[string]bool, urn resource.URN, index int,
) (string, error) {
	if v, set := meta["name"]; set && v != nil && v != "" {
		return "", nil
	}
	prefix, ok := stringOf(meta["generateName"])
	if !ok || prefix == "" {
		return "", nil
	}
	if names := previous[prefix]; len(names) > 0 {
		previous[prefix] = names[1:]
		return names[0], nil
	}
	name, err := derivedName(func(seed []byte) (string, error) { return generatedItemName(seed, prefix) },
		urn, strconv.Itoa(index), func(name string) bool { return taken[name] })
	if err != nil {
		return "", fmt.Errorf("internal error: naming item %d: %w", index, err)
	}
	taken[name] = true
	return name, nil
}

// generatedNames lists, per generateName prefix, the names the previous inputs gave
// to items with that prefix, in order, and the set of all of them.
func generatedNames(olds decoded) (map[string][]string, map[string]bool) {
	out, taken := map[string][]string{}, map[string]bool{}
	for _, it := range itemsOf(olds) {
		if prefix, ok := stringOf(metadataOf(it.inputs.fields)["generateName"]); ok && prefix != "" && it.id.name != "" {
			out[prefix] = append(out[prefix], it.id.name)
			taken[it.id.name] = true
		}
	}
	return out, taken
}

// Diff reports item and metadata changes as updates, in canonical form (items are a set
// identified by namespace and name): the set is never replaced; items that come and
// go are created and deleted by Update. With no change to the inputs, an item whose
// copy in the store must be written again (a render directory's manifest missing or
// edited) is a change, which Update writes.
func (r *EndpointsList) Diff(ctx context.Context, req p.DiffRequest) (p.DiffResponse, error) {
	olds, news := decode(req.OldInputs), decode(req.Inputs)
	d := listInputsDiff(olds.fields, news.fields)
	st := r.open(req.Urn)
	if !d.HasChanges && news.known() {
		for _, it := range itemsOf(news) {
			if stale(ctx, st, r.kind.object(it.inputs.fields), "") {
				d.HasChanges = true
			}
		}
	}
	return d, nil
}

// listInputsDiff compares a list's old and new inputs (see EndpointsList.Diff).
func listInputsDiff(olds, news map[string]any) p.DiffResponse {
	d := p.DiffResponse{DetailedDiff: map[string]p.PropertyDiff{}}
	for _, f := range []string{"items", "metadata"} {
		if c, changed := change(validate.EndpointsListForm, f, olds, news, false); changed {
			d.DetailedDiff[f] = c
		}
	}
	d.HasChanges = len(d.DetailedDiff) > 0
	return d
}

// Create creates the items: the first alone, then the rest as the store runs them (on
// a cluster up to fanOutLimit at a time, see forItems). A failure stops the creates
// not yet sent; those in flight finish. The state then records every item that was
// written (and every item whose create may have taken effect), in the order of the
// inputs, as partial state: nothing written is left untracked, and the next update
// creates the rest.
func (r *EndpointsList) Create(ctx context.Context, req p.CreateRequest) (p.CreateResponse, error) {
	inputs := decode(req.Properties)
	st := r.open(req.Urn)
	warnList(ctx, st, inputs, decoded{}, req.DryRun)
	if req.DryRun && !inputs.known() {
		return p.CreateResponse{Properties: checked(req.Properties, req.Properties)}, nil
	}
	if _, err := st.ready(ctx); err != nil {
		return p.CreateResponse{}, err
	}
	id, err := newListID(req.Urn)
	if err != nil {
		return p.CreateResponse{}, err
	}
	items := itemsOf(inputs)
	results := st.forItems(ctx, len(items), func(i int) error {
		var err error
		items[i].output, err = createItem(ctx, st, r.kind, items[i], i, req.DryRun)
		return err
	})
	written := newItemSet(decoded{})
	written.recordWrites(items, results)
	if err := itemsFailed(results); err != nil {
		if req.DryRun || len(written.items()) == 0 {
			return p.CreateResponse{}, err // nothing exists: nothing to record
		}
		state, err := partial(err, written, someUnanswered(results))
		return p.CreateResponse{ID: id, Properties: r.state(written.items(), inputs).encode(), PartialState: state}, err
	}
	if req.DryRun {
		id = "" // a preview creates nothing
	}
	return p.CreateResponse{ID: id, Properties: r.state(written.items(), inputs).encode()}, nil
}

// warnList warns, on a cluster, about the items of a list (news, olds: the list's
// inputs) that a controller will overwrite or delete (see clusterStore.warnItems).
func warnList(ctx context.Context, st store, news, olds decoded, preview bool) {
	if c, ok := onCluster(st); ok {
		c.warnItems(ctx, itemsWritten(news, olds), preview)
	}
}

// newListID is a new list's ID: an opaque name for the set, the resource's name and
// random hex digits.
func newListID(urn resource.URN) (string, error) {
	id, err := resource.NewUniqueHex(urn.Name()+"-", 8, 0)
	if err != nil {
		return "", fmt.Errorf("internal error: naming the list: %w", err)
	}
	return id, nil
}

// createItem creates the i-th item and returns its outputs. In a preview whose store
// cannot judge the item yet (see kindClient.previewCreate), the outputs are its inputs.
func createItem(ctx context.Context, st store, k kind, it listItem, i int, dryRun bool) (decoded, error) {
	obj, err := st.create(ctx, k.intent(it.inputs, itemPath(i)), dryRun, true)
	switch {
	case err != nil && !dryRun:
		return decoded{}, err
	case err != nil || obj == nil:
		return it.inputs, err
	}
	return it.inputs.with(outputs(k, obj)), nil
}

// itemPath is the path of the i-th item in a list's inputs.
func itemPath(i int) string { return fmt.Sprintf("items[%d]", i) }

// Update brings the set to the new items: items it did not have are created, items
// it keeps are updated in place when the update would change them and left alone
// otherwise (see kindClient.update), items it lost are deleted (after the writes, so a
// failed write deletes nothing). The writes go as Create's do. On a failure the
// partial state is the set as it is: every item written, and none of those deleted.
// The items it writes that a controller will overwrite or delete draw a warning (on a
// cluster), as at Create: a preview leaves out the Services that do not exist yet.
func (r *EndpointsList) Update(ctx context.Context, req p.UpdateRequest) (p.UpdateResponse, error) {
	st := r.open(req.Urn)
	inputs, olds := decode(req.Inputs), decode(req.OldInputs)
	warnList(ctx, st, inputs, olds, req.DryRun)
	if req.DryRun && !inputs.known() {
		return p.UpdateResponse{Properties: checked(req.Inputs, req.Inputs)}, nil
	}
	if _, err := st.ready(ctx); err != nil {
		return p.UpdateResponse{}, err
	}
	set := newItemSet(decode(req.State))
	desired := itemsOf(inputs)
	results := st.forItems(ctx, len(desired), r.writeItem(ctx, st, set, olds, req.DryRun, desired))
	failed := itemsFailed(results)
	switch {
	case failed != nil && req.DryRun:
		return p.UpdateResponse{}, failed // a preview records nothing
	case req.DryRun:
		return p.UpdateResponse{Properties: r.state(desired, inputs).encode()}, nil
	}
	set.recordWrites(desired, results)
	if failed != nil {
		return r.partialUpdate(failed, set, inputs, someUnanswered(results))
	}
	if err := r.removeDropped(ctx, st, set, desired, req); err != nil {
		return r.partialUpdate(err, set, inputs, false)
	}
	return p.UpdateResponse{Properties: r.state(desired, inputs).encode()}, nil
}

// writeItem is Update's write of desired[i], which keeps the outputs it gives in
// desired[i]: a create for an item the set does not have, else an update of the object
// the set records.
func (r *EndpointsList) writeItem(ctx context.Context, st store, set *itemSet, olds decoded, dryRun bool,
	desired []listItem,
) func(i int) error {
	oldInputs := map[objectID]map[string]any{}
	for _, it := range itemsOf(olds) {
		oldInputs[it.id] = it.inputs.fields
	}
	return func(i int) error {
		it := &desired[i]
		if !set.has(it.id) {
			var err error
			it.output, err = createItem(ctx, st, r.kind, *it, i, dryRun)
			return err
		}
		obj, err := st.update(ctx, it.id, set.get(it.id).recorded(r.kind), r.kind.object(oldInputs[it.id]),
			r.kind.intent(it.inputs, itemPath(i)), dryRun)
		if err != nil {
			return err
		}
		it.output = it.inputs.with(outputs(r.kind, obj))
		return nil
	}
}

// removeDropped deletes the items of the set that are not among the desired ones, and
// forgets those that are gone.
func (r *EndpointsList) removeDropped(ctx context.Context, st store, set *itemSet, desired []listItem,
	req p.UpdateRequest,
) error {
	var dropped []deleteTarget
	for _, it := range set.dropped(desired) {
		dropped = append(dropped, it.deleteTarget(req.Urn))
	}
	removed, err := st.removeAll(ctx, dropped, engineTimeout(req.Timeout))
	for _, id := range removed {
		set.forget(id)
	}
	return err
}

// partialUpdate is the answer to an update that failed with err: the set as it is
// (unanswered as for partial).
func (r *EndpointsList) partialUpdate(err error, set *itemSet, inputs decoded, unanswered bool,
) (p.UpdateResponse, error) {
	state, err := partial(err, set, unanswered)
	return p.UpdateResponse{Properties: r.state(set.items(), inputs).encode(), PartialState: state}, err
}

// Delete deletes every item the state records (each by its UID) and waits until all
// are gone; it reports every item that could not be deleted.
func (r *EndpointsList) Delete(ctx context.Context, req p.DeleteRequest) error {
	st := r.open(req.Urn)
	if _, err := st.ready(ctx); err != nil {
		return err
	}
	var targets []deleteTarget
	for _, it := range recordedItems(decode(req.Properties)) {
		targets = append(targets, it.deleteTarget(req.Urn))
	}
	_, err := st.removeAll(ctx, targets, engineTimeout(req.Timeout))
	return err
}

// previewOffline is the list's inputs: its items are written as they are given.
func (r *EndpointsList) previewOffline(inputs decoded) decoded { return inputs }
