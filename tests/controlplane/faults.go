package controlplane

import (
	"context"
	"fmt"
	"net/http"
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
	old, err := c.proc(comp)
	if err != nil {
		return err
	}
	select {
	case <-old.exited:
	default:
		return fmt.Errorf("%s is running: Kill it first", comp)
	}
	var out = c.apiServer.out
	if comp != APIServer {
		out = nil
	}
	p, err := startProcess(old.name, old.cmd.Path, old.cmd.Args[1:], c.dir, out)
	if err != nil {
		return err
	}
	for i := range c.procs {
		if c.procs[i] == old {
			c.procs[i] = p
		}
	}
	if comp == Etcd {
		healthURL := argValue(old.cmd.Args, "--listen-client-urls") + "/health"
		err := waitReady(ctx, p, "GET "+healthURL, func(ctx context.Context) error {
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, healthURL, nil)
			if err != nil {
				return err
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				return err
			}
			_ = resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				return fmt.Errorf("status %d", resp.StatusCode)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	apiServer, err := c.proc(APIServer)
	if err != nil {
		return err
	}
	return waitReady(ctx, apiServer, "GET "+c.server+"/readyz", func(ctx context.Context) error {
		_, err := c.clientset.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
		return err
	})
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
