package packages

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/controlplane"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/releases"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/toolchain"
)

// pluginBinary is the provider plugin's executable, which no PATH entry of a user
// project may hold.
const pluginBinary = "pulumi-resource-endpoints"

// asset is toolchain.Asset: a tool or artifact `make test` names.
var asset = toolchain.Asset

// distDir is the directory of the release artifacts.
func distDir(t *testing.T) string { return asset(t, "TEST_ASSET_DIST") }

// distFile returns the artifact name in dist/, failing when it is missing.
func distFile(t *testing.T, name string) string {
	t.Helper()
	path := filepath.Join(distDir(t), name)
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("release artifact %s: %v (run `make dist-sdks`)", path, err)
	}
	return path
}

// userProject is a user's Pulumi project in a new directory, with the stack "dev" on
// a local file backend in a namespace of its own. Its environment has an empty
// PULUMI_HOME, the pulumi CLI on PATH (the Automation API runs it) and no plugin: the
// engine downloads the plugin from a local release server of dist/'s archives.
type userProject struct {
	dir     string
	ns      string
	home    string
	env     []string
	cs      kubernetes.Interface
	release *releases.Server
	// installed is the plugin version installed into home ahead of the program's
	// first run; empty: the engine must download the plugin on first use.
	installed string
}

// runnerTimeout bounds one operation of a program; each takes a few seconds once the
// plugin is downloaded.
const runnerTimeout = 5 * time.Minute

func newUserProject(t *testing.T, runtime string) *userProject {
	t.Helper()
	return newUserProjectHome(t, runtime, t.TempDir(), "")
}

// newUserProjectHome is newUserProject with the PULUMI_HOME home, into which the
// plugin of version installed was installed ahead (none when installed is empty):
// the engine must then use that plugin and download nothing.
func newUserProjectHome(t *testing.T, runtime, home, installed string) *userProject {
	t.Helper()
	cp := controlplane.Shared(t)
	ns := cp.Namespace(t, "packages")
	cli := asset(t, "TEST_ASSET_PULUMI")
	p := &userProject{dir: t.TempDir(), ns: ns, home: home, cs: cp.Clientset(), release: releases.Serve(t, distDir(t)), installed: installed}
	p.env = append([]string{
		"PULUMI_HOME=" + p.home,
		"PULUMI_BACKEND_URL=file://" + t.TempDir(),
		"PULUMI_CONFIG_PASSPHRASE=packages",
		"PULUMI_SKIP_UPDATE_CHECK=true",
		"PULUMI_DIY_BACKEND_NO_LEGACY_WARNING=true",
		"NO_COLOR=1",
		"KUBECONFIG=" + cp.KubeconfigPath(),
		"PATH=" + userPath(t, filepath.Dir(cli)),
	}, p.release.Env()...)
	project := "name: packages-" + runtime + "\nruntime: " + runtime + "\n"
	if err := os.WriteFile(filepath.Join(p.dir, "Pulumi.yaml"), []byte(project), 0o600); err != nil {
		t.Fatal(err)
	}
	toolchain.Run(t, p.dir, p.env, cli, "stack", "init", "dev")
	toolchain.Run(t, p.dir, p.env, cli, "config", "set", "endpoints:namespace", p.ns)
	return p
}

// userPath is PATH with the CLI's directory first and without any directory that
// holds the plugin.
func userPath(t *testing.T, cliDir string) string {
	t.Helper()
	dirs := []string{cliDir}
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if _, err := os.Stat(filepath.Join(dir, pluginBinary)); err == nil {
			t.Logf("leaving %s, which holds %s, out of PATH", dir, pluginBinary)
			continue
		}
		dirs = append(dirs, dir)
	}
	if _, err := os.Stat(filepath.Join(cliDir, pluginBinary)); err == nil {
		t.Fatalf("the pulumi CLI's directory %s holds %s: the test could not tell a downloaded plugin from it", cliDir, pluginBinary)
	}
	return strings.Join(dirs, string(filepath.ListSeparator))
}

// run runs the program argv with the operation in the project's directory and
// returns its result; a failing program fails the test.
func (p *userProject) run(t *testing.T, argv []string, operation string, extraEnv ...string) toolchain.ProgramResult {
	t.Helper()
	return toolchain.RunProgram(t, operation, runnerTimeout, p.dir, slices.Concat(os.Environ(), p.env, extraEnv),
		append(slices.Clone(argv), operation)...)
}

// lifecycle runs up and destroy of the program argv (one of testdata/'s, which all
// declare the same EndpointSlice and EndpointsList) and checks the outputs, the
// objects on the API server and the downloaded plugin.
func (p *userProject) lifecycle(t *testing.T, argv []string, extraEnv ...string) {
	t.Helper()
	res := p.run(t, argv, "up", extraEnv...)
	res.WantChanges(t, "up", map[string]int{"create": 3})
	name, _ := res.Outputs["sliceName"].(string)
	if !strings.HasPrefix(name, "web-") {
		t.Errorf("up: output sliceName = %v, want the autoname web-<suffix>", res.Outputs["sliceName"])
	}
	wantOutputs := map[string]any{"sliceNamespace": p.ns, "legacyItems": []any{"web-legacy"}}
	gotOutputs := map[string]any{"sliceNamespace": res.Outputs["sliceNamespace"], "legacyItems": res.Outputs["legacyItems"]}
	if diff := cmp.Diff(wantOutputs, gotOutputs); diff != "" {
		t.Errorf("up: outputs (-want +got):\n%s", diff)
	}
	if p.installed != "" {
		p.wantPluginInstalledAhead(t)
	} else {
		p.wantPluginDownloaded(t)
	}

	slice, err := p.cs.DiscoveryV1().EndpointSlices(p.ns).Get(t.Context(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("after up, EndpointSlice %s/%s: %v", p.ns, name, err)
	}
	if got := len(slice.Endpoints); got != 1 || !slices.Equal(slice.Endpoints[0].Addresses, []string{"10.0.0.10"}) ||
		len(slice.Ports) != 1 || slice.Ports[0].Port == nil || *slice.Ports[0].Port != 8080 || string(slice.AddressType) != "IPv4" {
		t.Errorf("after up, EndpointSlice %s/%s is %s %v %v, want IPv4 [10.0.0.10] http:8080", p.ns, name, slice.AddressType, slice.Endpoints, slice.Ports)
	}
	ep, err := p.cs.CoreV1().Endpoints(p.ns).Get(t.Context(), "web-legacy", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("after up, Endpoints %s/web-legacy: %v", p.ns, err)
	}
	if len(ep.Subsets) != 1 || len(ep.Subsets[0].Addresses) != 1 || ep.Subsets[0].Addresses[0].IP != "10.0.0.10" ||
		len(ep.Subsets[0].Ports) != 1 || ep.Subsets[0].Ports[0].Port != 8080 {
		t.Errorf("after up, Endpoints %s/web-legacy has subsets %+v, want [10.0.0.10] http:8080", p.ns, ep.Subsets)
	}

	res = p.run(t, argv, "destroy", extraEnv...)
	res.WantChanges(t, "destroy", map[string]int{"delete": 3})
	if _, err := p.cs.DiscoveryV1().EndpointSlices(p.ns).Get(t.Context(), name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("after destroy, EndpointSlice %s/%s: err = %v, want not found", p.ns, name, err)
	}
	if _, err := p.cs.CoreV1().Endpoints(p.ns).Get(t.Context(), "web-legacy", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("after destroy, Endpoints %s/web-legacy: err = %v, want not found", p.ns, err)
	}
}

// wantPluginDownloaded checks that the engine downloaded the plugin archive of the
// release version from the release server and installed it into the project's
// PULUMI_HOME, which started empty.
func (p *userProject) wantPluginDownloaded(t *testing.T) {
	t.Helper()
	version := toolchain.ReleaseVersion(t)
	archive := "/v" + version + "/pulumi-resource-endpoints-v" + version + "-" + runtime.GOOS + "-" + runtime.GOARCH + ".tar.gz"
	requests := p.release.Requests()
	if !slices.ContainsFunc(requests, func(path string) bool { return strings.HasSuffix(path, archive) }) {
		t.Errorf("the release server was asked for %v, want the archive .../releases/download%s", requests, archive)
	}
	path := filepath.Join(p.home, "plugins", "resource-endpoints-v"+version, pluginBinary)
	info, err := os.Stat(path)
	if err != nil || info.Mode()&0o111 == 0 {
		t.Errorf("after up, the engine did not install the plugin %s (err=%v): it was not downloaded", path, err)
	}
	dirs := installedPlugins(t, p.home)
	if want := []string{"resource-endpoints-v" + version}; !slices.Equal(dirs, want) {
		t.Errorf("PULUMI_HOME/plugins holds %v, want %v", dirs, want)
	}
}

// wantPluginInstalledAhead checks that the engine ran the plugin installed into the
// project's PULUMI_HOME ahead of the program (p.installed) and downloaded nothing:
// the release server saw no request and PULUMI_HOME holds that plugin only.
func (p *userProject) wantPluginInstalledAhead(t *testing.T) {
	t.Helper()
	if requests := p.release.Requests(); len(requests) > 0 {
		t.Errorf("the engine downloaded %v, want the plugin installed ahead (%s) used", requests, p.installed)
	}
	if got, want := installedPlugins(t, p.home), []string{"resource-endpoints-v" + p.installed}; !slices.Equal(got, want) {
		t.Errorf("PULUMI_HOME/plugins holds %v, want %v", got, want)
	}
}

// installedPlugins lists the endpoints plugin directories under home/plugins.
func installedPlugins(t *testing.T, home string) []string {
	t.Helper()
	installed, err := filepath.Glob(filepath.Join(home, "plugins", "resource-endpoints-*"))
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, dir := range installed {
		if info, err := os.Stat(dir); err == nil && info.IsDir() {
			dirs = append(dirs, filepath.Base(dir))
		}
	}
	return dirs
}

// pluginServer is the plugin download URL the SDKs carry (schema.json's pluginDownloadURL).
const pluginServer = "github://api.github.com/endpoints-provider/pulumi-endpoints"
