package provider

// Version is the provider's version. The Makefile stamps it at link time with
// -ldflags "-X github.com/endpoints-provider/pulumi-endpoints/provider.Version=<version>";
// a plain `go build` reports the development placeholder below.
var Version = "0.0.0-dev"
