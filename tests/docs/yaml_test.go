package docs_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/controlplane"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/googledouble"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/plugin"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/pulumicli"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/snippets"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/toolchain"
)

// The Google objects the lookup examples read, served by the double.
const (
	googleToken = "docs-access-token"
	project     = "my-project"
)

// TestYAMLExamples runs `pulumi preview` of every YAML snippet of the docs (those of
// snippets.Pages, such as the README's program, too) as a Pulumi YAML program, with the
// real CLI, YAML language host and provider plugin, against a local control plane
// (the namespace "default" with the selectorless Services the EndpointsList examples
// name) and the double of the Google APIs
// holding the objects the lookups name. The YAML host type-checks each program
// against the schema, the provider checks the resources' inputs and the API server
// judges them in a dry run, and the lookups are called. A snippet with a misspelt
// property must fail its preview.
func TestYAMLExamples(t *testing.T) {
	t.Parallel()
	examples := snippets.Examples(t, "yaml")
	bad := broken(t, examples, spec.EndpointSliceToken, "addressType: IPv4", "adressType: IPv4")
	examples = append(examples, snippets.PageExamples(t, "yaml")...)
	yamlHost, provider := toolchain.Asset(t, "TEST_ASSET_PULUMI_LANGUAGE_YAML"), toolchain.Asset(t, "TEST_ASSET_PROVIDER")
	ambient, err := plugin.AmbientDir(provider)
	if err != nil {
		t.Fatal(err)
	}

	cp := controlplane.Shared(t)
	for _, name := range []string{"web-legacy", "db-legacy"} {
		svc := &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
			Spec:       corev1.ServiceSpec{ClusterIP: corev1.ClusterIPNone, Ports: []corev1.ServicePort{{Port: 80}}},
		}
		_, err := cp.Clientset().CoreV1().Services("default").Create(t.Context(), svc, metav1.CreateOptions{})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatalf("create the selectorless Service default/%s: %v", name, err)
		}
	}

	double := googledouble.StartT(t, googleToken)
	double.AddImportDataFile(project, "us-central1", "vmware-inventory", "rvtools-export", googledouble.ImportDataFile{
		DisplayName: "RVTools export", Format: "IMPORT_JOB_FORMAT_RVTOOLS_XLSX", State: "ACTIVE",
		CreateTime:     "2026-11-01T09:30:00Z",
		UploadFileInfo: &googledouble.UploadFileInfo{SignedURI: "https://storage.example.com/upload?sig=x", URIExpirationTime: "2026-11-01T10:30:00Z"},
	})
	double.SetPolicy("123456789", "partner-tenant-1", "proxy-config-1", googledouble.Policy{
		Version:  3,
		Bindings: []googledouble.Binding{{Role: "roles/beyondcorp.viewer", Members: []string{"group:network-admins@example.com"}}},
	})

	env := []string{
		"PULUMI_CONFIG_PASSPHRASE=docs",
		"KUBECONFIG=" + cp.KubeconfigPath(),
		"GOOGLE_OAUTH_ACCESS_TOKEN=" + googleToken,
		"GOOGLE_MIGRATION_CENTER_CUSTOM_ENDPOINT=" + double.URL,
		"GOOGLE_BEYONDCORP_CUSTOM_ENDPOINT=" + double.URL,
		"PATH=" + strings.Join([]string{ambient, filepath.Dir(yamlHost), os.Getenv("PATH")}, ":"),
	}
	// After the subtests: each lookup reached the double.
	t.Cleanup(func() {
		for _, want := range []string{"importDataFiles/rvtools-export", "proxyConfigs/proxy-config-1:getIamPolicy"} {
			found := false
			for _, r := range double.Requests() {
				found = found || strings.Contains(r.Path, want)
			}
			if !found {
				t.Errorf("no preview called the double for %s", want)
			}
		}
	})
	for _, e := range append(examples, bad) {
		t.Run(e.Name, func(t *testing.T) {
			t.Parallel()
			out, err := preview(t, env, e)
			switch {
			case e.Name == "broken" && err == nil:
				t.Errorf("pulumi preview accepted the broken snippet:\n%s", out)
			case e.Name == "broken" && !strings.Contains(out, "adressType"):
				t.Errorf("pulumi preview of the broken snippet does not name the misspelt property adressType:\n%s", out)
			case e.Name != "broken" && err != nil:
				t.Errorf("pulumi preview of the example %s: %v\n%s", e, err, out)
			case e.Name != "broken" && resourcesBlock.MatchString(e.Code):
				if !resourceCreate.MatchString(out) {
					t.Errorf("pulumi preview of the example %s plans no create:\n%s", e, out)
				}
			}
		})
	}
}

// resourceCreate matches a preview's line planning the create of one of the
// provider's resources.
var resourceCreate = regexp.MustCompile(`(?m)^\s*\+\s+endpoints:\S+\s+\S+\s+create`)

// resourcesBlock matches a YAML program that declares resources (not only lookups).
var resourcesBlock = regexp.MustCompile(`(?m)^resources:`)

// kubernetesType matches a YAML program that uses a resource of pulumi-kubernetes.
var kubernetesType = regexp.MustCompile(`(?m)^\s+type:\s*(kubernetes:|pulumi:providers:kubernetes)`)

// preview runs `pulumi stack init` and `pulumi preview` of a snippet, as a YAML
// project (snippets.YAMLProject), on a local file backend; it returns the preview's output.
// A snippet that uses pulumi-kubernetes's resources gets the plugin `make tools` built,
// installed as a user installs it.
func preview(t *testing.T, env []string, e snippets.Example) (string, error) {
	t.Helper()
	c := pulumicli.New(t, env...)
	if kubernetesType.MatchString(e.Code) {
		c.InstallKubernetes()
	}
	c.WriteProject(snippets.YAMLProject(e))
	if out, err := c.CombinedOutput("stack", "init", "docs"); err != nil {
		t.Fatalf("pulumi stack init: %v\n%s", err, out)
	}
	return c.CombinedOutput("preview", "--non-interactive")
}
