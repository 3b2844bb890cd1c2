package plugin

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	rpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// Plugin is a running provider process and a client connected to it.
type Plugin struct {
	rpc.ResourceProviderClient
	Cmd  *exec.Cmd
	conn *grpc.ClientConn
	done chan error
}

// Path returns the provider binary the Makefile built (TEST_ASSET_PROVIDER), failing
// the test with instructions when it is missing.
func Path(t testing.TB) string {
	t.Helper()
	path := os.Getenv("TEST_ASSET_PROVIDER")
	if path == "" {
		t.Fatal("TEST_ASSET_PROVIDER is not set: run the tests with `make test`, which builds the provider and sets it")
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("provider binary %s: %v (run `make provider`)", path, err)
	}
	return path
}

// Start runs the binary in attach mode and connects to it. The process is interrupted
// and waited for when the test ends.
func Start(t testing.TB, path string, env ...string) *Plugin {
	t.Helper()
	p, err := Launch(path, env...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := p.Close(); err != nil {
			t.Error(err)
		}
	})
	return p
}

// Launch runs the binary in attach mode, as the engine does, and connects to it once
// it has printed its port.
func Launch(path string, env ...string) (*Plugin, error) {
	cmd := exec.Command(path)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", path, err)
	}
	p := &Plugin{Cmd: cmd, done: make(chan error, 1)}
	port, err := readPort(stdout)
	go func() { p.done <- cmd.Wait() }()
	if err != nil {
		_ = cmd.Process.Kill()
		return nil, fmt.Errorf("%s did not announce its port: %w", path, err)
	}
	p.conn, err = grpc.NewClient("127.0.0.1:"+strconv.Itoa(port),
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		_ = cmd.Process.Kill()
		return nil, fmt.Errorf("dialing %s: %w", path, err)
	}
	p.ResourceProviderClient = rpc.NewResourceProviderClient(p.conn)
	return p, nil
}

func readPort(stdout io.Reader) (int, error) {
	line := make(chan string, 1)
	go func() {
		s := bufio.NewScanner(stdout)
		if s.Scan() {
			line <- s.Text()
		}
		close(line)
		_, _ = io.Copy(io.Discard, stdout)
	}()
	select {
	case l, ok := <-line:
		if !ok {
			return 0, errors.New("exited before printing a port")
		}
		return strconv.Atoi(strings.TrimSpace(l))
	case <-time.After(30 * time.Second):
		return 0, errors.New("no port after 30s")
	}
}

// Close interrupts the plugin as the engine does, then kills it if it lingers.
func (p *Plugin) Close() error {
	_ = p.conn.Close()
	_ = p.Cmd.Process.Signal(os.Interrupt)
	select {
	case <-p.done:
		return nil
	case <-time.After(10 * time.Second):
		_ = p.Cmd.Process.Kill()
		<-p.done
		return fmt.Errorf("plugin %d did not exit within 10s of an interrupt", p.Cmd.Process.Pid)
	}
}

// Context returns a context bounded by the test and a per-call timeout.
func Context(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}
