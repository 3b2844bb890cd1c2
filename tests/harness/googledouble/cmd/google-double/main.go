// Command google-double serves the Migration Center and BeyondCorp API double of package
// googledouble on a loopback address, for demos run by hand:
//
//	google-double -addr 127.0.0.1:8085 -token demo-token -fixture fixture.json
//
// It prints the base URL to use as both APIs' custom endpoint and serves until
// interrupted.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/googledouble"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8085", "loopback `address` to listen on")
	token := flag.String("token", "", "bearer `token` every request must carry; empty accepts any request")
	fixture := flag.String("fixture", "", "optional JSON `file` of import data files and policies to serve (googledouble.Fixture)")
	flag.Parse()
	if err := run(*addr, *token, *fixture); err != nil {
		fmt.Fprintln(os.Stderr, "google-double:", err)
		os.Exit(1)
	}
}

func run(addr, token, fixture string) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	s, err := googledouble.Listen(addr, token)
	if err != nil {
		return err
	}
	defer func() { _ = s.Close() }()
	if fixture != "" {
		f, err := googledouble.ReadFixture(fixture)
		if err != nil {
			return err
		}
		s.Load(f)
	}
	fmt.Println("google-double: serving on", s.URL)
	<-ctx.Done()
	return nil
}
