package cloudauth

import (
	"path/filepath"
	"strings"

	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// Cloud is a managed Kubernetes service whose exec plugin the package can stand in for.
type Cloud string

// The clouds recognised.
const (
	GKE Cloud = "GKE"
	EKS Cloud = "EKS"
	AKS Cloud = "AKS"
)

// AKSServerID is the application ID of the AKS AAD server that `az aks get-credentials`
// writes as --server-id for AKS-managed Entra ID clusters: the token's audience.
const AKSServerID = "6dae42f8-4368-4678-94ff-3960e28e3630"

// Plugin is a kubeconfig exec block recognised as one cloud's, with what the token
// depends on. Env holds the block's env entries (the plugin runs with them on top of
// the process's environment).
type Plugin struct {
	Cloud Cloud
	// Command is the program the kubeconfig runs, as written there.
	Command string
	Env     map[string]string

	// GKE: UseADC is --use_application_default_credentials.
	UseADC bool

	// EKS: the cluster name (or, for a local cluster on Outposts, its ID), the region
	// (--region, else the block's AWS_REGION or AWS_DEFAULT_REGION; may be empty), the
	// role to assume, and the profile (--profile, else the block's AWS_PROFILE).
	Cluster, Region, RoleARN, Profile string
	// ProfileFromEnv is whether Profile is the block's AWS_PROFILE: the AWS CLI then
	// takes keys in the environment (AWS_ACCESS_KEY_ID) before the profile's, as it
	// does not for --profile.
	ProfileFromEnv bool

	// AKS: the kubelogin login mode (devicecode when --login is absent, as kubelogin
	// defaults), the token's audience (--server-id), and the optional client, tenant,
	// environment, authority host, federated token file, client secret and client
	// certificate of the block.
	Login, ServerID, ClientID, TenantID, Environment string
	AuthorityHost, FederatedTokenFile                string
	ClientSecret, ClientCertificate                  string
	ClientCertificatePassword, IdentityResourceID    string
	// DisableEnvironmentOverride is kubelogin's --disable-environment-override: the
	// block's arguments win over AAD_SERVICE_PRINCIPAL_* and AZURE_* variables.
	DisableEnvironmentOverride bool
}

// Recognise says whether exec is one of the three clouds' plugins, as their tools write
// it: gke-gcloud-auth-plugin (gcloud container clusters get-credentials); aws eks
// get-token (aws eks update-kubeconfig) or aws-iam-authenticator token; kubelogin
// get-token (az aks get-credentials, kubelogin convert-kubeconfig). A block with an
// argument the package does not understand is not recognised: the plugin itself must
// run it.
func Recognise(exec *clientcmdapi.ExecConfig) (Plugin, bool) {
	if exec == nil {
		return Plugin{}, false
	}
	env := map[string]string{}
	for _, e := range exec.Env {
		env[e.Name] = e.Value
	}
	p := Plugin{Command: exec.Command, Env: env}
	var ok bool
	switch program(exec.Command) {
	case "gke-gcloud-auth-plugin":
		p.Cloud, ok = GKE, p.gke(exec.Args)
	case "aws":
		p.Cloud, ok = EKS, p.awsCLI(exec.Args)
	case "aws-iam-authenticator":
		p.Cloud, ok = EKS, p.authenticator(exec.Args)
	case "kubelogin":
		p.Cloud, ok = AKS, p.kubelogin(exec.Args)
	}
	if !ok {
		return Plugin{}, false
	}
	if p.Cloud == EKS {
		if p.Profile == "" {
			p.Profile = env["AWS_PROFILE"]
			p.ProfileFromEnv = p.Profile != ""
		}
		if p.Region == "" {
			p.Region = firstOf(env["AWS_REGION"], env["AWS_DEFAULT_REGION"])
		}
	}
	return p, true
}

// program is the base name of a command, without a Windows .exe suffix.
func program(command string) string {
	base := filepath.Base(strings.ReplaceAll(command, `\`, "/"))
	return strings.TrimSuffix(strings.TrimSuffix(base, ".exe"), ".EXE")
}

func firstOf(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}

// flags reads args as the CLIs read them: --name value, --name=value, and the short
// names of short; words not starting with "-" are returned in order as positional.
// bools are the flags that take no value. It reports false on a flag not in known.
func flags(args []string, known map[string]*string, bools map[string]*bool, short map[string]string) (positional []string, ok bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") || a == "-" {
			positional = append(positional, a)
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "--") {
			long, isShort := short[name]
			if !isShort {
				return nil, false
			}
			name = long
		}
		if b, isBool := bools[name]; isBool {
			if hasValue {
				*b = value == "true" || value == "1"
			} else {
				*b = true
			}
			continue
		}
		dst, isKnown := known[name]
		if !isKnown {
			return nil, false
		}
		if !hasValue {
			if i+1 >= len(args) {
				return nil, false
			}
			i++
			value = args[i]
		}
		if dst != nil {
			*dst = value
		}
	}
	return positional, true
}

// gke reads gke-gcloud-auth-plugin's arguments: none, or
// --use_application_default_credentials.
func (p *Plugin) gke(args []string) bool {
	positional, ok := flags(args, map[string]*string{}, map[string]*bool{"use_application_default_credentials": &p.UseADC}, nil)
	return ok && len(positional) == 0
}

// awsCLI reads `aws [--region R] [--profile P] eks get-token --cluster-name C
// [--role-arn A] [--output json]`, global options before or after the command. The
// CLI takes an unambiguous prefix of an option: pulumi-eks's kubeconfig writes
// `--role`.
func (p *Plugin) awsCLI(args []string) bool {
	var output, clusterID string
	positional, ok := flags(args, map[string]*string{
		"region": &p.Region, "profile": &p.Profile, "cluster-name": &p.Cluster, "cluster-id": &clusterID,
		"role-arn": &p.RoleARN, "role": &p.RoleARN, "output": &output,
	}, nil, nil)
	if !ok || len(positional) != 2 || positional[0] != "eks" || positional[1] != "get-token" {
		return false
	}
	if output != "" && output != "json" {
		return false
	}
	// A local cluster on Outposts is named by its ID in the signed header.
	p.Cluster = firstOf(clusterID, p.Cluster)
	return p.Cluster != ""
}

// authenticator reads `aws-iam-authenticator token -i C [-r A] [--region R]`.
func (p *Plugin) authenticator(args []string) bool {
	positional, ok := flags(args, map[string]*string{
		"cluster-id": &p.Cluster, "role": &p.RoleARN, "region": &p.Region,
	}, nil, map[string]string{"i": "cluster-id", "r": "role"})
	return ok && len(positional) == 1 && positional[0] == "token" && p.Cluster != ""
}

// kubelogin reads `kubelogin get-token [--login M] --server-id S [--client-id C]
// [--tenant-id T] [--environment E] ...` as az aks get-credentials and kubelogin
// convert-kubeconfig write it. The legacy and proof-of-possession forms are left to
// kubelogin.
func (p *Plugin) kubelogin(args []string) bool {
	var ignored string
	var legacy, pop bool
	positional, ok := flags(args, map[string]*string{
		"login": &p.Login, "server-id": &p.ServerID, "client-id": &p.ClientID, "tenant-id": &p.TenantID,
		"environment": &p.Environment, "authority-host": &p.AuthorityHost, "federated-token-file": &p.FederatedTokenFile,
		"client-secret": &p.ClientSecret, "client-certificate": &p.ClientCertificate,
		"client-certificate-password": &p.ClientCertificatePassword, "identity-resource-id": &p.IdentityResourceID,
		"cache-dir": &ignored, "token-cache-dir": &ignored,
	}, map[string]*bool{"legacy": &legacy, "pop-enabled": &pop, "disable-environment-override": &p.DisableEnvironmentOverride},
		map[string]string{"l": "login", "e": "environment"})
	if !ok || len(positional) != 1 || positional[0] != "get-token" || legacy || pop || p.ServerID == "" {
		return false
	}
	if p.Login == "" {
		p.Login = "devicecode"
	}
	return true
}
