package kube

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/endpoints-provider/pulumi-endpoints/provider/internal/interrupt"
	"github.com/endpoints-provider/pulumi-endpoints/provider/internal/secret"
	"github.com/endpoints-provider/pulumi-endpoints/provider/validate"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
)

// clusterStore is the store of a cluster: kindClient's calls on the client built from
// the settings in force, for the resource owner. The client is built on first use, so
// a preview that needs no request needs no kubeconfig.
type clusterStore struct {
	b     clusterResource
	owner resource.URN
}

// client is the API calls for the resource's kind, for the owner. A client that
// cannot be built is a noClientError: nothing was sent.
func (s clusterStore) client(ctx context.Context) (kindClient, error) {
	o, err := s.b.connectAs(ctx, s.owner)
	if err != nil {
		return o, noClientError{err}
	}
	return o, nil
}

// noClientError is the error of a call that had no client to send it with: its
// message is the cause's.
type noClientError struct{ err error }

func (e noClientError) Error() string { return e.err.Error() }
func (e noClientError) Unwrap() error { return e.err }

func (s clusterStore) ready(ctx context.Context) (string, error) {
	o, err := s.client(ctx)
	if err != nil {
		return "", err
	}
	return o.client.Namespace, nil
}

func (clusterStore) preview(fields map[string]any) map[string]any { return previewOutputs(fields) }

// name labels obj with a create ID when the server picks its name.
func (clusterStore) name(obj *unstructured.Unstructured, createID string) (string, error) {
	return labelCreate(obj, createID)
}

func (s clusterStore) create(ctx context.Context, in intent, dryRun, mayDefer bool) (*unstructured.Unstructured, error) {
	o, err := s.client(ctx)
	if err != nil {
		return nil, err
	}
	if dryRun && mayDefer {
		return o.previewCreate(ctx, in.obj)
	}
	return o.create(ctx, in.obj, dryRun)
}

func (s clusterStore) locate(ctx context.Context, id objectID, rec recorded) (*unstructured.Unstructured, error) {
	o, err := s.client(ctx)
	if err != nil {
		return nil, err
	}
	return o.locate(ctx, id, rec)
}

func (s clusterStore) update(ctx context.Context, id objectID, rec recorded, old *unstructured.Unstructured, in intent,
	dryRun bool,
) (*unstructured.Unstructured, error) {
	o, err := s.client(ctx)
	if err != nil {
		return nil, err
	}
	return o.update(ctx, id, rec, old, in.obj, dryRun)
}

func (s clusterStore) remove(ctx context.Context, t deleteTarget, timeout time.Duration) error {
	o, err := s.client(ctx)
	if err != nil {
		return err
	}
	return o.remove(ctx, t, s.b.options().DeletePolicy, timeout)
}

func (s clusterStore) removeAll(ctx context.Context, targets []deleteTarget, timeout time.Duration) ([]objectID, error) {
	o, err := s.client(ctx)
	if err != nil {
		return nil, err
	}
	return o.removeAll(ctx, targets, s.b.options().DeletePolicy, timeout)
}

func (clusterStore) forItems(ctx context.Context, n int, do func(i int) error) []itemResult {
	return forItems(ctx, n, do)
}

func (s clusterStore) readItems(ctx context.Context, recorded []listItem) ([]*unstructured.Unstructured, error) {
	o, err := s.client(ctx)
	if err != nil {
		return nil, err
	}
	return o.readItems(ctx, recorded)
}

// missing names the API server that answered.
func (s clusterStore) missing(ctx context.Context, m missed) error {
	o, err := s.client(ctx)
	if err != nil {
		return err
	}
	if m.listID == "" {
		return o.notFound(m.rawID, m.id)
	}
	selection := "no Endpoints in namespace " + m.namespace
	if m.selector != "" {
		selection += fmt.Sprintf(" match the label selector %q", m.selector)
	}
	return fmt.Errorf("EndpointsList %q: %s on the Kubernetes API server %s; "+
		"the ID is <namespace>?labelSelector=<selector>", m.listID, selection, o.server())
}

// rules are the cluster's minor (see checkedServer) and the owner's URN, which every
// write puts on the object (see kindClient.marked).
func (s clusterStore) rules(ctx context.Context) (validate.Server, validate.Written) {
	return checkedServer{ctx, s.b}, validate.Written{Annotations: map[string]string{OwnerAnnotation: string(s.owner)}}
}

// The cluster layer: the policy only a cluster store has, which a lifecycle reaches
// through onCluster (render mode has none of it). Adoption and the lost answers are
// under create (kindClient.create, unanswered.go); here are the rest.

// read is locate for the lookup of a refresh or an import, which may be answered
// from a list that Reads arriving together share (see read_lists.go).
func (s clusterStore) read(ctx context.Context, id objectID, rec recorded) (*unstructured.Unstructured, error) {
	o, err := s.client(ctx)
	if err != nil {
		return nil, err
	}
	return o.locateShared(ctx, id, rec)
}

// warnItems warns about the items of a list that a controller will overwrite or delete
// (objs, see itemsWritten; see warnEndpoints, and preview there). It needs the cluster
// for its lookups; without a client there is no warning.
func (s clusterStore) warnItems(ctx context.Context, objs []*unstructured.Unstructured, preview bool) {
	c, err := s.b.client(ctx)
	if err != nil {
		secret.Logger(ctx).Debugf("no Kubernetes client, so no warnings about controllers: %v", err)
		return
	}
	warnEndpoints(ctx, c, objs, preview)
}

// warnControllers warns about the objects a controller will overwrite or delete: the
// label check of slices, which needs no cluster.
func (s clusterStore) warnControllers(ctx context.Context, objs []*unstructured.Unstructured) {
	warnControllers(ctx, s.b.kind, objs)
}

// mayExist tells whether a create that failed with err may have taken effect (see the
// package-level mayExist); a render directory's failed write wrote nothing.
func (clusterStore) mayExist(err error) bool { return mayExist(err) }

// down tells whether a preview already found the cluster unreachable (see
// reachability.previewFallback); a client that cannot be built is not down.
func (s clusterStore) down(ctx context.Context) bool {
	c, err := s.b.client(ctx)
	return err == nil && c.unreachable.down.Load()
}

// The API calls under the cluster store, in one place: kindClient runs them for one
// kind of object on one cluster, for one resource (owner). In order: the client; create
// (adopting what an interrupted create of the same resource made), get and the dry run
// of a preview; update (a read-modify-write, see merge.go for the three-way merge);
// delete and the wait until the object is gone; finding what a create whose answer was
// lost made (see unanswered.go); and the reads of a refreshed list's items.

// FieldManager names the provider in the objects' managedFields.
const FieldManager = "pulumi-resource-endpoints"

// kindClient runs the API calls for one kind of object on one cluster.
type kindClient struct {
	kind   kind
	client *Client
	// owner is the URN of the resource the objects created are for ("" when the
	// calls create nothing), and inState the objects the state records for it (see
	// stateObjects): see create.
	owner   resource.URN
	inState []objectID
}

func (o kindClient) api(namespace string) dynamic.ResourceInterface {
	return o.client.Dynamic.Resource(o.kind.resource).Namespace(namespace)
}

// create creates the object; dryRun asks the server to validate and default it only.
// The object created carries the owner's URN (OwnerAnnotation). When its name is taken
// by an object that carries the same URN, that object is the owner's own, made by a
// create whose run was interrupted before the state recorded it, and the create adopts
// it (see adopt). Any other holder of the name is the 409 the user must resolve.
func (o kindClient) create(ctx context.Context, obj *unstructured.Unstructured, dryRun bool) (*unstructured.Unstructured, error) {
	obj = o.marked(obj)
	opts := metav1.CreateOptions{FieldManager: FieldManager}
	if dryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	if !dryRun {
		defer o.wrote(obj.GetNamespace())
	}
	if serverNamed(obj) && !dryRun {
		return o.createServerNamed(ctx, obj)
	}
	sent, answers := track(ctx)
	out, err := o.api(obj.GetNamespace()).Create(sent, obj, opts)
	err = answers.err(err)
	if apierrors.IsAlreadyExists(err) && !dryRun {
		if adopted, ours, adoptErr := o.adopt(ctx, obj, err); ours || adoptErr != nil {
			return adopted, adoptErr
		}
	}
	if err != nil {
		return nil, apiError("create", o.kind, idOrPending(obj), err)
	}
	return out, nil
}

// createServerNamed creates obj, whose name the server generates and which carries
// its create ID (see labelCreate). A second POST of it would make a second object
// (there is no name to meet a 409), so it is sent once (see postOnce), again only
// after a 429 with Retry-After, which says the server did nothing (client-go's own
// rule for a 429). When the answer leaves the create in doubt (a 5xx, a timeout, a
// broken connection: see inDoubt), the object is looked for by its create ID (after
// the Retry-After the server gave, if any, up to maxLookAfter): found, it is the
// answer; not found, the error stands, and the resource records the create (see
// lostCreate) for the next call to look again.
func (o kindClient) createServerNamed(ctx context.Context, obj *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	for attempt := 1; ; attempt++ {
		sent, answers := track(ctx)
		out, err := o.postOnce(sent, obj)
		err = answers.err(err)
		delay, suggested := apierrors.SuggestsClientDelay(err)
		switch {
		case err == nil:
			return out, nil
		case apierrors.IsTooManyRequests(err) && suggested && attempt < conflictRetries &&
			pause(ctx, time.Duration(delay)*time.Second):
			continue
		case inDoubt(err):
			if !suggested {
				delay = 0
			}
			return o.lookAfter(ctx, obj, min(time.Duration(delay)*time.Second, maxLookAfter), err)
		}
		return nil, apiError("create", o.kind, pendingID(obj), err)
	}
}

// maxLookAfter bounds the wait before a create in doubt looks for its object.
const maxLookAfter = 5 * time.Second

// lookAfter looks, after delay, for the object of a create of obj that failed with err
// and may have taken effect (see createServerNamed), by its create ID.
func (o kindClient) lookAfter(ctx context.Context, obj *unstructured.Unstructured, delay time.Duration, err error,
) (*unstructured.Unstructured, error) {
	id, createID := pendingID(obj), obj.GetLabels()[CreateIDLabel]
	created := apiError("create", o.kind, id, err)
	if createID == "" || !pause(ctx, delay) {
		return nil, created
	}
	found, findErr := o.findByCreateID(ctx, id, claim{createID: createID})
	switch {
	case findErr != nil:
		secret.Logger(ctx).Debugf("looking for the %s of a create in doubt by its create ID failed: %v", o.kind.name, findErr)
		return nil, created
	case found == nil:
		return nil, created
	}
	secret.Logger(ctx).Infof("the create of %s %s got no definite answer (%v), but it took effect: %s %s carries "+
		"its create ID", o.kind.name, id, err, o.kind.name, idOf(found))
	return found, nil
}

// postOnce sends the create of obj once: client-go sends a write again by itself when
// the server answers 5xx with Retry-After (as kube-apiserver does when etcd times out,
// after it may have stored the object), and this request asks it not to.
func (o kindClient) postOnce(ctx context.Context, obj *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	body, err := obj.MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("internal error: encoding %s %s: %w", o.kind.name, pendingID(obj), err)
	}
	raw, err := o.client.raw.Post().AbsPath(o.collectionPath(obj.GetNamespace())).MaxRetries(0).
		Param("fieldManager", FieldManager).SetHeader("Content-Type", "application/json").Body(body).Do(ctx).Raw()
	if err != nil {
		return nil, err
	}
	out := &unstructured.Unstructured{}
	if err := out.UnmarshalJSON(raw); err != nil {
		return nil, fmt.Errorf("the API server's answer to the create is not an object: %w", err)
	}
	return out, nil
}

// pause waits for d, and tells whether ctx is still live afterwards.
func pause(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// marked is a copy of obj that carries the owner's URN, or obj when there is no owner.
func (o kindClient) marked(obj *unstructured.Unstructured) *unstructured.Unstructured {
	if o.owner == "" {
		return obj
	}
	obj = obj.DeepCopy()
	annotations := obj.GetAnnotations()
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[OwnerAnnotation] = string(o.owner)
	obj.SetAnnotations(annotations)
	return obj
}

// adopt takes over the object that holds obj's name when the owner's claim holds it
// (ours, see ownerClaim): obj is written over it, guarded by its resourceVersion, and
// the answer is the object as a create would have answered it. Of the objects the
// claim holds, two are not adopted: the object the state records for the resource
// (see stateObjects; a replacement created under the name of the object it replaces
// meets that object, which the engine deletes afterwards), where ours is true with an
// error that says so and wraps taken, the create's 409; and an object being deleted
// (it would vanish once adopted; the name is free again when it is gone), where ours
// is false. When another
// made it, or it is gone, ours is false and nothing is written. When the object
// cannot be read, the error is taken's, the read's failure quoted: the create failed
// for sure, whatever the read met, and nothing of it is recorded (see mayExist).
func (o kindClient) adopt(ctx context.Context, obj *unstructured.Unstructured, taken error) (_ *unstructured.Unstructured, ours bool, _ error) {
	id := idOf(obj)
	live, err := o.get(ctx, id)
	if err != nil {
		//nolint:errorlint // the read's error is quoted, not wrapped (see above)
		return nil, false, fmt.Errorf("%w; reading it to tell whether an interrupted create of this resource made "+
			"it failed: %v", apiError("create", o.kind, id, taken), err)
	}
	switch {
	case !ownerClaim(o.owner).holds(live):
		return nil, false, nil
	case slices.Contains(o.inState, id):
		return nil, true, recordedNameTaken(o.kind, id, live.GetDeletionTimestamp() != nil, taken)
	case live.GetDeletionTimestamp() != nil:
		return nil, false, nil
	}
	secret.Logger(ctx).Infof("%s %s exists and carries this resource's %s: a create of an earlier run that was "+
		"interrupted made it; adopting it", o.kind.name, id, OwnerAnnotation)
	obj = obj.DeepCopy()
	obj.SetResourceVersion(live.GetResourceVersion())
	out, err := o.api(id.namespace).Update(ctx, obj, metav1.UpdateOptions{FieldManager: FieldManager})
	if err != nil {
		return nil, true, fmt.Errorf("adopting %s %s, which an interrupted create of this resource made: %w; "+
			"if a field that cannot change differs from the program's, delete the object (`kubectl delete %s -n %s %s`) "+
			"and run `pulumi up` again", o.kind.name, id, apiError("update", o.kind, id, err),
			strings.ToLower(o.kind.name), id.namespace, id.name)
	}
	return out, true, nil
}

// get reads the object; a missing object is (nil, nil).
func (o kindClient) get(ctx context.Context, id objectID) (*unstructured.Unstructured, error) {
	out, err := o.api(id.namespace).Get(ctx, id.name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, apiError("get", o.kind, id, err)
	}
	return out, nil
}

// previewCreate is the dry-run create of a preview. Where the server cannot judge the
// object yet, it answers nil and no error, and the preview relies on Check's offline
// verdict: the namespace does not exist yet (the program may create it), or the name is
// held by an object this resource created (the object being replaced under the same
// name, which the update deletes first, or an interrupted create's, which `up`
// adopts), or by an object this provider wrote before objects carried their resource's
// URN. A name held by anybody else's object is the 409 that `up` would meet, reported
// now.
func (o kindClient) previewCreate(ctx context.Context, obj *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	out, err := o.create(ctx, obj, true)
	switch {
	case err == nil:
		return out, nil
	case missingNamespace(err):
		return nil, nil
	case apierrors.IsAlreadyExists(err):
		holder, getErr := o.get(ctx, idOf(obj))
		if getErr != nil {
			secret.Logger(ctx).Debugf("preview of %s %s: reading the object that holds the name failed, so the "+
				"name counts as taken: %v", o.kind.name, idOf(obj), getErr)
		}
		if getErr == nil && (claim{owner: o.owner, legacy: true}).holds(holder) {
			return nil, nil
		}
	}
	return nil, err
}

// server names the API server a client reaches, for messages.
func (o kindClient) server() string {
	if o.client.REST == nil || o.client.REST.Host == "" {
		return "of the provider's kubeconfig"
	}
	return o.client.REST.Host
}

// notFound is the error of a lookup whose object does not exist, where a refresh
// answers an empty ID: the engine's own message for a get or an import names the ID
// alone, not the kind, the namespace a bare name means, nor the cluster.
func (o kindClient) notFound(rawID string, id objectID) error {
	hint := "the ID is namespace/name"
	if !strings.Contains(rawID, "/") {
		hint = fmt.Sprintf("the ID %q names no namespace, so it means the provider's namespace %q; "+
			"give it as namespace/name", rawID, id.namespace)
	}
	return fmt.Errorf("%s %s does not exist on the Kubernetes API server %s (404): %s",
		o.kind.name, id, o.server(), hint)
}

// conflictRetries bounds how often a write re-reads and retries after another client
// wrote the object between the read and the write (update, and remove's UID check).
const conflictRetries = 5

// update writes the inputs onto the live object: a read-modify-write guarded by the
// object's resourceVersion. Fields the resource sets are replaced; labels and
// annotations are merged three-way (keys the previous inputs set and the new ones
// drop are removed; keys other clients added are kept), and the object carries the
// owner's URN (OwnerAnnotation), as a created one does. A write that loses a race is
// retried on a fresh read.
//
// The first write needs no read when the state records the object (see recorded.lastWritten):
// guarded by the recorded resourceVersion, it succeeds only if nobody wrote the object
// since, that is, if the state is the live object. If somebody did (a conflict), or
// the object is gone, it reads the object and goes on as above.
func (o kindClient) update(ctx context.Context, id objectID, rec recorded, old, desired *unstructured.Unstructured,
	dryRun bool,
) (*unstructured.Unstructured, error) {
	opts := metav1.UpdateOptions{FieldManager: FieldManager}
	if dryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	} else {
		defer o.wrote(id.namespace)
	}
	if last := rec.lastWritten(id); last != nil {
		merged := o.kind.merge(last, old, desired)
		if reflect.DeepEqual(merged.Object, last.Object) {
			// Nothing to write: an EndpointsList item kept as it was is left alone, as
			// the engine leaves a resource whose inputs did not change. A change made
			// outside Pulumi is found by a refresh, after which the merge differs.
			return last, nil
		}
		// The state leaves the owner's URN out (see outputs): the write puts it back.
		out, err := o.api(id.namespace).Update(ctx, o.marked(merged), opts)
		switch {
		case err == nil:
			return out, nil
		case !apierrors.IsConflict(err) && !apierrors.IsNotFound(err):
			return nil, apiError("update", o.kind, id, err)
		}
	}
	owned := rec.claim(o.owner)
	for attempt := 1; ; attempt++ {
		live, err := o.get(ctx, id)
		if err != nil {
			return nil, err
		}
		if live = owned.held(live); live == nil {
			// Deleted behind our back, or never confirmed created, or the name is
			// another's object (see claim): create it.
			return o.recreate(ctx, desired, rec.createID(), dryRun)
		}
		merged := o.marked(o.kind.merge(live, old, desired))
		out, err := o.api(id.namespace).Update(ctx, merged, opts)
		if apierrors.IsConflict(err) && attempt < conflictRetries {
			continue
		}
		if err != nil {
			return nil, apiError("update", o.kind, id, err)
		}
		return out, nil
	}
}

// recreate is an update's create of the object it found gone (see update): desired,
// labelled with createID (a new one if empty) when the server names it. When the
// create may have taken effect (see mayExist), the error is a recreateError that
// names the object sent, so that the resource records it (see lostCreate) instead of
// the object the state recorded, which is gone.
func (o kindClient) recreate(ctx context.Context, desired *unstructured.Unstructured, createID string, dryRun bool,
) (*unstructured.Unstructured, error) {
	obj := desired.DeepCopy()
	if _, err := labelCreate(obj, createID); err != nil {
		return nil, err
	}
	out, err := o.create(ctx, obj, dryRun)
	if err != nil && !dryRun && mayExist(err) {
		return nil, &recreateError{err: err, sent: obj}
	}
	return out, err
}

// remove deletes the target and waits until it is gone. The delete names the UID as a
// precondition, so it never deletes another object of the same name, and the wait
// ends once the object with that UID is gone: a missing object, or one with another
// UID, counts as deleted. When the delete's answer shows the object already gone
// (nothing holds it), no wait is needed. When the wait ends first, the error says what
// holds the object: its finalizers, by name. The wait, which is not a request, ends as
// soon as the engine cancels (see package interrupt): the error then says that the
// delete was sent, and the object stays in the state for the next command to finish.
func (o kindClient) remove(ctx context.Context, t deleteTarget, policy DeletePolicy, timeout time.Duration) error {
	if timeout <= 0 {
		timeout = defaultDeleteTimeout
	}
	ctx, cancel := context.WithTimeoutCause(ctx, timeout, errDeleteTimeout)
	defer cancel()
	t, ours, err := o.resolve(ctx, t)
	if err != nil || !ours {
		return err
	}
	opts := metav1.DeleteOptions{PropagationPolicy: &policy, Preconditions: &metav1.Preconditions{UID: &t.uid}}
	for attempt := 1; ; attempt++ {
		answer, err := o.deleteObject(ctx, t.id, opts)
		switch {
		case apierrors.IsNotFound(err):
			return nil
		case apierrors.IsConflict(err):
			// The UID precondition failed: the name belongs to another object now, so
			// the target is gone; unless the claim holds that object too, or the
			// conflict had another cause, then try again.
			next, gone, getErr := o.retarget(ctx, t)
			switch {
			case getErr != nil:
				return fmt.Errorf("%w; reading it again to tell whether it is gone failed: %w",
					apiError("delete", o.kind, t.id, err), getErr)
			case gone:
				return nil
			case attempt < conflictRetries:
				t, opts.Preconditions.UID = next, &next.uid
				continue
			}
		}
		if err != nil {
			return apiError("delete", o.kind, t.id, err)
		}
		if answer == nil || (len(answer.GetFinalizers()) == 0 && answer.GetDeletionTimestamp() == nil) {
			return nil // deleted at once
		}
		wait, stop := interrupt.Waiting(ctx)
		defer stop()
		return o.waitGone(wait, t, timeout)
	}
}

// retarget reads the object under the target's name after a delete whose UID
// precondition failed: gone when there is none, or when it is another object the
// target's claim does not hold; else the target with that object's UID. An object
// the claim holds under another UID is the resource's own, made after the one the
// state records was deleted (see claim): it is deleted too, so that nothing the
// resource made outlives it.
func (o kindClient) retarget(ctx context.Context, t deleteTarget) (_ deleteTarget, gone bool, _ error) {
	live, err := o.get(ctx, t.id)
	switch {
	case err != nil:
		return t, false, err
	case live == nil:
		return t, true, nil
	case live.GetUID() == t.uid:
		return t, false, nil
	case !t.claim.holds(live):
		return t, true, nil
	}
	secret.Logger(ctx).Infof("%s %s: the object the state records (UID %s) is gone, and the one under its name "+
		"(UID %s) carries this resource's %s: deleting it", o.kind.name, t.id, t.uid, live.GetUID(), OwnerAnnotation)
	t.uid = live.GetUID()
	return t, false, nil
}

// resolve is the target with the UID of the object its claim holds: the UID the state
// records, or that of the object under the name when the claim holds it (see claim).
// ours is false when there is nothing of the resource's to delete.
func (o kindClient) resolve(ctx context.Context, t deleteTarget) (_ deleteTarget, ours bool, _ error) {
	if t.uid = t.claim.uid; t.uid != "" {
		return t, true, nil
	}
	live, err := o.get(ctx, t.id)
	if err != nil || !t.claim.holds(live) {
		return t, false, err
	}
	t.uid = live.GetUID()
	return t, true, nil
}

// deleteObject sends the DELETE and returns the server's answer: the object while
// something (finalizers, graceful deletion) holds it, nil when the answer is a
// Status, which the server sends once the object is gone.
func (o kindClient) deleteObject(ctx context.Context, id objectID, opts metav1.DeleteOptions,
) (*unstructured.Unstructured, error) {
	defer o.wrote(id.namespace)
	body, err := json.Marshal(opts)
	if err != nil {
		return nil, fmt.Errorf("internal error: encoding delete options: %w", err)
	}
	raw, err := o.client.raw.Delete().AbsPath(o.objectPath(id)).
		SetHeader("Content-Type", "application/json").Body(body).Do(ctx).Raw()
	if err != nil {
		return nil, err
	}
	answer := &unstructured.Unstructured{}
	if err := answer.UnmarshalJSON(raw); err != nil {
		return nil, fmt.Errorf("the API server's answer to the delete is not an object: %w", err)
	}
	if answer.GetKind() == "Status" {
		return nil, nil
	}
	return answer, nil
}

// objectPath is the URL path of one object of the kind.
func (o kindClient) objectPath(id objectID) string {
	return o.collectionPath(id.namespace) + "/" + id.name
}

// collectionPath is the URL path of the objects of the kind in a namespace.
func (o kindClient) collectionPath(namespace string) string {
	r := o.kind.resource
	prefix := "/api/" + r.Version
	if r.Group != "" {
		prefix = "/apis/" + r.Group + "/" + r.Version
	}
	return prefix + "/namespaces/" + namespace + "/" + r.Resource
}

// waitGone waits until the target is gone: it watches the name from the version it
// last read, so the wait ends as soon as the server deletes the object, or as soon as
// another object (another UID) holds the name. A watch that breaks off is started
// again.
func (o kindClient) waitGone(ctx context.Context, t deleteTarget, timeout time.Duration) error {
	for {
		live, err := o.get(ctx, t.id)
		switch {
		case err == nil && (live == nil || live.GetUID() != t.uid):
			return nil
		case ctx.Err() != nil:
			last, lastErr := o.get(context.WithoutCancel(ctx), t.id)
			if lastErr == nil && (last == nil || last.GetUID() != t.uid) {
				return nil // gone after all, by the time of this last look
			}
			return o.stillThere(ctx, t.id, last, lastErr, timeout)
		case err != nil:
			return err
		}
		w, err := o.api(t.id.namespace).Watch(ctx, metav1.ListOptions{
			FieldSelector:   "metadata.name=" + t.id.name,
			ResourceVersion: live.GetResourceVersion(),
		})
		if err != nil {
			if ctx.Err() == nil {
				return apiError("watch", o.kind, t.id, err)
			}
			continue
		}
		for event := range w.ResultChan() {
			obj, isObject := event.Object.(*unstructured.Unstructured)
			ended := event.Type == watch.Deleted ||
				(event.Type == watch.Added || event.Type == watch.Modified) && isObject && obj.GetUID() != t.uid
			if ended {
				w.Stop()
				return nil
			}
		}
		w.Stop()
	}
}

// removeAll removes the targets, up to fanOutLimit at a time, and returns the names
// of those that are gone. Every target is tried; the error keeps every failure, the
// first target's first (see fanOut.failed).
func (o kindClient) removeAll(ctx context.Context, targets []deleteTarget, policy DeletePolicy, timeout time.Duration,
) ([]objectID, error) {
	deletes := fanOut{
		what: "delete(s)",
		name: func(i int) string { return fmt.Sprintf("the delete of %s %s", o.kind.name, targets[i].id) },
	}
	outcomes := deletes.run(ctx, len(targets), func(i int) error {
		return o.remove(ctx, targets[i], policy, timeout)
	})
	var removed []objectID
	errs := make([]error, len(targets))
	for i, c := range outcomes {
		if c.err == nil {
			removed = append(removed, targets[i].id)
		}
		errs[i] = c.err
	}
	return removed, deletes.failed(errs)
}

// stillThere explains why a delete did not finish, from the last read of the object
// (live, or the error readErr). The read's error is quoted, not wrapped: the delete
// failed for its time running out, whatever the read met.
func (o kindClient) stillThere(ctx context.Context, id objectID, live *unstructured.Unstructured, readErr error,
	timeout time.Duration,
) error {
	cause := context.Cause(ctx)
	what := fmt.Sprintf("%s %s was not deleted within %s", o.kind.name, id, timeout)
	switch {
	case errors.Is(cause, interrupt.ErrCancelling):
		what = fmt.Sprintf("the delete of %s %s was sent and accepted, but %v, so the wait for it to be gone ended: "+
			"it stays in the state, and the next `pulumi up` or `pulumi destroy` finishes the delete", o.kind.name, id, cause)
	case !errors.Is(cause, errDeleteTimeout):
		what = fmt.Sprintf("deleting %s %s stopped before it was gone (%v)", o.kind.name, id, cause)
	}
	switch {
	case live == nil && readErr != nil:
		//nolint:errorlint // the read's error is quoted, not wrapped (see above)
		return fmt.Errorf("%s; reading it once more to tell what holds it failed: %v", what, readErr)
	case live == nil:
		return errors.New(what)
	}
	finalizers := live.GetFinalizers()
	switch {
	case len(finalizers) == 0:
		return fmt.Errorf("%s; it is still present with no finalizers, so the API server has not finished deleting it", what)
	case slices.Equal(finalizers, []string{metav1.FinalizerDeleteDependents}):
		return fmt.Errorf("%s: finalizer %q holds it until the garbage collector has deleted its dependents "+
			"(is kube-controller-manager running?)", what, metav1.FinalizerDeleteDependents)
	default:
		return fmt.Errorf("%s: finalizers %q hold it; the controllers that own them must remove them "+
			"(or remove them yourself with `kubectl patch %s %s -n %s --type=merge -p '{\"metadata\":{\"finalizers\":null}}'`)",
			what, finalizers, o.kind.resource.Resource, id.name, id.namespace)
	}
}

// locate finds the live object a state stands for: under the name it records, if the
// state's claim holds it (see claim), unless the create that made it went unanswered;
// then by the create ID the state records. It answers nil when there is none.
func (o kindClient) locate(ctx context.Context, id objectID, rec recorded) (*unstructured.Unstructured, error) {
	return o.locateBy(ctx, id, rec, o.get)
}

// locateBy is locate, with get reading the object under the name the state records.
func (o kindClient) locateBy(ctx context.Context, id objectID, rec recorded,
	get func(context.Context, objectID) (*unstructured.Unstructured, error),
) (*unstructured.Unstructured, error) {
	if rec.unconfirmed(id) {
		return o.findCreated(ctx, id, rec)
	}
	live, err := get(ctx, rec.at(id))
	if err != nil {
		return nil, err
	}
	return rec.claim(o.owner).held(live), nil
}

// findCreated finds the object a pending ID stands for: the object of the namespace
// that carries the create ID the state records. It answers nil when there is none
// (the create never took effect, or the object was deleted since).
func (o kindClient) findCreated(ctx context.Context, id objectID, rec recorded) (*unstructured.Unstructured, error) {
	createID := rec.createID()
	if createID == "" {
		return nil, fmt.Errorf("%s %s: the state records a create whose answer was lost, but no %s label to find it by; "+
			"remove the resource from the state (`pulumi state delete`) and import the object, or delete it",
			o.kind.name, id, CreateIDLabel)
	}
	return o.findByCreateID(ctx, id, rec.claim(o.owner))
}

// findByCreateID finds the object of id's namespace that carries the create ID the
// claim c records and that c holds (see claim); nil when there is none. Objects that
// carry it once each; two or more are an error naming them: one create made them.
func (o kindClient) findByCreateID(ctx context.Context, id objectID, c claim) (*unstructured.Unstructured, error) {
	list, err := o.api(id.namespace).List(ctx, metav1.ListOptions{LabelSelector: CreateIDLabel + "=" + c.createID})
	if err != nil {
		return nil, apiError("list", o.kind, id, err)
	}
	var found []*unstructured.Unstructured
	for i := range list.Items {
		if c.holds(&list.Items[i]) {
			found = append(found, &list.Items[i])
		}
	}
	switch len(found) {
	case 0:
		return nil, nil
	case 1:
		return found[0], nil
	}
	names := make([]string, 0, len(found))
	for _, obj := range found {
		names = append(names, obj.GetName())
	}
	return nil, fmt.Errorf("%s %s: %d objects carry the label %s=%s (%s), which one create wrote; "+
		"delete the ones the program does not own", o.kind.name, id, len(names), CreateIDLabel, c.createID,
		strings.Join(names, ", "))
}

// readItems reads the live objects of the recorded items (nil for one that is gone):
// a namespace that holds enough of them is listed (see by_namespace.go), and the other
// items are read one by one, as Create writes them (see forItems), as are those of a
// namespace the client may not list (a role that grants get and not list); those of a
// namespace that holds fewer than listMin of them share the lists of the Reads that
// arrive together (see read_lists.go).
func (o kindClient) readItems(ctx context.Context, recorded []listItem) ([]*unstructured.Unstructured, error) {
	objs := make([]*unstructured.Unstructured, len(recorded))
	ids := make([]objectID, len(recorded))
	for i, it := range recorded {
		ids[i] = it.id
	}
	namespaces, byNamespace := groupByNamespace(ids)
	// oneByOne are read one by one, those of shared through the lists Reads share.
	var oneByOne []int
	shared := map[int]bool{}
	for i, id := range ids {
		if id.name == "" || id.namespace == "" {
			oneByOne = append(oneByOne, i)
		}
	}
	for _, ns := range namespaces {
		indexes := byNamespace[ns]
		if len(indexes) < listMin {
			oneByOne = append(oneByOne, indexes...)
			for _, i := range indexes {
				shared[i] = true
			}
			continue
		}
		live, listed, err := namespaceList{api: o.api(ns), page: itemListPage}.byName(ctx, len(indexes))
		switch {
		case apierrors.IsForbidden(err):
			listed = false
		case err != nil:
			return nil, apiError("list", o.kind, everyObjectIn(ns), err)
		}
		if !listed {
			oneByOne = append(oneByOne, indexes...)
			continue
		}
		for _, i := range indexes {
			objs[i] = live[recorded[i].id.name]
		}
	}
	for _, res := range forItems(ctx, len(oneByOne), func(j int) error {
		i := oneByOne[j]
		read := o.get
		if shared[i] {
			read = o.read
		}
		var err error
		objs[i], err = read(ctx, recorded[i].id)
		return err
	}) {
		if res.err != nil {
			return nil, res.err
		}
	}
	for i, obj := range objs {
		objs[i] = recorded[i].recorded(o.kind).claim(o.owner).held(obj)
	}
	return objs, nil
}
