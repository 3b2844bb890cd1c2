// Package plugin starts a built pulumi-resource-endpoints binary the way the engine
// does (exec, read the port it prints, dial it) for tests and benchmarks.
package plugin
