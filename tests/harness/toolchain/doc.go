// Package toolchain installs the generated SDKs the way their users do (npm pack and
// install, a Python virtualenv with pip), with pinned versions and download caches
// shared by every test run, and runs the commands that need them. tests/sdk checks the
// SDKs with it; tests/e2e runs the examples with it.
package toolchain
