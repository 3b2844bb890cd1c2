package cloudauth

import (
	"strings"
	"testing"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/clouddouble"
)

const (
	tenant   = "72f988bf-86f1-41af-91ab-2d7cd011db47"
	clientID = "0b6e2d1c-2a27-4c38-9f07-4c8ea7c1e2d0"
)

// noEnv is an environment with nothing set, so that the tests do not depend on the
// machine's Azure variables.
func noEnv(string) string { return "" }

func TestAKSServicePrincipal(t *testing.T) {
	t.Parallel()
	entra := clouddouble.StartEntra()
	defer entra.Close()
	entra.AddSecretApp(tenant, clientID, "s3cr3t~value")
	p := Plugin{Cloud: AKS, Command: "kubelogin", Login: "spn", ServerID: AKSServerID, ClientID: clientID, TenantID: tenant,
		Env: map[string]string{"AAD_SERVICE_PRINCIPAL_CLIENT_SECRET": "s3cr3t~value", "AZURE_AUTHORITY_HOST": entra.URL}}
	src := newSource(t, p, Options{Server: server, HTTPClient: entra.Client(), Getenv: noEnv})
	g, err := entra.Verify(nextToken(t, src).Value, AKSServerID)
	if err != nil {
		t.Fatal(err)
	}
	if g.ClientID != clientID || g.Tenant != tenant {
		t.Errorf("the token was granted to %s of %s", g.ClientID, g.Tenant)
	}
	for _, want := range []string{"AKS cluster at " + server, AKSServerID, "service principal " + clientID, entra.URL} {
		if !strings.Contains(src.Describe(), want) {
			t.Errorf("Describe() = %q, want it to name %q", src.Describe(), want)
		}
	}
}

// A service principal with a certificate credential, named by kubelogin's
// --client-certificate or by the variables kubelogin and the Azure libraries read:
// the token is granted for a client assertion signed with the certificate's key; a
// certificate the application does not have is refused, and the error names it.
func TestAKSServicePrincipalCertificate(t *testing.T) {
	t.Parallel()
	entra := clouddouble.StartEntra()
	t.Cleanup(entra.Close) // (after the parallel subtests)
	registered, err := clouddouble.NewClientCertificate("deployer")
	if err != nil {
		t.Fatal(err)
	}
	other, err := clouddouble.NewClientCertificate("deployer")
	if err != nil {
		t.Fatal(err)
	}
	entra.AddCertificateApp(tenant, clientID, registered.Certificate)
	certFile := writeFile(t, "deployer.pem", registered.PEM)
	otherFile := writeFile(t, "other.pem", other.PEM)
	for _, tt := range []struct {
		name string
		// flag is --client-certificate; env the variables.
		flag string
		env  map[string]string
		// refused, when not empty, is the AADSTS code of the refusal.
		refused string
	}{
		{name: "--client-certificate", flag: certFile},
		{name: "AAD_SERVICE_PRINCIPAL_CLIENT_CERTIFICATE", env: map[string]string{"AAD_SERVICE_PRINCIPAL_CLIENT_CERTIFICATE": certFile}},
		{name: "AZURE_CLIENT_CERTIFICATE_PATH", env: map[string]string{"AZURE_CLIENT_CERTIFICATE_PATH": certFile}},
		{name: "a certificate the application does not have", flag: otherFile, refused: "AADSTS700027"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := Plugin{Cloud: AKS, Command: "kubelogin", Login: "spn", ServerID: AKSServerID, ClientID: clientID, TenantID: tenant,
				ClientCertificate: tt.flag, AuthorityHost: entra.URL}
			src := newSource(t, p, Options{Server: server, HTTPClient: entra.Client(), Getenv: func(n string) string { return tt.env[n] }})
			tok, err := src.Token(t.Context())
			if tt.refused != "" {
				for _, want := range []string{"AKS cluster at " + server, "service principal " + clientID, otherFile, tt.refused} {
					if err == nil || !strings.Contains(err.Error(), want) {
						t.Errorf("Token() = %v, want an error naming %q", err, want)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if g, err := entra.Verify(tok.Value, AKSServerID); err != nil || g.ClientID != clientID {
				t.Errorf("the token was granted to %+v, want %s: %v", g, clientID, err)
			}
			if want := "with the client certificate " + certFile; !strings.Contains(src.Describe(), want) {
				t.Errorf("Describe() = %q, want it to say %q", src.Describe(), want)
			}
		})
	}
}

func TestAKSWorkloadIdentity(t *testing.T) {
	t.Parallel()
	entra := clouddouble.StartEntra()
	defer entra.Close()
	const federated = "eyJhbGciOiJSUzI1NiJ9.projected-service-account-token.sig"
	entra.AddFederatedApp(tenant, clientID, federated)
	tokenFile := writeFile(t, "azure-identity-token", []byte(federated))
	// As the workload identity webhook sets them in the pod.
	env := map[string]string{"AZURE_CLIENT_ID": clientID, "AZURE_TENANT_ID": tenant,
		"AZURE_FEDERATED_TOKEN_FILE": tokenFile, "AZURE_AUTHORITY_HOST": entra.URL}
	p := Plugin{Cloud: AKS, Command: "kubelogin", Login: "workloadidentity", ServerID: AKSServerID}
	tok := tokenOf(t, p, Options{Server: server, HTTPClient: entra.Client(), Getenv: func(n string) string { return env[n] }})
	if _, err := entra.Verify(tok.Value, AKSServerID); err != nil {
		t.Fatal(err)
	}
}

func TestAKSWrongSecret(t *testing.T) {
	t.Parallel()
	entra := clouddouble.StartEntra()
	defer entra.Close()
	entra.AddSecretApp(tenant, clientID, "the-right-one")
	p := Plugin{Cloud: AKS, Command: "kubelogin", Login: "spn", ServerID: AKSServerID, ClientID: clientID, TenantID: tenant,
		ClientSecret: "the-wrong-one", AuthorityHost: entra.URL}
	_, err := newSource(t, p, Options{Server: server, HTTPClient: entra.Client(), Getenv: noEnv}).Token(t.Context())
	if err == nil {
		t.Fatal("a token was granted for a wrong secret")
	}
	for _, want := range []string{"AKS cluster at " + server, "service principal " + clientID, "AADSTS7000215"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not name %q: %v", want, err)
		}
	}
	if strings.Contains(err.Error(), "the-wrong-one") {
		t.Errorf("error shows the secret: %v", err)
	}
}

func TestAKSInteractiveLoginsAreLeftToKubelogin(t *testing.T) {
	t.Parallel()
	for _, login := range []string{"devicecode", "interactive", "ropc"} {
		_, err := New(Plugin{Cloud: AKS, Command: "kubelogin", Login: login, ServerID: AKSServerID},
			Options{Server: server, Getenv: noEnv})
		if err == nil || !strings.Contains(err.Error(), "convert-kubeconfig -l workloadidentity") {
			t.Errorf("login %s: %v, want advice to convert the kubeconfig", login, err)
		}
		if want := "AKS cluster at " + server + " (server ID " + AKSServerID + "): kubelogin's " + login + " login"; err == nil ||
			!strings.HasPrefix(err.Error(), want) {
			t.Errorf("login %s: %v, want it to begin %q", login, err, want)
		}
	}
}
