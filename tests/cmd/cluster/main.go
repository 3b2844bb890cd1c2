// Command cluster starts a local Kubernetes control plane for a user to try programs
// on, and leaves it running: etcd, kube-apiserver and kube-controller-manager with
// every controller a real cluster runs, listening on 127.0.0.1, with an admin
// kubeconfig in its directory. `make cluster` and `make cluster-stop` run it:
//
//	cluster start -dir build/cluster   # prints the KUBECONFIG line; a second start reuses the running one
//	cluster stop -dir build/cluster    # stops it and removes its data
//
// start runs the control plane in a process of its own (serve), in a new session, so
// it outlives the command and the terminal; that process writes its output to
// dir/log, its PID to dir/pid and, once the API server is ready and the controllers
// act, the kubeconfig to dir/kubeconfig. It needs no root, Docker, kind or minikube:
// the binaries are those TEST_ASSET_ETCD, TEST_ASSET_KUBE_APISERVER and
// TEST_ASSET_KUBE_CONTROLLER_MANAGER name (the Makefile builds them into its tool
// cache).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/controlplane"
)

// Files of the cluster's directory.
const (
	kubeconfigFile = "kubeconfig"
	pidFile        = "pid"
	logFile        = "log"
)

const (
	// startTimeout bounds the wait for a new control plane to be ready: its processes
	// start in seconds, then the controllers are waited for.
	startTimeout = 3 * time.Minute
	// stopTimeout bounds the wait for the serving process to stop everything it runs.
	stopTimeout = time.Minute
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	cmd, args := os.Args[1], os.Args[2:]
	flags := flag.NewFlagSet(cmd, flag.ExitOnError)
	dir := flags.String("dir", "build/cluster", "the cluster's directory: its kubeconfig, PID and log")
	if err := flags.Parse(args); err != nil {
		usage()
	}
	abs, err := filepath.Abs(*dir)
	if err != nil {
		fail(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	switch cmd {
	case "start":
		err = start(ctx, abs)
	case "serve":
		err = serve(ctx, abs)
	case "stop":
		err = stopCluster(abs)
	default:
		usage()
	}
	if err != nil {
		fail(err)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: cluster start|stop [-dir build/cluster]")
	os.Exit(2)
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "cluster: %v\n", err)
	os.Exit(1)
}

// start starts the serving process and waits until it has written the kubeconfig,
// or reuses the control plane already running from dir.
func start(ctx context.Context, dir string) error {
	if pid, ok := running(dir); ok {
		if _, err := os.Stat(filepath.Join(dir, kubeconfigFile)); err == nil {
			fmt.Printf("a local control plane is already running (PID %d)\n", pid)
			printUse(dir)
			return nil
		}
		return fmt.Errorf("a local control plane is starting or failed to start (PID %d, log %s): "+
			"wait, or run `make cluster-stop` and start it again", pid, filepath.Join(dir, logFile))
	}
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	log, err := os.OpenFile(filepath.Join(dir, logFile), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600) //nolint:gosec // the cluster's own log
	if err != nil {
		return err
	}
	defer func() { _ = log.Close() }()
	// Not bound to ctx: the process is to outlive this command. Its own session keeps
	// it from the terminal's signals (a Ctrl-C or a closed terminal does not stop it).
	cmd := exec.Command(self, "serve", "-dir", dir) //nolint:gosec,noctx // this program, to outlive the command
	cmd.Stdin, cmd.Stdout, cmd.Stderr = nil, log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	fmt.Println("starting etcd, kube-apiserver and kube-controller-manager with every controller")
	started := time.Now()
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start the control plane's process: %w", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.After(startTimeout)
	for {
		if _, err := os.Stat(filepath.Join(dir, kubeconfigFile)); err == nil {
			fmt.Printf("ready in %s (PID %d; log %s)\n", time.Since(started).Round(100*time.Millisecond),
				cmd.Process.Pid, filepath.Join(dir, logFile))
			printUse(dir)
			return nil
		}
		select {
		case err := <-exited:
			return fmt.Errorf("the control plane did not start (%w):\n%s", err, tail(filepath.Join(dir, logFile)))
		case <-ctx.Done():
			_ = cmd.Process.Signal(syscall.SIGTERM)
			return ctx.Err()
		case <-deadline:
			_ = cmd.Process.Signal(syscall.SIGTERM)
			return fmt.Errorf("the control plane was not ready after %s:\n%s", startTimeout, tail(filepath.Join(dir, logFile)))
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// printUse prints how to point programs at the control plane.
func printUse(dir string) {
	fmt.Printf("\nPoint kubectl and Pulumi programs at it:\n\n    export KUBECONFIG=%s\n\nStop it with `make cluster-stop`.\n",
		filepath.Join(dir, kubeconfigFile))
}

// serve runs the control plane until SIGTERM or SIGINT, then stops it.
func serve(ctx context.Context, dir string) (err error) {
	if err := os.WriteFile(filepath.Join(dir, pidFile), []byte(strconv.Itoa(os.Getpid())+"\n"), 0o600); err != nil {
		return err
	}
	startCtx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	cp, err := controlplane.Start(startCtx, controlplane.Options{AllControllers: true, DurableEtcd: true, Output: os.Stdout})
	if err != nil {
		return err
	}
	defer func() {
		fmt.Println("stopping the control plane")
		err = errors.Join(err, cp.Stop(), os.Remove(filepath.Join(dir, kubeconfigFile)), os.Remove(filepath.Join(dir, pidFile)))
	}()
	_, version := cp.Version()
	// Written to a temporary name and renamed: start takes the file's presence as ready.
	tmp := filepath.Join(dir, kubeconfigFile+".tmp")
	if err := os.WriteFile(tmp, cp.Kubeconfig(), 0o600); err != nil {
		return err
	}
	if err := os.Rename(tmp, filepath.Join(dir, kubeconfigFile)); err != nil {
		return err
	}
	fmt.Printf("kube-apiserver %s ready; kubeconfig %s\n", version, filepath.Join(dir, kubeconfigFile))
	<-ctx.Done()
	return nil
}

// stopCluster stops the control plane running from dir, if any, and removes dir.
func stopCluster(dir string) error {
	pid, ok := running(dir)
	if !ok {
		fmt.Println("no local control plane is running")
		return os.RemoveAll(dir)
	}
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		return fmt.Errorf("stop the control plane (PID %d): %w", pid, err)
	}
	deadline := time.Now().Add(stopTimeout)
	for alive(pid) {
		if time.Now().After(deadline) {
			return fmt.Errorf("the control plane (PID %d) has not stopped after %s; its log: %s", pid, stopTimeout, filepath.Join(dir, logFile))
		}
		time.Sleep(100 * time.Millisecond)
	}
	fmt.Printf("stopped the local control plane (PID %d)\n", pid)
	return os.RemoveAll(dir)
}

// running returns the PID of the serving process of dir, if it runs.
func running(dir string) (int, bool) {
	data, err := os.ReadFile(filepath.Join(dir, pidFile)) //nolint:gosec // the cluster's own directory
	if err != nil {
		return 0, false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil || pid <= 0 || !alive(pid) {
		return 0, false
	}
	// A PID reused by another program is not ours: ours runs this executable's serve.
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err == nil && !strings.Contains(string(cmdline), "serve") {
		return 0, false
	}
	return pid, true
}

// alive reports whether the process pid exists (and is not a zombie).
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	// The state follows the command's closing parenthesis: "pid (comm) S ...".
	if i := strings.LastIndexByte(string(stat), ')'); i >= 0 && i+2 < len(stat) {
		return stat[i+2] != 'Z'
	}
	return true
}

// tail returns the last lines of the file at path.
func tail(path string) string {
	data, err := os.ReadFile(path) //nolint:gosec // the cluster's own log
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > 30 {
		lines = lines[len(lines)-30:]
	}
	return strings.Join(lines, "\n")
}
