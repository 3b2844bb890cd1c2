package kube

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/endpoints-provider/pulumi-endpoints/provider/internal/secret"
)

// A cluster that does not answer, in one place: the API server cannot be reached,
// or a write's answer is lost on the way. In order, this file holds:
//
//   - which failures say that the API server could not be reached (unreachable,
//     answerLost, clusterGone), and the one decorator around every resource, Wrap's
//     reachability, with its answers for such a cluster: offline previews,
//     deleteUnreachable and skipUpdateUnreachable;
//   - lost answers: which failures leave a write in doubt, the partial state such a
//     write leaves, pending IDs and create IDs (see the section's own comment below).

// unreachableOnce remembers, per client, that its API server did not answer, so that
// a preview warns once and stops trying.
type unreachableOnce struct {
	once sync.Once
	down atomic.Bool
}

// unreachable tells whether err means the API server could not be reached at all:
// the connection was refused or reset, the name did not resolve, or no answer came
// within the request timeout. An answer from the server (any status), a proxy's
// refusal of its own (see proxyAnswered), a certificate the client rejects, a
// credential plugin that failed before the request was sent (see pluginError), and a
// cancel by the engine are not.
func unreachable(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || proxyAnswered(err) || errors.As(err, new(*pluginError)) {
		return false
	}
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		return false
	}
	var (
		verify    *tls.CertificateVerificationError
		authority x509.UnknownAuthorityError
		host      x509.HostnameError
		invalid   x509.CertificateInvalidError
	)
	if errors.As(err, &verify) || errors.As(err, &authority) || errors.As(err, &host) || errors.As(err, &invalid) {
		return false
	}
	var transport *url.Error
	return errors.As(err, &transport)
}

// answerLost tells whether err is a transport failure on a connection that was made
// and then broke (reset, closed, the server killed) before the answer came: unlike a
// refused connection, an unknown host or a timeout, the request may have reached the
// server and taken effect, and the server may well be there for the next one.
func answerLost(err error) bool {
	if !unreachable(err) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var timeout interface{ Timeout() bool }
	timedOut := errors.As(err, &timeout) && timeout.Timeout()
	return !notSent(err) && !timedOut
}

// clusterGone tells whether err means the cluster cannot be reached at all, the case the
// deleteUnreachable and skipUpdateUnreachable settings are for: the connection could
// not be made (refused, a name that does not resolve, a dial that got no answer, see
// notSent). A connection made and then not answered within the request timeout (an
// overloaded API server, a stuck webhook) is a cluster that is there, and so is one
// that broke before the answer (see answerLost).
func clusterGone(err error) bool {
	return unreachable(err) && notSent(err)
}

// slowAnswer tells whether err is a request that was sent on a connection made and got
// no answer in time: a cluster that is there, and slow.
func slowAnswer(err error) bool {
	return unreachable(err) && !clusterGone(err) && !answerLost(err)
}

// Wrap is r as the provider serves it: r, whose lifecycle runs on the store of the
// target in force (see store), inside the one decorator every resource has,
// reachability: the answers for a cluster that cannot be reached (offline previews
// from r.previewOffline, the deleteUnreachable and skipUpdateUnreachable settings). A
// render directory reaches no cluster, so there it has nothing to answer for. (The
// provider runs Create, Read, Update and Delete in an operation scope around it: the
// engine's Cancel, the warnings shown once.)
func Wrap(r Resource) Lifecycle {
	return reachability{Lifecycle: r, offline: r.previewOffline, open: r.base().open, k: r.shared()}
}

// reachability gives a resource's cluster lifecycle the provider's answers for a
// cluster that cannot be reached:
//   - a preview falls back to Check's offline verdict, with one warning per
//     configuration naming the server;
//   - refresh (Read) and destroy (Delete) fail naming the server and the object, or,
//     with deleteUnreachable, drop the object from the state with a warning; with
//     skipUpdateUnreachable, a Read keeps the last state with a warning, as an update
//     does (the refreshBeforeUpdate setting has `pulumi up` read its objects first);
//   - an update fails likewise, or, with skipUpdateUnreachable, keeps the last state
//     with a warning.
type reachability struct {
	Lifecycle
	// offline is the preview's answer from the checked inputs alone.
	offline func(inputs decoded) decoded
	// open is the resource's store of the target in force (see clusterResource.open).
	open func(urn resource.URN) store
	k    *Kubernetes
}

// down tells whether a preview already found the cluster unreachable: only the store of
// a cluster can be down (see clusterStore.down); a render directory builds no client.
func (r reachability) down(ctx context.Context) bool {
	c, ok := onCluster(r.open(""))
	return ok && c.down(ctx)
}

// previewFallback reports the unreachable cluster once and tells whether the preview
// falls back to the offline answer.
func (r reachability) previewFallback(ctx context.Context, err error) bool {
	if !unreachable(err) {
		return false
	}
	c, cerr := r.k.Client(ctx)
	if cerr != nil {
		return false
	}
	c.unreachable.down.Store(true)
	c.unreachable.once.Do(func() {
		secret.Logger(ctx).Warningf("the Kubernetes API server %s is unreachable (%v); the preview shows only what "+
			"the provider checks offline, not the server's verdict", c.REST.Host, err)
	})
	return true
}

// unreachableError names the server in an unreachable cluster's error, with what the user can do.
// An answer lost on a broken connection is told apart: the server was reached, and
// the write may have taken effect.
func (r reachability) unreachableError(ctx context.Context, err error, hint string) error {
	if !unreachable(err) {
		return err
	}
	server := "of the provider's kubeconfig"
	if c, cerr := r.k.Client(ctx); cerr == nil {
		server = c.REST.Host
	}
	switch {
	case answerLost(err):
		return fmt.Errorf("the connection to the Kubernetes API server %s broke before its answer came: %w; "+
			"the request may have taken effect: run `pulumi up` again, it reads the object before it writes", server, err)
	case slowAnswer(err):
		return fmt.Errorf("the Kubernetes API server %s took the connection but did not answer within the request "+
			"timeout (the requestTimeout setting, %s): %w; a cluster that answers slowly is not unreachable, so "+
			"deleteUnreachable and skipUpdateUnreachable do not apply: run the command again, or raise requestTimeout",
			server, r.requestTimeout(ctx), err)
	}
	return fmt.Errorf("the Kubernetes API server %s is unreachable: %w; %s", server, err, hint)
}

// requestTimeout is the request timeout in force, for messages.
func (r reachability) requestTimeout(ctx context.Context) time.Duration {
	if c, err := r.k.Client(ctx); err == nil && c.REST.Timeout > 0 {
		return c.REST.Timeout
	}
	return DefaultRequestTimeout()
}

// The hints of an unreachable cluster's errors. destroy and refresh configure the
// provider with the settings recorded by the last update unless they run the program
// (--run-program), so a setting made by `pulumi config set` reaches them only then;
// the environment variables reach every command.
const (
	dropHint = "if the cluster is gone for good, drop its objects from the state: run the command again with " +
		"PULUMI_ENDPOINTS_DELETE_UNREACHABLE=true in its environment, or set the provider's deleteUnreachable " +
		"setting (`pulumi config set endpoints:deleteUnreachable true` for the default provider) and run " +
		"`pulumi destroy --run-program` or `pulumi refresh --run-program` (without --run-program, destroy and " +
		"refresh use the provider settings recorded by the last update)"
	// keepHint is what a Read adds to dropHint: the refreshBeforeUpdate setting has
	// `pulumi up`, preview and destroy read objects back first, with the settings of the
	// last update, so the environment variable is what reaches that read.
	keepHint = "; or, to keep the last state until the cluster is back, run the command again with " +
		"PULUMI_ENDPOINTS_SKIP_UPDATE_UNREACHABLE=true in its environment"
	skipHint = "to keep the last state until the cluster is back, set the provider's skipUpdateUnreachable setting " +
		"(`pulumi config set endpoints:skipUpdateUnreachable true` for the default provider) or " +
		"PULUMI_ENDPOINTS_SKIP_UPDATE_UNREACHABLE=true in the environment, and run `pulumi up` again"
)

func (r reachability) Create(ctx context.Context, req p.CreateRequest) (p.CreateResponse, error) {
	if req.DryRun && r.down(ctx) {
		return p.CreateResponse{Properties: r.offline(decode(req.Properties)).encode()}, nil
	}
	resp, err := r.Lifecycle.Create(ctx, req)
	if req.DryRun && r.previewFallback(ctx, err) {
		return p.CreateResponse{Properties: r.offline(decode(req.Properties)).encode()}, nil
	}
	err = r.unreachableError(ctx, err, "the create is retried by the next `pulumi up`")
	resp.PartialState = restated(resp.PartialState, err)
	return resp, err
}

func (r reachability) Update(ctx context.Context, req p.UpdateRequest) (p.UpdateResponse, error) {
	if req.DryRun && r.down(ctx) {
		return p.UpdateResponse{Properties: r.offline(decode(req.Inputs)).encode()}, nil
	}
	resp, err := r.Lifecycle.Update(ctx, req)
	switch {
	case req.DryRun && r.previewFallback(ctx, err):
		return p.UpdateResponse{Properties: r.offline(decode(req.Inputs)).encode()}, nil
	case !req.DryRun && clusterGone(err) && r.k.Options().SkipUpdateUnreachable:
		r.warnKept(ctx, err, "skipped", ", then `pulumi up` applies the change")
		state := resp.Properties
		if state.Len() == 0 {
			state = req.State
		}
		return p.UpdateResponse{Properties: state}, nil
	}
	err = r.unreachableError(ctx, err, skipHint)
	resp.PartialState = restated(resp.PartialState, err)
	return resp, err
}

func (r reachability) Read(ctx context.Context, req p.ReadRequest) (p.ReadResponse, error) {
	resp, err := r.Lifecycle.Read(ctx, req)
	switch {
	case clusterGone(err) && r.k.Options().DeleteUnreachable:
		r.warnDropped(ctx, err)
		return p.ReadResponse{}, nil
	case clusterGone(err) && r.k.Options().SkipUpdateUnreachable && req.Properties.Len() > 0:
		r.warnKept(ctx, err, "kept", "")
		return p.ReadResponse{ID: req.ID, Properties: req.Properties, Inputs: req.Inputs}, nil
	}
	return resp, r.unreachableError(ctx, err, dropHint+keepHint)
}

// warnDropped warns that deleteUnreachable drops an object whose cluster could not be
// reached from the state.
func (r reachability) warnDropped(ctx context.Context, err error) {
	secret.Logger(ctx).Warningf("%v; deleteUnreachable is set, so the object is dropped from the state "+
		"(it may still exist on the cluster)", r.unreachableError(ctx, err, "dropped"))
}

// warnKept warns that skipUpdateUnreachable keeps the last state of an object whose
// cluster could not be reached; note is unreachableError's, then what follows the
// refresh once the cluster is back.
func (r reachability) warnKept(ctx context.Context, err error, note, then string) {
	secret.Logger(ctx).Warningf("%v; skipUpdateUnreachable is set, so the last state is kept: "+
		"run `pulumi refresh` once the cluster is back%s", r.unreachableError(ctx, err, note), then)
}

func (r reachability) Delete(ctx context.Context, req p.DeleteRequest) error {
	err := r.Lifecycle.Delete(ctx, req)
	if clusterGone(err) && r.k.Options().DeleteUnreachable {
		r.warnDropped(ctx, err)
		return nil
	}
	return r.unreachableError(ctx, err, dropHint)
}

// Lost answers: a write whose answer never came (the connection broke, the API server
// or etcd timed out) may or may not have taken effect, so what it may have made is
// tracked all the same. In order, this section holds:
//
//   - which failures leave a write in doubt (ambiguous, inDoubt), and which show
//     that nothing was sent (notSent); an unreachable cluster is the section above's;
//   - the partial state a write that stopped part way leaves, always with its error
//     and its cause (partialFailure, restated, unconfirmed; partial for a list);
//   - what a create whose server was to pick the name records when its answer is lost:
//     its pending ID, `<namespace>/<generateName>*` (store.go's pendingID, with every
//     other ID), and the create ID, the CreateIDLabel every such create carries, by
//     which Read, Update and Delete find what a pending ID stands for
//     (kindClient.locate and findCreated, store_cluster.go).

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
// out), or a proxy's tunnel to the API server could not (see proxy.go: the connection
// to the proxy, a SOCKS handshake, an HTTP proxy's answer to the CONNECT), or the
// kubeconfig's credential plugin failed (see pluginError), so nothing was written. A
// connection that broke after it was made, a timeout while the request was out, and a
// call an earlier attempt of which was answered (see answered) are not such failures.
func notSent(err error) bool {
	if errors.As(err, new(*answeredBefore)) {
		return false
	}
	return anyOp(err, append([]string{"dial"}, proxyOps...)...) || errors.As(err, new(*net.DNSError)) ||
		errors.As(err, new(*proxyRefused)) || errors.As(err, new(*pluginError))
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

// mayExist tells whether a write of a cluster that failed with err may have taken
// effect, for a slice and for a list's items alike: it was sent and got no definite
// answer (see inDoubt). A write whose connection could not be made, or that had no
// client to send it with (noClientError), was never sent: nothing is recorded, and
// the next `pulumi up` makes it.
func mayExist(err error) bool {
	return inDoubt(err) && !errors.As(err, new(noClientError))
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

// recreateError is the error of an update that found its object gone and created it
// again, a create that may have taken effect (see kindClient.recreate): sent is the
// object sent, with its create ID when the server names it.
type recreateError struct {
	err  error
	sent *unstructured.Unstructured
}

func (e *recreateError) Error() string { return e.err.Error() }
func (e *recreateError) Unwrap() error { return e.err }

// recreated is the object an update's create sent, when err says that create may have
// taken effect (see recreateError); nil otherwise.
func recreated(err error) *unstructured.Unstructured {
	var re *recreateError
	if errors.As(err, &re) {
		return re.sent
	}
	return nil
}

// lostCreate is what a resource records for the create of sent whose answer was lost
// (err, see mayExist), a create's or an update's alike: the ID it is recorded under
// (its name, or its pending ID with the create ID in fields, the state, when the
// server names it), the state's fields, and the partial state with its error. The
// state records no UID, so the next call finds the object by its create ID or, under
// its name, by the resource's URN (see claim), or creates it.
func lostCreate(k kind, sent *unstructured.Unstructured, fields map[string]any, err error,
) (objectID, map[string]any, *p.InitializationFailed, error) {
	id := idOf(sent)
	if createID := sent.GetLabels()[CreateIDLabel]; serverNamed(sent) && createID != "" {
		id, fields = pendingID(sent), withCreateID(fields, createID)
	}
	state, err := partialFailure(unconfirmed(k, id, err))
	return id, fields, state, err
}
