package ports_test

import (
	"net"
	"testing"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/ports"
)

// A reserved port refuses connections while nothing listens on it, and no other
// listener can take it; Listen serves on it, and once that listener is closed the
// port refuses again; Release frees it for anyone.
func TestReservation(t *testing.T) {
	t.Parallel()
	r, err := ports.Reserve()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Release() })
	held := func(when string) {
		t.Helper()
		if err := ports.Held(r.Addr()); err != nil {
			t.Fatalf("%s: %v", when, err)
		}
	}

	held("reserved")

	ln, err := r.Listen()
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			_ = conn.Close()
		}
	}()
	conn, err := net.Dial("tcp", r.Addr())
	if err != nil {
		t.Fatalf("a connection to the listening reserved port: %v", err)
	}
	_ = conn.Close()
	_ = ln.Close()
	held("after its listener closed")

	if err := r.Release(); err != nil {
		t.Fatal(err)
	}
	free, err := net.Listen("tcp", r.Addr())
	if err != nil {
		t.Fatalf("after Release, the port is still held: %v", err)
	}
	_ = free.Close()
}

// ReserveN's ports differ.
func TestReserveNDistinct(t *testing.T) {
	t.Parallel()
	rs, err := ports.ReserveN(8)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ports.Release(rs...) })
	seen := map[int]bool{}
	for _, r := range rs {
		if seen[r.Port()] {
			t.Fatalf("port %d reserved twice", r.Port())
		}
		seen[r.Port()] = true
	}
}
