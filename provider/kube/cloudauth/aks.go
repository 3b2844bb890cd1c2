//go:build !endpoints_no_cloud_credentials

package cloudauth

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
)

// aksEnvironments are kubelogin's --environment names and their clouds.
var aksEnvironments = map[string]cloud.Configuration{
	"azurepubliccloud":       cloud.AzurePublic,
	"azurechinacloud":        cloud.AzureChina,
	"azureusgovernmentcloud": cloud.AzureGovernment,
}

type aksSource struct {
	// build makes the credential again (see renew): the library keeps tokens until
	// they expire.
	build    func() (azcore.TokenCredential, error)
	scope    string
	describe string

	mu   sync.Mutex
	cred azcore.TokenCredential
}

func newAKS(p Plugin, o Options) (Source, error) {
	where := p.Where(o.Server)
	if !containsFold(aksLogins, p.Login) {
		return nil, interactiveLogin(p, o)
	}
	l := aksLogin{p: p, env: func(name string) string { return o.getenv(p, name) }}
	l.clientID = l.arg(p.ClientID, "AAD_SERVICE_PRINCIPAL_CLIENT_ID", "AZURE_CLIENT_ID")
	l.tenantID = l.arg(p.TenantID, "AZURE_TENANT_ID")
	var err error
	if l.clientOpts, l.authority, err = aksClientOptions(p, l.env, o); err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	var from string
	var build func() (azcore.TokenCredential, error)
	switch strings.ToLower(p.Login) {
	case "spn":
		from, build, err = l.servicePrincipal()
	case "workloadidentity":
		from, build = l.workloadIdentity()
	case "azurecli", "azd":
		from, build = l.developerCLI()
	case "msi":
		from, build = l.managedIdentity()
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	cred, err := build()
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", where, from, err)
	}
	describe := fmt.Sprintf("%s with %s", where, from)
	if login := strings.ToLower(p.Login); login == "spn" || login == "workloadidentity" {
		// (The Azure CLIs and managed identity endpoints use no authority of the kubeconfig's.)
		describe += fmt.Sprintf(" (authority %s)", l.authority.host)
	}
	return &aksSource{build: build, cred: cred, scope: p.ServerID + "/.default", describe: describe}, nil
}

// aksLogin is what a kubelogin login mode makes its credential of: the block, the
// environment, the client and tenant as kubelogin reads them, and the cloud's options.
type aksLogin struct {
	p                  Plugin
	env                func(string) string
	clientID, tenantID string
	clientOpts         azcore.ClientOptions
	authority          authorityHost
}

// arg is the block's value, or the first of the variables names that is set, over it
// unless --disable-environment-override, as kubelogin reads them.
func (l aksLogin) arg(value string, names ...string) string {
	if !l.p.DisableEnvironmentOverride {
		for _, n := range names {
			if v := l.env(n); v != "" {
				return v
			}
		}
	}
	return value
}

// servicePrincipal is the spn login: a client secret, else a client certificate.
func (l aksLogin) servicePrincipal() (string, func() (azcore.TokenCredential, error), error) {
	p, clientID, tenantID := l.p, l.clientID, l.tenantID
	secret := l.arg(p.ClientSecret, "AAD_SERVICE_PRINCIPAL_CLIENT_SECRET", "AZURE_CLIENT_SECRET")
	certPath := l.arg(p.ClientCertificate, "AAD_SERVICE_PRINCIPAL_CLIENT_CERTIFICATE", "AZURE_CLIENT_CERTIFICATE_PATH")
	switch {
	case clientID == "" || tenantID == "":
		return "", nil, errors.New("kubelogin's spn login needs a client ID and a tenant ID (--client-id and --tenant-id, " +
			"or AAD_SERVICE_PRINCIPAL_CLIENT_ID / AZURE_CLIENT_ID and AZURE_TENANT_ID)")
	case secret != "":
		return fmt.Sprintf("service principal %s of tenant %s with a client secret", clientID, tenantID),
			func() (azcore.TokenCredential, error) {
				return azidentity.NewClientSecretCredential(tenantID, clientID, secret,
					&azidentity.ClientSecretCredentialOptions{ClientOptions: l.clientOpts, DisableInstanceDiscovery: !l.authority.known})
			}, nil
	case certPath != "":
		password := l.arg(p.ClientCertificatePassword, "AAD_SERVICE_PRINCIPAL_CLIENT_CERTIFICATE_PASSWORD", "AZURE_CLIENT_CERTIFICATE_PASSWORD")
		return fmt.Sprintf("service principal %s of tenant %s with the client certificate %s", clientID, tenantID, certPath),
			func() (azcore.TokenCredential, error) {
				data, err := os.ReadFile(certPath) //nolint:gosec // the certificate the kubeconfig or environment names
				if err != nil {
					return nil, err
				}
				certs, key, err := azidentity.ParseCertificates(data, []byte(password))
				if err != nil {
					return nil, fmt.Errorf("the client certificate %s: %w", certPath, err)
				}
				return azidentity.NewClientCertificateCredential(tenantID, clientID, certs, key,
					&azidentity.ClientCertificateCredentialOptions{ClientOptions: l.clientOpts, DisableInstanceDiscovery: !l.authority.known})
			}, nil
	default:
		return "", nil, fmt.Errorf("kubelogin's spn login for service principal %s needs a client secret or certificate "+
			"(--client-secret, AAD_SERVICE_PRINCIPAL_CLIENT_SECRET or AZURE_CLIENT_SECRET; or --client-certificate, "+
			"AAD_SERVICE_PRINCIPAL_CLIENT_CERTIFICATE or AZURE_CLIENT_CERTIFICATE_PATH)", clientID)
	}
}

// workloadIdentity is the workloadidentity login: a federated token file.
func (l aksLogin) workloadIdentity() (string, func() (azcore.TokenCredential, error)) {
	tokenFile := firstOf(l.p.FederatedTokenFile, l.env("AZURE_FEDERATED_TOKEN_FILE"))
	return fmt.Sprintf("workload identity %s of tenant %s with the federated token file %s", l.clientID, l.tenantID, tokenFile),
		func() (azcore.TokenCredential, error) {
			return azidentity.NewWorkloadIdentityCredential(&azidentity.WorkloadIdentityCredentialOptions{
				ClientOptions: l.clientOpts, ClientID: l.clientID, TenantID: l.tenantID, TokenFilePath: tokenFile,
				DisableInstanceDiscovery: !l.authority.known,
			})
		}
}

// developerCLI is the azurecli and azd logins: the programs choose their cloud and
// authority themselves; kubelogin gives them the tenant of --tenant-id or
// AZURE_TENANT_ID.
func (l aksLogin) developerCLI() (string, func() (azcore.TokenCredential, error)) {
	tenantID := l.tenantID
	if strings.EqualFold(l.p.Login, "azd") {
		return "the Azure Developer CLI's signed-in account (azd auth token" + optionalFlag(" --tenant-id ", tenantID) + ")",
			func() (azcore.TokenCredential, error) {
				return azidentity.NewAzureDeveloperCLICredential(&azidentity.AzureDeveloperCLICredentialOptions{TenantID: tenantID})
			}
	}
	return "the Azure CLI's signed-in account (az account get-access-token" + optionalFlag(" --tenant ", tenantID) + ")",
		func() (azcore.TokenCredential, error) {
			return azidentity.NewAzureCLICredential(&azidentity.AzureCLICredentialOptions{TenantID: tenantID})
		}
}

// managedIdentity is the msi login. The library asks the endpoint the environment
// names (App Service's IDENTITY_ENDPOINT, Azure Arc's, ...), else the VM's Instance
// Metadata Service. As kubelogin, a client ID (--client-id, or AZURE_CLIENT_ID over
// it) comes before --identity-resource-id.
func (l aksLogin) managedIdentity() (string, func() (azcore.TokenCredential, error)) {
	opts := &azidentity.ManagedIdentityCredentialOptions{ClientOptions: l.clientOpts}
	from := "the default managed identity of the machine or app"
	switch {
	case l.clientID != "":
		opts.ID, from = azidentity.ClientID(l.clientID), "the managed identity with client ID "+l.clientID
	case l.p.IdentityResourceID != "":
		opts.ID, from = azidentity.ResourceID(l.p.IdentityResourceID), "the managed identity "+l.p.IdentityResourceID
	}
	return from, func() (azcore.TokenCredential, error) { return azidentity.NewManagedIdentityCredential(opts) }
}

// optionalFlag is name and value, or "" when value is "".
func optionalFlag(name, value string) string {
	if value == "" {
		return ""
	}
	return name + value
}

type authorityHost struct {
	host string
	// known is a Microsoft cloud's host, whose instance metadata the library reads;
	// another (a sovereign or test identity provider) serves none.
	known bool
}

// aksClientOptions picks the cloud: --authority-host or AZURE_AUTHORITY_HOST, else
// the --environment's (AzurePublicCloud when none is given).
func aksClientOptions(p Plugin, env func(string) string, o Options) (azcore.ClientOptions, authorityHost, error) {
	var opts azcore.ClientOptions
	if o.HTTPClient != nil {
		opts.Transport = o.HTTPClient
	}
	environment := firstOf(p.Environment, "AzurePublicCloud")
	c, ok := aksEnvironments[strings.ToLower(environment)]
	if !ok {
		return opts, authorityHost{}, fmt.Errorf("kubelogin environment %q is not one of AzurePublicCloud, AzureChinaCloud, "+
			"AzureUSGovernmentCloud", environment)
	}
	authority := authorityHost{host: c.ActiveDirectoryAuthorityHost, known: true}
	if host := firstOf(p.AuthorityHost, env("AZURE_AUTHORITY_HOST")); host != "" {
		u, err := url.Parse(host)
		if err != nil || u.Scheme != "https" || u.Host == "" {
			return opts, authorityHost{}, fmt.Errorf("the authority host %q is not an https:// URL", host)
		}
		if !strings.HasSuffix(host, "/") {
			host += "/"
		}
		authority = authorityHost{host: host, known: false}
		for _, known := range aksEnvironments {
			if strings.EqualFold(known.ActiveDirectoryAuthorityHost, host) {
				authority.known = true
			}
		}
		c = cloud.Configuration{ActiveDirectoryAuthorityHost: host, Services: c.Services}
	}
	opts.Cloud = c
	return opts, authority, nil
}

func (s *aksSource) Cloud() Cloud { return AKS }

func (s *aksSource) Describe() string { return s.describe }

func (s *aksSource) renew() {
	s.mu.Lock()
	s.cred = nil
	s.mu.Unlock()
}

func (s *aksSource) Token(ctx context.Context) (Token, error) {
	s.mu.Lock()
	cred := s.cred
	if cred == nil {
		var err error
		if cred, err = s.build(); err != nil {
			s.mu.Unlock()
			return Token{}, fmt.Errorf("getting a token for the %s: %w", s.describe, err)
		}
		s.cred = cred
	}
	s.mu.Unlock()
	tok, err := cred.GetToken(ctx, policy.TokenRequestOptions{Scopes: []string{s.scope}})
	if err != nil {
		return Token{}, fmt.Errorf("getting a token for the %s: %w", s.describe, err)
	}
	return Token{Value: tok.Token, Expiry: tok.ExpiresOn}, nil
}
