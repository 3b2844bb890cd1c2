module github.com/endpoints-provider/pulumi-endpoints/tools/pulumi-kubernetes

go 1.26

// pulumi-kubernetes, the official Kubernetes provider, that the tests and the
// benchmark run beside ours. The Go module proxy serves its provider module only as a
// pseudo-version: this one is the commit its v4.25.0 release tag names. The comment
// after it is that release, the version its SDKs (npm, PyPI, Go) ask the engine for;
// mk/pulumi-kubernetes.mk reads both from this line.
require github.com/pulumi/pulumi-kubernetes/provider/v4 v4.0.0-20260115033456-f47bc2d6f199 // v4.25.0
