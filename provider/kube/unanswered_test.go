package kube

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/endpoints-provider/pulumi-endpoints/provider/internal/interrupt"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/ports"
)

// closedAddress returns an address on 127.0.0.1 that refuses connections until the
// test ends: its port is reserved (bound, not listening; see package ports), so no
// server another test starts meanwhile can take it, as one could a port closed again.
func closedAddress(t *testing.T) string {
	t.Helper()
	r, err := ports.Reserve()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := r.Release(); err != nil {
			t.Error(err)
		}
	})
	return r.Addr()
}

// listen listens on a free port of 127.0.0.1 until the test ends.
func listen(t *testing.T) net.Listener {
	t.Helper()
	var lc net.ListenConfig
	l, err := lc.Listen(t.Context(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	return l
}

// kindClientAt is the slices of a client for the plain-HTTP server at addr, with the
// request timeout given (0: the default).
func kindClientAt(t *testing.T, addr string, timeout time.Duration) kindClient {
	t.Helper()
	c, err := NewClient(Config{RequestTimeout: timeout, Kubeconfig: fmt.Sprintf(`{"apiVersion": "v1", "kind": "Config",
"clusters": [{"name": "c", "cluster": {"server": "http://%s"}}],
"users": [{"name": "u", "user": {"token": "t"}}],
"contexts": [{"name": "x", "context": {"cluster": "c", "user": "u"}}], "current-context": "x"}`, addr)})
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	return kindClient{kind: endpointSliceKind, client: c}
}

func TestUnreachable(t *testing.T) {
	t.Parallel()
	refused := refusedError(t)
	gr := schema.GroupResource{Group: "discovery.k8s.io", Resource: "endpointslices"}
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"connection refused by a real client", refused, true},
		{"a timeout", &url.Error{Op: "Get", URL: "https://x", Err: context.DeadlineExceeded}, true},
		{"joined with other failures", errors.Join(errors.New("other"), refused), true},
		{"an answer from the server", apierrors.NewNotFound(gr, "x"), false},
		{"a server timeout is an answer", apierrors.NewTimeoutError("slow", 1), false},
		{"a cancel by the engine", &url.Error{Op: "Get", URL: "https://x", Err: context.Canceled}, false},
		{"a certificate the client rejects", &url.Error{Op: "Get", URL: "https://x", Err: x509.UnknownAuthorityError{}}, false},
		{"no error", nil, false},
		{"a plain error", errors.New("internal"), false},
		{"a status error", &apierrors.StatusError{ErrStatus: metav1.Status{Reason: metav1.StatusReasonForbidden}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := unreachable(tt.err); got != tt.want {
				t.Errorf("unreachable(%v) = %v, want %v", tt.err, got, tt.want)
			}
		})
	}
}

// tcpServer listens on a local port until the test ends and hands each connection to
// handle, which runs in a goroutine of its own; the connection is closed when handle
// returns. It returns the address.
func tcpServer(t *testing.T, handle func(net.Conn)) string {
	t.Helper()
	l := listen(t)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer func() { _ = c.Close() }()
				handle(c)
			}()
		}
	}()
	return l.Addr().String()
}

// A server that accepts connections but never answers fails a request within the
// request timeout, as unreachable.
func TestRequestTimeoutBoundsASilentServer(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	addr := tcpServer(t, func(c net.Conn) { <-ctx.Done() }) // accepted, never answered
	o := kindClientAt(t, addr, 300*time.Millisecond)
	began := time.Now()
	_, err := o.get(t.Context(), objectID{namespace: "ns", name: "x"})
	if took := time.Since(began); took > 5*time.Second {
		t.Errorf("the request took %v with a 300ms timeout", took)
	}
	if !unreachable(err) {
		t.Errorf("unreachable(%v) = false, want true", err)
	}
}

// A connection that is made and then closed before the answer is a lost answer, told
// apart from a server that cannot be reached: the request may have taken effect.
func TestAnswerLost(t *testing.T) {
	t.Parallel()
	addr := tcpServer(t, func(c net.Conn) {
		_, _ = c.Read(make([]byte, 4096)) // the request arrives; no answer leaves
	})
	client := func(addr string) kindClient { return kindClientAt(t, addr, 2*time.Second) }
	// A write, as client-go retries a GET whose answer was lost until its timeout.
	del := func(o kindClient) error {
		return o.client.Dynamic.Resource(o.kind.resource).Namespace("ns").Delete(t.Context(), "x", metav1.DeleteOptions{})
	}
	lost := del(client(addr))
	refused := del(client(closedAddress(t)))
	tests := []struct {
		name            string
		err             error
		lost, reachable bool
		// sent: the request left (see notSent); doubt: it may have taken effect (see inDoubt).
		sent, doubt bool
	}{
		{"connection closed after the request", lost, true, true, true, true},
		{"connection refused", refused, false, false, false, false},
		{"a timeout", &url.Error{Op: "Get", URL: "https://x", Err: context.DeadlineExceeded}, false, true, true, true},
		{"an unknown host", &url.Error{Op: "Get", URL: "https://x", Err: &net.OpError{Op: "dial", Err: &net.DNSError{Err: "no such host", Name: "x"}}}, false, false, false, false},
		{"a dial that timed out", &url.Error{Op: "Get", URL: "https://x", Err: &net.OpError{Op: "dial", Err: os.ErrDeadlineExceeded}}, false, false, false, false},
		{"an answer from the server", apierrors.NewNotFound(schema.GroupResource{Resource: "endpointslices"}, "x"), false, true, true, false},
	}
	for _, tt := range tests {
		if got := answerLost(tt.err); got != tt.lost {
			t.Errorf("%s: answerLost(%v) = %v, want %v", tt.name, tt.err, got, tt.lost)
		}
		if got := !clusterGone(tt.err); got != tt.reachable {
			t.Errorf("%s: clusterGone(%v) = %v, want %v", tt.name, tt.err, !got, !tt.reachable)
		}
		if got := !notSent(tt.err); got != tt.sent {
			t.Errorf("%s: notSent(%v) = %v, want %v", tt.name, tt.err, !got, !tt.sent)
		}
		if got := inDoubt(tt.err); got != tt.doubt {
			t.Errorf("%s: inDoubt(%v) = %v, want %v", tt.name, tt.err, got, tt.doubt)
		}
	}
}

// refusedError is a real client's error for a connection refused: nothing listens at
// the server's address.
func refusedError(t *testing.T) error {
	t.Helper()
	_, err := kindClientAt(t, closedAddress(t), 0).get(t.Context(), objectID{namespace: "ns", name: "x"})
	return err
}

// kubernetesWith is the package's resources configured with cfg, whose client is c.
func kubernetesWith(t *testing.T, cfg Config, c *Client) *Kubernetes {
	t.Helper()
	k := New(cfg)
	if _, err := k.client.Get(k.cfg, func() (*Client, error) { return c, nil }, nil); err != nil {
		t.Fatal(err)
	}
	return k
}

// An EndpointsList meets a cluster gone as a slice does: without the settings, an
// update fails with the skipUpdateUnreachable hint (its partial state saying so too)
// and a delete with the deleteUnreachable hint, and neither says that anything may have
// been written; with them, the update keeps the last state and the delete drops the
// list, both without an error.
func TestUnreachableList(t *testing.T) {
	t.Parallel()
	c := kindClientAt(t, closedAddress(t), 0).client
	item := func(port float64) property.Map {
		return property.NewMap(map[string]property.Value{"items": property.New([]property.Value{property.New(map[string]property.Value{
			"metadata": property.New(map[string]property.Value{"name": property.New("web"), "namespace": property.New("ns")}),
			"subsets": property.New([]property.Value{property.New(map[string]property.Value{
				"addresses": property.New([]property.Value{property.New(map[string]property.Value{"ip": property.New("10.0.0.2")})}),
				"ports":     property.New([]property.Value{property.New(map[string]property.Value{"port": property.New(port)})}),
			})}),
		})})})
	}
	old := item(80)
	for _, tc := range []struct {
		name    string
		options Config
	}{
		{"no setting", Config{}},
		{"skipUpdateUnreachable and deleteUnreachable", Config{SkipUpdateUnreachable: true, DeleteUnreachable: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			list := kubernetesWith(t, tc.options, c).EndpointsList()
			const urn = "urn:pulumi:s::p::endpoints:core/v1:EndpointsList::list"
			updated, updateErr := list.Update(t.Context(), p.UpdateRequest{ID: "list", Urn: urn, State: old,
				OldInputs: old, Inputs: item(81)})
			deleteErr := list.Delete(t.Context(), p.DeleteRequest{ID: "list", Urn: urn, Properties: old})
			if !tc.options.SkipUpdateUnreachable {
				unreachableHinted(t, "update", updateErr, skipHint)
				unreachableHinted(t, "delete", deleteErr, dropHint)
				// The engine shows the partial state's reasons, not the error.
				if s := updated.PartialState; updateErr != nil && (s == nil || len(s.Reasons) != 1 ||
					s.Reasons[0] != updateErr.Error()) {
					t.Errorf("the update's partial state %v does not say what its error says: %v", s, updateErr)
				}
				return
			}
			if updateErr != nil || deleteErr != nil {
				t.Fatalf("with the settings, update: %v, delete: %v; want both to succeed", updateErr, deleteErr)
			}
			if !updated.Properties.Equals(old) || updated.PartialState != nil {
				t.Errorf("the skipped update does not keep the last state: %v (partial state %v), want %v",
					updated.Properties, updated.PartialState, old)
			}
		})
	}
}

// A refresh of an object whose cluster is gone fails with both ways out: drop it
// (deleteUnreachable), or keep the last state (skipUpdateUnreachable), which a Read then
// does, as the read-back of refreshBeforeUpdate needs for `pulumi up` to go on.
func TestUnreachableReadKeepsWithSkip(t *testing.T) {
	t.Parallel()
	c := kindClientAt(t, closedAddress(t), 0).client
	state := property.NewMap(map[string]property.Value{"addressType": property.New("IPv4")})
	req := p.ReadRequest{ID: "ns/web", Urn: "urn:pulumi:s::p::endpoints:discovery.k8s.io/v1:EndpointSlice::web",
		Properties: state, Inputs: state}
	for _, skip := range []bool{false, true} {
		slice := kubernetesWith(t, Config{SkipUpdateUnreachable: skip}, c).EndpointSlice()
		read, err := slice.Read(t.Context(), req)
		if !skip {
			unreachableHinted(t, "read", err, dropHint+keepHint)
			continue
		}
		if err != nil || read.ID != req.ID || !read.Properties.Equals(state) || !read.Inputs.Equals(state) {
			t.Errorf("with skipUpdateUnreachable, the read: %+v, %v; want the last state kept", read, err)
		}
	}
}

// unreachableHinted fails the test unless err says the API server is unreachable,
// gives the hint, keeps the cause, and does not say that something may have been
// written.
func unreachableHinted(t *testing.T, op string, err error, hint string) {
	t.Helper()
	var transport *url.Error
	switch {
	case err == nil:
		t.Errorf("%s against an unreachable cluster succeeded", op)
	case !strings.Contains(err.Error(), "is unreachable") || !strings.Contains(err.Error(), hint):
		t.Errorf("%s: the error does not say that the API server is unreachable with the hint %q:\n%v", op, hint, err)
	case strings.Contains(err.Error(), "may or may not"):
		t.Errorf("%s: the error says that something may have been written, though nothing was sent:\n%v", op, err)
	case !errors.As(err, &transport) || !notSent(err):
		t.Errorf("%s: the error does not keep the refused connection as its cause: %v", op, err)
	}
}

// A create answered 5xx with Retry-After, which client-go sends again, and whose retry
// cannot connect ends with the dial error; the first attempt reached the server, so the
// create is in doubt, not unsent.
func TestRetryThatCannotConnectIsInDoubt(t *testing.T) {
	t.Parallel()
	l := listen(t)
	go func() {
		c, err := l.Accept()
		if err != nil {
			return
		}
		_ = l.Close() // the retry finds nothing listening
		_, _ = c.Read(make([]byte, 8192))
		_, _ = c.Write([]byte("HTTP/1.1 504 Gateway Timeout\r\nRetry-After: 1\r\nContent-Type: application/json\r\n" +
			"Content-Length: 2\r\nConnection: close\r\n\r\n{}"))
		_ = c.Close()
	}()
	o := kindClientAt(t, l.Addr().String(), 10*time.Second)
	obj := endpointSliceKind.object(map[string]any{
		"metadata":    map[string]any{"name": "x", "namespace": "ns"},
		"addressType": "IPv4",
	})
	_, err := o.create(t.Context(), obj, false)
	if err == nil || !strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("create = %v; want the retry's refused connection", err)
	}
	if notSent(err) || !inDoubt(err) || !(clusterStore{}).mayExist(err) {
		t.Errorf("notSent = %v, inDoubt = %v, mayExist = %v for %v; want a create in doubt", notSent(err), inDoubt(err),
			(clusterStore{}).mayExist(err), err)
	}
	if _, err := kindClientAt(t, closedAddress(t), 0).create(t.Context(), obj, false); !notSent(err) {
		t.Errorf("a create that never connected: notSent(%v) = false", err)
	}
}

// Lost answers.

// Only objects whose name the server generates get a create ID; a given one is kept,
// and the state records it where recorded.createID finds it.
func TestLabelCreate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, doc, given string
		wantLabel        bool
		wantID           objectID
	}{
		{"named", `{"metadata":{"name":"web","namespace":"n"}}`, "", false, objectID{"n", "web"}},
		{"named with generateName too", `{"metadata":{"name":"web","generateName":"w-","namespace":"n"}}`, "", false,
			objectID{"n", "web"}},
		{"generateName", `{"metadata":{"generateName":"web-","namespace":"n","labels":{"app":"web"}}}`, "", true,
			objectID{"n", "web-*"}},
		{"generateName, the recorded create ID", `{"metadata":{"generateName":"web-","namespace":"n"}}`, "abc", true,
			objectID{"n", "web-*"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			obj := liveObject(t, tt.doc)
			app := obj.GetLabels()["app"]
			id, err := labelCreate(obj, tt.given)
			if err != nil {
				t.Fatal(err)
			}
			if got := obj.GetLabels()[CreateIDLabel]; got != id || (id != "") != tt.wantLabel {
				t.Fatalf("create ID %q, label %q; want a label: %v", id, got, tt.wantLabel)
			}
			if tt.given != "" && id != tt.given {
				t.Errorf("create ID %q, want the given %q", id, tt.given)
			}
			if obj.GetLabels()["app"] != app {
				t.Errorf("labels %v lost app=%s", obj.GetLabels(), app)
			}
			got := idOf(obj)
			if serverNamed(obj) {
				got = pendingID(obj)
			}
			if got != tt.wantID || got.pending() != tt.wantLabel {
				t.Errorf("ID %v (pending %v), want %v", got, got.pending(), tt.wantID)
			}
			if !tt.wantLabel {
				return
			}
			state := withCreateID(fieldsOf(t, tt.doc), id)
			if d := cmp.Diff(id, recordedIn(endpointSliceKind, plain(state)).createID()); d != "" {
				t.Errorf("recorded createID of withCreateID(...) (-want +got):\n%s", d)
			}
		})
	}
}

// Two creates never share a create ID, and it is a valid label value.
func TestNewCreateID(t *testing.T) {
	t.Parallel()
	a, errA := newCreateID()
	b, errB := newCreateID()
	if errA != nil || errB != nil || a == b || len(a) != 32 {
		t.Errorf("create IDs %q, %q (%v, %v): want two different 32-character values", a, b, errA, errB)
	}
}

// The create ID label is the provider's: an import leaves it out of the inputs, a
// refresh too, and an update keeps it on the object.
func TestCreateIDLabelIsTheProviders(t *testing.T) {
	t.Parallel()
	live := liveObject(t, `{"metadata":{"name":"web-x2b4c","namespace":"n","labels":{"app":"web","`+CreateIDLabel+`":"abc"}},`+
		`"addressType":"IPv4"}`)
	imported := liveInputs(endpointSliceKind, live, decodedOf(t, `{}`))
	if got, want := len(mapOf(metadataOf(imported.fields)["labels"])), 1; got != want {
		t.Errorf("imported labels %v, want app alone", metadataOf(imported.fields)["labels"])
	}
	old := decodedOf(t, `{"metadata":{"generateName":"web-","namespace":"n","labels":{"app":"web"}},"addressType":"IPv4"}`)
	refreshed := liveInputs(endpointSliceKind, live, old)
	if _, ok := mapOf(metadataOf(refreshed.fields)["labels"])[CreateIDLabel]; ok {
		t.Errorf("refreshed inputs carry the create ID: %v", refreshed.fields)
	}
	o := kindClient{kind: endpointSliceKind}
	merged := o.kind.merge(live, o.kind.object(old.fields), o.kind.object(old.fields))
	if merged.GetLabels()[CreateIDLabel] != "abc" {
		t.Errorf("an update drops the create ID: labels %v", merged.GetLabels())
	}
}

// A program may not set the create ID label.
func TestCreateIDFailures(t *testing.T) {
	t.Parallel()
	if f := reservedKeyFailures(fieldsOf(t, `{"metadata":{"labels":{"app":"web"}}}`)); len(f) != 0 {
		t.Errorf("failures for a program without the label: %v", f)
	}
	f := reservedKeyFailures(fieldsOf(t, `{"metadata":{"labels":{"`+CreateIDLabel+`":"x"}}}`))
	if len(f) != 1 || f[0].Property != `metadata.labels["`+CreateIDLabel+`"]` {
		t.Errorf("failures for a program that sets the label: %+v", f)
	}
}

// A write is ambiguous unless the server's answer says it did not take effect.
func TestAmbiguous(t *testing.T) {
	t.Parallel()
	slices := schema.GroupResource{Group: "discovery.k8s.io", Resource: "endpointslices"}
	status := func(code int32, reason metav1.StatusReason) error {
		return &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: code, Reason: reason,
			Message: "rpc error: code = Unavailable desc = error reading from server: connection reset by peer"}}
	}
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"no answer", errors.New("EOF"), true},
		{"a server timeout", apierrors.NewServerTimeout(slices, "create", 1), true},
		{"an internal error", apierrors.NewInternalError(errors.New("boom")), true},
		{"etcd broke off mid-write: 500 of no reason", status(http.StatusInternalServerError, metav1.StatusReasonUnknown), true},
		{"service unavailable", status(http.StatusServiceUnavailable, metav1.StatusReasonServiceUnavailable), true},
		{"already exists", apierrors.NewAlreadyExists(slices, "web"), false},
		{"invalid", apierrors.NewBadRequest("bad"), false},
		{"forbidden", forbidden("no"), false},
		{"too many requests", apierrors.NewTooManyRequests("slow down", 1), false},
	}
	for _, tt := range tests {
		if got := ambiguous(tt.err); got != tt.want {
			t.Errorf("%s: ambiguous(%v) = %v, want %v", tt.name, tt.err, got, tt.want)
		}
	}
}

// A list's partial state says that items may or may not have been written when some
// item write got no answer (a broken connection, a 500 from etcd's timeout), and only
// then: an item the server refused, or one never sent (not started, or its connection
// refused), is not in doubt.
func TestPartialSaysUnansweredItemsMayExist(t *testing.T) {
	t.Parallel()
	endpoints := schema.GroupResource{Resource: "endpoints"}
	lost := &url.Error{Op: "Post", URL: "https://127.0.0.1:6443/api/v1/namespaces/a/endpoints", Err: io.ErrUnexpectedEOF}
	conflict := apierrors.NewAlreadyExists(endpoints, "b")
	timeout := apierrors.NewInternalError(errors.New("etcdserver: request timed out"))
	results := func(errs ...error) []itemResult {
		out := []itemResult{{sent: true}}
		for _, err := range errs {
			out = append(out, itemResult{sent: true, err: err})
		}
		return out
	}
	tests := []struct {
		name    string
		results []itemResult
		want    bool
	}{
		{"a lost answer alone", results(lost), true},
		{"a refused connection: nothing was sent", results(refusedError(t)), false},
		{"a refusal, then a lost answer", results(conflict, lost), true},
		{"a refusal, then etcd's timeout", results(conflict, timeout), true},
		{"refusals only", results(conflict, conflict), false},
		{"items not started once the engine cancels", append(results(conflict),
			itemResult{err: &interrupt.NotStartedError{What: "items[2]"}}), false},
		{"an item not sent after a failure", append(results(lost), itemResult{}), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			set := newItemSet(decoded{})
			_, err := partial(itemsFailed(tt.results), set, someUnanswered(judged(tt.results)))
			if got := strings.Contains(err.Error(), "may or may not have been written"); got != tt.want {
				t.Errorf("the partial state's message says the items may or may not have been written: %t, want %t:\n%v",
					got, tt.want, err)
			}
		})
	}
}

// The error of a write that stopped part way, a list's or a slice's, keeps its cause
// for errors.Is and errors.As, so that what answers for an unreachable cluster (see
// reachability) tells it as the cause alone; the partial state says what the error
// says.
func TestPartialKeepsTheCause(t *testing.T) {
	t.Parallel()
	id := objectID{namespace: "ns", name: "web"}
	for _, tt := range []struct {
		name  string
		cause error
	}{
		{"a refused connection", refusedError(t)},
		{"a lost answer", &url.Error{Op: "Put", URL: "https://127.0.0.1:6443/api/v1/namespaces/ns/endpoints/web",
			Err: io.ErrUnexpectedEOF}},
		{"an answer from the server", apierrors.NewForbidden(endpointsKind.resource.GroupResource(), "web",
			errors.New("denied"))},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			results := []itemResult{{sent: true}, {sent: true, err: apiError("update", endpointsKind, id, tt.cause)}}
			listState, listErr := partial(itemsFailed(results), newItemSet(decoded{}), someUnanswered(judged(results)))
			sliceState, sliceErr := partialFailure(unconfirmed(endpointSliceKind, id, tt.cause))
			for _, c := range []struct {
				what   string
				reason []string
				err    error
			}{{"list", listState.Reasons, listErr}, {"slice", sliceState.Reasons, sliceErr}} {
				var status apierrors.APIStatus
				if !errors.Is(c.err, tt.cause) || errors.As(c.err, &status) != errors.As(tt.cause, &status) {
					t.Errorf("%s: errors.Is and errors.As do not reach the cause %v through %v", c.what, tt.cause, c.err)
				}
				if clusterGone(c.err) != clusterGone(tt.cause) || answerLost(c.err) != answerLost(tt.cause) ||
					notSent(c.err) != notSent(tt.cause) {
					t.Errorf("%s: %v is classified apart from its cause %v", c.what, c.err, tt.cause)
				}
				if len(c.reason) != 1 || c.reason[0] != c.err.Error() {
					t.Errorf("%s: the partial state says %q, the error %q", c.what, c.reason, c.err)
				}
			}
		})
	}
}

// deleteUnreachable drops an object from the state only when the connection to its
// API server could not be made (nothing listens there, or nothing answers the dial
// within half the request timeout); a server that takes the
// connection and does not answer within requestTimeout is there, slow, and the
// refresh fails without dropping anything.
func TestDeleteUnreachableOnlyWhenNoConnection(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	silent := tcpServer(t, func(c net.Conn) { <-ctx.Done() }) // accepted, never answered
	state := property.NewMap(map[string]property.Value{"addressType": property.New("IPv4")})
	req := p.ReadRequest{ID: "ns/web", Urn: "urn:pulumi:s::p::endpoints:discovery.k8s.io/v1:EndpointSlice::web",
		Properties: state, Inputs: state}
	for _, tc := range []struct {
		name    string
		addr    string
		dropped bool
	}{
		{"connection refused", closedAddress(t), true},
		{"no answer to the dial", unansweredDial(t), true},
		{"connection made, no answer within requestTimeout", silent, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := kindClientAt(t, tc.addr, 300*time.Millisecond).client
			slice := kubernetesWith(t, Config{DeleteUnreachable: true}, c).EndpointSlice()
			read, err := slice.Read(t.Context(), req)
			switch {
			case tc.dropped && (err != nil || read.ID != ""):
				t.Errorf("read = %q, %v; want the object dropped from the state", read.ID, err)
			case !tc.dropped && (err == nil || read.ID != ""):
				t.Errorf("read = %q, %v; want an error and nothing dropped", read.ID, err)
			case !tc.dropped && (strings.Contains(err.Error(), "is unreachable") ||
				!strings.Contains(err.Error(), "requestTimeout")):
				t.Errorf("read: %v; want the error to say the server did not answer within requestTimeout", err)
			}
		})
	}
}

// unansweredDial returns an address of 127.0.0.1 whose dials get no answer: a socket
// that listens with a backlog of one and never accepts, its queue filled by one
// connection, so that the kernel drops every further SYN.
func unansweredDial(t *testing.T) string {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Close(fd) })
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Listen(fd, 0); err != nil {
		t.Fatal(err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(sa.(*syscall.SockaddrInet4).Port))
	d := net.Dialer{Timeout: time.Second}
	filler, err := d.DialContext(t.Context(), "tcp", addr)
	if err != nil {
		t.Fatalf("filling the backlog: %v", err)
	}
	t.Cleanup(func() { _ = filler.Close() })
	return addr
}
