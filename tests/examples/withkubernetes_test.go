package examples

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/controlplane"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/pulumicli"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/toolchain"
)

// withKubernetesInstalls are the steps that install the dependencies of each program
// of testdata/with-kubernetes, as its user runs them.
var withKubernetesInstalls = map[string]string{
	"typescript": "npm install\n",
	"python":     "python3 -m venv venv\nvenv/bin/pip install -r requirements.txt\n",
	"go":         "go mod tidy\n",
}

// TestProgramsWithKubernetes runs the programs of testdata/with-kubernetes, one per
// language, as their users run them (see newUser), each in its own namespace: a
// program that makes its cluster, its Namespace and two selectorless Services with
// pulumi-kubernetes (the SDK of the version `make tools` built, from its public
// registry, and that plugin), and the Services' EndpointSlice and EndpointsList with
// this provider, one kubeconfig given to both providers. The kubeconfig comes from the
// resource that stands for the cluster, so the first preview has none: the preview
// succeeds and writes nothing. Then `pulumi up`; the objects on the API server;
// refresh and preview find nothing to change; one `up` that changes the Services' port
// and the endpoints' port updates every object in place; `destroy` leaves nothing.
func TestProgramsWithKubernetes(t *testing.T) {
	t.Parallel()
	for _, lang := range slices.Sorted(maps.Keys(withKubernetesInstalls)) {
		t.Run(lang, func(t *testing.T) {
			t.Parallel()
			testProgramWithKubernetes(t, lang)
		})
	}
}

func testProgramWithKubernetes(t *testing.T, lang string) {
	cp := controlplane.Shared(t)
	ns := cp.Namespace(t, "withk8s")
	src := filepath.Join(toolchain.RepoRoot(t), "tests", "examples", "testdata", "with-kubernetes", lang)
	u := newUser(t, src, cp, ns, languages[lang])
	u.installKubernetesPlugin(t)
	u.bash(t, "install and stack init", withKubernetesInstalls[lang]+
		"pulumi stack init dev\npulumi config set --secret kubeconfig \"$(cat \"$KUBECONFIG\")\"\n")

	u.bash(t, "preview without a kubeconfig", "pulumi preview\n")
	if got := programConfigMaps(t, cp, ns); len(got) > 0 {
		t.Errorf("the preview made the ConfigMaps %v in %s", got, ns)
	}

	u.bash(t, "up", "pulumi up --yes\n")
	out := u.withKubernetesOutputs(t)
	wantWithKubernetesObjects(t, cp, out, 80, 8080)
	before := cp.ServiceEndpointsUIDs(t, out.Namespace, []string{out.Web, out.Legacy}, out.WebSlice, out.Legacy)
	if got := programConfigMaps(t, cp, ns); len(got) != 1 || !strings.HasPrefix(got[0], "cluster-") {
		t.Errorf("after up, namespace %s holds the ConfigMaps %v, want the cluster's (cluster-<random>)", ns, got)
	}

	u.bash(t, "refresh and preview", refreshAndPreview)

	u.bash(t, "the ports' edit", "pulumi config set port 81\npulumi config set backendPort 8081\npulumi up --yes\n")
	if got := u.withKubernetesOutputs(t); got != out {
		t.Errorf("the edit of the ports changed the outputs from %+v to %+v", out, got)
	}
	wantWithKubernetesObjects(t, cp, out, 81, 8081)
	if got := cp.ServiceEndpointsUIDs(t, out.Namespace, []string{out.Web, out.Legacy}, out.WebSlice, out.Legacy); got != before {
		t.Errorf("the edit of the ports recreated objects: uids %s, were %s", got, before)
	}

	u.bash(t, "destroy", "pulumi destroy --yes\n")
	wantNothingLeft(t, cp, out.Namespace)
	wantNamespaceGone(t, cp, out.Namespace)
	if got := programConfigMaps(t, cp, ns); len(got) > 0 {
		t.Errorf("after destroy, namespace %s holds the ConfigMaps %v", ns, got)
	}
}

// wantWithKubernetesExample checks the objects of examples/with-kubernetes, in the
// Namespace the program made, and after the clean-up that the Namespace is gone.
func wantWithKubernetesExample(t *testing.T, cp *controlplane.ControlPlane, _ string, u *user) func() {
	t.Helper()
	out := u.withKubernetesOutputs(t)
	wantWithKubernetesObjects(t, cp, out, 80, 8080)
	return func() {
		wantNothingLeft(t, cp, out.Namespace)
		wantNamespaceGone(t, cp, out.Namespace)
	}
}

// installKubernetesPlugin installs the pulumi-kubernetes plugin that `make tools`
// built into the user's PULUMI_HOME, under the version its SDKs ask for: what
// `pulumi up` would download from its GitHub releases, which cannot be reached here.
func (u *user) installKubernetesPlugin(t *testing.T) {
	t.Helper()
	pulumicli.New(t, u.env...).InstallKubernetes()
}

// withKubernetesOutputs are the stack outputs of a program with pulumi-kubernetes.
type withKubernetesOutputs struct {
	Namespace string `json:"namespaceName"`
	Web       string `json:"webName"`
	WebSlice  string `json:"webSliceName"`
	Legacy    string `json:"legacyName"`
}

// withKubernetesOutputs reads the stack's outputs with the pulumi CLI.
func (u *user) withKubernetesOutputs(t *testing.T) withKubernetesOutputs {
	t.Helper()
	raw, err := toolchain.Command(t.Context(), u.dir, u.env, toolchain.Asset(t, "TEST_ASSET_PULUMI"), "stack", "output", "--json", "--show-secrets")
	if err != nil {
		t.Fatalf("pulumi stack output: %v\n%s", err, raw)
	}
	var out withKubernetesOutputs
	if err := json.Unmarshal([]byte(raw), &out); err != nil {
		t.Fatalf("stack outputs %s: %v", raw, err)
	}
	if out.Namespace == "" || out.Web == "" || out.WebSlice == "" || out.Legacy == "" {
		t.Fatalf("a stack output is empty: %s", raw)
	}
	return out
}

// wantWithKubernetesObjects checks the objects of a program with pulumi-kubernetes:
// its two Services, selectorless, with the port named http; the slice of web,
// labelled with web's name, and the Endpoints of legacy with their mirrored slice,
// on backendPort.
func wantWithKubernetesObjects(t *testing.T, cp *controlplane.ControlPlane, out withKubernetesOutputs, port, backendPort int) {
	t.Helper()
	for _, name := range []string{out.Web, out.Legacy} {
		svc, err := cp.Clientset().CoreV1().Services(out.Namespace).Get(t.Context(), name, metav1.GetOptions{})
		if err != nil {
			t.Fatalf("get the Service %s/%s: %v", out.Namespace, name, err)
		}
		got := fmt.Sprintf("selector %v ports %d", svc.Spec.Selector, len(svc.Spec.Ports))
		if len(svc.Spec.Ports) == 1 {
			got += fmt.Sprintf(" %s:%d", svc.Spec.Ports[0].Name, svc.Spec.Ports[0].Port)
		}
		if want := fmt.Sprintf("selector map[] ports 1 http:%d", port); got != want {
			t.Errorf("the Service %s/%s has %s, want %s", out.Namespace, name, got, want)
		}
	}
	wantObjects(t, cp, out.Namespace, map[string]string{
		"EndpointSlice " + out.Web:     fmt.Sprintf("10.0.0.10,10.0.0.11 notReady - http:%d", backendPort),
		"Endpoints " + out.Legacy:      fmt.Sprintf("10.0.1.10 notReady - http:%d", backendPort),
		"mirrored slice " + out.Legacy: fmt.Sprintf("10.0.1.10 notReady - http:%d", backendPort),
	})
}

// programConfigMaps returns the sorted names of the ConfigMaps of ns but the
// cluster's CA bundle (kube-root-ca.crt), which a controller puts in every namespace.
func programConfigMaps(t *testing.T, cp *controlplane.ControlPlane, ns string) []string {
	t.Helper()
	list, err := cp.Clientset().CoreV1().ConfigMaps(ns).List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatalf("list the ConfigMaps of %s: %v", ns, err)
	}
	var names []string
	for _, c := range list.Items {
		if c.Name != "kube-root-ca.crt" {
			names = append(names, c.Name)
		}
	}
	slices.Sort(names)
	return names
}

// wantNamespaceGone waits until the namespace ns is gone from the API server.
func wantNamespaceGone(t *testing.T, cp *controlplane.ControlPlane, ns string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), mirrorTimeout)
	defer cancel()
	for {
		_, err := cp.Clientset().CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("after destroy, the namespace %s is still there (err=%v)", ns, err)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// kubernetesPins find, in each kind of file, the version of pulumi-kubernetes's SDK a
// program or a README names.
var kubernetesPins = map[string]*regexp.Regexp{
	"package.json":     regexp.MustCompile(`"@pulumi/kubernetes":\s*"([^"]*)"`),
	"requirements.txt": regexp.MustCompile(`(?m)^pulumi-kubernetes\s*==\s*(\S+)`),
	"go.mod":           regexp.MustCompile(`github\.com/pulumi/pulumi-kubernetes/sdk/v4 v(\S+)`),
	".md":              regexp.MustCompile("@pulumi/kubernetes(?:@|`? )(\\d[^\\s`,]*)"),
}

// TestKubernetesSDKPinned checks that every program, example and page that names a
// version of pulumi-kubernetes's SDK names the version of the plugin `make tools`
// builds (TEST_ASSET_PULUMI_KUBERNETES_VERSION): an SDK of another version would ask
// the engine for a plugin that the tests do not run.
func TestKubernetesSDKPinned(t *testing.T) {
	t.Parallel()
	want := pulumicli.KubernetesVersion(t)
	root := toolchain.RepoRoot(t)
	var files []string
	for _, pattern := range []string{"README.md", "docs/guides/with-kubernetes.md", "examples/with-kubernetes/*/*",
		"tests/examples/testdata/with-kubernetes/*/*"} {
		matches, err := filepath.Glob(filepath.Join(root, pattern))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, matches...)
	}
	found := 0
	for _, path := range files {
		re := kubernetesPins[filepath.Base(path)]
		if re == nil {
			re = kubernetesPins[filepath.Ext(path)]
		}
		if re == nil {
			continue
		}
		for _, m := range re.FindAllStringSubmatch(toolchain.ReadFile(t, path), -1) {
			found++
			if m[1] != want {
				t.Errorf("%s names pulumi-kubernetes %s, want %s (the plugin `make tools` builds)", path, m[1], want)
			}
		}
	}
	if found < 6 {
		t.Errorf("found %d pins of pulumi-kubernetes in %d files, want at least 6 (README, guide, example, three programs)", found, len(files))
	}
}
