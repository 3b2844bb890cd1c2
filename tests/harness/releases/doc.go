// Package releases serves a dist directory's plugin archives over HTTP on 127.0.0.1
// as GitHub serves a release's assets, so that the engine downloads the plugin as a
// user's does (PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES points the plugin's source at it).
// It is what the release, packages and examples suites share; it holds no tests of the
// product.
package releases
