package kube

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/url"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// closedAddress returns an address on 127.0.0.1 nothing listens on.
func closedAddress(t *testing.T) string {
	t.Helper()
	var lc net.ListenConfig
	l, err := lc.Listen(t.Context(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return addr
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
	refused := func() error {
		_, err := kindClientAt(t, closedAddress(t), 0).get(t.Context(), objectID{namespace: "ns", name: "x"})
		return err
	}()
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
	var lc net.ListenConfig
	l, err := lc.Listen(t.Context(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
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
	}{
		{"connection closed after the request", lost, true, true},
		{"connection refused", refused, false, false},
		{"a timeout", &url.Error{Op: "Get", URL: "https://x", Err: context.DeadlineExceeded}, false, false},
		{"an unknown host", &url.Error{Op: "Get", URL: "https://x", Err: &net.OpError{Op: "dial", Err: &net.DNSError{Err: "no such host", Name: "x"}}}, false, false},
		{"an answer from the server", apierrors.NewNotFound(schema.GroupResource{Resource: "endpointslices"}, "x"), false, true},
	}
	for _, tt := range tests {
		if got := answerLost(tt.err); got != tt.lost {
			t.Errorf("%s: answerLost(%v) = %v, want %v", tt.name, tt.err, got, tt.lost)
		}
		if got := !clusterGone(tt.err); got != tt.reachable {
			t.Errorf("%s: clusterGone(%v) = %v, want %v", tt.name, tt.err, !got, !tt.reachable)
		}
	}
}
