package cloudauth

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// otherTenant is a tenant the environment names over the kubeconfig's --tenant-id.
const otherTenant = "f8cdef31-a31e-4b4a-93e4-5f571e91255a"

// fakeCLI is a stand-in for the Azure CLI (az) or the Azure Developer CLI (azd), alone
// on PATH. The Azure identity library runs the program as /bin/sh -c "<program>
// <arguments>" in /bin, with the process environment (azidentity v1.15.0,
// developer_credential_util.go and developer_credential_util_nonwindows.go), so the
// test sets PATH; the script uses only the shell's builtins and needs nothing else on
// it. It records its arguments, one a line, prints stdout and stderr and exits with
// code.
type fakeCLI struct{ argsFile string }

func installCLI(t *testing.T, program, stdout, stderr string, code int) *fakeCLI {
	t.Helper()
	dir := t.TempDir()
	c := &fakeCLI{argsFile: filepath.Join(dir, "args")}
	script := fmt.Sprintf("#!/bin/sh\nprintf '%%s\\n' \"$@\" > %s\nprintf '%%s' %s\nprintf '%%s' %s >&2\nexit %d\n",
		shellQuote(c.argsFile), shellQuote(stdout), shellQuote(stderr), code)
	//nolint:gosec // G306: the stand-in must be executable
	if err := os.WriteFile(filepath.Join(dir, program), []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir)
	return c
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// flags returns the arguments the program was run with: the words before the first
// flag, and each flag with its value ("" for a flag without one).
func (c *fakeCLI) flags(t *testing.T) (words []string, flags map[string]string) {
	t.Helper()
	data, err := os.ReadFile(c.argsFile)
	if err != nil {
		t.Fatalf("the stand-in was not run: %v", err)
	}
	args := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	flags = map[string]string{}
	for i := 0; i < len(args); i++ {
		switch {
		case !strings.HasPrefix(args[i], "-") && len(flags) == 0:
			words = append(words, args[i])
		case i+1 < len(args) && !strings.HasPrefix(args[i+1], "-"):
			flags[args[i]] = args[i+1]
			i++
		default:
			flags[args[i]] = ""
		}
	}
	return words, flags
}

// The azurecli login runs az account get-access-token for the AKS server ID's
// resource (the library passes the scope <server-id>/.default as a v1 resource), with
// --tenant when the kubeconfig's --tenant-id or AZURE_TENANT_ID names one, as kubelogin
// does; the token and its expiry are az's, whether az gives expires_on (2.54 and later)
// or only expiresOn, local time (all versions).
//
//nolint:paralleltest // it sets PATH, where the library looks for az
func TestAKSAzureCLI(t *testing.T) {
	const token = "eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9.az-cli-token.sig" //nolint:gosec // made up, printed by the stand-in
	expires := time.Now().Add(time.Hour).Truncate(time.Second)
	// As az 2.54 and later print it, and as earlier ones (no expires_on).
	withUnix := fmt.Sprintf(`{"accessToken": %q, "expiresOn": %q, "expires_on": %d, "subscription": "a9e7f2c1-0d0e-4b8e-9c55-3f0e0c1d2b3a", "tenant": %q, "tokenType": "Bearer"}`,
		token, expires.Local().Format("2006-01-02 15:04:05.000000"), expires.Unix(), tenant)
	localOnly := fmt.Sprintf(`{"accessToken": %q, "expiresOn": %q, "subscription": "a9e7f2c1-0d0e-4b8e-9c55-3f0e0c1d2b3a", "tenant": %q, "tokenType": "Bearer"}`,
		token, expires.Local().Format("2006-01-02 15:04:05.000000"), tenant)
	for _, tt := range []struct {
		name, output string
		p            Plugin
		env          map[string]string
		// tenant is the --tenant az is given, "" for none.
		tenant string
	}{
		{name: "--tenant-id", output: withUnix, p: Plugin{TenantID: tenant}, tenant: tenant},
		{name: "no tenant, an az before 2.54", output: localOnly},
		{name: "AZURE_TENANT_ID over --tenant-id", output: withUnix, p: Plugin{TenantID: tenant},
			env: map[string]string{"AZURE_TENANT_ID": otherTenant}, tenant: otherTenant},
		{name: "--disable-environment-override", output: withUnix, p: Plugin{TenantID: tenant, DisableEnvironmentOverride: true},
			env: map[string]string{"AZURE_TENANT_ID": otherTenant}, tenant: tenant},
	} {
		t.Run(tt.name, func(t *testing.T) {
			az := installCLI(t, "az", tt.output, "", 0)
			p := tt.p
			p.Cloud, p.Command, p.Login, p.ServerID = AKS, "kubelogin", "azurecli", AKSServerID
			src := newSource(t, p, Options{Server: server, Getenv: func(n string) string { return tt.env[n] }})
			tok := nextToken(t, src)
			if tok.Value != token || !tok.Expiry.Equal(expires) {
				t.Errorf("Token() = %q expiring %s, want az's token expiring %s", tok.Value, tok.Expiry, expires)
			}
			words, flags := az.flags(t)
			want := map[string]string{"-o": "json", "--resource": AKSServerID}
			if tt.tenant != "" {
				want["--tenant"] = tt.tenant
			}
			if diff := cmp.Diff([]string{"account", "get-access-token"}, words); diff != "" {
				t.Errorf("az command (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(want, flags); diff != "" {
				t.Errorf("az flags (-want +got):\n%s", diff)
			}
			describe := src.Describe()
			for _, want := range []string{"AKS cluster at " + server + " (server ID " + AKSServerID + ")", "Azure CLI", tt.tenant} {
				if !strings.Contains(describe, want) {
					t.Errorf("Describe() = %q, want it to name %q", describe, want)
				}
			}
			if strings.Contains(describe, "authority") {
				t.Errorf("Describe() = %q names an authority, which az chooses itself", describe)
			}
		})
	}
}

// az not signed in, or not installed: the error names the cluster and the Azure CLI,
// and says what az said.
//
//nolint:paralleltest // it sets PATH, where the library looks for az
func TestAKSAzureCLIFails(t *testing.T) {
	for _, tt := range []struct {
		name string
		// install puts az on PATH; otherwise PATH has none.
		install bool
		want    string
	}{
		{name: "not signed in", install: true, want: "Please run 'az login' to setup account."},
		{name: "not installed", want: "executable not found on path"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.install {
				installCLI(t, "az", "", "ERROR: Please run 'az login' to setup account.\n", 1)
			} else {
				t.Setenv("PATH", t.TempDir())
			}
			p := Plugin{Cloud: AKS, Command: "kubelogin", Login: "azurecli", ServerID: AKSServerID}
			src, err := New(p, Options{Server: server, Getenv: noEnv})
			if err != nil {
				t.Fatal(err)
			}
			_, err = src.Token(t.Context())
			for _, want := range []string{"AKS cluster at " + server, "Azure CLI", tt.want} {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("Token() = %v, want an error naming %q", err, want)
				}
			}
		})
	}
}

// The azd login runs azd auth token for the AKS server ID's scope, with --tenant-id as
// for az; the token and expiry (UTC) are azd's. Not signed in, the error names the
// cluster and the Azure Developer CLI and gives azd's message (azd 1.23.6 and earlier
// wrap it in a JSON console message on stderr; the library takes it out).
//
//nolint:paralleltest // it sets PATH, where the library looks for azd
func TestAKSAzureDeveloperCLI(t *testing.T) {
	const token = "eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9.azd-token.sig" //nolint:gosec // made up, printed by the stand-in
	expires := time.Now().Add(time.Hour).Truncate(time.Second).UTC()
	output := fmt.Sprintf(`{"token": %q, "expiresOn": %q}`, token, expires.Format("2006-01-02T15:04:05Z"))
	for _, tt := range []struct {
		name   string
		p      Plugin
		env    map[string]string
		tenant string
	}{
		{name: "--tenant-id", p: Plugin{TenantID: tenant}, tenant: tenant},
		{name: "no tenant"},
		{name: "AZURE_TENANT_ID over --tenant-id", p: Plugin{TenantID: tenant},
			env: map[string]string{"AZURE_TENANT_ID": otherTenant}, tenant: otherTenant},
	} {
		t.Run(tt.name, func(t *testing.T) {
			azd := installCLI(t, "azd", output, "", 0)
			p := tt.p
			p.Cloud, p.Command, p.Login, p.ServerID = AKS, "kubelogin", "azd", AKSServerID
			src := newSource(t, p, Options{Server: server, Getenv: func(n string) string { return tt.env[n] }})
			tok := nextToken(t, src)
			if tok.Value != token || !tok.Expiry.Equal(expires) {
				t.Errorf("Token() = %q expiring %s, want azd's token expiring %s", tok.Value, tok.Expiry, expires)
			}
			words, flags := azd.flags(t)
			want := map[string]string{"-o": "json", "--no-prompt": "", "--scope": AKSServerID + "/.default"}
			if tt.tenant != "" {
				want["--tenant-id"] = tt.tenant
			}
			if diff := cmp.Diff([]string{"auth", "token"}, words); diff != "" {
				t.Errorf("azd command (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(want, flags); diff != "" {
				t.Errorf("azd flags (-want +got):\n%s", diff)
			}
			for _, want := range []string{"AKS cluster at " + server, "Azure Developer CLI", tt.tenant} {
				if !strings.Contains(src.Describe(), want) {
					t.Errorf("Describe() = %q, want it to name %q", src.Describe(), want)
				}
			}
		})
	}
	t.Run("not signed in", func(t *testing.T) {
		installCLI(t, "azd", "",
			`{"type":"consoleMessage","timestamp":"2025-06-02T09:14:27.918Z","data":{"message":"\nERROR: not logged in, run `+"`azd auth login`"+` to login\n"}}`+"\n", 1)
		p := Plugin{Cloud: AKS, Command: "kubelogin", Login: "azd", ServerID: AKSServerID}
		src, err := New(p, Options{Server: server, Getenv: noEnv})
		if err != nil {
			t.Fatal(err)
		}
		_, err = src.Token(t.Context())
		for _, want := range []string{"AKS cluster at " + server, "Azure Developer CLI", "not logged in, run `azd auth login`"} {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("Token() = %v, want an error naming %q", err, want)
			}
		}
		if err != nil && strings.Contains(err.Error(), "consoleMessage") {
			t.Errorf("Token() = %v, want azd's message without its JSON envelope", err)
		}
	})
}
