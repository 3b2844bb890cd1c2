// Package ports reserves TCP ports on 127.0.0.1 for the servers the tests start.
//
// A reserved port is bound, without listening, by a socket of this process that
// allows port sharing (SO_REUSEPORT) and nothing else: while no server listens on
// the port, a connection to it is refused, as to a server gone for good, and no
// other process can take it, since every other bind needs a socket that shares too.
// A server started for the port binds it with SO_REUSEPORT (Listen here, etcd's
// --socket-reuse-port, kube-apiserver's --permit-port-sharing), so it can stop and
// start again on the same port with nothing else slipping in between.
package ports

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// Reservation is one reserved port. Release frees it.
type Reservation struct {
	port int

	once sync.Once
	fd   int
	err  error
}

// Reserve reserves a free port.
func Reserve() (*Reservation, error) {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("reserve a port: a socket: %w", err)
	}
	r := &Reservation{fd: fd}
	// Bind first, then allow sharing: the kernel picks a port that no socket holds,
	// shared or not.
	if err := unix.Bind(fd, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		return nil, errors.Join(fmt.Errorf("reserve a port on 127.0.0.1: %w", err), r.Release())
	}
	if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEPORT, 1); err != nil {
		return nil, errors.Join(fmt.Errorf("reserve a port: allow sharing it: %w", err), r.Release())
	}
	name, err := unix.Getsockname(fd)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("reserve a port: its number: %w", err), r.Release())
	}
	addr, ok := name.(*unix.SockaddrInet4)
	if !ok {
		return nil, errors.Join(fmt.Errorf("internal error: a reserved socket's address %T is not IPv4", name), r.Release())
	}
	r.port = addr.Port
	return r, nil
}

// ReserveN reserves n distinct free ports. On error none is left reserved.
func ReserveN(n int) ([]*Reservation, error) {
	rs := make([]*Reservation, 0, n)
	for range n {
		r, err := Reserve()
		if err != nil {
			return nil, errors.Join(err, Release(rs...))
		}
		rs = append(rs, r)
	}
	return rs, nil
}

// Release frees every reservation of rs.
func Release(rs ...*Reservation) error {
	var errs []error
	for _, r := range rs {
		errs = append(errs, r.Release())
	}
	return errors.Join(errs...)
}

// Port is the reserved port's number.
func (r *Reservation) Port() int { return r.port }

// Addr is 127.0.0.1:<port>.
func (r *Reservation) Addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(r.port)) }

// Listen listens on the reserved port, sharing it with the reservation. Closing the
// listener leaves the port reserved.
func (r *Reservation) Listen() (net.Listener, error) {
	config := net.ListenConfig{Control: func(_, _ string, conn syscall.RawConn) error {
		var err error
		if controlErr := conn.Control(func(fd uintptr) {
			err = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_REUSEPORT, 1)
		}); controlErr != nil {
			return controlErr
		}
		return err
	}}
	ln, err := config.Listen(context.Background(), "tcp", r.Addr())
	if err != nil {
		return nil, fmt.Errorf("listen on the reserved port %d: %w", r.port, err)
	}
	return ln, nil
}

// Release frees the port: another process may take it from then on. It is
// idempotent.
func (r *Reservation) Release() error {
	r.once.Do(func() {
		if err := unix.Close(r.fd); err != nil {
			r.err = fmt.Errorf("release the reserved port %d: %w", r.port, err)
		}
	})
	return r.err
}

// Held checks that addr is held as a reserved port with no server on it: a
// connection to it is refused, and no other server can listen there.
func Held(addr string) error {
	conn, err := net.Dial("tcp", addr)
	if err == nil {
		_ = conn.Close()
		return fmt.Errorf("a connection to %s was accepted, want it refused", addr)
	}
	if !errors.Is(err, syscall.ECONNREFUSED) {
		return fmt.Errorf("a connection to %s: %w, want connection refused", addr, err)
	}
	if ln, err := net.Listen("tcp", addr); err == nil {
		_ = ln.Close()
		return fmt.Errorf("another server could listen on %s", addr)
	}
	return nil
}
