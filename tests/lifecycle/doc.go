// Package lifecycle drives the provider's resource methods in-process (through
// pulumi-go-provider's integration server) against a real kube-apiserver, etcd and
// kube-controller-manager running every default controller (the endpoints,
// EndpointSlice and mirroring controllers act on the objects the provider writes), and
// checks the objects in the API server after each step.
//
// The tests of window_test.go run on both ends of the window of Kubernetes minors the
// provider supports (onBothEnds): on that control plane of the newest minor, and on
// the oldest minor's API server and etcd alone (controlplane.SharedOldest: no
// controller runs there), in subtests named by the server's version.
package lifecycle
