// Package e2e holds end-to-end tests: the real pulumi CLI, built by `make tools`,
// driving the built provider plugin.
package e2e
