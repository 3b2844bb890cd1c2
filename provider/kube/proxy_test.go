package kube

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestProxiedClusterGone checks that a request through a proxy (a kubeconfig's
// proxy-url, as HTTPS_PROXY goes the same way through Go's transport) counts as never
// sent when the proxy could not make the tunnel to the API server, and as a cluster
// gone when the proxy or the API server behind it cannot be reached: so that
// deleteUnreachable lets a destroy drop the objects of a cluster gone for good. A
// proxy's refusal of its own (407, a SOCKS rule) is its answer, not an unreachable
// cluster; a request that went through the tunnel is judged as on a direct connection.
func TestProxiedClusterGone(t *testing.T) {
	t.Parallel()
	lost := tlsAPIServer(t, func(w http.ResponseWriter, _ *http.Request) { hangUp(t, w) })
	answering := tlsAPIServer(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		_, _ = fmt.Fprint(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404}`)
	})
	gone := "https://" + closedAddress(t)
	tests := []struct {
		name, proxy, server string
		// sent: the request may have reached the API server (see notSent); reachable:
		// not a cluster gone (see clusterGone); answered: not unreachable at all.
		sent, reachable, answered, lost, doubt bool
	}{
		{"an HTTP proxy that refuses the connection", "http://" + closedAddress(t), gone, false, false, false, false, false},
		{"an https proxy that refuses the connection", "https://" + closedAddress(t), gone, false, false, false, false, false},
		{"an HTTP proxy that finds nothing listening: 502", connectProxy(t, 0), gone, false, false, false, false, false},
		{"an HTTP proxy that cannot reach the server: 503", connectProxy(t, http.StatusServiceUnavailable), gone,
			false, false, false, false, false},
		{"an HTTP proxy that wants credentials: 407", connectProxy(t, http.StatusProxyAuthRequired), gone,
			false, true, true, false, false},
		{"a SOCKS proxy that refuses the connection", "socks5://" + closedAddress(t), gone, false, false, false, false, false},
		{"a SOCKS proxy whose server refuses", socksProxy(t, 0x05), gone, false, false, false, false, false},
		{"a SOCKS proxy whose server is unreachable", socksProxy(t, 0x04), gone, false, false, false, false, false},
		{"a SOCKS proxy that refuses by its rules", socksProxy(t, 0x02), gone, false, true, true, false, false},
		{"through the tunnel, the server took the request and hung up", connectProxy(t, 0), lost,
			true, true, false, true, true},
		{"through the tunnel, an answer", connectProxy(t, 0), answering, true, true, true, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := proxiedClient(t, tt.server, tt.proxy, 5*time.Second)
			err := c.Dynamic.Resource(endpointSliceKind.resource).Namespace("ns").Delete(t.Context(), "x",
				metav1.DeleteOptions{})
			if err == nil {
				t.Fatal("the delete succeeded")
			}
			if got := !notSent(err); got != tt.sent {
				t.Errorf("notSent(%v) = %v, want %v", err, !got, !tt.sent)
			}
			if got := !clusterGone(err); got != tt.reachable {
				t.Errorf("clusterGone(%v) = %v, want %v", err, !got, !tt.reachable)
			}
			if got := !unreachable(err); got != tt.answered {
				t.Errorf("unreachable(%v) = %v, want %v", err, !got, !tt.answered)
			}
			if got := answerLost(err); got != tt.lost {
				t.Errorf("answerLost(%v) = %v, want %v", err, got, tt.lost)
			}
			if got := inDoubt(err); got != tt.doubt {
				t.Errorf("inDoubt(%v) = %v, want %v", err, got, tt.doubt)
			}
		})
	}
}

// TestDeleteUnreachableBehindAProxy checks that, with deleteUnreachable, a destroy
// drops a slice whose cluster behind a proxy is gone (the proxy refuses the
// connection, or cannot reach the API server), and that it drops nothing when the
// proxy refuses of its own or the API server took the request.
func TestDeleteUnreachableBehindAProxy(t *testing.T) {
	t.Parallel()
	gone := "https://" + closedAddress(t)
	lost := tlsAPIServer(t, func(w http.ResponseWriter, _ *http.Request) { hangUp(t, w) })
	state := property.NewMap(map[string]property.Value{"addressType": property.New("IPv4")})
	req := p.DeleteRequest{ID: "ns/web", Urn: "urn:pulumi:s::p::endpoints:discovery.k8s.io/v1:EndpointSlice::web",
		Properties: state}
	for _, tc := range []struct {
		name, proxy, server string
		dropped             bool
	}{
		{"the proxy refuses the connection", "http://" + closedAddress(t), gone, true},
		{"the proxy finds nothing listening", connectProxy(t, 0), gone, true},
		{"the SOCKS proxy finds nothing listening", socksProxy(t, 0x05), gone, true},
		{"the proxy wants credentials", connectProxy(t, http.StatusProxyAuthRequired), gone, false},
		{"the server took the request and hung up", connectProxy(t, 0), lost, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := proxiedClient(t, tc.server, tc.proxy, time.Second)
			err := kubernetesWith(t, Config{DeleteUnreachable: true}, c).EndpointSlice().Delete(t.Context(), req)
			if (err == nil) != tc.dropped {
				t.Errorf("delete with deleteUnreachable: %v; want the slice dropped: %v", err, tc.dropped)
			}
		})
	}
}

// proxiedClient is a client of the https:// API server at server, skipping its
// certificate check, through the proxy at proxy (a kubeconfig's proxy-url), with the
// request timeout given.
func proxiedClient(t *testing.T, server, proxy string, timeout time.Duration) *Client {
	t.Helper()
	c, err := NewClient(Config{RequestTimeout: timeout, Kubeconfig: fmt.Sprintf(`{"apiVersion": "v1",
"kind": "Config", "clusters": [{"name": "c", "cluster": {"server": %q, "proxy-url": %q, "insecure-skip-tls-verify": true}}],
"users": [{"name": "u", "user": {"token": "t"}}],
"contexts": [{"name": "x", "context": {"cluster": "c", "user": "u"}}], "current-context": "x"}`, server, proxy)})
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	return c
}

// tlsAPIServer is the URL of an https:// server on 127.0.0.1 that serves handle until
// the test ends.
func tlsAPIServer(t *testing.T, handle http.HandlerFunc) string {
	t.Helper()
	srv := httptest.NewTLSServer(handle)
	t.Cleanup(srv.Close)
	return srv.URL
}

// hangUp closes the connection of a request that arrived, without an answer.
func hangUp(t *testing.T, w http.ResponseWriter) {
	t.Helper()
	c, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		t.Errorf("hijack: %v", err)
		return
	}
	_ = c.Close()
}

// connectProxy is the URL of an HTTP proxy on 127.0.0.1 that answers a CONNECT with
// status, or, when status is 0, tunnels to the address asked for, or answers 502 Bad
// Gateway when nothing listens there (as most proxies do).
func connectProxy(t *testing.T, status int) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodConnect {
			http.Error(w, "only CONNECT", http.StatusMethodNotAllowed)
			return
		}
		if status != 0 {
			http.Error(w, http.StatusText(status), status)
			return
		}
		var d net.Dialer
		target, err := d.DialContext(r.Context(), "tcp", r.Host)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer func() { _ = target.Close() }()
		client, buf, err := http.NewResponseController(w).Hijack()
		if err != nil {
			t.Errorf("hijack: %v", err)
			return
		}
		defer func() { _ = client.Close() }()
		_, _ = client.Write([]byte("HTTP/1.1 200 Connection established\r\n\r\n"))
		go func() { _, _ = io.Copy(target, buf) }()
		_, _ = io.Copy(client, target)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// socksProxy is the URL of a SOCKS5 proxy on 127.0.0.1 that answers every CONNECT
// with the reply code reply (0x05: connection refused, 0x04: host unreachable, 0x02:
// not allowed by its rules) and closes the connection.
func socksProxy(t *testing.T, reply byte) string {
	t.Helper()
	return "socks5://" + tcpServer(t, func(c net.Conn) {
		r := bufio.NewReader(c)
		greeting := make([]byte, 2)
		if _, err := io.ReadFull(r, greeting); err != nil {
			return
		}
		if _, err := io.ReadFull(r, make([]byte, greeting[1])); err != nil { // the methods offered
			return
		}
		_, _ = c.Write([]byte{5, 0}) // no authentication
		request := make([]byte, 4)   // version, command, reserved, address type
		if _, err := io.ReadFull(r, request); err != nil {
			return
		}
		length := map[byte]int{1: 4, 4: 16}[request[3]]
		if request[3] == 3 { // a name: its length first
			n, err := r.ReadByte()
			if err != nil {
				return
			}
			length = int(n)
		}
		if _, err := io.ReadFull(r, make([]byte, length+2)); err != nil { // the address and port
			return
		}
		_, _ = c.Write([]byte{5, reply, 0, 1, 0, 0, 0, 0, 0, 0})
	})
}

// TestProxyRefusedUnreached checks which answers of an HTTP proxy to a CONNECT say that
// it could not reach the API server.
func TestProxyRefusedUnreached(t *testing.T) {
	t.Parallel()
	for reason, want := range map[string]bool{"Bad Gateway": true, "service unavailable": true, "Gateway Timeout": true,
		"Forbidden": false, "Proxy Authentication Required": false, "Connect failed": false, "": false} {
		if got := (&proxyRefused{proxy: "http://proxy:3128", reason: reason}).unreached(); got != want {
			t.Errorf("unreached() of the answer %q = %v, want %v", reason, got, want)
		}
	}
	if err := (&proxyRefused{proxy: "http://proxy:3128", reason: "Bad Gateway"}); !strings.Contains(err.Error(),
		`the proxy http://proxy:3128 did not open a tunnel to the API server: it answered "Bad Gateway"`) {
		t.Errorf("the error does not name the proxy and its answer: %v", err)
	}
}
