package kube

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/endpoints-provider/pulumi-endpoints/provider/internal/interrupt"
)

// DeletePolicy says how a delete treats an object's dependents.
type DeletePolicy = metav1.DeletionPropagation

// defaultDeleteTimeout bounds a delete that the program gave no custom timeout.
const defaultDeleteTimeout = 10 * time.Minute

// deleteTarget is one object to delete: its name and, when the state recorded it, the UID
// of the object the provider wrote. Another object under the same name (recreated by a
// controller or a person) is not the target.
type deleteTarget struct {
	id  objectID
	uid types.UID
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
	opts := metav1.DeleteOptions{PropagationPolicy: &policy}
	if t.uid != "" {
		opts.Preconditions = &metav1.Preconditions{UID: &t.uid}
	}
	for attempt := 1; ; attempt++ {
		answer, err := o.deleteObject(ctx, t.id, opts)
		switch {
		case apierrors.IsNotFound(err):
			return nil
		case apierrors.IsConflict(err) && t.uid != "":
			// The UID precondition failed: the name belongs to another object now, so
			// ours is gone; unless the conflict had another cause, then try again.
			live, getErr := o.get(ctx, t.id)
			if getErr == nil && (live == nil || live.GetUID() != t.uid) {
				return nil
			}
			if getErr == nil && attempt < conflictRetries {
				continue
			}
			if getErr != nil {
				return fmt.Errorf("%w; reading it again to tell whether it is gone failed: %w",
					apiError("delete", o.kind, t.id, err), getErr)
			}
		}
		if err != nil {
			return apiError("delete", o.kind, t.id, err)
		}
		if answer == nil || (len(answer.GetFinalizers()) == 0 && answer.GetDeletionTimestamp() == nil) {
			return nil // deleted at once
		}
		if t.uid == "" {
			t.uid = answer.GetUID()
		}
		wait, stop := interrupt.Waiting(ctx)
		defer stop()
		return o.waitGone(wait, t, timeout)
	}
}

// deleteObject sends the DELETE and returns the server's answer: the object while
// something (finalizers, graceful deletion) holds it, nil when the answer is a
// Status, which the server sends once the object is gone.
func (o kindClient) deleteObject(ctx context.Context, id objectID, opts metav1.DeleteOptions,
) (*unstructured.Unstructured, error) {
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
	r := o.kind.resource
	prefix := "/api/" + r.Version
	if r.Group != "" {
		prefix = "/apis/" + r.Group + "/" + r.Version
	}
	return prefix + "/namespaces/" + id.namespace + "/" + r.Resource + "/" + id.name
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

var errDeleteTimeout = errors.New("delete timed out")

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
