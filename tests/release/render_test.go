package release

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/toolchain"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/releases"
)

// TestRenderFromRelease renders to manifests with the plugin the engine downloads
// from the release into an empty PULUMI_HOME, with no cluster and a KUBECONFIG naming
// a file that does not exist: `pulumi up` (its preview included) writes one manifest
// per object, a refresh and a preview then find nothing to do, and destroy removes
// the files.
func TestRenderFromRelease(t *testing.T) {
	t.Parallel()
	v := version(t)
	srv := releases.Serve(t, asset(t, "TEST_ASSET_DIST"))
	dir := filepath.Join(t.TempDir(), "manifests")
	c := newCLI(t, append(srv.Env(), "KUBECONFIG="+filepath.Join(t.TempDir(), "no-such-kubeconfig"))...)
	c.WriteProject(fmt.Sprintf(renderedProgram, v, releases.PluginDownloadURL))

	c.RunCombined("stack", "init", "dev")
	c.RunCombined("config", "set", "endpoints:renderDirectory", dir)
	c.RunCombined("up", "--yes")
	if got := c.installedPlugins(); !slices.Equal(got, []string{"resource-endpoints-v" + v}) {
		t.Errorf("after up, PULUMI_HOME/plugins holds %q, want resource-endpoints-v%s", got, v)
	}
	want := []string{"discovery.k8s.io_v1-EndpointSlice-default-web-1.yaml", "v1-Endpoints-apps-legacy.yaml"}
	if got := toolchain.FileNames(t, dir); !slices.Equal(got, want) {
		t.Fatalf("up wrote %q to the render directory, want %q", got, want)
	}
	manifest := toolchain.ReadFile(t, filepath.Join(dir, want[0]))
	for _, line := range []string{"apiVersion: discovery.k8s.io/v1", "kind: EndpointSlice", "- 10.0.0.1", "name: web-1"} {
		if !strings.Contains(manifest, line+"\n") {
			t.Errorf("the slice's manifest lacks %q:\n%s", line, manifest)
		}
	}
	c.RunCombined("refresh", "--yes", "--expect-no-changes")
	c.RunCombined("preview", "--expect-no-changes")
	c.RunCombined("destroy", "--yes")
	if got := toolchain.FileNames(t, dir); len(got) != 0 {
		t.Errorf("files left in the render directory after destroy: %q", got)
	}
}

// renderedProgram is TestRenderFromRelease's YAML program: a slice in the default
// namespace and an EndpointsList of one item, each asking for the plugin of version
// %[1]s from %[2]s.
const renderedProgram = `name: renders
runtime: yaml
resources:
  webSlice:
    type: endpoints:discovery.k8s.io/v1:EndpointSlice
    properties:
      metadata:
        name: web-1
        labels:
          kubernetes.io/service-name: web
      addressType: IPv4
      endpoints:
        - addresses: ["10.0.0.1"]
    options:
      version: %[1]s
      pluginDownloadURL: %[2]s
  legacy:
    type: endpoints:core/v1:EndpointsList
    properties:
      items:
        - metadata:
            name: legacy
            namespace: apps
          subsets:
            - addresses:
                - ip: 10.0.1.1
              ports:
                - port: 8080
    options:
      version: %[1]s
      pluginDownloadURL: %[2]s
`
