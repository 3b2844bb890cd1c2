package controlplane

import (
	"context"
	"fmt"
	"io"
	"strings"
	"syscall"
)

// Component names one process of the control plane, for Kill and Restart.
type Component string

// The components Kill and Restart know.
const (
	Etcd      Component = "etcd"
	APIServer Component = "kube-apiserver"
)

// Kill ends the component with SIGKILL, as a crash or an OOM kill would: it gets no
// chance to finish its requests or to say goodbye to its clients. Kill returns once
// the process is gone; the other components keep running.
func (c *ControlPlane) Kill(comp Component) error {
	c.procsMu.Lock()
	defer c.procsMu.Unlock()
	p, err := c.proc(comp)
	if err != nil {
		return err
	}
	p.signal(syscall.SIGKILL)
	<-p.exited
	return nil
}

// Restart starts a killed component again with the arguments it had (the same
// ports, data directory, certificates and keys), and returns once it serves and the
// API server is ready again.
func (c *ControlPlane) Restart(ctx context.Context, comp Component) error {
	c.procsMu.Lock()
	defer c.procsMu.Unlock()
	var out io.Writer
	if comp == APIServer {
		out = c.apiServerOut
	}
	p, err := c.restart(comp, out)
	if err != nil {
		return err
	}
	if comp == Etcd {
		if err := waitEtcdHealthy(ctx, p, argValue(p.cmd.Args, "--listen-client-urls")); err != nil {
			return err
		}
	}
	apiServer, err := c.proc(APIServer)
	if err != nil {
		return err
	}
	return c.waitAPIReady(ctx, apiServer)
}

// restart starts the component comp, which must have exited, again with the
// arguments it had, its output going to out too when not nil, and puts the new
// process in the old one's place; call it with procsMu held.
func (c *ControlPlane) restart(comp Component, out io.Writer) (*process, error) {
	old, err := c.proc(comp)
	if err != nil {
		return nil, err
	}
	select {
	case <-old.exited:
	default:
		return nil, fmt.Errorf("%s is running: Kill (or StopAPIServer) it first", comp)
	}
	p, err := startProcess(old.name, old.cmd.Path, old.cmd.Args[1:], c.dir, out)
	if err != nil {
		return nil, err
	}
	for i := range c.procs {
		if c.procs[i] == old {
			c.procs[i] = p
		}
	}
	return p, nil
}

// proc returns the component's current process; call it with procsMu held.
func (c *ControlPlane) proc(comp Component) (*process, error) {
	for _, p := range c.procs {
		if p.name == string(comp) {
			return p, nil
		}
	}
	return nil, fmt.Errorf("the control plane has no %s", comp)
}

// argValue returns the value of a --name=value argument ("" when absent).
func argValue(args []string, name string) string {
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, name+"="); ok {
			return v
		}
	}
	return ""
}
