package kube

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
)

// A client without settings of its own gets schema.json's defaults of qps, burst and
// requestTimeout, and deletes propagate as its deletePropagationPolicy default says.
func TestClientDefaultsAreTheSchemas(t *testing.T) {
	t.Parallel()
	c, err := NewClient(Config{Kubeconfig: `{"apiVersion": "v1", "kind": "Config",
"clusters": [{"name": "c", "cluster": {"server": "http://127.0.0.1:1"}}],
"contexts": [{"name": "x", "context": {"cluster": "c"}}], "current-context": "x"}`})
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	vars := spec.MustLoad().Config.Variables
	timeout, err := time.ParseDuration(fmt.Sprint(vars["requestTimeout"].Default))
	if err != nil {
		t.Fatalf("schema.json's requestTimeout default: %v", err)
	}
	got := []any{float64(c.REST.QPS), float64(c.REST.Burst), c.REST.Timeout}
	want := []any{vars["qps"].Default, vars["burst"].Default, timeout}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the client's qps, burst and request timeout (-schema.json +client):\n%s", diff)
	}
	if DefaultQPS() != float64(c.REST.QPS) || DefaultBurst() != c.REST.Burst || DefaultRequestTimeout() != c.REST.Timeout {
		t.Errorf("DefaultQPS, DefaultBurst, DefaultRequestTimeout = %g, %d, %s; the client has %g, %d, %s",
			DefaultQPS(), DefaultBurst(), DefaultRequestTimeout(), c.REST.QPS, c.REST.Burst, c.REST.Timeout)
	}
	if got := DefaultDeletePolicy(); got != metav1.DeletePropagationBackground || string(got) != vars["deletePropagationPolicy"].Default {
		t.Errorf("DefaultDeletePolicy() = %q; want schema.json's default of deletePropagationPolicy, %v (Background, "+
			"the API server's own)", got, vars["deletePropagationPolicy"].Default)
	}
}

// TestKubeconfigErrorsNameTheSource checks that a kubeconfig that cannot be read names
// the setting it came from and how it was read (contents or a path), and never echoes
// contents, which may hold credentials.
func TestKubeconfigErrorsNameTheSource(t *testing.T) {
	t.Parallel()
	broken := filepath.Join(t.TempDir(), "broken.yaml")
	if err := os.WriteFile(broken, []byte("clusters: [\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(t.TempDir(), "missing.yaml")
	tests := []struct {
		name    string
		cfg     Config
		want    []string
		notWant []string
	}{
		{
			name: "contents in the setting",
			cfg:  Config{Kubeconfig: "apiVersion: v1\nclusters: [ {name: secret-token-x\n"},
			want: []string{
				"kubernetes configuration (the provider's kubeconfig setting (or KUBECONFIG, which an SDK's provider resource copies into it), read as kubeconfig contents): " +
					"the kubeconfig contents do not parse as a kubeconfig document",
				"set `endpoints:kubeconfig` to a kubeconfig file's YAML or JSON, or to its path, or unset it to use KUBECONFIG",
			},
			notWant: []string{"secret-token-x"},
		},
		{
			name: "path in the setting, not a kubeconfig",
			cfg:  Config{Kubeconfig: broken},
			want: []string{"kubernetes configuration (the provider's kubeconfig setting (or KUBECONFIG, which an SDK's provider resource copies into it), read as the path of the kubeconfig file " + broken + "): "},
		},
		{
			name: "path in the setting, missing",
			cfg:  Config{Kubeconfig: missing},
			want: []string{"kubernetes configuration (the provider's kubeconfig setting (or KUBECONFIG, which an SDK's provider resource copies into it), read as the path of the kubeconfig file " + missing + "): ",
				"no such file"},
		},
		{
			name: "KUBECONFIG, not a kubeconfig",
			cfg:  Config{KubeconfigPaths: []string{broken}},
			want: []string{"kubernetes configuration (the KUBECONFIG environment variable, read as the paths of kubeconfig files " + broken + "): "},
		},
		{
			// KUBECONFIG is a list of paths; contents put there are split at every colon.
			name: "KUBECONFIG holding contents",
			cfg: Config{KubeconfigPaths: strings.Split("apiVersion: v1\nusers:\n- name: secret-token-x\n",
				string(os.PathListSeparator))},
			want: []string{"no kubeconfig file exists (the KUBECONFIG environment variable, which holds kubeconfig contents " +
				"where it takes the paths of kubeconfig files: put the contents in the provider's kubeconfig setting instead)"},
			notWant: []string{"secret-token-x"},
		},
		{
			name: "KUBECONFIG, no file exists",
			cfg:  Config{KubeconfigPaths: []string{missing}},
			want: []string{"no kubeconfig file exists (the KUBECONFIG environment variable, read as the paths of kubeconfig files " + missing + ")",
				"set the provider's kubeconfig setting or the KUBECONFIG environment variable"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := NewClient(tt.cfg)
			if err == nil {
				t.Fatal("NewClient succeeded")
			}
			wantMessage(t, err, tt.want, tt.notWant)
		})
	}
}
