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

func TestUnreachable(t *testing.T) {
	t.Parallel()
	refused := func() error {
		c, err := NewClient(Config{Kubeconfig: fmt.Sprintf(`{"apiVersion": "v1", "kind": "Config",
"clusters": [{"name": "c", "cluster": {"server": "http://%s"}}],
"users": [{"name": "u", "user": {"token": "t"}}],
"contexts": [{"name": "x", "context": {"cluster": "c", "user": "u"}}], "current-context": "x"}`, closedAddress(t))})
		if err != nil {
			t.Fatalf("NewClient: %v", err)
		}
		o := objects{kind: endpointSliceKind, client: c}
		_, err = o.get(t.Context(), objectID{namespace: "ns", name: "x"})
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

// A server that accepts connections but never answers fails a request within the
// request timeout, as unreachable.
func TestRequestTimeoutBoundsASilentServer(t *testing.T) {
	t.Parallel()
	var lc net.ListenConfig
	l, err := lc.Listen(t.Context(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	go func() {
		var held []net.Conn
		defer func() {
			for _, c := range held {
				_ = c.Close()
			}
		}()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			held = append(held, c) // accepted, never answered
		}
	}()
	c, err := NewClient(Config{RequestTimeout: 300 * time.Millisecond, Kubeconfig: fmt.Sprintf(`{"apiVersion": "v1", "kind": "Config",
"clusters": [{"name": "c", "cluster": {"server": "http://%s"}}],
"users": [{"name": "u", "user": {"token": "t"}}],
"contexts": [{"name": "x", "context": {"cluster": "c", "user": "u"}}], "current-context": "x"}`, l.Addr())})
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	began := time.Now()
	_, err = objects{kind: endpointSliceKind, client: c}.get(t.Context(), objectID{namespace: "ns", name: "x"})
	if took := time.Since(began); took > 5*time.Second {
		t.Errorf("the request took %v with a 300ms timeout", took)
	}
	if !unreachable(err) {
		t.Errorf("unreachable(%v) = false, want true", err)
	}
}
