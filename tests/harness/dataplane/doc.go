// Package dataplane runs the software that turns Services and EndpointSlices into
// traffic, so that tests can send requests through it: a control plane with every
// controller (package controlplane), kube-proxy in nftables mode and CoreDNS with its
// kubernetes plugin, all inside a network namespace the test binary makes.
//
// A package's TestMain calls RunTests, which runs the test binary again in a new
// network namespace (it needs root): lo, a veth pair with the Node's address
// (NodeIP) to which the Services' range is routed, and the processes the tests start,
// the pulumi CLI and the provider among them. The namespace ends with the process,
// however it ends. Where no namespace can be made, Shared skips the tests and says
// why.
//
// Shared starts, once per test binary, the control plane, a Node (NodeName, with
// NodeIP as its InternalIP) and, beside the control plane (they stop with it),
// kube-proxy (--proxy-mode=nftables, --hostname-override=NodeName) and CoreDNS
// (DNSAddr, zone cluster.local, no cache). Their binaries come from
// TEST_ASSET_KUBE_PROXY and TEST_ASSET_COREDNS, which `make test` sets after `make
// tools` has built them. DataPlane.CLI gives a test the pulumi CLI on a project of
// its own that reaches the control plane.
//
// Traffic: DataPlane.Backend starts an HTTP server on an address of its own (IPv4 or
// IPv6) on the ports given, which answers with the address and port that took the
// request (Backend.Endpoint). Probe sends a number of requests to a target (a
// cluster IP and port, or a Service's DNS name and port, resolved by CoreDNS) and
// counts them by the endpoint that served each, and the failures; WaitServed waits
// until exactly the given endpoints serve a target. StartLoad starts a client that
// sends requests without pause until Load.Stop, which returns the counts: start it,
// run `pulumi up`, stop it, and the failed requests are those the change cost.
// Lookup asks CoreDNS for a name's A or AAAA records.
package dataplane
