// Package packages tests the SDKs as their users get them: the npm package, the
// Python wheel and sdist, and the Go SDK module in a module proxy's layout
// (dist/goproxy) that `make dist-sdks` builds into dist/.
//
// Each test installs a package into a fresh project with the ordinary tool (npm
// install, pip install into a new virtualenv, go get through GOPROXY) and runs a
// program with it through the Automation API against a real control plane: up, the
// outputs and the objects on the API server checked, then destroy. PULUMI_HOME starts
// empty and no plugin is on PATH: the engine downloads the plugin from the server the
// SDK names (pluginDownloadURL), which the test points at a local release server
// holding dist/'s plugin archives.
//
// The artifacts come from TEST_ASSET_DIST (the absolute dist directory) and carry the
// version TEST_ASSET_VERSION, which `make test` sets after building them (make test
// VERSION=X DIST=dir tests a build of any version in any directory).
//
// TestInstallFromClone follows the section "From a clone" of
// docs/installation-configuration.md (the page the README links for installing), the
// way that works before the packages are published: its commands as written, in the
// repository (`make dist`, then `pulumi plugin install --file` into an empty
// PULUMI_HOME) and in a new project per language, whose program then runs with the
// plugin installed ahead.
package packages
