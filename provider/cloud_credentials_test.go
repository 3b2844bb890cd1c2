//go:build !endpoints_no_cloud_credentials

// The tests of the cloud credentials made in process, which a plugin built with the
// endpoints_no_cloud_credentials tag (for `make bench` alone) leaves to the plugin
// programs.

package provider

import (
	"encoding/base64"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The cloudCredentials setting, or its environment variable, reaches the Kubernetes
// client: an EKS kubeconfig's aws program is run (the exec plugin is kept) or its
// token is made in the provider's process (the exec plugin is replaced). CheckConfig
// refuses a value outside the choices, naming the setting and them.
func TestCloudCredentialsReachTheKubernetesClient(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	present := filepath.Join(dir, "bin", "aws")
	missing := filepath.Join(dir, "missing", "aws")
	if err := os.MkdirAll(filepath.Dir(present), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(present, []byte("#!/bin/sh\nexit 1\n"), 0o700); err != nil { //nolint:gosec // a program the test runs never
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		setting  string // empty: not set
		env      string // PULUMI_ENDPOINTS_CLOUD_CREDENTIALS
		command  string
		wantExec bool
	}{
		{"unset, the program present", "", "", present, true},
		{"unset, the program missing", "", "", missing, false},
		{"exec, the program missing", "exec", "", missing, true},
		{"builtIn, the program present", "builtIn", "", present, false},
		{"builtIn from the environment", "", "builtIn", present, false},
		{"exec from the environment", "", "exec", missing, true},
		{"the setting beats the environment", "automatic", "exec", missing, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			getenv := func(k string) string {
				if k == "PULUMI_ENDPOINTS_CLOUD_CREDENTIALS" {
					return tt.env
				}
				return ""
			}
			srv, s := newTestServer(t, getenv)
			args := map[string]property.Value{"kubeconfig": property.New(eksKubeconfig(tt.command))}
			if tt.setting != "" {
				args["cloudCredentials"] = property.New(tt.setting)
			}
			c := configuredClient(t, srv, s, property.NewMap(args))
			if got := c.REST.ExecProvider != nil; got != tt.wantExec {
				t.Errorf("the exec plugin is kept: %v, want %v", got, tt.wantExec)
			}
		})
	}

	t.Run("CheckConfig refuses another value", func(t *testing.T) {
		t.Parallel()
		srv, _ := newTestServer(t, noEnv)
		resp, err := srv.CheckConfig(p.CheckRequest{Inputs: property.NewMap(map[string]property.Value{
			"kubeconfig":       property.New(eksKubeconfig(present)),
			"cloudCredentials": property.New("BuiltIn"),
		})})
		if err != nil {
			t.Fatalf("CheckConfig: %v", err)
		}
		want := []p.CheckFailure{{
			Property: "cloudCredentials",
			Reason:   `cloudCredentials must be one of automatic, builtIn, exec, not "BuiltIn"`,
		}}
		if diff := cmp.Diff(want, resp.Failures, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("failures (-want +got):\n%s", diff)
		}
	})
}

// eksKubeconfig is a kubeconfig as aws eks update-kubeconfig writes it, its exec
// plugin running command. (client-go keeps a user's exec plugin only for a server
// reached over TLS; nothing is sent to this one.)
func eksKubeconfig(command string) string {
	return `apiVersion: v1
kind: Config
clusters:
- name: demo
  cluster:
    server: https://203.0.113.10
    insecure-skip-tls-verify: true
contexts:
- name: demo
  context: {cluster: demo, user: demo}
current-context: demo
users:
- name: demo
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      command: ` + command + `
      args: [--region, eu-west-1, eks, get-token, --cluster-name, demo, --output, json]
`
}

// A GKE kubeconfig whose plugin program is missing gets its tokens from the provider's
// own Google settings when one is set (here accessToken, from its environment
// variable): the API server receives that token.
func TestGKETokensFromTheProviderGoogleSettings(t *testing.T) {
	t.Parallel()
	var (
		mu   sync.Mutex
		seen []string
	)
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Get("Authorization"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"kind":"EndpointSliceList","apiVersion":"discovery.k8s.io/v1","metadata":{},"items":[]}`)
	}))
	t.Cleanup(srv.Close)
	ca := base64.StdEncoding.EncodeToString(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}))
	kubeconfig := `apiVersion: v1
kind: Config
clusters:
- name: gke
  cluster: {server: "` + srv.URL + `", certificate-authority-data: "` + ca + `"}
contexts:
- name: gke
  context: {cluster: gke, user: gke}
current-context: gke
users:
- name: gke
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      command: ` + filepath.Join(t.TempDir(), "gke-gcloud-auth-plugin") + `
      provideClusterInfo: true
`
	getenv := func(k string) string {
		if k == "GOOGLE_OAUTH_ACCESS_TOKEN" {
			return "ya29.from-the-environment"
		}
		return ""
	}
	srv2, s := newTestServer(t, getenv)
	c := configuredClient(t, srv2, s, property.NewMap(map[string]property.Value{"kubeconfig": property.New(kubeconfig)}))
	gvr := schema.GroupVersionResource{Group: "discovery.k8s.io", Version: "v1", Resource: "endpointslices"}
	if _, err := c.Dynamic.Resource(gvr).Namespace("default").List(t.Context(), metav1.ListOptions{}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 1 || seen[0] != "Bearer ya29.from-the-environment" { //nolint:gosec // G101: the test's made-up token
		t.Errorf("the API server received Authorization %q, want the accessToken setting's token", seen)
	}
}
