// Package examples runs every example under examples/<group>/<language> as its README
// tells a user to: the steps of the README's ```sh blocks, in order, then those of the
// sections of examples/README.md it links (the steps the examples of a group share),
// with bash, in a fresh copy of the example, against the test control plane (every
// controller running) through the user's kubeconfig, with the package managers
// resolving the declared versions from local registries (tests/harness/registries) that serve the
// artifacts `make examples-dist` stamped with the examples' version, and an empty
// PULUMI_HOME, so that `pulumi up` downloads the plugin itself.
//
// YAML and Java run with plain `pulumi up` through their real language hosts. The
// Node.js, Python and Go hosts cannot be built here: their `pulumi up`, `preview`,
// `refresh` and `destroy` lines go through a `pulumi` on PATH that hands the
// operation to the Automation API pointed at the example's directory (testdata/nodejs,
// testdata/python) or, for Go, whose main package cannot be imported, to gohost, a
// language runtime that builds the example and serves it through the CLI's --client
// (as the Go Automation API does). Every other line (installs, stack init, config,
// kubectl) runs as written. Between the README's up and its destroy, the tests check
// the objects on the API server and the mirrored slices, and that refresh and
// preview find nothing to change; after its clean-up, that nothing is left.
//
// TestReadmeFirstProgram follows README.md's "A first program" the way that works
// before the packages are published: with the plugin installed from dist/ (the
// installation page's block, which tests/packages runs) and ENDPOINTS_DIST and
// ENDPOINTS_VERSION set, its YAML and TypeScript programs (Services from
// pulumi-kubernetes, pinned to the version the tests run, their endpoints from this
// provider), each in an empty project (TypeScript after the README's npm install, from
// dist/) through `pulumi stack init`, up, refresh, preview and destroy; this provider's
// plugin must come from dist/, none downloaded.
//
// TestProgramsWithKubernetes runs the programs of testdata/with-kubernetes (TypeScript,
// Python, Go) the same way: pulumi-kubernetes and this provider in one program that
// also makes its cluster, so that the kubeconfig both providers take is unknown at the
// first preview; then up, refresh, preview, an edit of the ports, and destroy. The
// pulumi-kubernetes plugin that `make tools` built is installed into each user's
// PULUMI_HOME first, as `pulumi up` would download it; its SDKs come from npm, PyPI and
// the Go module proxy at the same version.
//
// C# has no .NET SDK here: its example is parsed with tree-sitter-c-sharp instead.
package examples
