package dataplane

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/controlplane"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/plugin"
)

// The network namespace's layout.
const (
	// NodeIP is the address of the one Node (NodeName), on the link the service
	// range is routed to.
	NodeIP = "10.255.0.1"
	// svcLink and svcPeer are a veth pair; controlplane.ServiceCIDR is routed to
	// svcLink. Through lo instead, a connection to a cluster IP without endpoints
	// would hang until it times out instead of being refused.
	svcLink, svcPeer = "svc0", "svc1"
	// inNetnsEnv is set in the environment of the test binary run inside the
	// network namespace.
	inNetnsEnv = "DATAPLANE_NETNS"
)

// noNetns, when not nil, says why the tests run outside a network namespace of
// their own: Shared then skips every test with it.
var noNetns error

// RunTests runs a package's tests inside a new network namespace and returns their
// exit code; use it as TestMain's `os.Exit(dataplane.RunTests(m))`. The test binary
// runs itself again in the namespace, which lives as long as that process: nothing
// is left behind however the tests end. There the control plane (every controller),
// kube-proxy, CoreDNS, the backends and the pulumi CLI all run; after the tests the
// shared control plane is stopped and the plugin's copy (pulumicli.NewWithProvider)
// removed. Where no namespace can be made (the tests need root), the tests run
// where they are and skip, saying why.
func RunTests(m *testing.M) int {
	if os.Getenv(inNetnsEnv) == "" {
		code, err := runInNetns()
		if err == nil {
			return code
		}
		noNetns = err
		return m.Run()
	}
	if err := setUpNetwork(); err != nil {
		fmt.Fprintf(os.Stderr, "set up the tests' network namespace: %v\n", err)
		return 1
	}
	code := controlplane.RunTestsWith(m, controlplane.Options{AllControllers: true})
	if err := errors.Join(shared.close(), plugin.RemoveAmbientDir()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		code = max(code, 1)
	}
	return code
}

// runInNetns runs the test binary again, with the same arguments, in a new network
// namespace and returns its exit code; it fails only when it cannot start it there.
func runInNetns() (int, error) {
	exe, err := os.Executable()
	if err != nil {
		return 0, fmt.Errorf("find the test binary: %w", err)
	}
	cmd := exec.Command(exe, os.Args[1:]...) //nolint:gosec // the test binary itself
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = append(os.Environ(), inNetnsEnv+"=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags: syscall.CLONE_NEWNET,
		// The tests (and with them every process they start) die with this one.
		Pdeathsig: syscall.SIGKILL,
	}
	if err := cmd.Start(); err != nil {
		return 0, fmt.Errorf("cannot make a network namespace for the data-plane tests "+
			"(they need root, or CAP_SYS_ADMIN and CAP_NET_ADMIN): %w", err)
	}
	err = cmd.Wait()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return max(exit.ExitCode(), 1), nil
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "run the tests in their network namespace: %v\n", err)
		return 1, nil
	}
	return 0, nil
}

// setUpNetwork readies the new namespace: lo up, the veth pair with NodeIP, the
// service range routed to it, the sysctls that let a client open connections
// without pause, and /usr/sbin on PATH for `ip` and kube-proxy's `nft`.
func setUpNetwork() error {
	if err := os.Setenv("PATH", os.Getenv("PATH")+":/usr/sbin:/sbin"); err != nil {
		return err
	}
	for _, args := range [][]string{
		{"link", "set", "lo", "up"},
		{"link", "add", svcLink, "type", "veth", "peer", "name", svcPeer},
		{"link", "set", svcLink, "up"},
		{"link", "set", svcPeer, "up"},
		{"addr", "add", NodeIP + "/24", "dev", svcLink},
		{"route", "add", controlplane.ServiceCIDR, "dev", svcLink},
	} {
		if err := ip(args...); err != nil {
			return err
		}
	}
	for key, value := range map[string]string{
		"net/ipv4/ip_local_port_range": "1024 65535",
		"net/ipv4/tcp_tw_reuse":        "1",
	} {
		if err := os.WriteFile("/proc/sys/"+key, []byte(value), 0o600); err != nil {
			return fmt.Errorf("set %s: %w", strings.ReplaceAll(key, "/", "."), err)
		}
	}
	return nil
}

// ip runs `ip args...`.
func ip(args ...string) error {
	out, err := exec.Command("ip", args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("ip %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}
