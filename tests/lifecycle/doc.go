// Package lifecycle drives the provider's resource methods in-process (through
// pulumi-go-provider's integration server) against a real kube-apiserver, etcd and
// kube-controller-manager running every default controller (the endpoints,
// EndpointSlice and mirroring controllers act on the objects the provider writes), and
// checks the objects in the API server after each step.
package lifecycle
