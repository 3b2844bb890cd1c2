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
	"strings"
	"sync/atomic"
	"testing"
	"time"

	p "github.com/pulumi/pulumi-go-provider"
	"golang.org/x/oauth2"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/endpoints-provider/pulumi-endpoints/provider/kube/cloudauth"
)

// tlsCluster is an API server over TLS that answers every request with status and
// body, and counts the requests it gets.
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

// apiError and listError tell the credentials' failures apart: a token not made in
// process (first, or to replace one refused), a token made in process that the
// cluster refused, and the kubeconfig's own credentials refused.
func TestCredentialsFailureMessages(t *testing.T) {
	t.Parallel()
	const endpoint = "https://aks.example:443/apis/discovery.k8s.io/v1/namespaces/apps/endpointslices?fieldManager=x"
	sent := func(err error) error { return &url.Error{Op: "Post", URL: endpoint, Err: err} }
	notMade := errors.New("getting a token for the AKS cluster at https://aks.example:443 (server ID 6dae42f8) with " +
		"service principal 0a1b of tenant 2c3d with a client secret: AADSTS7000215: Invalid client secret provided")
	refused := apierrors.NewUnauthorized("Unauthorized: the cluster refused the token made in the provider's process " +
		"for EKS cluster demo (renewed once and refused again); check that the AWS secret access key is right")
	refused.ErrStatus.Details = &metav1.StatusDetails{Causes: []metav1.StatusCause{{Type: cloudauth.RefusedCause}}}
	tests := []struct {
		name    string
		err     error
		want    []string
		notWant []string
	}{
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
