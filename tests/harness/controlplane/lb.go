package controlplane

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

const (
	// lbCheckInterval is the pause between two health checks of a backend.
	lbCheckInterval = 200 * time.Millisecond
	// lbCheckTimeout bounds one health check.
	lbCheckTimeout = time.Second
	// lbDialTimeout bounds the connection to a backend.
	lbDialTimeout = time.Second
)

// LoadBalancer is a TCP load balancer on 127.0.0.1, as in front of the API servers
// of a highly available cluster: each connection goes to the next healthy backend,
// round robin, and is relayed byte for byte (TLS passes through). A health check
// marks each backend healthy or not every 200 ms; a backend that refuses a
// connection is marked unhealthy at once and the connection goes to the next one.
// When no backend is healthy it tries every one. A connection whose backend dies
// breaks, as behind a real load balancer; the client's next one goes elsewhere.
type LoadBalancer struct {
	ln       net.Listener
	backends []*lbBackend
	next     atomic.Uint64
	check    func(ctx context.Context, addr string) error

	ctx    context.Context // done once Close has begun
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu    sync.Mutex
	conns map[net.Conn]struct{} // the clients' connections, to close them on Close
}

type lbBackend struct {
	addr    string
	healthy atomic.Bool
	open    atomic.Int64 // relayed connections open now
}

// StartLoadBalancer listens on a free port of 127.0.0.1 and relays connections to
// backends (host:port), checking each with check. It returns once every backend
// has been checked once.
func StartLoadBalancer(backends []string, check func(ctx context.Context, addr string) error) (*LoadBalancer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("load balancer: listen on 127.0.0.1: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	l := &LoadBalancer{ln: ln, check: check, ctx: ctx, cancel: cancel, conns: map[net.Conn]struct{}{}}
	for _, addr := range backends {
		l.backends = append(l.backends, &lbBackend{addr: addr})
	}
	l.checkAll(ctx)
	l.wg.Add(2)
	go l.healthLoop(ctx)
	go l.serve()
	return l, nil
}

// Addr is the load balancer's address, 127.0.0.1:<port>.
func (l *LoadBalancer) Addr() string { return l.ln.Addr().String() }

// Healthy returns the addresses of the backends the last health check found healthy.
func (l *LoadBalancer) Healthy() []string {
	var out []string
	for _, b := range l.backends {
		if b.healthy.Load() {
			out = append(out, b.addr)
		}
	}
	return out
}

// Open returns how many relayed connections to backend addr are open.
func (l *LoadBalancer) Open(addr string) int {
	for _, b := range l.backends {
		if b.addr == addr {
			return int(b.open.Load())
		}
	}
	return 0
}

// Close stops listening, closes every relayed connection and waits for the
// load balancer's goroutines.
func (l *LoadBalancer) Close() error {
	l.mu.Lock()
	l.cancel()
	l.mu.Unlock()
	err := l.ln.Close()
	l.mu.Lock()
	for c := range l.conns {
		_ = c.Close()
	}
	l.mu.Unlock()
	l.wg.Wait()
	if errors.Is(err, net.ErrClosed) {
		return nil
	}
	return err
}

func (l *LoadBalancer) healthLoop(ctx context.Context) {
	defer l.wg.Done()
	ticker := time.NewTicker(lbCheckInterval)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
			l.checkAll(ctx)
		}
	}
}

// checkAll checks every backend at once.
func (l *LoadBalancer) checkAll(ctx context.Context) {
	var wg sync.WaitGroup
	for _, b := range l.backends {
		wg.Go(func() {
			checkCtx, cancel := context.WithTimeout(ctx, lbCheckTimeout)
			defer cancel()
			b.healthy.Store(l.check(checkCtx, b.addr) == nil)
		})
	}
	wg.Wait()
}

func (l *LoadBalancer) serve() {
	defer l.wg.Done()
	for {
		conn, err := l.ln.Accept()
		if err != nil {
			return // closed
		}
		if !l.track(conn, true) {
			_ = conn.Close()
			return
		}
		l.wg.Go(func() {
			defer l.track(conn, false)
			l.relay(conn)
		})
	}
}

// track adds conn to or removes it from the open connections; it reports false
// when the load balancer is closed.
func (l *LoadBalancer) track(conn net.Conn, add bool) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !add {
		delete(l.conns, conn)
		return true
	}
	if l.ctx.Err() != nil {
		return false
	}
	l.conns[conn] = struct{}{}
	return true
}

// relay connects client to a backend and copies bytes both ways until either side
// ends, then closes both.
func (l *LoadBalancer) relay(client net.Conn) {
	defer func() { _ = client.Close() }()
	b, server := l.dial()
	if server == nil {
		return
	}
	b.open.Add(1)
	defer b.open.Add(-1)
	done := make(chan struct{}, 2)
	copyThenClose := func(dst, src net.Conn) {
		_, _ = io.Copy(dst, src)
		// One side ended (a dead backend resets its side): end the other, so the
		// client sees its connection break.
		_ = dst.Close()
		_ = src.Close()
		done <- struct{}{}
	}
	go copyThenClose(server, client)
	go copyThenClose(client, server)
	<-done
	<-done
}

// dial connects to the next healthy backend, round robin, or to any backend that
// answers when none is healthy; it returns a nil connection when none answers.
func (l *LoadBalancer) dial() (*lbBackend, net.Conn) {
	n := len(l.backends)
	start := int(l.next.Add(1) % uint64(n)) //nolint:gosec // n is small and positive
	for _, healthyOnly := range []bool{true, false} {
		for i := range n {
			b := l.backends[(start+i)%n]
			if healthyOnly && !b.healthy.Load() {
				continue
			}
			conn, err := net.DialTimeout("tcp", b.addr, lbDialTimeout)
			if err != nil {
				b.healthy.Store(false)
				continue
			}
			return b, conn
		}
	}
	return nil, nil
}
