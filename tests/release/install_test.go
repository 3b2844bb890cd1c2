package release

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/controlplane"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/toolchain"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/releases"
)

// thisPlatform is the archive platform of the machine the tests run on.
var thisPlatform = runtime.GOOS + "-" + runtime.GOARCH

// TestPluginInstallFromRelease installs the plugin as a user does, with `pulumi
// plugin install` naming the version and the project's download server, from an
// empty PULUMI_HOME: the CLI downloads this platform's archive from the release
// (through the mirror override) and installs it; `pulumi package get-schema` runs
// the installed plugin for the schema of that version, and `pulumi package gen-sdk`
// generates an SDK from it.
func TestPluginInstallFromRelease(t *testing.T) {
	t.Parallel()
	v := version(t)
	srv := releases.Serve(t, asset(t, "TEST_ASSET_DIST"))
	c := newCLI(t, srv.Env()...)

	out := c.RunCombined("plugin", "install", "resource", "endpoints", v, "--server", releases.PluginDownloadURL)
	if !strings.Contains(out, "Downloading plugin") {
		t.Errorf("plugin install did not download:\n%s", out)
	}
	want := "/endpoints-provider/pulumi-endpoints/releases/download/v" + v + "/" + archiveName(v, thisPlatform)
	if got := srv.Requests(); !slices.Contains(got, want) {
		t.Errorf("release server saw %q, want a request for %s", got, want)
	}
	if got := c.installedPlugins(); !slices.Equal(got, []string{"resource-endpoints-v" + v}) {
		t.Errorf("PULUMI_HOME/plugins holds %q, want resource-endpoints-v%s", got, v)
	}
	ls := c.RunCombined("plugin", "ls")
	if !strings.Contains(ls, "endpoints") || !strings.Contains(ls, v) {
		t.Errorf("pulumi plugin ls does not list endpoints %s:\n%s", v, ls)
	}

	// pulumi package get-schema runs the installed plugin and prints its schema.
	schemaOut := c.RunCombined("package", "get-schema", "endpoints@"+v)
	var spec struct {
		Name              string `json:"name"`
		Version           string `json:"version"`
		PluginDownloadURL string `json:"pluginDownloadURL"`
	}
	if err := json.Unmarshal([]byte(schemaOut[strings.Index(schemaOut, "{"):]), &spec); err != nil {
		t.Fatalf("get-schema printed no schema: %v\n%s", err, schemaOut)
	}
	if spec.Name != "endpoints" || spec.Version != v || spec.PluginDownloadURL != releases.PluginDownloadURL {
		t.Errorf("get-schema: name %q version %q pluginDownloadURL %q, want endpoints %s %s",
			spec.Name, spec.Version, spec.PluginDownloadURL, v, releases.PluginDownloadURL)
	}

	// pulumi package gen-sdk generates an SDK from the installed plugin, through a
	// language host (Java's is the one built here).
	c.PrependPath(filepath.Dir(asset(t, "TEST_ASSET_PULUMI_LANGUAGE_JAVA")))
	genOut := t.TempDir()
	c.RunCombined("package", "gen-sdk", "endpoints@"+v, "--language", "java", "--out", genOut)
	slice := filepath.Join(genOut, "java", "src", "main", "java", "com", "endpointsprovider", "endpoints", "discovery", "v1", "EndpointSlice.java")
	if _, err := os.Stat(slice); err != nil {
		t.Errorf("gen-sdk wrote no Java EndpointSlice: %v", err)
	}
}

// TestUpInstallsThePlugin runs `pulumi up`, with its preview, of a YAML program
// against the control plane from an empty PULUMI_HOME: the engine downloads the
// plugin of the version the program asks for from the release on its own, the
// slice is created, and destroy removes it.
func TestUpInstallsThePlugin(t *testing.T) {
	t.Parallel()
	v := version(t)
	cp := controlplane.Shared(t)
	ns := cp.Namespace(t, "release")
	srv := releases.Serve(t, asset(t, "TEST_ASSET_DIST"))
	c := newCLI(t, append(srv.Env(), "KUBECONFIG="+cp.KubeconfigPath())...)
	c.WriteProject(fmt.Sprintf(`name: installs
runtime: yaml
resources:
  webSlice:
    type: endpoints:discovery.k8s.io/v1:EndpointSlice
    properties:
      metadata:
        name: web-1
        namespace: %s
        labels:
          kubernetes.io/service-name: web
      addressType: IPv4
      endpoints:
        - addresses: ["10.0.0.1"]
      ports:
        - port: 80
    options:
      version: %s
      pluginDownloadURL: %s
outputs:
  uid: ${webSlice.metadata.uid}
`, ns, v, releases.PluginDownloadURL))

	c.RunCombined("stack", "init", "dev")
	c.RunCombined("up", "--yes")
	if got := c.installedPlugins(); !slices.Equal(got, []string{"resource-endpoints-v" + v}) {
		t.Errorf("after up, PULUMI_HOME/plugins holds %q, want resource-endpoints-v%s", got, v)
	}
	if got := srv.Requests(); len(got) == 0 {
		t.Error("the release server saw no download")
	}
	slice, err := cp.Clientset().DiscoveryV1().EndpointSlices(ns).Get(t.Context(), "web-1", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("the slice up created: %v", err)
	}
	uid := strings.TrimSpace(c.RunCombined("stack", "output", "uid"))
	if uid != string(slice.UID) {
		t.Errorf("stack output uid %q, the API server has %q", uid, slice.UID)
	}
	c.RunCombined("preview", "--expect-no-changes")
	c.RunCombined("destroy", "--yes")
	if _, err := cp.Clientset().DiscoveryV1().EndpointSlices(ns).Get(t.Context(), "web-1", metav1.GetOptions{}); err == nil {
		t.Error("the slice is still there after destroy")
	}
}

// TestInstallErrors: a release that lacks this platform's archive, and an archive
// cut short in transit, each make `pulumi plugin install` fail with a message that
// says what went wrong, and leave no plugin installed; the same install from the
// whole release then succeeds.
func TestInstallErrors(t *testing.T) {
	t.Parallel()
	v := version(t)
	dist := asset(t, "TEST_ASSET_DIST")
	archive := archiveName(v, thisPlatform)

	tests := []struct {
		name string
		// prepare fills the release directory.
		prepare func(t *testing.T, dir string)
		want    []string
	}{
		{
			name: "missing platform",
			prepare: func(t *testing.T, dir string) {
				for _, p := range platforms {
					if p != thisPlatform {
						toolchain.CopyFile(t, filepath.Join(dist, archiveName(v, p)), filepath.Join(dir, archiveName(v, p)))
					}
				}
			},
			want: []string{"404", archive},
		},
		{
			name: "truncated archive",
			prepare: func(t *testing.T, dir string) {
				data, err := os.ReadFile(filepath.Join(dist, archive)) //nolint:gosec // the test's own artifact
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, archive), data[:len(data)/2], 0o600); err != nil {
					t.Fatal(err)
				}
			},
			want: []string{"unexpected EOF"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			tt.prepare(t, dir)
			c := newCLI(t, releases.Serve(t, dir).Env()...)
			out, err := c.CombinedOutput("plugin", "install", "resource", "endpoints", v, "--server", releases.PluginDownloadURL)
			if err == nil {
				t.Fatalf("plugin install succeeded:\n%s", out)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("plugin install's error does not say %q:\n%s", w, out)
				}
			}
			// The CLI may leave what it unpacked, marked partial: it must not count as installed.
			if ls := c.RunCombined("plugin", "ls"); strings.Contains(ls, "endpoints") {
				t.Errorf("after a failed install, pulumi plugin ls lists endpoints:\n%s", ls)
			}
			whole := releases.Serve(t, dist)
			c.Env = append(c.Env, whole.Env()...)
			c.RunCombined("plugin", "install", "resource", "endpoints", v, "--server", releases.PluginDownloadURL)
			if ls := c.RunCombined("plugin", "ls"); !strings.Contains(ls, "endpoints") {
				t.Errorf("the install from the whole release did not take:\n%s", ls)
			}
		})
	}
}
