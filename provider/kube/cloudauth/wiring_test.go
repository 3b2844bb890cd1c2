package cloudauth_test

import (
	"encoding/base64"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/endpoints-provider/pulumi-endpoints/provider/kube"
	"github.com/endpoints-provider/pulumi-endpoints/provider/kube/cloudauth"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/clouddouble"
)

var slices = schema.GroupVersionResource{Group: "discovery.k8s.io", Version: "v1", Resource: "endpointslices"}

// eksAPIServer stands for an EKS cluster named cluster: it accepts the requests whose
// token the STS double verifies for it, as the cluster's authenticator does.
func eksAPIServer(t *testing.T, sts *clouddouble.STS, cluster string) *httptest.Server {
	t.Helper()
	// (client-go sends a kubeconfig user's credentials only over TLS.)
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		token, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if _, err := sts.VerifyEKSToken(r.Context(), token, cluster); err != nil {
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = io.WriteString(w, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}`)
			return
		}
		_, _ = io.WriteString(w, `{"kind":"EndpointSliceList","apiVersion":"discovery.k8s.io/v1","metadata":{},"items":[]}`)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// eksKubeconfig is what aws eks update-kubeconfig writes, for srv (or, when nil, an
// address nothing answers).
func eksKubeconfig(srv *httptest.Server) string {
	server, ca := "https://203.0.113.10", ""
	if srv != nil {
		server = srv.URL
		ca = base64.StdEncoding.EncodeToString(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}))
	}
	return `apiVersion: v1
kind: Config
clusters:
- name: arn:aws:eks:eu-west-1:111122223333:cluster/demo
  cluster:
    server: ` + server + `
    certificate-authority-data: ` + ca + `
contexts:
- name: demo
  context: {cluster: "arn:aws:eks:eu-west-1:111122223333:cluster/demo", user: demo}
current-context: demo
users:
- name: demo
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      args: [--region, eu-west-1, eks, get-token, --cluster-name, demo, --output, json]
      command: aws
`
}

// awsOnlyEnv leaves the AWS SDK the key pair and the STS double, and PATH a directory
// with the programs of the given names (empty scripts).
func awsOnlyEnv(t *testing.T, sts *clouddouble.STS, key clouddouble.AWSKey, programs ...string) {
	t.Helper()
	dir := t.TempDir()
	for _, p := range programs {
		if err := os.WriteFile(filepath.Join(dir, p), []byte("#!/bin/sh\nexit 1\n"), 0o700); err != nil { //nolint:gosec // a test program
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", dir)
	t.Setenv("AWS_ENDPOINT_URL_STS", sts.URL)
	t.Setenv("AWS_ACCESS_KEY_ID", key.AccessKeyID)
	t.Setenv("AWS_SECRET_ACCESS_KEY", key.SecretAccessKey)
	t.Setenv("AWS_PROFILE", "")
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(dir, "config"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(dir, "credentials"))
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
}

//nolint:paralleltest // it sets PATH and the AWS environment variables
func TestClientWithoutTheAWSProgram(t *testing.T) {
	sts := clouddouble.StartSTS()
	defer sts.Close()
	key := sts.AddUser("111122223333", "ci")
	awsOnlyEnv(t, sts, key)
	api := eksAPIServer(t, sts, "demo")

	c, err := kube.NewClient(kube.Config{Kubeconfig: eksKubeconfig(api)})
	if err != nil {
		t.Fatal(err)
	}
	if c.REST.ExecProvider != nil {
		t.Fatal("the exec plugin was kept though aws is not on PATH")
	}
	if _, err := c.Dynamic.Resource(slices).Namespace("default").List(t.Context(), metav1.ListOptions{}); err != nil {
		t.Fatalf("listing with the token made in process: %v", err)
	}

	// The wrong secret: the cluster refuses the token, the error says whose it was.
	wrong := key
	wrong.SecretAccessKey = strings.Repeat("x", 40)
	awsOnlyEnv(t, sts, wrong)
	c, err = kube.NewClient(kube.Config{Kubeconfig: eksKubeconfig(api)})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Dynamic.Resource(slices).Namespace("default").List(t.Context(), metav1.ListOptions{})
	if !apierrors.IsUnauthorized(err) {
		t.Fatalf("listing with a wrong secret: %v, want Unauthorized", err)
	}
	for _, want := range []string{"EKS cluster demo", "eu-west-1", "EnvConfigCredentials",
		"check that the AWS secret access key is right", "an EKS access entry, or the aws-auth ConfigMap"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
	if !cloudauth.Refused(err) || strings.Contains(err.Error(), wrong.SecretAccessKey) {
		t.Errorf("error %q: Refused %v, want true and no secret key", err, cloudauth.Refused(err))
	}
}

//nolint:paralleltest // it sets PATH and the AWS environment variables
func TestClientModes(t *testing.T) {
	sts := clouddouble.StartSTS()
	defer sts.Close()
	key := sts.AddUser("111122223333", "ci")
	tests := []struct {
		name, mode string
		onPath     bool
		wantExec   bool
	}{
		{"automatic, aws on PATH", "", true, true},
		{"automatic, aws missing", "automatic", false, false},
		{"builtIn, aws on PATH", "builtIn", true, false},
		{"exec, aws missing", "exec", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var programs []string
			if tt.onPath {
				programs = []string{"aws"}
			}
			awsOnlyEnv(t, sts, key, programs...)
			c, err := kube.NewClient(kube.Config{Kubeconfig: eksKubeconfig(nil), CloudCredentials: tt.mode})
			if err != nil {
				t.Fatal(err)
			}
			if got := c.REST.ExecProvider != nil; got != tt.wantExec {
				t.Errorf("exec plugin kept: %v, want %v", got, tt.wantExec)
			}
		})
	}
	if _, err := kube.NewClient(kube.Config{Kubeconfig: eksKubeconfig(nil), CloudCredentials: "plugin"}); err == nil {
		t.Error("an unknown mode was accepted")
	}
}
