package kube

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"sync/atomic"

	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Lost answers: a write whose answer never came (the connection broke, the API server
// or etcd timed out) may or may not have taken effect, so what it may have made is
// tracked all the same. In order, this file holds:
//
//   - which failures leave a write in doubt (ambiguous, inDoubt), and which show
//     that nothing was sent (notSent); an unreachable cluster is unreachable.go's;
//   - the partial state a write that stopped part way leaves, always with its error
//     and its cause (partialFailure, restated, unconfirmed; partial for a list);
//   - pending IDs, `<namespace>/<generateName>*`, recorded for a create whose server
//     was to pick the name;
//   - create IDs, the CreateIDLabel every such create carries, by which Read, Update
//     and Delete find what a pending ID stands for (locate, findCreated).

// ambiguous tells whether a failed write may have taken effect anyway: the request
// may have reached the server, but no definite answer came back (the connection
// failed, the call was canceled or timed out, the server timed out or failed
// internally).
func ambiguous(err error) bool {
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		return true
	}
	switch status.Status().Reason {
	case metav1.StatusReasonTimeout, metav1.StatusReasonServerTimeout, metav1.StatusReasonInternalError:
		return true
	}
	// A 5xx of any other reason, such as the API server's answer when etcd broke off
	// mid-write (500, reason unknown), says nothing of whether the write took effect.
	return status.Status().Code >= http.StatusInternalServerError
}

// notSent tells whether err shows that a request never reached the API server: the
// connection could not be made (refused, no route, an unknown host, a dial that timed
// out), so nothing was written. A connection that broke after it was made, a timeout
// while the request was out, and a call an earlier attempt of which was answered (see
// answered) are not such failures.
func notSent(err error) bool {
	var (
		op  *net.OpError
		dns *net.DNSError
	)
	return !errors.As(err, new(*answeredBefore)) && (errors.As(err, &op) && op.Op == "dial" || errors.As(err, &dns))
}

// answered tracks whether any attempt of one call got an answer. client-go sends a
// write again when the server answers 5xx or 429 with Retry-After (as kube-apiserver
// does when etcd times out, and the write may then have taken effect); if that retry
// cannot connect, the call ends with the dial error alone. A call made with the
// context returned by track passes its error through answeredBefore.
type answered struct{ got atomic.Bool }

type answeredKey struct{}

// track returns ctx carrying a new answered, and that answered.
func track(ctx context.Context) (context.Context, *answered) {
	a := &answered{}
	return context.WithValue(ctx, answeredKey{}, a), a
}

// err is the call's error, marked as answeredBefore when an attempt got an answer.
func (a *answered) err(err error) error {
	if err == nil || !a.got.Load() {
		return err
	}
	return &answeredBefore{err}
}

// answeredBefore is the error of a call an attempt of which got an answer.
type answeredBefore struct{ error }

func (e *answeredBefore) Unwrap() error { return e.error }

// answerRecorder is the transport under every client: it marks the answered of the
// request's call (see track) when a response comes.
type answerRecorder struct{ next http.RoundTripper }

func (r answerRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := r.next.RoundTrip(req)
	if a, ok := req.Context().Value(answeredKey{}).(*answered); ok && resp != nil {
		a.got.Store(true)
	}
	return resp, err
}

// inDoubt tells whether a write that failed with err may have taken effect: it was
// sent and no definite answer came back (see ambiguous). A write whose connection
// could not be made was never sent (see notSent), so it is not in doubt.
func inDoubt(err error) bool {
	return ambiguous(err) && !notSent(err)
}

// partialFailure is the answer to a write that stopped part way, leaving an object
// that exists, or may exist, but did not finish: the partial state the engine records
// always travels with the error it reports (pulumi-go-provider requires the error to be
// non-nil alongside the state), both saying err. The error is err itself, so that what
// answers for the resource further out (see reachability) still finds its cause.
func partialFailure(err error) (*p.InitializationFailed, error) {
	return &p.InitializationFailed{Reasons: []string{err.Error()}}, err
}

// restated is a partial state, if any, saying err: the error that what answers for the
// resource further out (see reachability) made of the partial failure's. The engine
// shows the partial state's reasons, not the error.
func restated(state *p.InitializationFailed, err error) *p.InitializationFailed {
	if state == nil || err == nil {
		return state
	}
	state, _ = partialFailure(err)
	return state
}

// unconfirmed is the error of a create whose outcome is unknown: err, and what it
// leaves in the state.
func unconfirmed(k kind, id objectID, err error) error {
	return fmt.Errorf("%w; the API server gave no answer, so %s %s may or may not exist: it is recorded in the state "+
		"and the next `pulumi up` finds it or creates it", err, k.name, id)
}

// partial is the partial state of a list whose write failed with err: the items of
// the set are recorded. unanswered says that some item writes got no answer (see
// someUnanswered).
func partial(err error, recorded *itemSet, unanswered bool) (*p.InitializationFailed, error) {
	note := ""
	if unanswered {
		note = unansweredNote
	}
	return partialFailure(fmt.Errorf("%w (%d item(s) were written and are recorded%s; run `pulumi up` again to finish)",
		err, len(recorded.items()), note))
}

// unansweredNote is what the partial state of a list adds when some of its item
// writes got no answer: those items are recorded, though they may not exist (or not
// be as written), and the next update settles them.
const unansweredNote = "; the API server gave no answer to some of these writes (the connection broke, or etcd " +
	"did not confirm them), so those items may or may not have been written: they are recorded too, and the next " +
	"`pulumi up` reads each item before it writes"

// someUnanswered tells whether any item write was sent and failed without saying
// whether it took effect (see inDoubt). Items not sent (after a failure, or once
// the engine cancels) are not in doubt.
func someUnanswered(results []itemResult) bool {
	return slices.ContainsFunc(results, func(res itemResult) bool { return res.inDoubt })
}

// serverNamed tells whether the server picks obj's name.
func serverNamed(obj *unstructured.Unstructured) bool {
	return obj.GetName() == "" && obj.GetGenerateName() != ""
}

// newCreateID returns a random create ID, a valid label value.
func newCreateID() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("internal error: making a create ID: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// labelCreate labels obj, when the server picks its name, with createID (a new one if
// empty) and returns the create ID it carries ("" when it needs none).
func labelCreate(obj *unstructured.Unstructured, createID string) (string, error) {
	if !serverNamed(obj) {
		return "", nil
	}
	if createID == "" {
		var err error
		if createID, err = newCreateID(); err != nil {
			return "", err
		}
	}
	labels := obj.GetLabels()
	if labels == nil {
		labels = map[string]string{}
	}
	labels[CreateIDLabel] = createID
	obj.SetLabels(labels)
	return createID, nil
}

// createIDOf reads the create ID a state records.
func createIDOf(state property.Map) string {
	id, _ := stringField(mapField(mapField(state, "metadata"), "labels"), CreateIDLabel)
	return id
}

// withCreateID records createID in the labels of a state's metadata.
func withCreateID(state property.Map, createID string) property.Map {
	meta := mapField(state, "metadata")
	labels := mapField(meta, "labels").Set(CreateIDLabel, property.New(createID))
	return state.Set("metadata", property.New(meta.Set("labels", property.New(labels))))
}

// unconfirmedCreate tells whether the state records a create whose answer was lost:
// a pending ID, or a create ID without the UID an answer would have given.
func unconfirmedCreate(id objectID, state property.Map) bool {
	return id.pending() || createIDOf(state) != "" && uidOf(state) == ""
}
