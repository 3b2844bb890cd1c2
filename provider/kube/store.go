package kube

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/endpoints-provider/pulumi-endpoints/provider/internal/secret"
	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
	"github.com/endpoints-provider/pulumi-endpoints/provider/validate"
)

// The store and the objects it holds. In order, this file holds:
//
//   - the store a resource's lifecycle writes to (store), the choice of it (open), the
//     ways to what one kind of store alone does (onCluster, stale, lookUp), and the
//     render target;
//   - what every resource is (Lifecycle, Resource, clusterResource), and what the
//     lifecycles share (checkResult, engineTimeout, lookup);
//   - the kinds of object;
//   - an object's ID, pending IDs included, and what a state records of the object
//     (recorded, the state decoded once);
//   - the objects the engine's state holds for each resource (stateObjects).
//
// The objects as property values (kind.object, intent, outputs, the inputs read back,
// recordedIn) are values.go's.

// store is where a resource's objects live: the cluster (clusterStore), or the render
// directory (renderStore) when the renderDirectory setting names one. Each resource's
// lifecycle (slice.go, list.go) is written once against it; render mode is the choice
// of store, made at each call from the settings in force (see clusterResource.open),
// and nowhere else. The interface holds what both stores do; what only a cluster does
// (adoption and lost answers under create, shared reads, the warnings about
// controllers) is the cluster layer's, which a lifecycle reaches through onCluster,
// and what only a render directory does (the drift of its manifests) through stale.
// Objects are identified by namespace/name; a method that fails names the object.
type store interface {
	// ready makes sure the store can be used and returns the namespace of IDs and
	// objects that name none: the kubeconfig context's or the settings' on a cluster,
	// whose client it builds (its error is the kubeconfig's), the render target's in
	// render mode (no kubeconfig is read, see RenderTarget).
	ready(ctx context.Context) (namespace string, err error)
	// preview is what a preview shows of an object's outputs, or of inputs the store
	// could not judge: what only a server would set is left unknown.
	preview(fields map[string]any) map[string]any
	// name gives obj, before it is created, the name the store gives an object with
	// metadata.generateName, and returns the create ID it carries ("" for none; see
	// labelCreate). createID, when given, is the one the state records.
	name(obj *unstructured.Unstructured, createID string) (string, error)
	// create creates the object of in. dryRun only judges it; mayDefer lets a dry run
	// answer nil, without an error, for an object the store cannot judge yet (see
	// kindClient.previewCreate).
	create(ctx context.Context, in intent, dryRun, mayDefer bool) (*unstructured.Unstructured, error)
	// locate finds the object a state records under id (see kindClient.locate); nil
	// when there is none.
	locate(ctx context.Context, id objectID, rec recorded) (*unstructured.Unstructured, error)
	// update writes in over the object id that rec records, old the object of the
	// previous inputs (see kindClient.update), creating it when it is gone.
	update(ctx context.Context, id objectID, rec recorded, old *unstructured.Unstructured, in intent, dryRun bool,
	) (*unstructured.Unstructured, error)
	// remove deletes the target and waits until it is gone.
	remove(ctx context.Context, t deleteTarget, timeout time.Duration) error
	// removeAll deletes the targets and returns the IDs of those gone; every target is
	// tried, and the error keeps every failure.
	removeAll(ctx context.Context, targets []deleteTarget, timeout time.Duration) ([]objectID, error)
	// forItems runs do for the items 0 to n-1 of a list (see forItems).
	forItems(ctx context.Context, n int, do func(i int) error) []itemResult
	// readItems reads the objects of the items a list's state records (nil: gone).
	readItems(ctx context.Context, recorded []listItem) ([]*unstructured.Unstructured, error)
	// page lists up to limit objects that the query q selects, from the store's
	// continue token cont ("" for the first), for List and the import of a list (see
	// listing.go: listPage, listAll).
	page(ctx context.Context, q listQuery, limit int64, cont string) (listed, error)
	// missing is the error of a lookup that finds nothing (see missed): the get or
	// import of one object, or the import of a list that selects none; it says where
	// the store looked.
	missing(ctx context.Context, m missed) error
	// rules is what Check validates inputs for: the server whose Kubernetes minor
	// decides the rules that differ by minor (asked only when an input's verdict
	// depends on it), and what every write of the store adds to an object besides its
	// inputs, which counts against the limits (see validate.Written).
	rules(ctx context.Context) (validate.Server, validate.Written)
}

var (
	_ store = clusterStore{}
	_ store = renderStore{}
)

// open is the store of the target in force, for the resource urn: the objects it
// creates carry its URN, and it adopts none the state records for it (see
// kindClient.create). It is the one place that tells render mode from a cluster.
func (b clusterResource) open(urn resource.URN) store {
	if target := b.options().Render; target.Directory != "" {
		return renderStore{target: target, kind: b.kind}
	}
	return clusterStore{b: b, owner: urn}
}

// onCluster is the cluster layer of st: the policy only a cluster has (see
// clusterStore), and false in render mode, which has none of it.
func onCluster(st store) (clusterStore, bool) {
	c, ok := st.(clusterStore)
	return c, ok
}

// stale tells Diff that the store's copy of obj (rawID its resource's ID, "" for a
// list's item) must be written again although the inputs did not change: only a
// render directory's manifest can be missing or edited (see renderStore.stale).
func stale(ctx context.Context, st store, obj *unstructured.Unstructured, rawID string) bool {
	r, ok := st.(renderStore)
	return ok && r.stale(ctx, obj, rawID)
}

// lookUp is locate for the lookup of a refresh or an import, which a cluster may
// answer from a list that Reads arriving together share (see clusterStore.read).
func lookUp(ctx context.Context, st store, id objectID, rec recorded) (*unstructured.Unstructured, error) {
	if c, ok := onCluster(st); ok {
		return c.read(ctx, id, rec)
	}
	return st.locate(ctx, id, rec)
}

// missed is what a lookup that found nothing looked for: one object, id (rawID as
// given), or the objects of a list import (ID listID) that selector selects in
// namespace.
type missed struct {
	rawID             string
	id                objectID
	listID, namespace string
	selector          string
}

// RenderTarget is where render mode writes: Directory, relative to the provider's
// working directory (the program's, as the engine starts the provider there) unless
// absolute, and the namespace of objects that name none (the namespace setting, else
// "default": there is no kubeconfig context to take it from).
type RenderTarget struct {
	Directory string
	Namespace string
}

// Lifecycle is one resource's lifecycle as the provider dispatches it.
type Lifecycle interface {
	Check(context.Context, p.CheckRequest) (p.CheckResponse, error)
	Diff(context.Context, p.DiffRequest) (p.DiffResponse, error)
	Create(context.Context, p.CreateRequest) (p.CreateResponse, error)
	Read(context.Context, p.ReadRequest) (p.ReadResponse, error)
	Update(context.Context, p.UpdateRequest) (p.UpdateResponse, error)
	Delete(context.Context, p.DeleteRequest) error
}

// Resource is a resource of this package: its lifecycle on a cluster, and the answers
// Wrap serves it with besides.
type Resource interface {
	Lifecycle
	// previewOffline is what a preview shows when the API server cannot be reached
	// (see reachability): the outputs the checked inputs alone tell.
	previewOffline(inputs decoded) decoded
	// shared is what the package's resources share.
	shared() *Kubernetes
	// base is what the resource holds (see clusterResource).
	base() clusterResource
}

var (
	_ Resource = (*EndpointSlice)(nil)
	_ Resource = (*EndpointsList)(nil)
)

// clusterResource is what both resources hold: what they share, and the kind of
// object they write.
type clusterResource struct {
	k    *Kubernetes
	kind kind
	// inState are the objects the state holds for each resource, as Check learns them.
	inState *stateObjects
}

func newClusterResource(k *Kubernetes, kd kind) clusterResource {
	return clusterResource{k: k, kind: kd, inState: newStateObjects()}
}

func (b clusterResource) shared() *Kubernetes { return b.k }

func (b clusterResource) base() clusterResource { return b }

// client returns the cluster client, building it on first use.
func (b clusterResource) client(ctx context.Context) (*Client, error) { return b.k.Client(ctx) }

// options returns the settings in force.
func (b clusterResource) options() Options { return b.k.Options() }

// connectAs returns the API calls of connect, for the resource urn: the objects they
// create carry its URN, and they adopt no object the state records for it (see
// kindClient.create).
func (b clusterResource) connectAs(ctx context.Context, urn resource.URN) (kindClient, error) {
	o, err := b.connect(ctx)
	o.owner, o.inState = urn, b.inState.of(urn)
	return o, err
}

// connect returns the API calls for the resource's kind on the configured cluster.
func (b clusterResource) connect(ctx context.Context) (kindClient, error) {
	c, err := b.client(ctx)
	if err != nil {
		return kindClient{}, err
	}
	return kindClient{kind: b.kind, client: c}, nil
}

// defaultNamespace is Check's namespace for objects that name none: the store's (see
// store.ready). Check must work without a reachable cluster, and even with a
// kubeconfig that cannot be read yet (a preview whose provider configuration is
// unknown): then it is Kubernetes' default (validate.DefaultNamespace), and Create
// reports the configuration problem.
func defaultNamespace(ctx context.Context, st store) string {
	namespace, err := st.ready(ctx)
	if err != nil {
		secret.Logger(ctx).Debugf("no Kubernetes client, so the default namespace is %s: %v", validate.DefaultNamespace, err)
		return validate.DefaultNamespace
	}
	return namespace
}

// checkResult turns a validation result into Check's answer, logging the warnings of
// what the change brings: those that shown, inputs whose warnings were shown already
// (the previous inputs), draw as well when checked the same way are left out, so a
// program left as it is previews and runs quietly, as the API server's warnings come
// only with the writes. shown is validated only when there is a warning to weigh.
func checkResult(ctx context.Context, res validate.Result, shown property.Map,
	check func(property.Map) validate.Result,
) (property.Map, []p.CheckFailure) {
	var before map[string]bool
	if shown.Len() > 0 && len(res.Warnings) > 0 {
		before = map[string]bool{}
		for _, w := range check(shown).Warnings {
			before[w] = true
		}
	}
	log := secret.Logger(ctx)
	for _, w := range res.Warnings {
		if !before[w] {
			log.Warning(w)
		}
	}
	failures := make([]p.CheckFailure, 0, len(res.Failures))
	for _, f := range res.Failures {
		failures = append(failures, p.CheckFailure{Property: f.Path, Reason: f.Reason})
	}
	return res.Inputs, failures
}

// engineTimeout converts an engine timeout in seconds (0: none given).
func engineTimeout(seconds float64) time.Duration {
	return time.Duration(seconds * float64(time.Second))
}

// lookup tells whether a Read looks up an object the stack does not record: a
// resource get (`EndpointSlice.get(name, id)` in a program) or an import. The engine
// sends the ID alone for an import, and for a get the ID with the properties the
// program passed, as both inputs and state: none from the SDKs' get methods, and null
// values carry no state either. A refresh always sends the state it records: a
// resource's outputs are never empty.
func lookup(req p.ReadRequest) bool {
	for _, v := range req.Properties.All {
		if !v.IsNull() {
			return false
		}
	}
	return true
}

// The kinds of object, in one place: what the provider knows of each (kind), and an
// object built from a resource's inputs (kind.object), with the kind's default labels.

// kind is one Kubernetes object kind the provider manages.
type kind struct {
	name       string
	apiVersion string
	resource   schema.GroupVersionResource
	// token is the Pulumi type that manages objects of this kind, for import hints.
	token string
	// fields are the top-level fields, besides metadata, that the resource sets.
	fields []string
	// immutable are the top-level fields whose change replaces the object.
	immutable []string
	// form is the kind's canonical form: what counts as the same value.
	form validate.Form
	// defaultLabels are the labels objects of this kind are written with unless
	// their inputs set them.
	defaultLabels map[string]string
}

var (
	endpointSliceKind = kind{
		name:       "EndpointSlice",
		apiVersion: "discovery.k8s.io/v1",
		resource:   schema.GroupVersionResource{Group: "discovery.k8s.io", Version: "v1", Resource: "endpointslices"},
		token:      spec.EndpointSliceToken,
		fields:     []string{"addressType", "endpoints", "ports"},
		immutable:  []string{"addressType"},
		form:       validate.EndpointSliceForm,
		// Kubernetes asks every manager of EndpointSlices but its own controllers to
		// name itself in this label.
		defaultLabels: map[string]string{ManagedByLabel: ManagedBy},
	}
	endpointsKind = kind{
		name:       "Endpoints",
		apiVersion: "v1",
		resource:   schema.GroupVersionResource{Version: "v1", Resource: "endpoints"},
		token:      spec.EndpointsListToken,
		fields:     []string{"subsets"},
		form:       validate.EndpointsForm,
	}
)

// An object's ID, in one place: the namespace/name that identifies one object
// (objectID), read from an ID the engine gives (parseObjectID), from a live object
// (idOf), from inputs (idOfInputs) or a state (recorded), and the pending ID
// recorded for a create whose server was to pick the name (pendingID), which a name
// ending in pendingSuffix marks. An EndpointsList's own ID, an opaque name for the
// set, and its import IDs are list.go's and list_read.go's.

// objectID is the namespace/name identity of one object.
type objectID struct{ namespace, name string }

func (id objectID) String() string { return id.namespace + "/" + id.name }

// parseObjectID reads the `namespace/name` ID of one object of kind k (a bare name
// means the default namespace given).
func parseObjectID(k kind, id, fallbackNamespace string) (objectID, error) {
	ns, name, found := strings.Cut(id, "/")
	if !found {
		ns, name = fallbackNamespace, id
	}
	if ns == "" || name == "" || strings.Contains(name, "/") {
		return objectID{}, fmt.Errorf("invalid %[1]s ID %[2]q: an %[1]s ID is <namespace>/<name>, such as "+
			"default/web-1a2b3c (a bare name means the provider's namespace); an EndpointsList's ID is "+
			"<namespace>?labelSelector=<selector>, such as default?labelSelector=app%%3Dweb", k.name, id)
	}
	return objectID{namespace: ns, name: name}, nil
}

// idOf is the ID of a live object, or of one built to be written.
func idOf(obj *unstructured.Unstructured) objectID {
	return objectID{namespace: obj.GetNamespace(), name: obj.GetName()}
}

// pendingSuffix ends the name part of a pending ID: the server generated the name,
// and the answer that would have told it was lost.
const pendingSuffix = "*"

// pending tells whether the ID stands for an object whose generated name is not known.
func (id objectID) pending() bool { return strings.HasSuffix(id.name, pendingSuffix) }

// pendingID is the ID recorded for obj, created from metadata.generateName, when the
// answer to its create was lost.
func pendingID(obj *unstructured.Unstructured) objectID {
	return objectID{namespace: obj.GetNamespace(), name: obj.GetGenerateName() + pendingSuffix}
}

// idOrPending is the ID that names obj before it is written: its own, or its pending
// ID when the server is to pick its name.
func idOrPending(obj *unstructured.Unstructured) objectID {
	if obj.GetName() == "" {
		return pendingID(obj)
	}
	return idOf(obj)
}

// everyObjectIn stands for every object of a namespace, in messages about a list of
// them: the pending ID of an empty generateName, namespace/*.
func everyObjectIn(namespace string) objectID {
	return objectID{namespace: namespace, name: pendingSuffix}
}

// recorded is what a state records of the object a resource (or a list's item) stands
// for, decoded once from the state (see recordedIn): the object as the server last
// answered it, whose metadata tells where it is and the UID and create ID that claim
// it (see claim). An empty state (a Read with the ID alone) records none.
type recorded struct {
	obj *unstructured.Unstructured
	// known says that the state holds no unknown value (a preview's may).
	known bool
}

// uid is the UID of the object the provider wrote ("" when the state does not know it,
// e.g. after a create whose answer never came).
func (r recorded) uid() types.UID { return r.obj.GetUID() }

// createID is the create ID the state records in its labels (see labelCreate).
func (r recorded) createID() string {
	id, _, _ := unstructured.NestedString(r.obj.Object, "metadata", "labels", CreateIDLabel)
	return id
}

// at is the ID of the object the state records under id: the name its outputs give
// (the name the server generated, once an update or a refresh has seen the object),
// else the ID's.
func (r recorded) at(id objectID) objectID {
	if name := r.obj.GetName(); name != "" {
		id.name = name
	}
	return id
}

// unconfirmed tells whether the state records, under id, a create whose answer was
// lost: a pending ID, or a create ID without the UID an answer would have given.
func (r recorded) unconfirmed(id objectID) bool {
	return id.pending() || r.createID() != "" && r.uid() == ""
}

// stateObjects are the objects the engine's state holds for each resource, as
// the provider has learned them from the previous inputs Check is given. A
// replacement is checked twice, with the previous inputs, then again without them (the
// engine recomputes the inputs of a new object), so the second Check finds the object
// replaced here and names the replacement after it, not as a new resource; and a
// create never adopts an object the state holds, which is the one being replaced, not an
// interrupted create's (see kindClient.adopt). Every call of a deployment reaches
// the same provider, so the Checks come before the create they name.
type stateObjects struct {
	mu  sync.Mutex
	ids map[resource.URN][]objectID
}

func newStateObjects() *stateObjects {
	return &stateObjects{ids: map[resource.URN][]objectID{}}
}

// note records the objects that the previous inputs olds of the resource urn name: the
// object's metadata, or each item's.
func (r *stateObjects) note(urn resource.URN, olds decoded) {
	var ids []objectID
	for _, it := range append(itemsOf(olds), listItem{id: idOfInputs(olds.fields)}) {
		if it.id.name != "" {
			ids = append(ids, it.id)
		}
	}
	if len(ids) == 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ids[urn] = ids
}

// of lists the objects recorded for the resource urn.
func (r *stateObjects) of(urn resource.URN) []objectID {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.ids[urn]
}

// replaced is the name of the object a Check without previous inputs olds replaces:
// the one object recorded for the resource urn, which the engine checks again without
// its previous inputs when it replaces it; "" otherwise.
func (r *stateObjects) replaced(urn resource.URN, olds decoded) string {
	if ids := r.of(urn); olds.empty() && len(ids) == 1 {
		return ids[0].name
	}
	return ""
}
