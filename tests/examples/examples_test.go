package examples

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/tools/clientcmd"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/controlplane"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/googledouble"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/registries"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/toolchain"
)

// pluginBinary is the provider plugin's executable, which no PATH entry of a user may
// hold: the engine must download it.
const pluginBinary = "pulumi-resource-endpoints"

// stepsTimeout bounds one part of an example's steps (installs and an up, or a
// destroy and the clean-up).
const stepsTimeout = 15 * time.Minute

// refreshAndPreview are the steps after `pulumi up` that must find nothing to change.
const refreshAndPreview = "pulumi refresh --yes --expect-no-changes\npulumi preview --expect-no-changes\n"

// googleToken is the access token the Google double takes.
const googleToken = "examples-access-token"

// TestExamples runs the README steps of every examples/<group>/<language> with a
// README (but C#, which TestCSharpExamples parses), each in its own namespace, home
// directory, PULUMI_HOME and backend.
func TestExamples(t *testing.T) {
	t.Parallel()
	for _, dir := range exampleDirs(t) {
		lang := filepath.Base(dir)
		if lang == "csharp" {
			continue
		}
		t.Run(filepath.ToSlash(dir), func(t *testing.T) {
			t.Parallel()
			l, ok := languages[lang]
			if !ok {
				t.Fatalf("examples/%s: no way to run a %s example here: add it to languages", dir, lang)
			}
			runExample(t, dir, l)
		})
	}
}

// exampleDirs lists the example directories, <group>/<language>, that hold a README.
func exampleDirs(t *testing.T) []string {
	t.Helper()
	readmes, err := filepath.Glob(filepath.Join(toolchain.RepoRoot(t), "examples", "*", "*", "README.md"))
	if err != nil || len(readmes) == 0 {
		t.Fatalf("no examples/<group>/<language>/README.md (err=%v)", err)
	}
	var dirs []string
	for _, r := range readmes {
		rel, err := filepath.Rel(filepath.Join(toolchain.RepoRoot(t), "examples"), filepath.Dir(r))
		if err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, rel)
	}
	return dirs
}

// user is one user's machine: a home directory, the environment the README's steps
// run with, and the example's copy they run in.
type user struct {
	dir, home string
	env       []string
	reg       *registries.Registries
}

func runExample(t *testing.T, example string, lang language) {
	src := filepath.Join(toolchain.RepoRoot(t), "examples", example)
	st, err := parseSteps(toolchain.ReadFile(t, filepath.Join(src, "README.md")),
		toolchain.ReadFile(t, filepath.Join(toolchain.RepoRoot(t), "examples", "README.md")))
	if err != nil {
		t.Fatalf("examples/%s/README.md: %v", example, err)
	}
	cp := controlplane.Shared(t)
	ns := cp.Namespace(t, "examples")
	u := newUser(t, src, cp, ns, lang)
	group := filepath.Dir(example)
	if group == "with-kubernetes" {
		u.installKubernetesPlugin(t)
	}
	if group == "google-lookups" {
		double := googledouble.StartT(t, googleToken, filepath.Join(toolchain.RepoRoot(t), "examples", "fixtures", "google.json"))
		u.env = append(u.env, googleEnv(double.URL)...)
	}

	u.bash(t, "the README's steps up to `pulumi up`", st.setup)
	u.wantPluginDownloaded(t)
	var afterCleanup func()
	if check, ok := groupChecks[group]; ok {
		afterCleanup = check(t, cp, ns, u)
	}
	u.bash(t, "refresh and preview", refreshAndPreview)
	u.bash(t, "the README's clean-up steps", st.cleanup)
	wantNothingLeft(t, cp, ns)
	if afterCleanup != nil {
		afterCleanup()
	}
}

// googleEnv points the provider's lookups at the Google double, as the Google
// examples' READMEs say to for a custom endpoint.
func googleEnv(url string) []string {
	return []string{
		"GOOGLE_OAUTH_ACCESS_TOKEN=" + googleToken,
		"GOOGLE_MIGRATION_CENTER_CUSTOM_ENDPOINT=" + url,
		"GOOGLE_BEYONDCORP_CUSTOM_ENDPOINT=" + url,
	}
}

// newUser copies the example into a new directory and makes the environment of a
// user of it: a home with a kubeconfig whose current context is the control plane
// in namespace ns, the local registries, an empty PULUMI_HOME, a local backend, and
// PATH with the pinned CLI, the YAML and Java hosts and, for a language without its
// host here, the `pulumi` that hands operations to its runner.
func newUser(t *testing.T, src string, cp *controlplane.ControlPlane, ns string, lang language) *user {
	t.Helper()
	reg := registries.Start(t, toolchain.Asset(t, "TEST_ASSET_EXAMPLES_DIST"), examplesVersion(t))
	u := &user{dir: filepath.Join(t.TempDir(), filepath.Base(src)), home: t.TempDir(), reg: reg}
	toolchain.CopyDir(t, src, u.dir)
	kubeconfig := filepath.Join(u.home, ".kube", "config")
	writeKubeconfig(t, cp.KubeconfigPath(), kubeconfig, ns)
	if lang.prepare != nil {
		lang.prepare(t, reg)
	}

	cli := toolchain.Asset(t, "TEST_ASSET_PULUMI")
	// The pinned kubectl comes first, whatever kubectl the machine has.
	path := []string{filepath.Dir(toolchain.Asset(t, "TEST_ASSET_KUBECTL")), filepath.Dir(cli),
		filepath.Dir(toolchain.Asset(t, "TEST_ASSET_PULUMI_LANGUAGE_YAML")),
		filepath.Dir(toolchain.Asset(t, "TEST_ASSET_PULUMI_LANGUAGE_JAVA"))}
	if lang.runner != nil {
		path = append([]string{writeShim(t, lang.runner(t, u.dir, cli), cli)}, path...)
	}
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if _, err := os.Stat(filepath.Join(dir, pluginBinary)); err != nil {
			path = append(path, dir)
		}
	}
	backend := t.TempDir()
	u.env = append(reg.UserEnv(t, u.home),
		"PATH="+strings.Join(path, string(os.PathListSeparator)),
		"KUBECONFIG="+kubeconfig,
		"PULUMI_HOME="+filepath.Join(u.home, ".pulumi"),
		"PULUMI_BACKEND_URL=file://"+backend,
		"PULUMI_CONFIG_PASSPHRASE=examples",
		// What a user answers when pulumi up, destroy and stack rm ask for confirmation.
		"PULUMI_SKIP_CONFIRMATIONS=true",
		"PULUMI_SKIP_UPDATE_CHECK=true",
		"PULUMI_DIY_BACKEND_NO_LEGACY_WARNING=true",
		"NO_COLOR=1",
	)
	return u
}

// writeKubeconfig writes to dst the kubeconfig at src with its current context's
// namespace set to ns: a user's kubeconfig, in which the objects and the Services go
// to the context's namespace.
func writeKubeconfig(t *testing.T, src, dst, ns string) {
	t.Helper()
	cfg, err := clientcmd.LoadFromFile(src)
	if err != nil {
		t.Fatal(err)
	}
	ctx, ok := cfg.Contexts[cfg.CurrentContext]
	if !ok {
		t.Fatalf("kubeconfig %s has no current context", src)
	}
	ctx.Namespace = ns
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := clientcmd.WriteToFile(*cfg, dst); err != nil {
		t.Fatal(err)
	}
}

// bash runs script with bash in the example's directory, stopping at the first
// failing command, and logs how long it took and what it printed.
func (u *user) bash(t *testing.T, what, script string) {
	t.Helper()
	out := runBash(t, what, u.dir, u.env, "-euxo", script)
	// Shown with -v (make example), and for a failing test.
	t.Logf("%s\n%s", what, out)
}

// runBash runs script with bash and flags in dir, with env added to the test's
// environment, within stepsTimeout; it fails t when a command fails, logs how long it
// took and returns what it printed.
func runBash(t *testing.T, what, dir string, env []string, flags, script string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), stepsTimeout)
	defer cancel()
	start := time.Now()
	out, err := toolchain.Command(ctx, dir, env, "bash", flags, "pipefail", "-c", script)
	if err != nil {
		t.Fatalf("%s: %v\n%s", what, err, out)
	}
	t.Logf("%s: %s", what, time.Since(start).Round(100*time.Millisecond))
	return out
}

// wantPluginDownloaded checks that the engine downloaded the plugin of the examples'
// version from the release server into the user's PULUMI_HOME, which started empty.
func (u *user) wantPluginDownloaded(t *testing.T) {
	t.Helper()
	v := u.reg.Version
	archive := fmt.Sprintf("/v%s/%s-v%s-%s-%s.tar.gz", v, pluginBinary, v, runtime.GOOS, runtime.GOARCH)
	if requests := u.reg.Plugin.Requests(); !slices.ContainsFunc(requests, func(p string) bool { return strings.HasSuffix(p, archive) }) {
		t.Errorf("the release server was asked for %v, want the archive .../releases/download%s", requests, archive)
	}
	got := toolchain.FileNames(t, filepath.Join(u.home, ".pulumi", "plugins"))
	if !slices.Contains(got, "resource-endpoints-v"+v) {
		t.Errorf("PULUMI_HOME/plugins holds %v, want resource-endpoints-v%s", got, v)
	}
}
