package kube

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	p "github.com/pulumi/pulumi-go-provider"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
)

// An EndpointsList's Read: the refresh of the items its state records, and the import
// or get of the set an ID selects, from the store of the target in force.

// Read refreshes the items the state records (on a cluster listed by namespace, or
// read one by one, see readItems; items gone leave the state), or, for a Read with the
// ID alone (import, or get: `EndpointsList.get`), reads the set the ID selects.
func (r *EndpointsList) Read(ctx context.Context, req p.ReadRequest) (p.ReadResponse, error) {
	st := r.open(req.Urn)
	fallback, err := st.ready(ctx)
	if err != nil {
		return p.ReadResponse{}, err
	}
	if lookup(req) {
		return r.importSet(ctx, st, req.ID, fallback)
	}
	state := decode(req.Properties)
	recorded := recordedItems(state)
	objs, err := st.readItems(ctx, recorded) // nil: gone
	if err != nil {
		return p.ReadResponse{}, err
	}
	return r.refreshed(req, state, recorded, objs), nil
}

// refreshed answers the refresh of the recorded items from their live objects, read
// from the cluster or the render directory (nil: gone, and the item leaves the state;
// a list with none left is gone).
func (r *EndpointsList) refreshed(req p.ReadRequest, state decoded, recorded []listItem,
	objs []*unstructured.Unstructured,
) p.ReadResponse {
	var live []liveItem
	for i, it := range recorded {
		if objs[i] != nil {
			live = append(live, liveItem{id: it.id, obj: objs[i]})
		}
	}
	if len(live) == 0 && len(recorded) > 0 {
		return p.ReadResponse{}
	}
	props, inputs := r.readAnswer(live, decode(req.Inputs), state)
	return p.ReadResponse{ID: req.ID, Properties: props.encode(), Inputs: inputs.encode()}
}

// itemListPage is the size of a page of the list of a namespace's Endpoints that a
// refresh reads its items from (see by_namespace.go).
const itemListPage = 500

// defaultImportPageSize is how many objects an import reads per request, unless its ID
// gives a limit.
const defaultImportPageSize = 500

// importSet lists the Endpoints an import ID selects, every page. A selection of none
// is an error naming the namespace, the selector and where it looked. An ID that names
// no namespace means the store's, fallback.
func (r *EndpointsList) importSet(ctx context.Context, st store, id, fallback string) (p.ReadResponse, error) {
	namespace, opts, err := parseImportID(id, fallback)
	if err != nil {
		return p.ReadResponse{}, err
	}
	q := listQuery{kind: r.kind, namespace: namespace, labelSelector: opts.LabelSelector,
		fieldSelector: opts.FieldSelector, includeManaged: true}
	objs, resourceVersion, err := listAll(ctx, st, q, opts.Limit)
	if err != nil {
		return p.ReadResponse{}, err
	}
	if len(objs) == 0 {
		return p.ReadResponse{}, st.missing(ctx, missed{listID: id, namespace: namespace, selector: opts.LabelSelector})
	}
	live := make([]liveItem, 0, len(objs))
	for _, obj := range objs {
		live = append(live, liveItem{id: idOf(obj), obj: obj})
	}
	read := decoded{}
	if resourceVersion != "" {
		read = plain(map[string]any{"metadata": map[string]any{"resourceVersion": resourceVersion}})
	}
	props, inputs := r.readAnswer(live, decoded{}, read)
	return p.ReadResponse{ID: id, Properties: props.encode(), Inputs: inputs.encode()}, nil
}

// parseImportID reads `namespace?labelSelector=<selector>&fieldSelector=<selector>&limit=N`:
// the Endpoints of the namespace that both selectors select (List gives each object as
// `namespace?fieldSelector=metadata.name%3D<name>`), read limit at a time.
func parseImportID(id, fallbackNamespace string) (string, metav1.ListOptions, error) {
	namespace, rawQuery, _ := strings.Cut(id, "?")
	if strings.Contains(namespace, "/") {
		return "", metav1.ListOptions{}, fmt.Errorf("invalid EndpointsList ID %q: an EndpointsList's ID is "+
			"<namespace>?labelSelector=<selector>, such as default?labelSelector=app%%3Dweb (every Endpoints of the "+
			"namespace that the selector matches); <namespace>/<name> is one EndpointSlice's ID", id)
	}
	if namespace == "" {
		namespace = fallbackNamespace
	}
	query, err := url.ParseQuery(rawQuery)
	if err != nil {
		return "", metav1.ListOptions{}, fmt.Errorf("import ID %q: want "+
			"namespace?labelSelector=<selector>&fieldSelector=<selector>&limit=<n>: %w", id, err)
	}
	opts := metav1.ListOptions{
		LabelSelector: query.Get("labelSelector"),
		FieldSelector: query.Get("fieldSelector"),
		Limit:         defaultImportPageSize,
	}
	for key := range query {
		if key != "labelSelector" && key != "fieldSelector" && key != "limit" {
			return "", opts, fmt.Errorf("import ID %q: unknown parameter %q (known: labelSelector, fieldSelector, limit)",
				id, key)
		}
	}
	if _, err := labels.Parse(opts.LabelSelector); err != nil {
		return "", opts, fmt.Errorf("import ID %q: labelSelector %q is not a label selector: %w", id, opts.LabelSelector, err)
	}
	if err := checkFieldSelector(opts.FieldSelector); err != nil {
		return "", opts, fmt.Errorf("import ID %q: fieldSelector %q: %w", id, opts.FieldSelector, err)
	}
	if l := query.Get("limit"); l != "" {
		n, err := strconv.ParseInt(l, 10, 64)
		if err != nil || n <= 0 {
			return "", opts, fmt.Errorf("import ID %q: limit must be a positive integer", id)
		}
		opts.Limit = n
	}
	return namespace, opts, nil
}
