package dataplane

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"sync/atomic"
	"testing"
	"time"
)

// Family is an IP family, named as an EndpointSlice's addressType names it.
type Family string

// The families a backend's address may have.
const (
	IPv4 Family = "IPv4"
	IPv6 Family = "IPv6"
)

// backendCount numbers the backends' addresses.
var backendCount atomic.Uint32

// Backend is an HTTP server on an address of its own in the tests' network
// namespace (10.1.x.y or fd00:1::x, on lo), on one or more ports. It answers every
// request with the address and port that took it (Endpoint), so that a client can
// tell which endpoint served it.
type Backend struct {
	// IP is the backend's address.
	IP  netip.Addr
	srv *http.Server
}

// Backend starts a backend of family listening on ports; it stops, and its address
// goes, when t ends.
func (d *DataPlane) Backend(t testing.TB, family Family, ports ...int) *Backend {
	t.Helper()
	n := backendCount.Add(1)
	addr, prefix := netip.AddrFrom4([4]byte{10, 1, byte(n / 250), byte(n%250 + 1)}), "/32"
	if family == IPv6 {
		addr, prefix = netip.MustParseAddr("fd00:1::"+strconv.FormatUint(uint64(n), 16)), "/128"
	}
	args := []string{"addr", "add", addr.String() + prefix, "dev", "lo"}
	if family == IPv6 {
		args = append(args[:len(args):len(args)], "nodad")
	}
	if err := ip(args...); err != nil {
		t.Fatalf("add the backend's address: %v", err)
	}
	b := &Backend{IP: addr, srv: &http.Server{Handler: http.HandlerFunc(identify), ReadHeaderTimeout: 5 * time.Second}}
	t.Cleanup(func() {
		_ = b.srv.Close()
		if err := ip("addr", "del", addr.String()+prefix, "dev", "lo"); err != nil {
			t.Errorf("remove the backend's address: %v", err)
		}
	})
	for _, port := range ports {
		l, err := net.Listen("tcp", b.Endpoint(port))
		if err != nil {
			t.Fatalf("backend %s: %v", b.Endpoint(port), err)
		}
		go func() {
			if err := b.srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
				t.Errorf("backend %s: %v", b.Endpoint(port), err)
			}
		}()
	}
	for _, port := range ports {
		if err := waitAnswers(t.Context(), b.Endpoint(port)); err != nil {
			t.Fatalf("backend %s: %v", b.Endpoint(port), err)
		}
	}
	return b
}

// waitAnswers waits until the backend at endpoint answers, as itself: a new
// address, an IPv6 one above all, may take a moment to be reachable.
func waitAnswers(ctx context.Context, endpoint string) error {
	c := newClient(endpoint)
	deadline := time.Now().Add(10 * time.Second)
	for {
		attempt, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
		served, err := c.get(attempt)
		cancel()
		if err == nil && served == endpoint {
			return nil
		}
		if err == nil {
			err = fmt.Errorf("answered as %q", served)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("does not answer as itself within 10s: %w", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Endpoint returns the backend's address and port, "10.1.0.1:8080" or
// "[fd00:1::1]:8080", as it answers when it serves a request on port.
func (b *Backend) Endpoint(port int) string {
	return netip.AddrPortFrom(b.IP, uint16(port)).String() //nolint:gosec // a port number
}

// identify answers with the local address that took the request. The server
// closes the connection, so that the client's ports do not wait in TIME_WAIT.
func identify(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Connection", "close")
	addr, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if addr == nil {
		http.Error(w, "no local address", http.StatusInternalServerError)
		return
	}
	_, _ = fmt.Fprint(w, addr.String())
}
