// Package e2e holds end-to-end tests: the real pulumi CLI, built by `make tools`,
// driving the built provider plugin, against a control plane that runs every default
// kube-controller-manager controller (endpoints, EndpointSlice, mirroring, ...), as a
// real cluster does.
package e2e
