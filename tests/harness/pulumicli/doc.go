// Package pulumicli runs the pulumi CLI that `make test` built (TEST_ASSET_PULUMI)
// for tests, as a user runs it on a project: in a project directory of its own, with
// a private, empty PULUMI_HOME and a local file backend, no update check and no
// colour. What else the CLI finds (PATH, KUBECONFIG, the passphrase) is the test's
// to say.
package pulumicli
