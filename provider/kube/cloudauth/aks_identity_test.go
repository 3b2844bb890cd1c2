package cloudauth

import (
	"crypto/rand"
	"fmt"
	"strings"
	"testing"

	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/clouddouble"
)

// The msi login's tokens come from the endpoint the Azure identity library chooses
// from the process environment (MSAL's managedidentity.GetSource; the choice is the
// library's own): App Service's IDENTITY_ENDPOINT and IDENTITY_HEADER, Azure Arc's,
// Cloud Shell's MSI_ENDPOINT, Service Fabric's, else a VM's Instance Metadata Service.
// IMDS is at the link-local 169.254.169.254, which a test cannot reach or move, so the
// tests point App Service's variables at clouddouble.ManagedIdentity: of the sources
// the environment selects, it is the one that takes all three ways kubelogin names an
// identity (none, a client ID, a resource ID) and needs no files or certificates of
// the machine.
func managedIdentityEnv(t *testing.T, m *clouddouble.ManagedIdentity) {
	t.Helper()
	for name, value := range m.Env() {
		t.Setenv(name, value)
	}
	t.Setenv("IDENTITY_SERVER_THUMBPRINT", "") // (set, it means Service Fabric)
}

// newGUID is a random ID of an identity or server. MSAL keeps managed identity tokens
// for the process, by identity and resource, whatever credential asked: identities and
// server IDs made for each run keep a run (go test -count) from getting another run's
// token, granted by another double.
func newGUID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

func userAssignedIdentity(name string) clouddouble.ManagedIdentityID {
	return clouddouble.ManagedIdentityID{ClientID: newGUID(), PrincipalID: newGUID(),
		ResourceID: "/subscriptions/" + newGUID() + "/resourceGroups/ci/providers/Microsoft.ManagedIdentity/userAssignedIdentities/" + name}
}

// The msi login gets a token for the AKS server ID (the resource the endpoint is
// asked for) of the app's default identity, or of the user-assigned identity that
// --client-id or --identity-resource-id names; AZURE_CLIENT_ID comes before both
// unless --disable-environment-override, as in kubelogin.
//
//nolint:paralleltest // it sets IDENTITY_ENDPOINT and IDENTITY_HEADER, which the library reads from the process environment
func TestAKSManagedIdentity(t *testing.T) {
	m := clouddouble.StartManagedIdentity()
	t.Cleanup(m.Close)
	managedIdentityEnv(t, m)
	system := clouddouble.ManagedIdentityID{ClientID: newGUID(), PrincipalID: newGUID()}
	byClientID, byResourceID := userAssignedIdentity("deployer"), userAssignedIdentity("ci")
	m.SetSystemAssigned(system)
	m.AddUserAssigned(byClientID)
	m.AddUserAssigned(byResourceID)
	// The system-assigned identity's tokens are kept by resource alone.
	systemServerID := newGUID()
	for _, tt := range []struct {
		name     string
		p        Plugin
		env      map[string]string
		serverID string
		want     clouddouble.ManagedIdentityID
		// describe is what the description says of the identity.
		describe string
	}{
		{name: "system-assigned", serverID: systemServerID, want: system, describe: "the default managed identity"},
		{name: "--client-id", p: Plugin{ClientID: byClientID.ClientID}, want: byClientID,
			describe: "the managed identity with client ID " + byClientID.ClientID},
		{name: "--identity-resource-id", p: Plugin{IdentityResourceID: byResourceID.ResourceID}, want: byResourceID,
			describe: "the managed identity " + byResourceID.ResourceID},
		{name: "AZURE_CLIENT_ID over --identity-resource-id", p: Plugin{IdentityResourceID: byResourceID.ResourceID},
			env: map[string]string{"AZURE_CLIENT_ID": byClientID.ClientID}, want: byClientID,
			describe: "the managed identity with client ID " + byClientID.ClientID},
		{name: "--disable-environment-override", p: Plugin{IdentityResourceID: byResourceID.ResourceID, DisableEnvironmentOverride: true},
			env: map[string]string{"AZURE_CLIENT_ID": byClientID.ClientID}, want: byResourceID,
			describe: "the managed identity " + byResourceID.ResourceID},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := tt.p
			p.Cloud, p.Command, p.Login, p.ServerID = AKS, "kubelogin", "msi", firstOf(tt.serverID, AKSServerID)
			src := newSource(t, p, Options{Server: server, Getenv: func(n string) string { return tt.env[n] }})
			tok := nextToken(t, src)
			g, err := m.Verify(tok.Value, p.ServerID)
			if err != nil {
				t.Fatal(err)
			}
			if g.Identity != tt.want || !tok.Expiry.Equal(g.Expires) {
				t.Errorf("the token of %+v expires %s, want one of %+v expiring %s", g.Identity, tok.Expiry, tt.want, g.Expires)
			}
			describe := src.Describe()
			for _, want := range []string{"AKS cluster at " + server + " (server ID " + p.ServerID + ")", tt.describe} {
				if !strings.Contains(describe, want) {
					t.Errorf("Describe() = %q, want it to name %q", describe, want)
				}
			}
			if strings.Contains(describe, "authority") {
				t.Errorf("Describe() = %q names an authority, which the endpoint does not use", describe)
			}
		})
	}
}

// An identity the app does not have (by client ID or resource ID), or no default
// identity: the endpoint's refusal comes with the cluster and the identity asked for,
// and without the endpoint's header secret.
//
//nolint:paralleltest // it sets IDENTITY_ENDPOINT and IDENTITY_HEADER, which the library reads from the process environment
func TestAKSManagedIdentityUnknown(t *testing.T) {
	m := clouddouble.StartManagedIdentity()
	t.Cleanup(m.Close)
	managedIdentityEnv(t, m)
	m.AddUserAssigned(userAssignedIdentity("deployer"))
	unknown := userAssignedIdentity("gone")
	for _, tt := range []struct {
		name     string
		p        Plugin
		identity string
	}{
		{name: "--client-id", p: Plugin{ClientID: unknown.ClientID}, identity: "client ID " + unknown.ClientID},
		{name: "--identity-resource-id", p: Plugin{IdentityResourceID: unknown.ResourceID}, identity: unknown.ResourceID},
		{name: "no system-assigned identity", identity: "the default managed identity"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := tt.p
			p.Cloud, p.Command, p.Login, p.ServerID = AKS, "kubelogin", "msi", newGUID()
			src, err := New(p, Options{Server: server, Getenv: noEnv})
			if err != nil {
				t.Fatal(err)
			}
			requests := m.TokenRequests()
			_, err = src.Token(t.Context())
			for _, want := range []string{"AKS cluster at " + server, tt.identity, "Unable to load the proper Managed Identity."} {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("Token() = %v, want an error naming %q", err, want)
				}
			}
			if err != nil && strings.Contains(err.Error(), m.Header) {
				t.Errorf("Token() = %v shows IDENTITY_HEADER", err)
			}
			if m.TokenRequests() == requests {
				t.Error("the endpoint was not asked")
			}
		})
	}
}
