// Package dataplane holds the tests that send traffic through what the provider
// writes: the real pulumi CLI applies a program, and kube-proxy (nftables mode) and
// CoreDNS, the software that turns Services and EndpointSlices into traffic, carry
// requests to HTTP backends that say which endpoint served each. Everything runs in a
// network namespace of the test binary's own (package tests/harness/dataplane).
package dataplane
