//go:build endpoints_no_cloud_credentials

package kube

import "k8s.io/client-go/rest"

// cloudCredentials, in a plugin built with the endpoints_no_cloud_credentials tag,
// leaves every exec plugin to client-go, which runs the plugin program: package
// cloudauth and the cloud libraries it uses are not linked. The build exists only for
// `make bench`, whose start-up section measures what those libraries add to the
// binary and to start-up against it; the plugin users run is the default build.
func cloudCredentials(*rest.Config, Config) error { return nil }
