package provider

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blang/semver"
	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi-go-provider/integration"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/property"

	"github.com/endpoints-provider/pulumi-endpoints/provider/internal/interrupt"
	"github.com/endpoints-provider/pulumi-endpoints/provider/kube"
	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
)

// newTestServer runs the provider behind pulumi-go-provider's in-process gRPC server.
func newTestServer(t *testing.T, getenv func(string) string) (integration.Server, *server) {
	t.Helper()
	s := newServer(t.Context(), getenv)
	srv, err := integration.NewServer(t.Context(), Name, semver.MustParse("0.0.0-dev"),
		integration.WithProvider(s.provider()))
	if err != nil {
		t.Fatalf("starting the provider: %v", err)
	}
	return srv, s
}

func noEnv(string) string { return "" }

// configuredClient configures the provider with args and returns its Kubernetes
// client, failing the test if either fails.
func configuredClient(t *testing.T, srv integration.Server, s *server, args property.Map) *kube.Client {
	t.Helper()
	if err := srv.Configure(p.ConfigureRequest{Args: args}); err != nil {
		t.Fatalf("Configure: %v", err)
	}
	c, err := s.kube.Client(t.Context())
	if err != nil {
		t.Fatalf("kube.Client: %v", err)
	}
	return c
}

func TestGetSchemaServesEmbeddedSchemaWithVersion(t *testing.T) {
	t.Parallel()
	srv, _ := newTestServer(t, noEnv)
	resp, err := srv.GetSchema(p.GetSchemaRequest{})
	if err != nil {
		t.Fatalf("GetSchema: %v", err)
	}
	var doc struct {
		Name      string                     `json:"name"`
		Version   string                     `json:"version"`
		Resources map[string]json.RawMessage `json:"resources"`
		Functions map[string]json.RawMessage `json:"functions"`
	}
	if err := json.Unmarshal([]byte(resp.Schema), &doc); err != nil {
		t.Fatalf("schema does not decode: %v", err)
	}
	if doc.Name != Name || doc.Version != Version {
		t.Errorf("name/version = %q/%q, want %q/%q", doc.Name, doc.Version, Name, Version)
	}
	for _, tok := range []string{spec.EndpointsListToken, spec.EndpointSliceToken} {
		if _, ok := doc.Resources[tok]; !ok {
			t.Errorf("resource %s missing from the served schema", tok)
		}
	}
	for _, tok := range []string{spec.ImportDataFileToken, spec.ProxyConfigIamPolicyToken} {
		if _, ok := doc.Functions[tok]; !ok {
			t.Errorf("function %s missing from the served schema", tok)
		}
	}
}

func TestUnknownTokensFailClearly(t *testing.T) {
	t.Parallel()
	srv, _ := newTestServer(t, noEnv)
	urn := resource.NewURN("stack", "project", "", "endpoints:core/v1:Nope", "x")

	_, err := srv.Create(p.CreateRequest{Urn: urn, Properties: property.Map{}})
	if err == nil || !strings.Contains(err.Error(), `unknown resource type "endpoints:core/v1:Nope"`) {
		t.Errorf("Create of an unknown type: err = %v, want it to name the type", err)
	}
	_, err = srv.Check(p.CheckRequest{Urn: urn, Inputs: property.Map{}})
	if err == nil || !strings.Contains(err.Error(), "unknown resource type") {
		t.Errorf("Check of an unknown type: err = %v", err)
	}
	_, err = srv.Invoke(p.InvokeRequest{Token: "endpoints:nope/v1:getThing", Args: property.Map{}})
	if err == nil || !strings.Contains(err.Error(), `unknown function "endpoints:nope/v1:getThing"`) {
		t.Errorf("Invoke of an unknown token: err = %v, want it to name the token", err)
	}
}

func TestCheckConfigMarksSecretsAndRejectsWrongKinds(t *testing.T) {
	t.Parallel()
	srv, _ := newTestServer(t, noEnv)
	resp, err := srv.CheckConfig(p.CheckRequest{Inputs: property.NewMap(map[string]property.Value{
		"accessToken": property.New("ya29.secret"),
		"context":     property.New(true),
	})})
	if err != nil {
		t.Fatalf("CheckConfig: %v", err)
	}
	if !resp.Inputs.Get("accessToken").Secret() {
		t.Error("accessToken is not marked secret")
	}
	if len(resp.Failures) != 1 || resp.Failures[0].Property != "context" {
		t.Errorf("failures = %+v, want one for context", resp.Failures)
	}
}

// Configure reads no kubeconfig: a program that only calls Google lookups needs none.
// The Kubernetes client is built on first use, and its error names the file.
func TestKubernetesClientIsBuiltOnFirstUse(t *testing.T) {
	t.Parallel()
	missing := filepath.Join(t.TempDir(), "no-such-kubeconfig")
	srv, s := newTestServer(t, noEnv)
	err := srv.Configure(p.ConfigureRequest{Args: property.NewMap(map[string]property.Value{
		"kubeconfig": property.New(missing),
		"project":    property.New("p"),
	})})
	if err != nil {
		t.Fatalf("Configure with an unreadable kubeconfig failed eagerly: %v", err)
	}
	_, err = s.kube.Client(t.Context())
	if err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("kube.Client: err = %v, want it to name %s", err, missing)
	}
}

func TestKubernetesNamespaceDefaults(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	kubeconfig := `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: {server: "https://127.0.0.1:6443"}
users:
- name: u
  user: {token: "t"}
contexts:
- name: with-ns
  context: {cluster: c, user: u, namespace: team-a}
- name: without-ns
  context: {cluster: c, user: u}
current-context: with-ns
`
	path := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(path, []byte(kubeconfig), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args map[string]property.Value
		env  map[string]string
		want string
	}{
		{"context namespace", map[string]property.Value{"kubeconfig": property.New(path)}, nil, "team-a"},
		{"inline contents", map[string]property.Value{"kubeconfig": property.New(kubeconfig)}, nil, "team-a"},
		{"from KUBECONFIG", nil, map[string]string{"KUBECONFIG": path}, "team-a"},
		{"provider namespace wins", map[string]property.Value{
			"kubeconfig": property.New(path), "namespace": property.New("explicit"),
		}, nil, "explicit"},
		{"default when the context has none", map[string]property.Value{
			"kubeconfig": property.New(path), "context": property.New("without-ns"),
		}, nil, "default"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, s := newTestServer(t, func(k string) string { return tt.env[k] })
			c := configuredClient(t, srv, s, property.NewMap(tt.args))
			if c.Namespace != tt.want {
				t.Errorf("namespace = %q, want %q", c.Namespace, tt.want)
			}
			if !strings.HasPrefix(c.REST.UserAgent, "pulumi-resource-endpoints/") {
				t.Errorf("user agent = %q, want the provider's", c.REST.UserAgent)
			}
		})
	}
}

// The engine's first Cancel leaves the operations in flight running (their waits end,
// see package interrupt) and refuses new ones; its second ends them all at once.
func TestCancelInTwoSteps(t *testing.T) {
	t.Parallel()
	s := newServer(t.Context(), noEnv)
	ctx, done, err := s.scope(t.Context(), true, "the create of EndpointSlice a")
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	if err := s.cancelAll(t.Context()); err != nil {
		t.Fatal(err)
	}
	if ctx.Err() != nil {
		t.Fatalf("the first Cancel ended the operation in flight: %v", context.Cause(ctx))
	}
	if !interrupt.Cancelling(ctx) {
		t.Error("the operation in flight does not see that the engine is cancelling")
	}
	_, _, err = s.scope(t.Context(), true, "the create of EndpointSlice b")
	if !interrupt.IsNotStarted(err) || !strings.Contains(err.Error(), "the create of EndpointSlice b was not started") {
		t.Errorf("an operation after Cancel: %v, want it not started", err)
	}
	if err := s.cancelAll(t.Context()); err != nil {
		t.Fatal(err)
	}
	<-ctx.Done()
	if !errors.Is(context.Cause(ctx), errCanceled) {
		t.Errorf("cause = %v, want %v", context.Cause(ctx), errCanceled)
	}
}
