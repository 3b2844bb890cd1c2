package cloudauth

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/client-go/tools/clientcmd"
)

// kubeconfig wraps a user's exec block in a kubeconfig document.
func kubeconfig(user string) string {
	return `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster:
    server: https://203.0.113.10
contexts:
- name: c
  context: {cluster: c, user: u}
current-context: c
users:
- name: u
  user:
` + user
}

// The exec blocks as each cloud's tools write them.
const (
	// gcloud container clusters get-credentials.
	gcloudBlock = `    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      command: gke-gcloud-auth-plugin
      installHint: Install gke-gcloud-auth-plugin for use with kubectl by following
        https://cloud.google.com/kubernetes-engine/docs/how-to/cluster-access-for-kubectl#install_plugin
      provideClusterInfo: true
`
	// aws eks update-kubeconfig --name demo --region eu-west-1 --profile dev.
	awsBlock = `    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      args:
      - --region
      - eu-west-1
      - eks
      - get-token
      - --cluster-name
      - demo
      - --output
      - json
      command: aws
      env:
      - name: AWS_PROFILE
        value: dev
`
	// aws eks update-kubeconfig --name demo --role-arn arn:aws:iam::111122223333:role/deployer.
	awsRoleBlock = `    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      args:
      - --region
      - us-west-2
      - eks
      - get-token
      - --cluster-name
      - demo
      - --output
      - json
      - --role-arn
      - arn:aws:iam::111122223333:role/deployer
      command: aws
`
	// pulumi-eks's Cluster kubeconfig with a role and a profile (its kubeconfigOptions).
	pulumiEKSBlock = `    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      command: aws
      args: ["--region", "eu-central-1", "eks", "get-token", "--cluster-name", "prod-eksCluster-1a2b3c4", "--output", "json",
        "--role", "arn:aws:iam::111122223333:role/deployer", "--profile", "ci"]
      env:
      - name: KUBERNETES_EXEC_INFO
        value: '{"apiVersion": "client.authentication.k8s.io/v1beta1"}'
`
	// eksctl and older templates: aws-iam-authenticator.
	authenticatorBlock = `    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      command: /usr/local/bin/aws-iam-authenticator
      args: ["token", "-i", "demo", "-r", "arn:aws:iam::111122223333:role/deployer"]
      env:
      - name: AWS_REGION
        value: ap-south-1
`
	// az aks get-credentials on an AKS-managed Entra ID cluster.
	azBlock = `    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      args:
      - get-token
      - --environment
      - AzurePublicCloud
      - --server-id
      - 6dae42f8-4368-4678-94ff-3960e28e3630
      - --client-id
      - 80faf920-1908-4b52-b5ef-a8e7bedfc67a
      - --tenant-id
      - 72f988bf-86f1-41af-91ab-2d7cd011db47
      - --login
      - devicecode
      command: kubelogin
      env: null
      installHint: |2

        kubelogin is not installed which is required to connect to AAD enabled cluster.
`
	// kubelogin convert-kubeconfig -l workloadidentity.
	kubeloginWorkloadBlock = `    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      args:
      - get-token
      - --login
      - workloadidentity
      - --server-id
      - 6dae42f8-4368-4678-94ff-3960e28e3630
      command: kubelogin
`
	// kubelogin convert-kubeconfig -l spn --client-id ... (short -l form, -e).
	kubeloginSPNBlock = `    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      args: [get-token, -l, spn, --server-id, 6dae42f8-4368-4678-94ff-3960e28e3630, --client-id, 0b6e2d1c-2a27-4c38-9f07-4c8ea7c1e2d0, --tenant-id, 72f988bf-86f1-41af-91ab-2d7cd011db47, -e, AzureChinaCloud]
      command: kubelogin
`
)

func execOf(t *testing.T, doc string) Plugin {
	t.Helper()
	cfg, err := clientcmd.Load([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	p, _ := Recognise(cfg.AuthInfos["u"].Exec)
	return p
}

func TestRecognise(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		user string
		want Plugin
	}{
		{"gcloud", gcloudBlock, Plugin{Cloud: GKE, Command: "gke-gcloud-auth-plugin", Env: map[string]string{}}},
		{"aws eks update-kubeconfig with a profile", awsBlock, Plugin{Cloud: EKS, Command: "aws",
			Env: map[string]string{"AWS_PROFILE": "dev"}, Cluster: "demo", Region: "eu-west-1", Profile: "dev", ProfileFromEnv: true}},
		{"aws eks update-kubeconfig with a role", awsRoleBlock, Plugin{Cloud: EKS, Command: "aws", Env: map[string]string{},
			Cluster: "demo", Region: "us-west-2", RoleARN: "arn:aws:iam::111122223333:role/deployer"}},
		{"pulumi-eks", pulumiEKSBlock, Plugin{Cloud: EKS, Command: "aws",
			Env:     map[string]string{"KUBERNETES_EXEC_INFO": `{"apiVersion": "client.authentication.k8s.io/v1beta1"}`},
			Cluster: "prod-eksCluster-1a2b3c4", Region: "eu-central-1", RoleARN: "arn:aws:iam::111122223333:role/deployer", Profile: "ci"}},
		{"aws-iam-authenticator", authenticatorBlock, Plugin{Cloud: EKS, Command: "/usr/local/bin/aws-iam-authenticator",
			Env: map[string]string{"AWS_REGION": "ap-south-1"}, Cluster: "demo", Region: "ap-south-1",
			RoleARN: "arn:aws:iam::111122223333:role/deployer"}},
		{"az aks get-credentials", azBlock, Plugin{Cloud: AKS, Command: "kubelogin", Env: map[string]string{},
			Login: "devicecode", ServerID: AKSServerID, ClientID: "80faf920-1908-4b52-b5ef-a8e7bedfc67a",
			TenantID: "72f988bf-86f1-41af-91ab-2d7cd011db47", Environment: "AzurePublicCloud"}},
		{"kubelogin workloadidentity", kubeloginWorkloadBlock, Plugin{Cloud: AKS, Command: "kubelogin", Env: map[string]string{},
			Login: "workloadidentity", ServerID: AKSServerID}},
		{"kubelogin spn, short flags", kubeloginSPNBlock, Plugin{Cloud: AKS, Command: "kubelogin", Env: map[string]string{},
			Login: "spn", ServerID: AKSServerID, ClientID: "0b6e2d1c-2a27-4c38-9f07-4c8ea7c1e2d0",
			TenantID: "72f988bf-86f1-41af-91ab-2d7cd011db47", Environment: "AzureChinaCloud"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, execOf(t, kubeconfig(tt.user))); diff != "" {
				t.Errorf("Recognise (-want +got):\n%s", diff)
			}
		})
	}
}

// Blocks the package must leave to the plugin program.
func TestRecogniseLeavesOthersAlone(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, command string
		args          []string
	}{
		{"another program", "kubectl-oidc_login", []string{"get-token"}},
		{"aws another command", "aws", []string{"eks", "describe-cluster", "--name", "demo"}},
		{"aws get-token without a cluster", "aws", []string{"eks", "get-token"}},
		{"aws with an unknown option", "aws", []string{"eks", "get-token", "--cluster-name", "demo", "--debug"}},
		{"aws text output", "aws", []string{"eks", "get-token", "--cluster-name", "demo", "--output", "text"}},
		{"authenticator verify", "aws-iam-authenticator", []string{"verify", "-i", "demo"}},
		{"kubelogin legacy", "kubelogin", []string{"get-token", "--server-id", AKSServerID, "--legacy"}},
		{"kubelogin proof of possession", "kubelogin", []string{"get-token", "--server-id", AKSServerID, "--pop-enabled"}},
		{"kubelogin without a server ID", "kubelogin", []string{"get-token", "--login", "spn"}},
		{"gke plugin with an argument", "gke-gcloud-auth-plugin", []string{"--version"}},
		{"a dangling value", "aws", []string{"eks", "get-token", "--cluster-name"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			doc := kubeconfig("    exec:\n      apiVersion: client.authentication.k8s.io/v1beta1\n      command: " + tt.command + "\n      args:\n")
			for _, a := range tt.args {
				doc += "      - \"" + a + "\"\n"
			}
			if p := execOf(t, doc); p.Cloud != "" {
				t.Errorf("Recognise took %s %v as %s: %+v", tt.command, tt.args, p.Cloud, p)
			}
		})
	}
}

func TestDecide(t *testing.T) {
	t.Parallel()
	found := func(string) (string, error) { return "/usr/bin/aws", nil }
	missing := func(string) (string, error) { return "", errors.New("executable file not found in $PATH") }
	p := Plugin{Cloud: EKS, Command: "aws"}
	tests := []struct {
		name string
		mode Mode
		look LookPath
		want bool
	}{
		{"automatic, on PATH", Automatic, found, false},
		{"automatic, missing", Automatic, missing, true},
		{"builtIn, on PATH", BuiltIn, found, true},
		{"exec, missing", Exec, missing, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := Decide(tt.mode, p, tt.look)
			if c.BuiltIn != tt.want || c.Reason == "" || c.Mode != tt.mode {
				t.Errorf("Decide(%s) = %+v, want built-in %v with a reason, under its mode", tt.mode, c, tt.want)
			}
		})
	}
	for _, s := range []string{"", "automatic", "builtIn", "exec"} {
		if _, err := ParseMode(s); err != nil {
			t.Errorf("ParseMode(%q): %v", s, err)
		}
	}
	// Spelled as the provider's CheckConfig accepts them, and no other way.
	for _, s := range []string{"plugin", "builtin", "BuiltIn", "Exec"} {
		if _, err := ParseMode(s); err == nil || !strings.Contains(err.Error(), "cloudCredentials") {
			t.Errorf("ParseMode(%q): err = %v, want it refused naming cloudCredentials", s, err)
		}
	}
}

// Instead names the setting that has the token made in process, for the program that
// was run and failed: builtIn, and automatic when the program ran because the mode
// said exec; nothing when no program was chosen or the login needs a person.
func TestInstead(t *testing.T) {
	t.Parallel()
	found := func(string) (string, error) { return "/usr/bin/kubelogin", nil }
	missing := func(string) (string, error) { return "", errors.New("executable file not found in $PATH") }
	eks := Plugin{Cloud: EKS, Command: "/opt/aws/bin/aws"}
	spn := Plugin{Cloud: AKS, Command: "kubelogin", Login: "spn"}
	deviceCode := Plugin{Cloud: AKS, Command: "kubelogin", Login: "devicecode"}
	const setting = "set its cloudCredentials setting (or PULUMI_ENDPOINTS_CLOUD_CREDENTIALS) to builtIn"
	tests := []struct {
		name string
		p    Plugin
		mode Mode
		look LookPath
		want string
	}{
		{"exec mode", eks, Exec, missing, "to have the provider make the EKS cluster's token in its own process from " +
			"the cloud's own credentials, " + setting + ", or to automatic, which runs aws only when it is on PATH"},
		{"automatic, on PATH", spn, Automatic, found, "to have the provider make the AKS cluster's token in its own " +
			"process from the cloud's own credentials, " + setting},
		{"automatic, missing: no program was run", spn, Automatic, missing, ""},
		{"builtIn", eks, BuiltIn, found, ""},
		{"a login that needs a person", deviceCode, Exec, found, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := Instead(tt.p, Decide(tt.mode, tt.p, tt.look)); got != tt.want {
				t.Errorf("Instead = %q, want %q", got, tt.want)
			}
		})
	}
}
