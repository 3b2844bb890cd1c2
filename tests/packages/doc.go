// Package packages tests the SDKs as their users get them: the npm package and the
// Python wheel and sdist that `make dist-sdks` builds into dist/, and the Go SDK
// module served at its release version by a module proxy.
//
// Each test installs a package into a fresh project with the ordinary tool (npm
// install, pip install into a new virtualenv, go get through GOPROXY) and runs a
// program with it through the Automation API against a real control plane: up, the
// outputs and the objects on the API server checked, then destroy. PULUMI_HOME starts
// empty and no plugin is on PATH: the engine downloads the plugin from the server the
// SDK names (pluginDownloadURL), which the test points at a local release server
// holding dist/'s plugin archives.
//
// The artifacts come from TEST_ASSET_DIST (the absolute dist directory), which
// `make test` sets after building them.
package packages
