package cloudauth_test

import (
	"context"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi-go-provider/integration"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/common/tokens"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/clouddouble"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/controlplane"
)

// deployerRole's ClusterRole and its binding to every mapped user.
const clusterRole = "cloud-deployer"

var rbacOnce struct {
	sync.Once
	err error
}

// cluster returns the shared control plane, with every mapped user bound to
// clusterRole and authorized by the API server.
func cluster(t *testing.T) *controlplane.ControlPlane {
	t.Helper()
	cp := controlplane.Shared(t)
	rbacOnce.Do(func() { rbacOnce.err = bindUsers(t.Context(), cp) })
	if rbacOnce.err != nil {
		t.Fatalf("bind the clouds' users: %v", rbacOnce.err)
	}
	return cp
}

// bindUsers lets every user of users manage EndpointSlices in every namespace, and
// waits until the API server's authorizer says so.
func bindUsers(ctx context.Context, cp *controlplane.ControlPlane) error {
	cs := cp.Clientset()
	role := &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: clusterRole},
		Rules: []rbacv1.PolicyRule{{
			APIGroups: []string{"discovery.k8s.io"}, Resources: []string{"endpointslices"},
			Verbs: []string{"get", "list", "watch", "create", "update", "patch", "delete"},
		}},
	}
	if _, err := cs.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil {
		return err
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: clusterRole},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: clusterRole},
	}
	for u := range users {
		binding.Subjects = append(binding.Subjects, rbacv1.Subject{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: u})
	}
	if _, err := cs.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for u := range users {
		for {
			review := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{User: u,
				ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: "create", Group: "discovery.k8s.io", Resource: "endpointslices"}}}
			got, err := cs.AuthorizationV1().SubjectAccessReviews().Create(ctx, review, metav1.CreateOptions{})
			if err == nil && got.Status.Allowed {
				break
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(50 * time.Millisecond):
			}
		}
	}
	return nil
}

// kubeconfig is a kubeconfig for cp whose cluster, context and user are named name
// and whose user is user (an exec block, indented as the tools write it).
func kubeconfig(cp *controlplane.ControlPlane, name, user string) []byte {
	rc := cp.RESTConfig()
	return []byte(`apiVersion: v1
clusters:
- cluster:
    certificate-authority-data: ` + base64.StdEncoding.EncodeToString(rc.CAData) + `
    server: ` + rc.Host + `
  name: ` + name + `
contexts:
- context:
    cluster: ` + name + `
    user: ` + name + `
  name: ` + name + `
current-context: ` + name + `
kind: Config
preferences: {}
users:
- name: ` + name + `
  user:
` + user)
}

// The kubeconfigs each cloud's tools write.

// gkeKubeconfig is what gcloud container clusters get-credentials demo writes.
func gkeKubeconfig(cp *controlplane.ControlPlane) []byte {
	return kubeconfig(cp, "gke_double-project_europe-west1-b_demo", `    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      command: gke-gcloud-auth-plugin
      installHint: Install gke-gcloud-auth-plugin for use with kubectl by following
        https://cloud.google.com/kubernetes-engine/docs/how-to/cluster-access-for-kubectl#install_plugin
      provideClusterInfo: true
`)
}

// eksKubeconfig is what aws eks update-kubeconfig --name demo --region eu-west-1
// writes, with --role-arn role when role is not empty.
func eksKubeconfig(cp *controlplane.ControlPlane, role string) []byte {
	roleArgs := ""
	if role != "" {
		roleArgs = "      - --role-arn\n      - " + role + "\n"
	}
	return kubeconfig(cp, "arn:aws:eks:eu-west-1:"+awsAccount+":cluster/"+eksCluster, `    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      args:
      - --region
      - eu-west-1
      - eks
      - get-token
      - --cluster-name
      - `+eksCluster+`
      - --output
      - json
`+roleArgs+`      command: aws
`)
}

// eksProfileKubeconfig is what aws --profile profile eks update-kubeconfig --name
// demo --region eu-west-1 writes: the profile is in the exec block's environment.
func eksProfileKubeconfig(cp *controlplane.ControlPlane, profile string) []byte {
	return append(eksKubeconfig(cp, ""), `      env:
      - name: AWS_PROFILE
        value: `+profile+`
`...)
}

// aksKubeconfig is what az aks get-credentials --resource-group rg --name demo, then
// kubelogin convert-kubeconfig -l login, write: the spn login keeps the Azure CLI's
// client ID of the first (AAD_SERVICE_PRINCIPAL_CLIENT_ID names the service
// principal), workloadidentity takes everything from the environment.
func aksKubeconfig(cp *controlplane.ControlPlane, login string) []byte {
	args := `      - get-token
      - --login
      - workloadidentity
      - --server-id
      - 6dae42f8-4368-4678-94ff-3960e28e3630
`
	if login == "spn" {
		args = `      - get-token
      - --login
      - spn
      - --server-id
      - 6dae42f8-4368-4678-94ff-3960e28e3630
      - --client-id
      - 80faf920-1908-4b52-b5ef-a8e7bedfc67a
      - --tenant-id
      - ` + azureTenant + `
      - --environment
      - AzurePublicCloud
`
	}
	return kubeconfig(cp, "clusterUser_rg_demo", `    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      args:
`+args+`      command: kubelogin
      env: null
      installHint: |2

        kubelogin is not installed which is required to connect to AAD enabled cluster.

        To learn more, please go to https://aka.ms/aks/kubelogin
      interactiveMode: IfAvailable
      provideClusterInfo: false
`)
}

// cloudVariables are every variable of the clouds' tools and libraries the tests set;
// isolate clears them all.
var cloudVariables = []string{
	"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE", "AWS_DEFAULT_PROFILE",
	"AWS_REGION", "AWS_DEFAULT_REGION", "AWS_ROLE_ARN", "AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_STS",
	"GOOGLE_APPLICATION_CREDENTIALS", "CLOUDSDK_CONFIG", "GCE_METADATA_HOST", "GCE_METADATA_IP",
	"AZURE_CLIENT_ID", "AZURE_TENANT_ID", "AZURE_CLIENT_SECRET", "AZURE_CLIENT_CERTIFICATE_PATH", "AZURE_FEDERATED_TOKEN_FILE",
	"AZURE_AUTHORITY_HOST", "AAD_SERVICE_PRINCIPAL_CLIENT_ID", "AAD_SERVICE_PRINCIPAL_CLIENT_SECRET",
	"AAD_SERVICE_PRINCIPAL_CLIENT_CERTIFICATE",
}

// isolate gives the test a machine without the plugin programs (PATH an empty
// directory), without the clouds' variables and with an empty HOME (no ~/.aws,
// ~/.config/gcloud or ~/.azure), and the provider's default cloudCredentials mode,
// then sets vars.
func isolate(t *testing.T, vars map[string]string) {
	t.Helper()
	t.Setenv("PATH", t.TempDir())
	home := t.TempDir()
	t.Setenv("HOME", home)
	for _, name := range cloudVariables {
		t.Setenv(name, "")
	}
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(home, "no-aws-config"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(home, "no-aws-credentials"))
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	t.Setenv("PULUMI_ENDPOINTS_CLOUD_CREDENTIALS", "")
	for name, value := range vars {
		t.Setenv(name, value)
	}
}

// fakePlugin puts first on PATH a program named name that stands for a cloud's
// plugin program: it adds its arguments as a line to the file ran, which it
// creates, and prints an ExecCredential with a token of pluginTokenPrefix and its
// process ID. The token's expiry is already past: client-go, which keeps a plugin's
// credentials for the whole process, runs the program for every request, and the
// API server, which keeps the tokens it took for 10 s, sees a new token each time.
// (The program runs with the test's PATH: it uses only the shell's builtins.)
func fakePlugin(t *testing.T, name string) (ran string) {
	t.Helper()
	dir := t.TempDir()
	ran = filepath.Join(dir, "ran")
	script := `#!/bin/sh
echo "$*" >> '` + ran + `'
echo '{"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","status":{"token":"` +
		pluginTokenPrefix + `'$$'","expirationTimestamp":"` + time.Now().UTC().Format(time.RFC3339) + `"}}'
`
	if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o700); err != nil { //nolint:gosec // G306: a program, run by the test
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return ran
}

// awsVariables are the environment of a CI job with key's access key pair, and the
// STS endpoint pointed at the double.
func awsVariables(key clouddouble.AWSKey) map[string]string {
	return map[string]string{"AWS_ACCESS_KEY_ID": key.AccessKeyID, "AWS_SECRET_ACCESS_KEY": key.SecretAccessKey,
		"AWS_ENDPOINT_URL_STS": sts.URL}
}

// awsProfileVariables are a machine's whose AWS credentials are in its shared
// configuration and credentials files: profile developer with profileUser's key, and
// profile deployer that assumes deployerRole with developer's. No key is in the
// environment; the STS endpoint is pointed at the double.
func awsProfileVariables(t *testing.T) map[string]string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"config": `[profile developer]
region = eu-west-1

[profile deployer]
role_arn = ` + deployerRole + `
source_profile = developer
`,
		"credentials": `[developer]
aws_access_key_id = ` + profileUser.AccessKeyID + `
aws_secret_access_key = ` + profileUser.SecretAccessKey + `
`,
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return map[string]string{"AWS_CONFIG_FILE": filepath.Join(dir, "config"),
		"AWS_SHARED_CREDENTIALS_FILE": filepath.Join(dir, "credentials"), "AWS_ENDPOINT_URL_STS": sts.URL}
}

// metadataVariables are a VM's on Google Cloud (the metadata server), and
// keyFileVariables a CI job's with a service account key file.
func metadataVariables() map[string]string {
	return map[string]string{"GCE_METADATA_HOST": metadata.Host}
}

func keyFileVariables(t *testing.T, key []byte) map[string]string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "key.json")
	if err := os.WriteFile(path, key, 0o600); err != nil {
		t.Fatal(err)
	}
	return map[string]string{"GOOGLE_APPLICATION_CREDENTIALS": path}
}

// spnVariables are what kubelogin's spn login reads, and workloadVariables what the
// workload identity webhook puts in a pod.
func spnVariables(secret string) map[string]string {
	return map[string]string{"AAD_SERVICE_PRINCIPAL_CLIENT_ID": spnClientID, "AAD_SERVICE_PRINCIPAL_CLIENT_SECRET": secret,
		"AZURE_AUTHORITY_HOST": entra.URL}
}

func workloadVariables(t *testing.T) map[string]string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "azure-identity-token")
	if err := os.WriteFile(path, []byte(federatedToken), 0o600); err != nil {
		t.Fatal(err)
	}
	return map[string]string{"AZURE_CLIENT_ID": workloadClientID, "AZURE_TENANT_ID": azureTenant,
		"AZURE_FEDERATED_TOKEN_FILE": path, "AZURE_AUTHORITY_HOST": entra.URL}
}

// slice is one EndpointSlice the provider manages in a test's namespace.
type slice struct {
	t      *testing.T
	srv    integration.Server
	cp     *controlplane.ControlPlane
	ns     string
	urn    resource.URN
	inputs property.Map
	id     string
	state  property.Map
}

func newSlice(t *testing.T, srv integration.Server, cp *controlplane.ControlPlane, name string) *slice {
	t.Helper()
	ns := cp.Namespace(t, "cloud")
	u := resource.NewURN("test", "cloudauth", "", tokens.Type(spec.EndpointSliceToken), name)
	inputs := property.NewMap(map[string]property.Value{
		"metadata":    property.New(property.NewMap(map[string]property.Value{"namespace": property.New(ns), "name": property.New(name)})),
		"addressType": property.New("IPv4"),
		"endpoints": property.New([]property.Value{property.New(property.NewMap(map[string]property.Value{
			"addresses": property.New([]property.Value{property.New("10.0.0.1")}),
		}))}),
		"ports": property.New([]property.Value{property.New(property.NewMap(map[string]property.Value{
			"name": property.New("http"), "port": property.New(80.0),
		}))}),
	})
	checked, err := srv.Check(p.CheckRequest{Urn: u, Inputs: inputs})
	if err != nil || len(checked.Failures) > 0 {
		t.Fatalf("Check: %v %+v", err, checked.Failures)
	}
	return &slice{t: t, srv: srv, cp: cp, ns: ns, urn: u, inputs: checked.Inputs}
}

func (s *slice) name() string { return s.urn.Name() }

// create creates the slice and checks that it is in the cluster.
func (s *slice) create() error {
	s.t.Helper()
	created, err := s.srv.Create(p.CreateRequest{Urn: s.urn, Properties: s.inputs})
	if err != nil {
		return err
	}
	s.id, s.state = created.ID, created.Properties
	if _, err := s.cp.Clientset().DiscoveryV1().EndpointSlices(s.ns).Get(s.t.Context(), s.name(), metav1.GetOptions{}); err != nil {
		s.t.Fatalf("the slice the provider created is not in the cluster: %v", err)
	}
	return nil
}

// read refreshes the slice, after an address was changed behind the provider's back,
// and checks that the read shows the change.
func (s *slice) read() error {
	s.t.Helper()
	cs := s.cp.Clientset().DiscoveryV1().EndpointSlices(s.ns)
	live, err := cs.Get(s.t.Context(), s.name(), metav1.GetOptions{})
	if err != nil {
		s.t.Fatal(err)
	}
	live.Endpoints[0].Addresses = []string{"10.0.0.2"}
	if _, err := cs.Update(s.t.Context(), live, metav1.UpdateOptions{}); err != nil {
		s.t.Fatal(err)
	}
	read, err := s.srv.Read(p.ReadRequest{ID: s.id, Urn: s.urn, Properties: s.state, Inputs: s.inputs})
	if err != nil {
		return err
	}
	got := read.Properties.Get("endpoints").AsArray().Get(0).AsMap().Get("addresses").AsArray().Get(0).AsString()
	if read.ID != s.id || got != "10.0.0.2" {
		s.t.Errorf("refresh read ID %q, address %q; want %q, the changed 10.0.0.2", read.ID, got, s.id)
	}
	s.state = read.Properties
	return nil
}

// remove deletes the slice and checks that it is gone.
func (s *slice) remove() error {
	s.t.Helper()
	if err := s.srv.Delete(p.DeleteRequest{ID: s.id, Urn: s.urn, Properties: s.state}); err != nil {
		return err
	}
	_, err := s.cp.Clientset().DiscoveryV1().EndpointSlices(s.ns).Get(s.t.Context(), s.name(), metav1.GetOptions{})
	if !apierrors.IsNotFound(err) {
		s.t.Errorf("the slice is still in the cluster after Delete: %v", err)
	}
	return nil
}

// lifecycle creates, reads and deletes the slice, failing the test on an error.
func (s *slice) lifecycle() {
	s.t.Helper()
	if err := s.create(); err != nil {
		s.t.Fatalf("Create: %v", err)
	}
	if err := s.read(); err != nil {
		s.t.Fatalf("Read: %v", err)
	}
	if err := s.remove(); err != nil {
		s.t.Fatalf("Delete: %v", err)
	}
}

// reviewsFrom returns the webhook's reviews after the first n.
func reviewsFrom(n int) []clouddouble.Review { return webhook.Reviews()[n:] }

// refusals returns the reviews that refused their token.
func refusals(reviews []clouddouble.Review) []clouddouble.Review {
	var out []clouddouble.Review
	for _, r := range reviews {
		if !r.Accepted() {
			out = append(out, r)
		}
	}
	return out
}

// tokensOf returns the fingerprints of the tokens accepted for user, each once, in
// the order first seen.
func tokensOf(reviews []clouddouble.Review, user string) []string {
	var out []string
	for _, r := range reviews {
		if r.Accepted() && r.Username == user && (len(out) == 0 || !strings.Contains(strings.Join(out, " "), r.Token)) {
			out = append(out, r.Token)
		}
	}
	return out
}
