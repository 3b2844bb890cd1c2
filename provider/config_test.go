package provider

import (
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi/sdk/v3/go/property"

	"github.com/endpoints-provider/pulumi-endpoints/provider/google"
	"github.com/endpoints-provider/pulumi-endpoints/provider/kube"
	"github.com/endpoints-provider/pulumi-endpoints/provider/kube/cloudauth"
	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
)

// Every configuration key of schema.json sets one field of Config, and no field is set
// by a key the schema does not declare.
func TestConfigFieldsMatchSchema(t *testing.T) {
	t.Parallel()
	var cfg Config
	want := slices.Sorted(maps.Keys(spec.MustLoad().Config.Variables))
	got := slices.Sorted(maps.Keys(cfg.fields()))
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("config keys (-schema.json +Config.fields):\n%s", diff)
	}
}

func TestParseConfig(t *testing.T) {
	t.Parallel()
	str := property.New[string]
	tests := []struct {
		name         string
		args         map[string]property.Value
		env          map[string]string
		want         Config
		wantFailures []p.CheckFailure
		wantWarnings int
	}{
		{
			name: "explicit values",
			args: map[string]property.Value{
				"kubeconfig": str("/k"), "context": str("ctx"), "namespace": str("ns"),
				"project": str("p"), "credentials": str("{}"), "accessToken": str("tok"),
				"impersonateServiceAccount":     str("sa@p.iam.gserviceaccount.com"),
				"migrationCenterCustomEndpoint": str("http://127.0.0.1:1/"),
				"beyondcorpCustomEndpoint":      str("http://127.0.0.1:2/"),
			},
			want: Config{
				Kube: kube.Config{Kubeconfig: "/k", Context: "ctx", Namespace: "ns"},
				Google: google.Config{
					Project: "p", Credentials: "{}", AccessToken: "tok",
					ImpersonateServiceAccount: "sa@p.iam.gserviceaccount.com",
					MigrationCenterEndpoint:   "http://127.0.0.1:1/",
					BeyondcorpEndpoint:        "http://127.0.0.1:2/",
				},
			},
		},
		{
			name: "environment fallbacks in the order schema.json gives",
			env: map[string]string{
				"KUBECONFIG": "/env/kubeconfig", "GOOGLE_CLOUD_PROJECT": "second", "GOOGLE_PROJECT": "first",
				"GOOGLE_CREDENTIALS": "creds", "GOOGLE_OAUTH_ACCESS_TOKEN": "token",
				"GOOGLE_IMPERSONATE_SERVICE_ACCOUNT":      "sa",
				"GOOGLE_MIGRATION_CENTER_CUSTOM_ENDPOINT": "http://mc/",
				"GOOGLE_BEYONDCORP_CUSTOM_ENDPOINT":       "http://bc/",
			},
			want: Config{
				Kube: kube.Config{KubeconfigPaths: []string{"/env/kubeconfig"}},
				Google: google.Config{
					Project: "first", Credentials: "creds", AccessToken: "token", ImpersonateServiceAccount: "sa",
					MigrationCenterEndpoint: "http://mc/", BeyondcorpEndpoint: "http://bc/",
				},
			},
		},
		{
			name: "an explicit value beats the environment",
			args: map[string]property.Value{"project": str("explicit")},
			env:  map[string]string{"GOOGLE_PROJECT": "env"},
			want: Config{Google: google.Config{Project: "explicit"}},
		},
		{
			name: "a later environment variable serves when the first is unset",
			env:  map[string]string{"GOOGLE_CLOUD_PROJECT": "cloud"},
			want: Config{Google: google.Config{Project: "cloud"}},
		},
		{
			name:         "a value of the wrong kind fails naming the key",
			args:         map[string]property.Value{"namespace": property.New(3.0)},
			wantFailures: []p.CheckFailure{{Property: "namespace", Reason: "namespace must be a string, not a number"}},
		},
		{
			name: "a setting with fixed choices",
			args: map[string]property.Value{"deletePropagationPolicy": str("Foreground")},
			want: Config{Kube: kube.Config{DeletePropagationPolicy: "Foreground"}},
		},
		{
			name: "a value outside the choices fails naming them",
			args: map[string]property.Value{"deletePropagationPolicy": str("background")},
			wantFailures: []p.CheckFailure{{
				Property: "deletePropagationPolicy",
				Reason:   `deletePropagationPolicy must be one of Background, Foreground, Orphan, not "background"`,
			}},
		},
		{
			name: "a lookup timeout",
			args: map[string]property.Value{"lookupTimeout": str("90s")},
			want: Config{Google: google.Config{Timeout: 90 * time.Second}},
		},
		{
			name:         "a lookup timeout that is not a duration",
			args:         map[string]property.Value{"lookupTimeout": str("soon")},
			want:         Config{},
			wantFailures: []p.CheckFailure{{Property: "lookupTimeout", Reason: `lookupTimeout must be a positive duration such as 30s or 2m, not "soon"`}},
		},
		{
			name: "unknown values are recorded, not defaulted",
			args: map[string]property.Value{"project": property.New(property.Computed)},
			env:  map[string]string{"GOOGLE_PROJECT": "env"},
			want: Config{Unknown: []string{"project"}},
		},
		{
			name:         "an unknown key warns",
			args:         map[string]property.Value{"kubeConfig": str("/typo")},
			wantWarnings: 1,
		},
		{
			name: "KUBECONFIG is a list of files",
			env:  map[string]string{"KUBECONFIG": "/a/config::/b/config:"},
			want: Config{Kube: kube.Config{KubeconfigPaths: []string{"/a/config", "/b/config"}}},
		},
		{
			name: "a kubeconfig setting is one path, colons and all",
			args: map[string]property.Value{"kubeconfig": str("/a/config:/b/config")},
			env:  map[string]string{"KUBECONFIG": "/env/config"},
			want: Config{Kube: kube.Config{Kubeconfig: "/a/config:/b/config"}},
		},
		{
			name: "a kubeconfig setting copied from KUBECONFIG (as the SDKs do) stays the list",
			args: map[string]property.Value{"kubeconfig": str("/a/config:/b/config")},
			env:  map[string]string{"KUBECONFIG": "/a/config:/b/config"},
			want: Config{Kube: kube.Config{KubeconfigPaths: []string{"/a/config", "/b/config"}}},
		},
		{
			name: "client settings as numbers and booleans",
			args: map[string]property.Value{
				"qps": property.New(50.5), "burst": property.New(10.0), "requestTimeout": str("5s"),
				"deleteUnreachable": property.New(true), "skipUpdateUnreachable": property.New(false),
				"clusterIdentifier": str("prod-eu"),
			},
			want: Config{Kube: kube.Config{
				QPS: 50.5, Burst: 10, RequestTimeout: 5 * time.Second, DeleteUnreachable: true, ClusterIdentifier: "prod-eu",
			}},
		},
		{
			name: "client settings as strings, as stack configuration and the SDKs send them",
			args: map[string]property.Value{
				"qps": str("100"), "burst": str(" 20 "), "deleteUnreachable": str("true"), "skipUpdateUnreachable": str("1"),
			},
			want: Config{Kube: kube.Config{QPS: 100, Burst: 20, DeleteUnreachable: true, SkipUpdateUnreachable: true}},
		},
		{
			name: "the render directory, from the setting or the environment",
			args: map[string]property.Value{"renderDirectory": str("manifests")},
			env:  map[string]string{"PULUMI_ENDPOINTS_RENDER_DIRECTORY": "elsewhere"},
			want: Config{Kube: kube.Config{RenderDirectory: "manifests"}},
		},
		{
			name: "the render directory from the environment",
			env:  map[string]string{"PULUMI_ENDPOINTS_RENDER_DIRECTORY": "/srv/manifests"},
			want: Config{Kube: kube.Config{RenderDirectory: "/srv/manifests"}},
		},
		{
			name: "client settings from the environment",
			env: map[string]string{
				"PULUMI_ENDPOINTS_CLIENT_QPS": "75", "PULUMI_ENDPOINTS_CLIENT_BURST": "150",
				"PULUMI_ENDPOINTS_CLIENT_REQUEST_TIMEOUT": "1m", "PULUMI_ENDPOINTS_DELETE_UNREACHABLE": "true",
				"PULUMI_ENDPOINTS_SKIP_UPDATE_UNREACHABLE": "TRUE", "PULUMI_ENDPOINTS_CLUSTER_IDENTIFIER": "staging",
			},
			want: Config{Kube: kube.Config{
				QPS: 75, Burst: 150, RequestTimeout: time.Minute, DeleteUnreachable: true, SkipUpdateUnreachable: true,
				ClusterIdentifier: "staging",
			}},
		},
		{
			name: "an explicit setting beats the environment for numbers and booleans too",
			args: map[string]property.Value{"qps": property.New(5.0), "deleteUnreachable": property.New(false)},
			env:  map[string]string{"PULUMI_ENDPOINTS_CLIENT_QPS": "75", "PULUMI_ENDPOINTS_DELETE_UNREACHABLE": "true"},
			want: Config{Kube: kube.Config{QPS: 5}},
		},
		{
			name: "bad client settings fail naming the key and the rule",
			args: map[string]property.Value{
				"qps": property.New(-1.0), "burst": property.New(0.0), "requestTimeout": str("soon"),
				"deleteUnreachable": str("yes"), "skipUpdateUnreachable": property.New(1.0),
			},
			want: Config{},
			wantFailures: []p.CheckFailure{
				{Property: "burst", Reason: "burst must be an integer of at least 1, not 0"},
				{Property: "deleteUnreachable", Reason: `deleteUnreachable must be true or false, not "yes"`},
				{Property: "qps", Reason: "qps must be a number greater than 0 (requests per second), not -1"},
				{Property: "skipUpdateUnreachable", Reason: "skipUpdateUnreachable must be true or false, not a number"},
				{Property: "requestTimeout", Reason: `requestTimeout must be a positive duration such as 30s or 2m, not "soon"`},
			},
		},
		{
			name: "numbers of the wrong shape",
			args: map[string]property.Value{"qps": str("fast"), "burst": property.New(2.5)},
			wantFailures: []p.CheckFailure{
				{Property: "burst", Reason: "burst must be an integer, not 2.5"},
				{Property: "qps", Reason: `qps must be a number, not "fast"`},
			},
		},
		{
			name: "a bad environment value names the variable",
			env:  map[string]string{"PULUMI_ENDPOINTS_CLIENT_BURST": "0", "PULUMI_ENDPOINTS_CLIENT_REQUEST_TIMEOUT": "-5s"},
			want: Config{},
			wantFailures: []p.CheckFailure{
				{Property: "burst", Reason: "burst must be an integer of at least 1, not 0 (from the PULUMI_ENDPOINTS_CLIENT_BURST environment variable)"},
				{Property: "requestTimeout", Reason: `requestTimeout must be a positive duration such as 30s or 2m, not "-5s" (from the PULUMI_ENDPOINTS_CLIENT_REQUEST_TIMEOUT environment variable)`},
			},
		},
		{
			name: "quota project, request reason and user agent settings",
			args: map[string]property.Value{
				"billingProject": str("billing"), "userProjectOverride": property.New(true),
				"requestReason": str("ticket 42"), "appendUserAgent": str("deployer/1.0"),
				"suppressDeprecationWarnings": property.New(true),
			},
			want: Config{
				Kube: kube.Config{SuppressDeprecationWarnings: true},
				Google: google.Config{
					BillingProject: "billing", UserProjectOverride: true, RequestReason: "ticket 42", AppendUserAgent: "deployer/1.0",
				},
			},
		},
		{
			name: "quota project, request reason and user agent settings from the environment",
			env: map[string]string{
				"GOOGLE_BILLING_PROJECT": "billing", "USER_PROJECT_OVERRIDE": "true",
				"CLOUDSDK_CORE_REQUEST_REASON": "ticket 42", "GOOGLE_APPEND_USER_AGENT": "deployer/1.0",
				"PULUMI_ENDPOINTS_SUPPRESS_DEPRECATION_WARNINGS": "true",
			},
			want: Config{
				Kube: kube.Config{SuppressDeprecationWarnings: true},
				Google: google.Config{
					BillingProject: "billing", UserProjectOverride: true, RequestReason: "ticket 42", AppendUserAgent: "deployer/1.0",
				},
			},
		},
		{
			name: "a billing project without userProjectOverride",
			args: map[string]property.Value{"billingProject": str("billing")},
			env:  map[string]string{"USER_PROJECT_OVERRIDE": "false"},
			want: Config{Google: google.Config{BillingProject: "billing"}},
		},
		{
			name: "userProjectOverride without billingProject fails on billingProject",
			args: map[string]property.Value{"userProjectOverride": property.New(true)},
			want: Config{Google: google.Config{UserProjectOverride: true}},
			wantFailures: []p.CheckFailure{{Property: "billingProject", Reason: "userProjectOverride is true but billingProject is not set: " +
				"set billingProject (endpoints:billingProject, or GOOGLE_BILLING_PROJECT) to the project the lookups' quota is charged to, " +
				"or set userProjectOverride to false"}},
		},
		{
			name: "userProjectOverride with billingProject from the environment",
			args: map[string]property.Value{"userProjectOverride": str("true")},
			env:  map[string]string{"GOOGLE_BILLING_PROJECT": "billing"},
			want: Config{Google: google.Config{UserProjectOverride: true, BillingProject: "billing"}},
		},
		{
			name: "USER_PROJECT_OVERRIDE alone, perhaps meant for other providers, fails only the lookups",
			env:  map[string]string{"USER_PROJECT_OVERRIDE": "true"},
			want: Config{Google: google.Config{UserProjectOverride: true}},
		},
		{
			name: "userProjectOverride copied from USER_PROJECT_OVERRIDE (as the SDKs do) still fails only the lookups",
			args: map[string]property.Value{"userProjectOverride": str("true")},
			env:  map[string]string{"USER_PROJECT_OVERRIDE": "true"},
			want: Config{Google: google.Config{UserProjectOverride: true}},
		},
		{
			name: "userProjectOverride with a billingProject not known yet",
			args: map[string]property.Value{"userProjectOverride": property.New(true), "billingProject": property.New(property.Computed)},
			want: Config{Google: google.Config{UserProjectOverride: true}, Unknown: []string{"billingProject"}},
		},
		{
			name: "header settings with control characters",
			args: map[string]property.Value{"requestReason": str("line one\nline two"), "billingProject": str("proj\t")},
			env:  map[string]string{"GOOGLE_APPEND_USER_AGENT": "agent\r"},
			want: Config{Google: google.Config{RequestReason: "line one\nline two", BillingProject: "proj\t", AppendUserAgent: "agent\r"}},
			wantFailures: []p.CheckFailure{
				{Property: "appendUserAgent", Reason: "appendUserAgent must not contain line breaks or other control characters: " +
					"it is sent in an HTTP header (from the GOOGLE_APPEND_USER_AGENT environment variable)"},
				{Property: "requestReason", Reason: "requestReason must not contain line breaks or other control characters: it is sent in an HTTP header"},
			},
		},
		{
			name: "refreshBeforeUpdate turned on by the setting",
			args: map[string]property.Value{"refreshBeforeUpdate": property.New(true)},
			want: Config{Kube: kube.Config{RefreshBeforeUpdate: true}},
		},
		{
			name: "refreshBeforeUpdate turned on by the environment",
			env:  map[string]string{"PULUMI_ENDPOINTS_REFRESH_BEFORE_UPDATE": "true"},
			want: Config{Kube: kube.Config{RefreshBeforeUpdate: true}},
		},
		{
			name: "a refreshBeforeUpdate setting beats the environment",
			args: map[string]property.Value{"refreshBeforeUpdate": str("false")},
			env:  map[string]string{"PULUMI_ENDPOINTS_REFRESH_BEFORE_UPDATE": "true"},
		},
		{
			name: "a bad refreshBeforeUpdate fails",
			args: map[string]property.Value{"refreshBeforeUpdate": str("sometimes")},
			wantFailures: []p.CheckFailure{
				{Property: "refreshBeforeUpdate", Reason: `refreshBeforeUpdate must be true or false, not "sometimes"`},
			},
		},
		{
			name: "a duration given as a number fails naming the unit it lacks",
			args: map[string]property.Value{"requestTimeout": property.New(30.0), "lookupTimeout": property.New(1.5)},
			wantFailures: []p.CheckFailure{
				{Property: "lookupTimeout", Reason: `lookupTimeout must be a positive duration such as 30s or 2m, not the number 1.5: give the unit, such as "1.5s" for 1.5 seconds`},
				{Property: "requestTimeout", Reason: `requestTimeout must be a positive duration such as 30s or 2m, not the number 30: give the unit, such as "30s" for 30 seconds`},
			},
		},
		{
			name: "a duration of another kind fails naming the kind",
			args: map[string]property.Value{
				"requestTimeout": property.New(true),
				"lookupTimeout":  property.New(property.NewMap(map[string]property.Value{"s": property.New(30.0)})),
			},
			wantFailures: []p.CheckFailure{
				{Property: "lookupTimeout", Reason: "lookupTimeout must be a positive duration such as 30s or 2m, not an object"},
				{Property: "requestTimeout", Reason: "requestTimeout must be a positive duration such as 30s or 2m, not a boolean"},
			},
		},
		{
			name: "secret values are read as their values",
			args: map[string]property.Value{
				"requestTimeout": str("45s").WithSecret(true), "qps": property.New(7.0).WithSecret(true),
				"deleteUnreachable": property.New(true).WithSecret(true), "namespace": str("ns").WithSecret(true),
			},
			want: Config{Kube: kube.Config{RequestTimeout: 45 * time.Second, QPS: 7, DeleteUnreachable: true, Namespace: "ns"}},
		},
		{
			name: "a bad secret value fails without showing it",
			args: map[string]property.Value{
				"requestTimeout": str("hunter2").WithSecret(true), "lookupTimeout": property.New(30.0).WithSecret(true),
				"deleteUnreachable": str("hunter2").WithSecret(true), "burst": property.New(0.5).WithSecret(true),
				"deletePropagationPolicy": str("hunter2").WithSecret(true), "kubeconfig": property.New(42.0),
			},
			wantFailures: []p.CheckFailure{
				{Property: "burst", Reason: "burst must be an integer, not a secret number"},
				{Property: "deletePropagationPolicy", Reason: "deletePropagationPolicy must be one of Background, Foreground, Orphan, not a secret string"},
				{Property: "deleteUnreachable", Reason: "deleteUnreachable must be true or false, not a secret string"},
				{Property: "kubeconfig", Reason: "kubeconfig must be a string, not a secret number"},
				{Property: "lookupTimeout", Reason: "lookupTimeout must be a positive duration such as 30s or 2m, not a secret number"},
				{Property: "requestTimeout", Reason: "requestTimeout must be a positive duration such as 30s or 2m, not a secret string"},
			},
		},
		{
			name: "null and unknown values of every kind of setting",
			args: map[string]property.Value{
				"requestTimeout": property.New(property.Computed), "qps": property.New(property.Computed).WithSecret(true),
				"lookupTimeout": property.New(property.Null), "deleteUnreachable": property.New(property.Null).WithSecret(true),
			},
			want: Config{Unknown: []string{"qps", "requestTimeout"}},
		},
		{
			name: "cloudCredentials from the setting",
			args: map[string]property.Value{"cloudCredentials": str("builtIn")},
			env:  map[string]string{"PULUMI_ENDPOINTS_CLOUD_CREDENTIALS": "exec"},
			want: Config{Kube: kube.Config{CloudCredentials: "builtIn"}},
		},
		{
			name: "cloudCredentials from the environment",
			env:  map[string]string{"PULUMI_ENDPOINTS_CLOUD_CREDENTIALS": "exec"},
			want: Config{Kube: kube.Config{CloudCredentials: "exec"}},
		},
		{
			name: "cloudCredentials outside its choices fails naming them",
			args: map[string]property.Value{"cloudCredentials": str("builtin")},
			wantFailures: []p.CheckFailure{{
				Property: "cloudCredentials",
				Reason:   `cloudCredentials must be one of automatic, builtIn, exec, not "builtin"`,
			}},
		},
		{
			name: "cloudCredentials outside its choices in the environment names the variable",
			env:  map[string]string{"PULUMI_ENDPOINTS_CLOUD_CREDENTIALS": "plugin"},
			wantFailures: []p.CheckFailure{{
				Property: "cloudCredentials",
				Reason: `cloudCredentials must be one of automatic, builtIn, exec, not "plugin" ` +
					"(from the PULUMI_ENDPOINTS_CLOUD_CREDENTIALS environment variable)",
			}},
		},
		{
			name: "engine keys are not configuration",
			args: map[string]property.Value{"version": str("1.0.0"), "__pulumi-go-provider-version": str("1.5.0")},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			getenv := func(k string) string { return tt.env[k] }
			got, failures, warnings := parseConfig(property.NewMap(tt.args), getenv)
			sortFailures(failures)
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("config (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantFailures, failures, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("failures (-want +got):\n%s", diff)
			}
			if len(warnings) != tt.wantWarnings {
				t.Errorf("got %d warnings %q, want %d", len(warnings), warnings, tt.wantWarnings)
			}
		})
	}
}

// sortFailures orders failures as the table lists them: by key, the duration
// settings (checked last) at the end.
func sortFailures(failures []p.CheckFailure) {
	slices.SortStableFunc(failures, func(a, b p.CheckFailure) int {
		late := func(f p.CheckFailure) bool { return strings.HasSuffix(f.Property, "Timeout") }
		if late(a) != late(b) {
			if late(a) {
				return 1
			}
			return -1
		}
		return strings.Compare(a.Property, b.Property)
	})
}

func TestMarkSecrets(t *testing.T) {
	t.Parallel()
	in := property.NewMap(map[string]property.Value{
		"kubeconfig":  property.New("apiVersion: v1\nkind: Config\n"),
		"credentials": property.New("{}"),
		"accessToken": property.New("tok"),
		"project":     property.New("p"),
	})
	out := markSecrets(in)
	var secret []string
	for k, v := range out.AllStable {
		if v.Secret() {
			secret = append(secret, k)
		}
	}
	want := []string{"accessToken", "credentials", "kubeconfig"}
	if !slices.Equal(secret, want) {
		t.Errorf("secret keys = %v, want %v", secret, want)
	}
}

// The choices CheckConfig accepts for cloudCredentials are the modes package cloudauth
// reads, spelled the same.
func TestCloudCredentialsChoicesAreTheModes(t *testing.T) {
	t.Parallel()
	var modes []string
	for _, m := range cloudauth.Modes {
		modes = append(modes, string(m))
	}
	if diff := cmp.Diff(modes, configChoices["cloudCredentials"]); diff != "" {
		t.Errorf("cloudCredentials choices (-cloudauth.Modes +configChoices):\n%s", diff)
	}
}
