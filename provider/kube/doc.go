// Package kube implements the Kubernetes resources of the provider (EndpointSlice and
// EndpointsList) with client-go. Clients are built on first use from the provider
// configuration, so a program that never declares a Kubernetes resource never needs a
// kubeconfig.
package kube
