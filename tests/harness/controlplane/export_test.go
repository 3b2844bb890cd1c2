package controlplane

// PIDs returns the process IDs of c's etcd, kube-apiserver and
// kube-controller-manager, for tests of Stop.
func PIDs(c *ControlPlane) []int {
	pids := make([]int, 0, len(c.procs))
	for _, p := range c.procs {
		pids = append(pids, p.cmd.Process.Pid)
	}
	return pids
}

// Dir returns c's temporary directory, for tests of Stop.
func Dir(c *ControlPlane) string { return c.dir }

// RemoveStaleDirs is removeStaleDirs, for its test.
var RemoveStaleDirs = removeStaleDirs

// OwnerFile and DirPrefix are ownerFile and dirPrefix, for the test of
// RemoveStaleDirs.
const (
	OwnerFile = ownerFile
	DirPrefix = dirPrefix
)

// ProcessStartTime is processStartTime, for the test of RemoveStaleDirs.
var ProcessStartTime = processStartTime

// LB returns h's load balancer, for the tests of HA.
func LB(h *HA) *LoadBalancer { return h.lb }
