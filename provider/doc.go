// Package provider implements the pulumi-endpoints resource provider: it serves the
// embedded schema.json, reads the provider configuration, and routes each resource and
// function token to the package that implements it (kube for the Kubernetes resources,
// google for the Google Cloud lookups).
package provider
