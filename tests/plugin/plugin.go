package plugin

import (
	"bufio"
	"context"
	"fmt"
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
	cmd := exec.Command(path)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", path, err)
	}
	t.Cleanup(func() { stop(t, cmd) })

	port, err := readPort(stdout)
	if err != nil {
		t.Fatalf("%s did not announce its port: %v", path, err)
	}
	conn, err := grpc.NewClient("127.0.0.1:"+strconv.Itoa(port),
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatalf("dialing %s: %v", path, err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return &Plugin{ResourceProviderClient: rpc.NewResourceProviderClient(conn), Cmd: cmd, conn: conn}
}

func readPort(stdout interface{ Read([]byte) (int, error) }) (int, error) {
	line := make(chan string, 1)
	go func() {
		s := bufio.NewScanner(stdout)
		if s.Scan() {
			line <- s.Text()
		}
		close(line)
	}()
	select {
	case l, ok := <-line:
		if !ok {
			return 0, fmt.Errorf("exited before printing a port")
		}
		return strconv.Atoi(strings.TrimSpace(l))
	case <-time.After(30 * time.Second):
		return 0, fmt.Errorf("no port after 30s")
	}
}

// stop interrupts the plugin as the engine does, then kills it if it lingers.
func stop(t testing.TB, cmd *exec.Cmd) {
	_ = cmd.Process.Signal(os.Interrupt)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		t.Errorf("plugin %d did not exit within 10s of an interrupt", cmd.Process.Pid)
	}
}

// Context returns a context bounded by the test and a per-call timeout.
func Context(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}
