package controlplane

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// stopGrace is how long a process has to exit after SIGTERM before it gets
// SIGKILL.
const stopGrace = 5 * time.Second

// process is one child process of the control plane, in its own process
// group, with its output in a log file.
type process struct {
	name    string
	cmd     *exec.Cmd
	logPath string

	// exited is closed once the process has exited and been reaped.
	exited chan struct{}
	// waitErr is cmd.Wait's result; read it only after exited is closed.
	waitErr error

	mu sync.Mutex
	// dead is set, under mu, once the process has exited but before it is
	// reaped: until it is reaped its PID (and so its process group ID)
	// cannot be reused, so signals sent under mu while !dead only ever
	// reach the process group we created.
	dead bool
}

// startProcess starts the binary at path with args in dir, its stdout and
// stderr going to dir/<name>.log and, when out is not nil, to out too.
func startProcess(name, path string, args []string, dir string, out io.Writer) (*process, error) {
	logPath := filepath.Join(dir, name+".log")
	logFile, err := os.Create(logPath) //nolint:gosec // a path in our own temporary directory
	if err != nil {
		return nil, fmt.Errorf("create the %s log file: %w", name, err)
	}
	var w io.Writer = logFile
	if out != nil {
		w = io.MultiWriter(logFile, out)
	}
	cmd := exec.Command(path, args...) //nolint:gosec // the binaries are the test assets named by the environment
	cmd.Dir = dir
	cmd.Stdout = w
	cmd.Stderr = w
	cmd.SysProcAttr = &syscall.SysProcAttr{
		// A process group of its own, so that Stop can signal it (and only
		// it) as a whole.
		Setpgid: true,
		// The kernel kills the child when the thread that started it dies,
		// that is when the test binary exits, even by SIGKILL. Go never
		// ends the threads of goroutines that are not locked to them.
		Pdeathsig: syscall.SIGKILL,
	}
	if err := cmd.Start(); err != nil {
		_ = logFile.Close()
		return nil, fmt.Errorf("start %s (%s): %w", name, path, err)
	}
	p := &process{name: name, cmd: cmd, logPath: logPath, exited: make(chan struct{})}
	go p.wait(logFile)
	return p, nil
}

// wait marks p dead as soon as it exits, then reaps it.
func (p *process) wait(logFile *os.File) {
	var info unix.Siginfo
	for {
		// WNOWAIT: learn that the process exited without reaping it.
		err := unix.Waitid(unix.P_PID, p.cmd.Process.Pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	p.mu.Lock()
	p.dead = true
	p.mu.Unlock()
	p.waitErr = p.cmd.Wait()
	_ = logFile.Close()
	close(p.exited)
}

// signal sends sig to p's process group unless p has exited.
func (p *process) signal(sig syscall.Signal) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.dead {
		return
	}
	_ = syscall.Kill(-p.cmd.Process.Pid, sig)
}

// stop sends SIGTERM, then SIGKILL if p is still running after stopGrace,
// and returns once p has been reaped.
func (p *process) stop() {
	p.signal(syscall.SIGTERM)
	select {
	case <-p.exited:
		return
	case <-time.After(stopGrace):
	}
	p.signal(syscall.SIGKILL)
	<-p.exited
}

// exitError describes how p ended, with the tail of its log, for a process
// that exited when it should not have.
func (p *process) exitError() error {
	if p.waitErr == nil {
		return fmt.Errorf("%s exited with status 0\n%s", p.name, p.logTail())
	}
	return fmt.Errorf("%s exited: %w\n%s", p.name, p.waitErr, p.logTail())
}

// logTail returns the last lines of p's log, for error messages.
func (p *process) logTail() string {
	const maxBytes, maxLines = 4096, 25
	data, err := os.ReadFile(p.logPath)
	if err != nil {
		return fmt.Sprintf("(cannot read the %s log: %v)", p.name, err)
	}
	if len(data) > maxBytes {
		data = data[len(data)-maxBytes:]
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			data = data[i+1:]
		}
	}
	lines := bytes.Split(bytes.TrimRight(data, "\n"), []byte("\n"))
	if len(lines) > maxLines {
		lines = lines[len(lines)-maxLines:]
	}
	return fmt.Sprintf("--- last lines of the %s output ---\n%s\n---", p.name, bytes.Join(lines, []byte("\n")))
}
