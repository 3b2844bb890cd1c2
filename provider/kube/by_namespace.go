package kube

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
)

// The one rule of when a namespace's objects are listed rather than read one by one:
// the refresh of an EndpointsList's items (Endpoints), the lookups of their Services
// behind the controller warnings (see warnEndpoints), and the Reads of a refresh or an
// import that arrive together (see read_lists.go) all follow it.
//
// Where listMin or more of the objects wanted share a namespace, one list of the
// namespace, page by page, answers for all of them: against a cluster far away, a
// request per object costs a round trip per fanOutLimit objects. A namespace that holds
// more than listRatio objects of the kind per object wanted is read one by one, where
// a request per object costs less than the pages of the list.
//
// Reads that arrive one by one do not know how many objects are wanted: they count
// those seen so far (see namespaceReads.listing). The listMin-th Read of a namespace
// probes its size (a list of one object, which tells how many remain); from then on
// a Read lists the namespace once the Reads seen are at least one per listRatio
// objects it holds, and the Reads before are GETs.
const (
	listMin   = 8
	listRatio = 20
)

// groupByNamespace groups the indexes of ids by namespace, the namespaces in the order
// they first come; ids without a namespace or a name are left out.
func groupByNamespace(ids []objectID) (namespaces []string, indexes map[string][]int) {
	indexes = map[string][]int{}
	for i, id := range ids {
		if id.name == "" || id.namespace == "" {
			continue
		}
		if _, seen := indexes[id.namespace]; !seen {
			namespaces = append(namespaces, id.namespace)
		}
		indexes[id.namespace] = append(indexes[id.namespace], i)
	}
	return namespaces, indexes
}

// namespaceList lists the objects of one namespace, pages of at most page objects.
type namespaceList struct {
	api  dynamic.ResourceInterface
	page int64
}

// byName lists the namespace's objects by name, for wanted objects of it. It gives up
// (listed false, no error: the caller reads the objects one by one) when the first page
// shows the namespace holds more than listRatio objects per object wanted (the first
// page asks for no more than that many). An error is the list's.
func (l namespaceList) byName(ctx context.Context, wanted int,
) (live map[string]*unstructured.Unstructured, listed bool, err error) {
	live = map[string]*unstructured.Unstructured{}
	most := int64(wanted) * listRatio
	opts := metav1.ListOptions{Limit: min(l.page, most)}
	for first := true; ; first = false {
		page, err := l.api.List(ctx, opts)
		if err != nil {
			return nil, false, err
		}
		if first && page.GetContinue() != "" {
			total := int64(len(page.Items)) + 1 // at least
			if left := page.GetRemainingItemCount(); left != nil {
				total = int64(len(page.Items)) + *left
			}
			if total > most {
				return nil, false, nil
			}
		}
		for i := range page.Items {
			live[page.Items[i].GetName()] = &page.Items[i]
		}
		if opts.Continue = page.GetContinue(); opts.Continue == "" {
			return live, true, nil
		}
		opts.Limit = l.page
	}
}

// listing tells whether the Reads counted make a list of the namespace cheaper than a
// GET per object (see above): listMin of them, and at least one per listRatio objects
// of the namespace once its size is known.
func (r *namespaceReads) listing() bool {
	return r.reads >= listMin && (!r.sized || r.size <= int64(r.reads)*listRatio)
}

// size is the number of objects of the namespace: one request, for one object, whose
// answer says how many remain. An answer that does not say counts as none: the
// first page of the list then tells (see byName).
func (l namespaceList) size(ctx context.Context) (int64, error) {
	page, err := l.api.List(ctx, metav1.ListOptions{Limit: 1})
	if err != nil {
		return 0, err
	}
	n := int64(len(page.Items))
	if left := page.GetRemainingItemCount(); left != nil {
		n += *left
	}
	return n, nil
}
