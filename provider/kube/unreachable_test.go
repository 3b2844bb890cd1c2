package kube

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// closedAddress returns an address on 127.0.0.1 nothing listens on.
func closedAddress(t *testing.T) string {
	t.Helper()
	l := listen(t)
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return addr
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
		{"a timeout", &url.Error{Op: "Get", URL: "https://x", Err: context.DeadlineExceeded}, false, false, true, true},
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
	obj := endpointSliceKind.object(property.NewMap(map[string]property.Value{
		"metadata":    property.New(map[string]property.Value{"name": property.New("x"), "namespace": property.New("ns")}),
		"addressType": property.New("IPv4"),
	}))
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
