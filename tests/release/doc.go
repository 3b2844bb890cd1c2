// Package release tests the release artifacts as users get them.
//
// The harness package releases answers plugin downloads from a dist directory in the
// GitHub releases layout, and its Server.Env gives the
// PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES setting that points the schema's
// pluginDownloadURL at it, as users behind a mirror do. The tests here build the archives twice and compare them byte for byte,
// and install the plugin with the real CLI from an empty PULUMI_HOME: with
// `pulumi plugin install`, and on its own at `pulumi up` (against the control
// plane, and rendering to manifests with no cluster).
package release
