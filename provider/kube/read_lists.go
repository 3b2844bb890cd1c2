package kube

import (
	"context"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/endpoints-provider/pulumi-endpoints/provider/internal/secret"
)

// Reads that arrive together: the engine sends a Read per resource, about 8 at a
// time, so a refresh or an import of many slices (and the items of many
// EndpointsLists, read one by one) is a GET per object. The Reads of one kind and
// namespace share lists of the namespace instead, taken by the first Read that needs
// one and kept by the client for the plugin process, under by_namespace.go's rule
// (see namespaceReads.listing): a lone Read is one GET, as before.
//
// A list answers as a GET would: an object absent from it is gone, and the object
// listed is the one under the name (locate's checks of the create ID apply to it as to
// a GET's). It answers only the Reads that arrive within listFresh after it was taken,
// and none after a write of this process to the kind in the namespace (a create,
// update or delete, see readsOf.wrote). Only the lookup by name of a refresh or an
// import goes through it: an update's read-modify-write, a create's adoption, a
// delete's wait and the search for a lost create read the object afresh.

// listFresh is how long after it was taken a namespace's list answers Reads.
const listFresh = 5 * time.Second

// sharedReads are the lists that the Reads of a client share, per kind and namespace.
// Its zero value has none.
type sharedReads struct {
	mu         sync.Mutex
	namespaces map[readsKey]*namespaceReads
}

type readsKey struct {
	resource  schema.GroupVersionResource
	namespace string
}

// namespaceReads is what the Reads of one kind and namespace share.
type namespaceReads struct {
	// reads counts the Reads since the start or the last write; size is the number
	// of objects of the namespace, once probed (sized).
	reads int
	size  int64
	sized bool
	// unlisted: the namespace is read one by one for good (the client may not list
	// it, or a list failed).
	unlisted bool
	// writes counts this process's writes: a list taken across one is not kept.
	writes int
	// live is the last list, by name, taken at taken; nil when there is none (or a
	// write dropped it). taking is closed when the list under way ends.
	live   map[string]*unstructured.Unstructured
	taken  time.Time
	taking chan struct{}
}

// of is the Reads of the kind in the namespace. Callers hold mu.
func (s *sharedReads) of(k readsKey) *namespaceReads {
	if s.namespaces == nil {
		s.namespaces = map[readsKey]*namespaceReads{}
	}
	r, ok := s.namespaces[k]
	if !ok {
		r = &namespaceReads{}
		s.namespaces[k] = r
	}
	return r
}

// wrote drops the list of the kind in the namespace, after a write of this process
// there (sent, whatever its answer), and starts the count of Reads again.
func (s *sharedReads) wrote(k readsKey) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.of(k)
	r.writes++
	r.reads = 0
	r.live = nil
}

// fresh tells whether the list answers a Read now.
func (r *namespaceReads) fresh(now time.Time) bool {
	return r.live != nil && now.Sub(r.taken) < listFresh
}

// readsKey is the kind and namespace of id, for sharedReads.
func (o kindClient) readsKey(namespace string) readsKey {
	return readsKey{resource: o.kind.resource, namespace: namespace}
}

// wrote tells the client's shared Reads that this process wrote to the namespace.
func (o kindClient) wrote(namespace string) {
	o.client.reads.wrote(o.readsKey(namespace))
}

// read is the lookup by name of a refresh or an import: the object under id's name,
// from the namespace's list when one answers (see listing), or a GET; nil when there
// is none.
func (o kindClient) read(ctx context.Context, id objectID) (*unstructured.Unstructured, error) {
	shared := &o.client.reads
	k := o.readsKey(id.namespace)
	for {
		shared.mu.Lock()
		r := shared.of(k)
		switch {
		case r.unlisted:
			shared.mu.Unlock()
			return o.get(ctx, id)
		case r.fresh(time.Now()):
			r.reads++
			obj := r.live[id.name]
			shared.mu.Unlock()
			if obj == nil {
				return nil, nil
			}
			return obj.DeepCopy(), nil
		case r.taking != nil:
			taking := r.taking
			shared.mu.Unlock()
			select {
			case <-taking:
				continue
			case <-ctx.Done():
				return nil, context.Cause(ctx)
			}
		}
		r.reads++
		if !r.listing() {
			shared.mu.Unlock()
			return o.get(ctx, id)
		}
		live, ok := o.take(ctx, shared, k, r)
		if !ok {
			return o.get(ctx, id)
		}
		if obj := live[id.name]; obj != nil {
			return obj.DeepCopy(), nil
		}
		return nil, nil
	}
}

// take lists the namespace (probing its size first, once) for the Reads r counts,
// which shared.mu is held for; it releases it. ok is false when no list answers:
// the namespace holds too many objects for the Reads, or the list failed (then, and
// for a namespace the client may not list, its objects are read one by one for good).
func (o kindClient) take(ctx context.Context, shared *sharedReads, k readsKey, r *namespaceReads,
) (live map[string]*unstructured.Unstructured, ok bool) {
	taking := make(chan struct{})
	r.taking = taking
	writes, wanted, sized := r.writes, r.reads, r.sized
	shared.mu.Unlock()

	list := namespaceList{api: o.api(k.namespace), page: itemListPage}
	var (
		size   int64
		listed bool
		err    error
	)
	started := time.Now()
	if !sized {
		size, err = list.size(ctx)
	}
	if err == nil && (sized || size <= int64(wanted)*listRatio) {
		live, listed, err = list.byName(ctx, wanted)
	}

	shared.mu.Lock()
	defer shared.mu.Unlock()
	r.taking = nil
	close(taking)
	if !sized && err == nil {
		r.size, r.sized = size, true
	}
	switch {
	case err != nil && ctx.Err() != nil:
		return nil, false // the Read ended, not the list's permission
	case err != nil:
		secret.Logger(ctx).Debugf("listing %s of namespace %s failed, so its objects are read one by one: %v",
			o.kind.resource.Resource, k.namespace, err)
		r.unlisted = true
		return nil, false
	case !listed:
		// The first page showed more objects than the Reads are worth.
		r.size, r.sized = max(r.size, int64(wanted)*listRatio+1), true
		return nil, false
	}
	if r.writes == writes {
		r.live, r.taken = live, started
	}
	return live, r.writes == writes
}

// locateShared is the lookup of a refresh or an import: locate, with the object under
// the recorded name read through the namespace's shared lists.
func (o kindClient) locateShared(ctx context.Context, id objectID, rec recorded,
) (*unstructured.Unstructured, error) {
	return o.locateBy(ctx, id, rec, o.read)
}
