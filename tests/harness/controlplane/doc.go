// Package controlplane runs a real, local Kubernetes control plane for tests:
// etcd, kube-apiserver and kube-controller-manager (garbage collector and
// namespace controllers), each a child process listening on 127.0.0.1 only.
//
// With Options.AllControllers the controller manager runs every controller it
// runs by default, as on a real cluster: the endpoints, EndpointSlice and
// EndpointSlice mirroring controllers, the service-account and token controllers
// (signing with the key the API server verifies tokens with), the root-CA
// publisher, the certificate signers (with a CA of the control plane's own), and
// the rest; only those that need nodes' pod CIDRs or a cloud provider stay off.
// Start-up takes about as long as without them (4-5 s on 2 busy cores). Use
// RunTestsWith to give a package's shared control plane every controller.
//
// The binaries come from the environment: TEST_ASSET_ETCD,
// TEST_ASSET_KUBE_APISERVER and TEST_ASSET_KUBE_CONTROLLER_MANAGER. `make test`
// sets them after `make tools` has built the binaries; when one is missing,
// Start fails and says so. Tests never skip for want of a control plane.
//
// Options.APIServer runs another kube-apiserver binary, and
// Options.NoControllerManager starts etcd and the API server alone. StartOldest
// (StartOldestT, and SharedOldest for a package's shared one) combines both for
// the oldest Kubernetes minor the provider supports, whose API server
// TEST_ASSET_KUBE_APISERVER_OLDEST names: a package runs its tests over the newest
// control plane (Shared) and that one. Version tells a control plane's minor and
// gitVersion, as GET /version said.
// Options.APIServerArgs adds flags to every API server (an authentication webhook,
// say), after the harness's own; a restarted API server keeps them.
//
// No API server reconciles the kubernetes Service's endpoints
// (--endpoint-reconciler-type=none): it advertises 127.0.0.1, which Endpoints may
// not hold. The Service exists in default, without Endpoints or EndpointSlice.
//
// The API server authenticates an admin by a static token in group
// system:masters, authorizes with RBAC, signs ServiceAccount tokens (the
// TokenRequest API works), and runs the OwnerReferencesPermissionEnforcement
// admission plugin, as many production clusters do: setting
// ownerReferences[].blockOwnerDeletion requires permission to update the
// owner's finalizers subresource. The ServiceAccount admission plugin is
// off, so Pods need no ServiceAccount.
//
// StartHA starts a highly available control plane instead: a cluster of three
// etcd members, two API servers that store into it and serve one certificate and
// one ServiceAccount key, and in front of them a TCP load balancer (round robin
// over the API servers whose /readyz answers) that every client, the controller
// manager too, reaches them through. Kill and HA.Restart take EtcdMember(i) and
// APIServerN(i); EtcdLeader names the member that leads now. It takes about twice
// the processes and start-up time of a plain one.
//
// Start one control plane per test binary where possible (start-up takes a
// few seconds) and give each test its own namespace. StartT ties a control
// plane to a test. Every process runs in its own process group and is killed
// if the test binary dies; Stop ends them and removes the temporary directory
// that holds their data, keys and logs.
package controlplane
