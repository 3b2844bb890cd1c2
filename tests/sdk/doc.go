// Package sdk holds the tests of the generated SDKs under sdk/ (its tests are in
// package sdk_test; the package itself has no code).
//
// They check that regenerating the SDKs from schema.json changes nothing, that each
// SDK builds the way its users build it (Go: go vet in the SDK module; Node.js: npm
// and tsc --strict against @pulumi/pulumi from npm; Python: pip into a virtualenv
// with pulumi from PyPI, then mypy --strict), that a typed program using every token
// compiles in each language, and, for C# (no .NET toolchain here), golden file names,
// key identifiers and a syntax check. Downloads are cached under
// $HOME/.cache/pulumi-endpoints/ so that reruns are fast.
package sdk
