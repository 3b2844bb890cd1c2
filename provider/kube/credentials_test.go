package kube

import (
	"context"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
	"golang.org/x/oauth2"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/endpoints-provider/pulumi-endpoints/provider/kube/cloudauth"
)

// tlsCluster is an API server over TLS that answers every request with status and
// body, and counts the requests it gets. (client-go runs a kubeconfig's exec plugin
// for any server; the clouds' clusters are served over TLS.)
func tlsCluster(t *testing.T, status int, body string) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var requests atomic.Int32
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv, &requests
}

// execKubeconfig is a kubeconfig for srv whose user runs the exec plugin command with
// args.
func execKubeconfig(srv *httptest.Server, command string, args ...string) string {
	ca := base64.StdEncoding.EncodeToString(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}))
	doc := `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster:
    server: ` + srv.URL + `
    certificate-authority-data: ` + ca + `
contexts:
- name: x
  context: {cluster: c, user: u}
current-context: x
users:
- name: u
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      command: ` + command + `
      interactiveMode: Never
      args: [`
	for i, a := range args {
		if i > 0 {
			doc += ", "
		}
		doc += `"` + a + `"`
	}
	return doc + "]\n"
}

// unsent checks the error of a call that could not be sent for its credentials: it
// says want, not that the cluster is unreachable or that the write may have taken
// effect, and the server got no request.
func unsent(t *testing.T, op string, err error, requests *atomic.Int32, want ...string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s succeeded", op)
		return
	}
	wantMessage(t, err, want, []string{"unreachable", "broke before its answer", "may or may not", "request timeout"})
	if unreachable(err) || answerLost(err) || clusterGone(err) || inDoubt(err) || mayExist(err) || !notSent(err) {
		t.Errorf("%s: unreachable %v, answerLost %v, clusterGone %v, inDoubt %v, mayExist %v, notSent %v for %v; "+
			"want a request that was not sent", op, unreachable(err), answerLost(err), clusterGone(err), inDoubt(err),
			mayExist(err), notSent(err), err)
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("%s: the API server got %d requests", op, n)
	}
}

// A kubeconfig's credential plugin that fails (its program missing, or exiting 1) fails
// every call naming the plugin, and not as an unreachable cluster: nothing is recorded
// of a create, a refresh or a destroy with deleteUnreachable and skipUpdateUnreachable
// set fails instead of dropping or keeping the object, and a preview fails instead of
// falling back to the offline answer.
func TestCredentialPluginFailure(t *testing.T) {
	dir := t.TempDir()
	failing := filepath.Join(dir, "get-token")
	// (Written before the test goes parallel: a program written while another test
	// starts a process may not run, text file busy.)
	if err := os.WriteFile(failing, []byte("#!/bin/sh\nexit 1\n"), 0o700); err != nil { //nolint:gosec // a test plugin
		t.Fatal(err)
	}
	missingAWS := filepath.Join(dir, "absent", "aws")
	t.Parallel()
	tests := []struct {
		name    string
		command string
		args    []string
		mode    string
		want    []string
	}{
		{"program not on PATH", "pulumi-endpoints-test-no-such-plugin", nil, "",
			[]string{"credential plugin pulumi-endpoints-test-no-such-plugin failed, so no request was sent: " +
				"exec: executable pulumi-endpoints-test-no-such-plugin not found"}},
		{"program missing", filepath.Join(dir, "absent", "get-token"), nil, "",
			[]string{"credential plugin " + filepath.Join(dir, "absent", "get-token") + " failed, so no request was sent",
				"no such file or directory"}},
		{"program exits 1", failing, nil, "",
			[]string{"credential plugin " + failing + " failed, so no request was sent", "exit code 1"}},
		{"EKS's plugin missing, exec mode", missingAWS, []string{"eks", "get-token", "--cluster-name", "demo"}, "exec",
			[]string{"credential plugin " + missingAWS + " (run because cloudCredentials is exec) failed, so no " +
				"request was sent: exec: fork/exec " + missingAWS + ": no such file or directory; to have the provider " +
				"make the EKS cluster's token in its own process from the cloud's own credentials, set its " +
				"cloudCredentials setting (or PULUMI_ENDPOINTS_CLOUD_CREDENTIALS) to builtIn, or to automatic, which " +
				"runs aws only when it is on PATH"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, requests := tlsCluster(t, http.StatusOK, `{}`)
			cfg := Config{Kubeconfig: execKubeconfig(srv, tt.command, tt.args...), CloudCredentials: tt.mode,
				DeleteUnreachable: true, SkipUpdateUnreachable: true, RequestTimeout: 10 * time.Second}
			c, err := NewClient(cfg)
			if err != nil {
				t.Fatal(err)
			}
			k := kubernetesWith(t, cfg, c)
			ctx := t.Context()
			state := sliceAt(t, `{"name":"web","namespace":"ns"}`, 80)

			// (An unreachable cluster's preview answers the offline verdict and no error.)
			_, err = k.EndpointSlice().Create(ctx, p.CreateRequest{Urn: sliceURN, Properties: state, DryRun: true})
			unsent(t, "preview", err, requests, tt.want...)
			for _, r := range []struct {
				name string
				life Lifecycle
				in   property.Map
			}{{"slice", k.EndpointSlice(), state}, {"list", k.EndpointsList(), listAt(t, 80)}} {
				created, err := r.life.Create(ctx, p.CreateRequest{Urn: sliceURN, Properties: r.in})
				unsent(t, r.name+" create", err, requests, tt.want...)
				if created.ID != "" || created.PartialState != nil {
					t.Errorf("%s create recorded %q, partial state %v; want nothing", r.name, created.ID, created.PartialState)
				}
			}
			wantMessage(t, mustFail(k.EndpointSlice().Create(ctx, p.CreateRequest{Urn: sliceURN, Properties: state})),
				[]string{"create EndpointSlice ns/web: the kubeconfig's credential plugin"}, []string{`Post "`})

			read, err := k.EndpointSlice().Read(ctx, p.ReadRequest{ID: "ns/web", Urn: sliceURN, Properties: state, Inputs: state})
			unsent(t, "refresh", err, requests, tt.want...)
			if read.ID != "" {
				t.Errorf("the refresh kept the object %q", read.ID)
			}
			_, err = k.EndpointSlice().Update(ctx, p.UpdateRequest{ID: "ns/web", Urn: sliceURN, State: state,
				OldInputs: state, Inputs: sliceAt(t, `{"name":"web","namespace":"ns"}`, 81)})
			unsent(t, "update", err, requests, tt.want...)
			err = k.EndpointSlice().Delete(ctx, p.DeleteRequest{ID: "ns/web", Urn: sliceURN, Properties: state})
			unsent(t, "destroy", err, requests, tt.want...)
		})
	}
}

// mustFail is the error of a call's answer and error.
func mustFail[T any](_ T, err error) error {
	if err == nil {
		return errors.New("no error")
	}
	return err
}

// googleKubeconfig is a GKE kubeconfig for srv, as gcloud container clusters
// get-credentials writes it.
func googleKubeconfig(srv *httptest.Server) string {
	return execKubeconfig(srv, "gke-gcloud-auth-plugin")
}

// googleTokens is the provider's Google settings as a source of tokens: token, or err.
func googleTokens(token string, err error) func(context.Context, []string) (oauth2.TokenSource, string, error) {
	return func(context.Context, []string) (oauth2.TokenSource, string, error) {
		if err != nil {
			return failingTokens{err}, "the provider's credentials setting", nil
		}
		return oauth2.StaticTokenSource(&oauth2.Token{AccessToken: token, Expiry: time.Now().Add(time.Hour)}),
			"the provider's credentials setting", nil
	}
}

type failingTokens struct{ err error }

func (f failingTokens) Token() (*oauth2.Token, error) { return nil, f.err }

// A token made in the provider's process that cannot be made fails a create saying
// so, without the URL of a request that was never sent, and records nothing; one the
// cluster refuses (twice: renewed once) fails it as a 401 that names the credentials
// and what to check on the cloud, never the token.
func TestTokenMadeInProcessErrors(t *testing.T) {
	t.Parallel()
	const granted = "granted-the-token-itself"
	unauthorized := `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized",` +
		`"reason":"Unauthorized","code":401}`
	tests := []struct {
		name         string
		status       int
		tokens       func(context.Context, []string) (oauth2.TokenSource, string, error)
		requests     int32
		want         []string
		notWant      []string
		sentNoWrites bool
	}{
		{
			name: "no token", status: http.StatusOK, requests: 0,
			tokens: googleTokens("", errors.New(`oauth2: "invalid_grant" "Invalid JWT Signature."`)),
			want: []string{"create EndpointSlice ns/web: no token for the cluster could be made in the provider's " +
				"process, so no request was sent: getting a token for the GKE cluster at ",
				"with the provider's credentials setting: oauth2: \"invalid_grant\""},
			notWant: []string{"(401)", "rejected", "kubernetes credentials:"},
		},
		{
			name: "token refused", status: http.StatusUnauthorized, requests: 2,
			tokens: googleTokens(granted, nil),
			want: []string{"create EndpointSlice ns/web: the API server rejected the credentials (401): Unauthorized: " +
				"the cluster refused the token made in the provider's process for GKE cluster at ",
				"with the provider's credentials setting (renewed once and refused again); check that the Google " +
					"account is enabled and has IAM access to the cluster"},
			notWant: []string{"check the kubeconfig's user", "no token"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, requests := tlsCluster(t, tt.status, unauthorized)
			cfg := Config{Kubeconfig: googleKubeconfig(srv), CloudCredentials: "builtIn", GoogleTokens: tt.tokens,
				DeleteUnreachable: true}
			c, err := NewClient(cfg)
			if err != nil {
				t.Fatal(err)
			}
			k := kubernetesWith(t, cfg, c)
			state := sliceAt(t, `{"name":"web","namespace":"ns"}`, 80)
			created, err := k.EndpointSlice().Create(t.Context(), p.CreateRequest{Urn: sliceURN, Properties: state})
			if err == nil {
				t.Fatal("create succeeded")
			}
			t.Logf("create: %v", err)
			wantMessage(t, err, tt.want, append(tt.notWant, granted, `Post "`, "unreachable", "may or may not"))
			if created.ID != "" || created.PartialState != nil {
				t.Errorf("create recorded %q, partial state %v; want nothing", created.ID, created.PartialState)
			}
			if n := requests.Load(); n != tt.requests {
				t.Errorf("the API server got %d requests, want %d", n, tt.requests)
			}
			read, err := k.EndpointSlice().Read(t.Context(), p.ReadRequest{ID: "ns/web", Urn: sliceURN,
				Properties: state, Inputs: state})
			if err == nil || read.ID != "" || !strings.Contains(err.Error(), "GKE cluster at ") {
				t.Errorf("refresh with deleteUnreachable = %q, %v; want an error naming the cluster, nothing dropped",
					read.ID, err)
			}
		})
	}
}

// apiError and listError tell the credentials' failures apart: a plugin that failed,
// a token not made in process (first, or to replace one refused), a token made in
// process that the cluster refused, and the kubeconfig's own credentials refused.
func TestCredentialsFailureMessages(t *testing.T) {
	t.Parallel()
	const endpoint = "https://aks.example:443/apis/discovery.k8s.io/v1/namespaces/apps/endpointslices?fieldManager=x"
	sent := func(err error) error { return &url.Error{Op: "Post", URL: endpoint, Err: err} }
	notMade := errors.New("getting a token for the AKS cluster at https://aks.example:443 (server ID 6dae42f8) with " +
		"service principal 0a1b of tenant 2c3d with a client secret: AADSTS7000215: Invalid client secret provided")
	refused := apierrors.NewUnauthorized("Unauthorized: the cluster refused the token made in the provider's process " +
		"for EKS cluster demo (renewed once and refused again); check that the AWS secret access key is right")
	refused.ErrStatus.Details = &metav1.StatusDetails{Causes: []metav1.StatusCause{{Type: cloudauth.RefusedCause}}}
	aws := cloudauth.Plugin{Cloud: cloudauth.EKS, Command: "aws"}
	pluginFailed := &pluginError{
		plugin: execPlugin{command: "aws", why: "cloudCredentials is exec",
			instead: cloudauth.Instead(aws, cloudauth.Choice{Mode: cloudauth.Exec})},
		err: errors.New("getting credentials: exec: executable aws not found\n\nIt looks like you are trying to " +
			"use a client-go credential plugin that is not installed."),
	}
	tests := []struct {
		name    string
		err     error
		want    []string
		notWant []string
	}{
		{
			name: "credential plugin failed", err: sent(pluginFailed),
			want: []string{"WHAT: the kubeconfig's credential plugin aws (run because cloudCredentials is exec) failed, " +
				"so no request was sent: exec: executable aws not found; to have the provider make the EKS cluster's " +
				"token in its own process from the cloud's own credentials, set its cloudCredentials setting (or " +
				"PULUMI_ENDPOINTS_CLOUD_CREDENTIALS) to builtIn, or to automatic, which runs aws only when it is on " +
				"PATH\n\nIt looks like"},
			notWant: []string{"getting credentials", "(401)"},
		},
		{
			name: "no token made in process", err: sent(&cloudauth.CredentialsError{Err: notMade}),
			want: []string{"WHAT: no token for the cluster could be made in the provider's process, so no request was " +
				"sent: getting a token for the AKS cluster at https://aks.example:443 (server ID 6dae42f8) with service " +
				"principal 0a1b of tenant 2c3d with a client secret: AADSTS7000215"},
			notWant: []string{"(401)", "rejected", "kubernetes credentials:"},
		},
		{
			name: "no new token after a refusal", err: sent(&cloudauth.CredentialsError{Err: notMade, Renewal: true}),
			want: []string{"rejected the token made in the provider's process (401), and no new token could be made: " +
				"getting a token for the AKS cluster"},
			notWant: []string{"so no request was sent", "kubernetes credentials:"},
		},
		{
			name: "token made in process refused", err: refused,
			want: []string{"rejected the credentials (401): Unauthorized: the cluster refused the token made in the " +
				"provider's process for EKS cluster demo", "AWS secret access key"},
			notWant: []string{"check the kubeconfig's user"},
		},
		{
			name: "the kubeconfig's credentials refused", err: apierrors.NewUnauthorized("Unauthorized"),
			want: []string{"rejected the credentials (401); check the kubeconfig's user: Unauthorized"},
		},
	}
	list := kindClient{kind: endpointSliceKind, client: &Client{}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for what, got := range map[string]error{
				"create EndpointSlice apps/web": apiError("create", endpointSliceKind, objectID{namespace: "apps", name: "web"}, tt.err),
				"list endpointslices.discovery.k8s.io in namespace apps": listError(list,
					listQuery{kind: endpointSliceKind, namespace: "apps"}, tt.err),
			} {
				want := make([]string, len(tt.want))
				for i, w := range tt.want {
					want[i] = strings.ReplaceAll(w, "WHAT", what)
				}
				wantMessage(t, got, want, append(tt.notWant, `Post "`, "unreachable"))
				if !errors.Is(got, tt.err) {
					t.Errorf("%s: the message does not wrap the error", what)
				}
				var status apierrors.APIStatus
				if errors.As(tt.err, &status) != errors.As(got, &status) {
					t.Errorf("%s: the message hides or adds an API status", what)
				}
			}
		})
	}
}
