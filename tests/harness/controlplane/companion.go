package controlplane

import "context"

// StartCompanion starts a process that serves the cluster beside the control plane,
// as a node's agent or a cluster add-on does (kube-proxy, a DNS server), and keeps it
// with the control plane's own: its output goes to a log in the control plane's
// directory (and to Options.Output), it dies with the test binary, and Stop ends it
// before the control plane. It returns once ready succeeds; what names what ready
// waits for, for the error that says the process exited first or was not ready in
// time, with the last lines of its output.
func (c *ControlPlane) StartCompanion(ctx context.Context, name, path string, args []string, what string, ready func(context.Context) error) error {
	c.procsMu.Lock()
	p, err := c.start(name, path, args, c.apiServerOut)
	c.procsMu.Unlock()
	if err != nil {
		return err
	}
	return waitReady(ctx, p, what, ready)
}
