package kube

import (
	"context"

	"github.com/pulumi/pulumi/sdk/v3/go/property"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

const (
	// itemListMin is the number of a list's items in one namespace from which a
	// refresh lists the namespace's objects of the kind rather than reading the items
	// one by one; itemListPage is the size of a page of that list, and itemListRatio
	// how many objects per item the namespace may hold before one request per item is
	// the cheaper way.
	itemListMin   = 8
	itemListPage  = 500
	itemListRatio = 20
)

// readItems reads the live objects of the recorded items (nil for one that is gone).
// Where itemListMin or more items share a namespace, one list of the namespace's
// objects of the kind, page by page, answers for all of them: against a cluster far
// away, a request per item costs a round trip per fanOutLimit items. Elsewhere,
// and where the namespace holds too many other objects (see listNamespace), each item
// is read by itself, as Create writes them (see forItems).
func (o kindClient) readItems(ctx context.Context, recorded []listItem) ([]*unstructured.Unstructured, error) {
	objs := make([]*unstructured.Unstructured, len(recorded))
	byNamespace := map[string][]int{}
	for i, it := range recorded {
		byNamespace[it.id.namespace] = append(byNamespace[it.id.namespace], i)
	}
	var oneByOne []int
	for ns, indexes := range byNamespace {
		if len(indexes) < itemListMin {
			oneByOne = append(oneByOne, indexes...)
			continue
		}
		live, listed, err := o.listNamespace(ctx, ns, len(indexes))
		if err != nil {
			return nil, err
		}
		if !listed {
			oneByOne = append(oneByOne, indexes...)
			continue
		}
		for _, i := range indexes {
			objs[i] = live[recorded[i].id.name]
		}
	}
	for _, res := range forItems(ctx, len(oneByOne), func(j int) (property.Map, error) {
		i := oneByOne[j]
		var err error
		objs[i], err = o.get(ctx, recorded[i].id)
		return property.Map{}, err
	}) {
		if res.err != nil {
			return nil, res.err
		}
	}
	return objs, nil
}

// listNamespace lists the objects of the kind in namespace ns by name, for the
// refresh of items of a list in it. It gives up (listed false: the caller reads the
// items one by one) when the first page shows the namespace holds more than
// itemListRatio objects per item, where one request per item costs less (the first
// page asks for no more than that many), or when the client may not list them (a role
// that grants get and not list).
func (o kindClient) listNamespace(ctx context.Context, ns string, items int,
) (live map[string]*unstructured.Unstructured, listed bool, err error) {
	live = map[string]*unstructured.Unstructured{}
	most := int64(items) * itemListRatio
	opts := metav1.ListOptions{Limit: min(itemListPage, most)}
	for first := true; ; first = false {
		page, err := o.api(ns).List(ctx, opts)
		if apierrors.IsForbidden(err) {
			return nil, false, nil
		}
		if err != nil {
			return nil, false, apiError("list", o.kind, everyObjectIn(ns), err)
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
		opts.Limit = itemListPage
	}
}
