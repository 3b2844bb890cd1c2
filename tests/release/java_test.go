package release

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/controlplane"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/googledouble"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/toolchain"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/releases"
)

// TestJavaProgram runs testdata/java (an EndpointSlice, an EndpointsList and a Google
// lookup, with stack configuration) with plain `pulumi up`, as a Java user does:
// the real CLI and the real Java language host (runtime: java) run the program with
// Maven, against the Java SDK installed from the release's jar and pom into the
// Maven repository; PULUMI_HOME starts empty and the engine downloads the plugin the
// SDK's plugin.json names from the release. Preview, up, a quiet refresh and
// preview, an update of the port, and destroy, each checked on the API server.
func TestJavaProgram(t *testing.T) {
	t.Parallel()
	v := version(t)
	dist := asset(t, "TEST_ASSET_DIST")
	javaHost := asset(t, "TEST_ASSET_PULUMI_LANGUAGE_JAVA")
	mavenRepo := os.Getenv("TEST_ASSET_MAVEN_REPO")
	if mavenRepo == "" {
		t.Fatal("TEST_ASSET_MAVEN_REPO is not set: run the tests with `make test`")
	}
	mavenEnv := []string{"MAVEN_OPTS=-Dmaven.repo.local=" + mavenRepo + " -Djansi.noreset=true"}

	// The SDK as a Java user gets it: the published jar and pom, installed into the
	// Maven repository.
	toolchain.Run(t, t.TempDir(), mavenEnv, "mvn", "-B", "-q",
		"org.apache.maven.plugins:maven-install-plugin:3.1.3:install-file",
		"-Dfile="+filepath.Join(dist, "endpoints-"+v+".jar"), "-DpomFile="+filepath.Join(dist, "endpoints-"+v+".pom"))

	cp := controlplane.Shared(t)
	ns := cp.Namespace(t, "java")
	for _, name := range []string{"web-legacy", "db-legacy"} {
		svc := &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
			Spec:       corev1.ServiceSpec{ClusterIP: corev1.ClusterIPNone, Ports: []corev1.ServicePort{{Port: 80}}},
		}
		if _, err := cp.Clientset().CoreV1().Services(ns).Create(t.Context(), svc, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	double := startDouble(t)

	srv := releases.Serve(t, dist)
	env := append(srv.Env(), mavenEnv...)
	env = append(env,
		"KUBECONFIG="+cp.KubeconfigPath(),
		"GOOGLE_OAUTH_ACCESS_TOKEN="+lookupToken,
		"GOOGLE_MIGRATION_CENTER_CUSTOM_ENDPOINT="+double.URL,
		"GOOGLE_PROJECT=demo-project",
	)
	c := newCLI(t, env...)
	c.PrependPath(filepath.Dir(javaHost))
	toolchain.CopyDir(t, filepath.Join("testdata", "java"), c.Dir)
	pom := filepath.Join(c.Dir, "pom.xml")
	toolchain.WriteFile(t, pom, strings.Replace(toolchain.ReadFile(t, pom), "ENDPOINTS_VERSION", v, 1))

	c.RunCombined("stack", "init", "dev")
	c.RunCombined("config", "set", "endpoints:namespace", ns)
	c.RunCombined("preview")
	c.RunCombined("up", "--yes")
	if got := c.installedPlugins(); len(got) != 1 || got[0] != "resource-endpoints-v"+v {
		t.Errorf("PULUMI_HOME/plugins holds %q, want only resource-endpoints-v%s", got, v)
	}
	sliceName := strings.TrimSpace(c.RunCombined("stack", "output", "sliceName"))
	checkSlicePort(t, cp, ns, sliceName, 8080)
	for _, name := range []string{"web-legacy", "db-legacy"} {
		if _, err := cp.Clientset().CoreV1().Endpoints(ns).Get(t.Context(), name, metav1.GetOptions{}); err != nil { //nolint:staticcheck // v1 Endpoints are what the list manages
			t.Errorf("Endpoints %s/%s after up: %v", ns, name, err)
		}
	}
	if state := strings.TrimSpace(c.RunCombined("stack", "output", "dataFileState")); state == "" {
		t.Error("the lookup's state output is empty")
	}

	c.RunCombined("refresh", "--yes", "--expect-no-changes")
	c.RunCombined("preview", "--expect-no-changes")

	c.RunCombined("config", "set", "port", "8081")
	c.RunCombined("up", "--yes")
	checkSlicePort(t, cp, ns, sliceName, 8081)

	c.RunCombined("destroy", "--yes")
	if _, err := cp.Clientset().DiscoveryV1().EndpointSlices(ns).Get(t.Context(), sliceName, metav1.GetOptions{}); err == nil {
		t.Errorf("EndpointSlice %s/%s is still there after destroy", ns, sliceName)
	}
}

func checkSlicePort(t *testing.T, cp *controlplane.ControlPlane, ns, name string, port int32) {
	t.Helper()
	slice, err := cp.Clientset().DiscoveryV1().EndpointSlices(ns).Get(t.Context(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("EndpointSlice %s/%s: %v", ns, name, err)
	}
	if len(slice.Ports) != 1 || slice.Ports[0].Port == nil || *slice.Ports[0].Port != port {
		t.Errorf("EndpointSlice %s/%s has ports %v, want %d", ns, name, slice.Ports, port)
	}
}

const lookupToken = "release-access-token"

// startDouble starts a double of the Google APIs serving the examples' fixture.
func startDouble(t *testing.T) *googledouble.Server {
	t.Helper()
	return googledouble.StartT(t, lookupToken, filepath.Join(toolchain.RepoRoot(t), "examples", "fixtures", "google.json"))
}
