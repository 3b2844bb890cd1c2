package google_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/blang/semver"
	"github.com/google/go-cmp/cmp"
	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi-go-provider/integration"
	presource "github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	"github.com/pulumi/pulumi/sdk/v3/go/common/tokens"
	"github.com/pulumi/pulumi/sdk/v3/go/property"

	"github.com/endpoints-provider/pulumi-endpoints/provider"
	"github.com/endpoints-provider/pulumi-endpoints/provider/google"
	"github.com/endpoints-provider/pulumi-endpoints/provider/internal/propertytest"
	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/googledouble"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/inprocess"
)

//nolint:gosec // G101: fake tokens the doubles check
const (
	// token is the access token the doubles expect; it must never appear in an error,
	// a failure or a log line.
	token = "ya29.endpoints-test-token-7c1e9a40"
	// wrongToken is a token the doubles reject; it must not appear either.
	wrongToken = "ya29.endpoints-wrong-token-2b8d"

	importDataFile = spec.ImportDataFileToken
	policyToken    = spec.ProxyConfigIamPolicyToken

	// lookupTimeout is the lookupTimeout setting of these tests.
	lookupTimeout = 5 * time.Second
)

// secrets must never be shown: tokens and the text of private keys.
var secrets = []string{token, wrongToken, "PRIVATE KEY", "MII"}

// logs captures every log line of the test binary (the provider logs through slog when
// no engine is attached).
var logs lockedBuffer

func TestMain(m *testing.M) {
	slog.SetDefault(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})))
	// The headers the tests check are the settings' alone.
	for _, env := range headerEnv {
		_ = os.Unsetenv(env)
	}
	code := m.Run()
	for _, s := range secrets {
		if strings.Contains(logs.String(), s) {
			fmt.Fprintf(os.Stderr, "FAIL: a log line shows secret text %q\n", s)
			code = 1
		}
	}
	os.Exit(code)
}

type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// harness is a provider, served by pulumi-go-provider's integration server, configured
// for a double.
type harness struct {
	t      *testing.T
	srv    integration.Server
	double *googledouble.Server
}

// start runs a double expecting token and a provider configured for it (see
// startWith) with accessToken. config replaces keys; an empty value leaves a key out.
func start(t *testing.T, config map[string]string) *harness {
	t.Helper()
	settings := map[string]string{"accessToken": token}
	maps.Copy(settings, config)
	return startWith(t, startDouble(t, token), settings)
}

// startWith runs a provider configured for double (see settingsFor).
func startWith(t *testing.T, double *googledouble.Server, settings map[string]string) *harness {
	t.Helper()
	h := &harness{t: t, srv: newProvider(t), double: double}
	h.configure(settingsFor(double, settings))
	return h
}

// settingsFor returns provider settings for double: both custom endpoints at it,
// project "proj" and lookupTimeout, then settings, which replace keys.
func settingsFor(double *googledouble.Server, settings map[string]string) map[string]string {
	out := map[string]string{
		"migrationCenterCustomEndpoint": double.URL,
		"beyondcorpCustomEndpoint":      double.URL,
		"project":                       "proj",
		"lookupTimeout":                 lookupTimeout.String(),
	}
	maps.Copy(out, settings)
	return out
}

func startDouble(t *testing.T, token string) *googledouble.Server {
	t.Helper()
	double, err := googledouble.Start(token)
	if err != nil {
		t.Fatalf("starting the double: %v", err)
	}
	t.Cleanup(func() { _ = double.Close() })
	return double
}

// startLookups runs a double expecting token and the lookups alone, served as the
// provider serves them, with the configuration the provider would build from
// settingsFor's settings and the retry policy given, which no setting sets.
func startLookups(t *testing.T, retry google.RetryPolicy) *harness {
	t.Helper()
	double := startDouble(t, token)
	cfg := google.Config{
		Project: "proj", AccessToken: token, MigrationCenterEndpoint: double.URL, BeyondcorpEndpoint: double.URL,
		Timeout: lookupTimeout,
	}
	functions := google.FunctionsRetrying(func() google.Config { return cfg }, retry)
	srv, err := integration.NewServer(t.Context(), "endpoints", semver.MustParse("0.1.0"),
		integration.WithProvider(p.Provider{Invoke: func(ctx context.Context, req p.InvokeRequest) (p.InvokeResponse, error) {
			return functions[req.Token](ctx, req.Args)
		}}))
	if err != nil {
		t.Fatalf("starting the lookups: %v", err)
	}
	return &harness{t: t, srv: srv, double: double}
}

// newProvider starts the provider the plugin serves.
func newProvider(t *testing.T) integration.Server {
	t.Helper()
	return inprocess.Start(t)
}

// configure sends the provider configuration; empty values are left out.
func (h *harness) configure(settings map[string]string) {
	h.t.Helper()
	args := map[string]property.Value{}
	for k, v := range settings {
		if v != "" {
			args[k] = property.New(v)
		}
	}
	if err := h.srv.Configure(p.ConfigureRequest{Args: property.NewMap(args)}); err != nil {
		h.t.Fatalf("Configure: %v", err)
	}
}

// invoke calls a function and returns its result as plain values (see
// propertytest.Marked), after a round trip through the gRPC wire encoding. It fails
// the test if a secret shows.
func (h *harness) invoke(tok tokens.Type, args map[string]property.Value) (map[string]any, []p.CheckFailure, error) {
	h.t.Helper()
	resp, err := h.srv.Invoke(p.InvokeRequest{Token: tok, Args: property.NewMap(args)})
	if err != nil {
		assertNoSecret(h.t, "error", err.Error())
	}
	for _, f := range resp.Failures {
		assertNoSecret(h.t, "failure", f.Reason)
	}
	return propertytest.MarkedMap(wire(h.t, resp.Return)), resp.Failures, err
}

// mustInvoke is invoke for calls that must succeed.
func (h *harness) mustInvoke(tok tokens.Type, args map[string]property.Value) map[string]any {
	h.t.Helper()
	out, failures, err := h.invoke(tok, args)
	if err != nil || len(failures) > 0 {
		h.t.Fatalf("Invoke %s: err = %v, failures = %v", tok, err, failures)
	}
	return out
}

// invokeWithin is invoke for calls that must fail, bounded so a lookup that never
// returns fails the test instead of hanging it.
func (h *harness) invokeWithin(limit time.Duration, tok tokens.Type, args map[string]property.Value) error {
	h.t.Helper()
	done := make(chan error, 1)
	go func() {
		resp, err := h.srv.Invoke(p.InvokeRequest{Token: tok, Args: property.NewMap(args)})
		if err == nil && len(resp.Failures) > 0 {
			err = fmt.Errorf("unexpected failures: %v", resp.Failures)
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			assertNoSecret(h.t, "error", err.Error())
		}
		return err
	case <-time.After(limit):
		h.t.Fatalf("Invoke %s did not return within %s", tok, limit)
		return nil
	}
}

func (h *harness) requests() int { return len(h.double.Requests()) }

// onlyRequest returns the one request the double received, failing the test if it
// received another number.
func (h *harness) onlyRequest() googledouble.Request {
	h.t.Helper()
	reqs := h.double.Requests()
	if len(reqs) != 1 {
		h.t.Fatalf("the double received %d requests, want 1", len(reqs))
	}
	return reqs[0]
}

// wire round-trips a result through the encoding the gRPC server uses.
func wire(t *testing.T, m property.Map) property.Map {
	t.Helper()
	opts := plugin.MarshalOptions{KeepUnknowns: true, KeepSecrets: true, KeepOutputValues: true, KeepResources: true}
	s, err := plugin.MarshalProperties(presource.ToResourcePropertyMap(m), opts)
	if err != nil {
		t.Fatalf("encoding the result: %v", err)
	}
	back, err := plugin.UnmarshalProperties(s, opts)
	if err != nil {
		t.Fatalf("decoding the result: %v", err)
	}
	return presource.FromResourcePropertyMap(back)
}

func assertNoSecret(t *testing.T, what, text string) {
	t.Helper()
	for _, s := range secrets {
		if strings.Contains(text, s) {
			t.Errorf("%s shows secret text %q: %s", what, s, text)
		}
	}
}

func str(s string) property.Value  { return property.New(s) }
func num(n float64) property.Value { return property.New(n) }

// fileArgs are the arguments of getImportDataFile for projects/proj/locations/l/importJobs/j/importDataFiles/f.
func fileArgs() map[string]property.Value {
	return map[string]property.Value{"location": str("l"), "importJobId": str("j"), "importDataFileId": str("f")}
}

const filePath = "projects/proj/locations/l/importJobs/j/importDataFiles/f"

// policyArgs are the arguments of the policy lookup for organizations/o/.../proxyConfigs/c.
func policyArgs() map[string]property.Value {
	return map[string]property.Value{"organizationId": str("o"), "partnerTenantId": str("t"), "proxyConfigId": str("c")}
}

const configPath = "organizations/o/locations/global/partnerTenants/t/proxyConfigs/c"

func with(args map[string]property.Value, key string, v property.Value) map[string]property.Value {
	args[key] = v
	return args
}

func without(args map[string]property.Value, key string) map[string]property.Value {
	delete(args, key)
	return args
}

const (
	fileArgNames   = "importDataFileId, importJobId, location, project (optional)"
	policyArgNames = "optionsRequestedPolicyVersion (optional), organizationId, partnerTenantId, proxyConfigId"
)

// missingArg is the failure of a call to function (which takes names) without arg.
func missingArg(function, names, arg string) []p.CheckFailure {
	return []p.CheckFailure{{Property: arg, Reason: "missing required argument " + arg + ": " + function + " takes " + names}}
}

func TestArgumentFailures(t *testing.T) {
	t.Parallel()
	missingFileArg := func(arg string) []p.CheckFailure { return missingArg("getImportDataFile", fileArgNames, arg) }
	missingPolicyArg := func(arg string) []p.CheckFailure {
		return missingArg("getOrganizationPartnerTenantProxyConfigIamPolicy", policyArgNames, arg)
	}
	tests := []struct {
		name  string
		token tokens.Type
		args  map[string]property.Value
		want  []p.CheckFailure
	}{
		{"missing importDataFileId", importDataFile, without(fileArgs(), "importDataFileId"), missingFileArg("importDataFileId")},
		{"missing importJobId", importDataFile, without(fileArgs(), "importJobId"), missingFileArg("importJobId")},
		{"missing location", importDataFile, without(fileArgs(), "location"), missingFileArg("location")},
		{"null location counts as missing", importDataFile, with(fileArgs(), "location", property.New(property.Null)), missingFileArg("location")},
		{"unknown argument", importDataFile, with(without(fileArgs(), "importJobId"), "importJob", str("j")), []p.CheckFailure{
			{Property: "importJob", Reason: `unknown argument "importJob": getImportDataFile takes ` + fileArgNames},
			{Property: "importJobId", Reason: "missing required argument importJobId: getImportDataFile takes " + fileArgNames},
		}},
		{"location not a string", importDataFile, with(fileArgs(), "location", num(5)), []p.CheckFailure{{
			Property: "location", Reason: "location must be a string, not a number",
		}}},
		{"ID with a slash", importDataFile, with(fileArgs(), "importJobId", str("j/importDataFiles/x")), []p.CheckFailure{{
			Property: "importJobId", Reason: `importJobId must be a single ID, not a path: "j/importDataFiles/x" contains "/"`,
		}}},
		{"empty ID", importDataFile, with(fileArgs(), "importDataFileId", str("")), []p.CheckFailure{{
			Property: "importDataFileId", Reason: "importDataFileId must not be empty",
		}}},
		{"dot-dot ID", importDataFile, with(fileArgs(), "location", str("..")), []p.CheckFailure{{
			Property: "location", Reason: `location must be an ID, not ".."`,
		}}},
		{"project with a slash", importDataFile, with(fileArgs(), "project", str("a/b")), []p.CheckFailure{{
			Property: "project", Reason: `project must be a single ID, not a path: "a/b" contains "/"`,
		}}},
		{"missing organizationId", policyToken, without(policyArgs(), "organizationId"), missingPolicyArg("organizationId")},
		{"missing partnerTenantId", policyToken, without(policyArgs(), "partnerTenantId"), missingPolicyArg("partnerTenantId")},
		{"missing proxyConfigId", policyToken, without(policyArgs(), "proxyConfigId"), missingPolicyArg("proxyConfigId")},
		{"policy version 2", policyToken, with(policyArgs(), "optionsRequestedPolicyVersion", num(2)), []p.CheckFailure{{
			Property: "optionsRequestedPolicyVersion",
			Reason:   "optionsRequestedPolicyVersion must be 0, 1 or 3, not 2; request 3 to read a policy with conditional role bindings",
		}}},
		{"policy version -1", policyToken, with(policyArgs(), "optionsRequestedPolicyVersion", num(-1)), []p.CheckFailure{{
			Property: "optionsRequestedPolicyVersion",
			Reason:   "optionsRequestedPolicyVersion must be 0, 1 or 3, not -1; request 3 to read a policy with conditional role bindings",
		}}},
		{"fractional policy version", policyToken, with(policyArgs(), "optionsRequestedPolicyVersion", num(1.5)), []p.CheckFailure{{
			Property: "optionsRequestedPolicyVersion", Reason: "optionsRequestedPolicyVersion must be an integer, not 1.5",
		}}},
		{"policy version as a string", policyToken, with(policyArgs(), "optionsRequestedPolicyVersion", str("3")), []p.CheckFailure{{
			Property: "optionsRequestedPolicyVersion", Reason: "optionsRequestedPolicyVersion must be an integer, not a string",
		}}},
		{"unknown policy argument", policyToken, with(policyArgs(), "project", str("proj")), []p.CheckFailure{{
			Property: "project", Reason: `unknown argument "project": getOrganizationPartnerTenantProxyConfigIamPolicy takes ` + policyArgNames,
		}}},
		{"bad version beside an unknown value", policyToken,
			with(with(policyArgs(), "optionsRequestedPolicyVersion", num(2)), "proxyConfigId", property.New(property.Computed)),
			[]p.CheckFailure{{
				Property: "optionsRequestedPolicyVersion",
				Reason:   "optionsRequestedPolicyVersion must be 0, 1 or 3, not 2; request 3 to read a policy with conditional role bindings",
			}}},
	}
	h := start(t, nil)
	t.Cleanup(func() {
		if n := h.requests(); n != 0 {
			t.Errorf("the double received %d requests; argument failures must stop calls before any request", n)
		}
	})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out, failures, err := h.invoke(tt.token, tt.args)
			if err != nil {
				t.Fatalf("Invoke returned an error, want failures: %v", err)
			}
			if diff := cmp.Diff(tt.want, failures); diff != "" {
				t.Errorf("failures (-want +got):\n%s", diff)
			}
			if len(out) != 0 {
				t.Errorf("a failed call returned outputs: %v", out)
			}
		})
	}
}

// clearProjectEnv unsets the project environment variables; tests that call it cannot be
// parallel.
func clearProjectEnv(t *testing.T) {
	for _, env := range []string{"GOOGLE_PROJECT", "GOOGLE_CLOUD_PROJECT", "GCLOUD_PROJECT", "CLOUDSDK_CORE_PROJECT"} {
		t.Setenv(env, "")
	}
}

//nolint:paralleltest // it clears the project environment variables provider.New reads
func TestMissingProjectFailsClearly(t *testing.T) {
	clearProjectEnv(t)
	h := start(t, map[string]string{"project": ""})
	_, failures, err := h.invoke(importDataFile, fileArgs())
	if err != nil {
		t.Fatalf("Invoke: %v", err)
	}
	want := []p.CheckFailure{{Property: "project", Reason: "project is not set: pass project to getImportDataFile, " +
		"or set the provider's project configuration (or one of the GOOGLE_PROJECT, GOOGLE_CLOUD_PROJECT, GCLOUD_PROJECT, CLOUDSDK_CORE_PROJECT environment variables)"}}
	if diff := cmp.Diff(want, failures); diff != "" {
		t.Errorf("failures (-want +got):\n%s", diff)
	}
	if n := h.requests(); n != 0 {
		t.Errorf("the double received %d requests, want none", n)
	}
}

//nolint:paralleltest // it sets GOOGLE_PROJECT, which provider.New reads through os.Getenv
func TestProjectFromEnvironment(t *testing.T) {
	clearProjectEnv(t)
	t.Setenv("GOOGLE_PROJECT", "env-proj")
	h := start(t, map[string]string{"project": ""})
	h.double.AddImportDataFile("env-proj", "l", "j", "f", googledouble.ImportDataFile{})
	out := h.mustInvoke(importDataFile, fileArgs())
	if got, want := out["name"], "projects/env-proj/locations/l/importJobs/j/importDataFiles/f"; got != want {
		t.Errorf("name = %v, want %v", got, want)
	}
}

func TestProjectDefaultsToConfiguration(t *testing.T) {
	t.Parallel()
	h := start(t, map[string]string{"project": "cfg-proj"})
	h.double.AddImportDataFile("cfg-proj", "l", "j", "f", googledouble.ImportDataFile{})
	h.double.AddImportDataFile("arg-proj", "l", "j", "f", googledouble.ImportDataFile{})

	out := h.mustInvoke(importDataFile, fileArgs())
	if got, want := out["name"], "projects/cfg-proj/locations/l/importJobs/j/importDataFiles/f"; got != want {
		t.Errorf("without a project argument: name = %v, want %v", got, want)
	}
	out = h.mustInvoke(importDataFile, with(fileArgs(), "project", str("arg-proj")))
	if got, want := out["name"], "projects/arg-proj/locations/l/importJobs/j/importDataFiles/f"; got != want {
		t.Errorf("with a project argument: name = %v, want %v", got, want)
	}
}

func TestGetImportDataFile(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		file googledouble.ImportDataFile
		want map[string]any
	}{
		{
			name: "every field",
			file: googledouble.ImportDataFile{
				DisplayName: "inventory.csv",
				Format:      "IMPORT_JOB_FORMAT_MANUAL_CSV",
				CreateTime:  "2025-04-15T10:00:00Z",
				State:       "ACTIVE",
				UploadFileInfo: &googledouble.UploadFileInfo{
					SignedURI:         "https://storage.googleapis.com/bucket/f?X-Goog-Signature=abc",
					Headers:           map[string]string{"Content-Type": "text/csv", "x-goog-meta-job": "j"},
					URIExpirationTime: "2025-04-15T11:00:00Z",
				},
			},
			want: map[string]any{
				"name":        filePath,
				"displayName": "inventory.csv",
				"format":      "IMPORT_JOB_FORMAT_MANUAL_CSV",
				"createTime":  "2025-04-15T10:00:00Z",
				"state":       "ACTIVE",
				"uploadFileInfo": map[string]any{
					"signedUri":         "https://storage.googleapis.com/bucket/f?X-Goog-Signature=abc",
					"headers":           map[string]any{"Content-Type": "text/csv", "x-goog-meta-job": "j"},
					"uriExpirationTime": "2025-04-15T11:00:00Z",
				},
			},
		},
		{
			name: "fields the server leaves out are present and empty",
			file: googledouble.ImportDataFile{},
			want: map[string]any{
				"name": filePath, "displayName": "", "format": "", "createTime": "", "state": "",
				"uploadFileInfo": map[string]any{"signedUri": "", "headers": map[string]any{}, "uriExpirationTime": ""},
			},
		},
		{
			name: "enum values unknown to the schema pass through",
			file: googledouble.ImportDataFile{Format: "IMPORT_JOB_FORMAT_DATABASE_ZIP", State: "DELETING",
				UploadFileInfo: &googledouble.UploadFileInfo{SignedURI: "https://u"}},
			want: map[string]any{
				"name": filePath, "displayName": "", "format": "IMPORT_JOB_FORMAT_DATABASE_ZIP", "createTime": "", "state": "DELETING",
				"uploadFileInfo": map[string]any{"signedUri": "https://u", "headers": map[string]any{}, "uriExpirationTime": ""},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := start(t, nil)
			h.double.AddImportDataFile("proj", "l", "j", "f", tt.file)
			got := h.mustInvoke(importDataFile, fileArgs())
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("outputs (-want +got):\n%s", diff)
			}
			r := h.onlyRequest()
			if r.Path != "/v1alpha1/"+filePath || !r.Authorized {
				t.Errorf("request path %q authorized %v, want /v1alpha1/%s with the bearer token", r.Path, r.Authorized, filePath)
			}
			if want := "pulumi-resource-endpoints/" + provider.Version; !strings.Contains(r.UserAgent, want) {
				t.Errorf("user agent %q does not name %s", r.UserAgent, want)
			}
		})
	}
}

// conditionalPolicy has a conditional binding, so Google serves it only at version 3.
var conditionalPolicy = googledouble.Policy{
	Version: 3,
	Etag:    []byte("etag-v3"),
	Bindings: []googledouble.Binding{
		{Role: "roles/beyondcorp.viewer", Members: []string{"user:alice@example.com", "group:ops@example.com"}},
		{Role: "roles/beyondcorp.admin", Members: []string{"serviceAccount:app@proj.iam.gserviceaccount.com"},
			Condition: &googledouble.Expr{Expression: `request.time < timestamp("2030-01-01T00:00:00Z")`, Title: "until 2030"}},
	},
	AuditConfigs: []googledouble.AuditConfig{{Service: "allServices", AuditLogConfigs: []googledouble.AuditLogConfig{
		{LogType: "DATA_READ", ExemptedMembers: []string{"user:bob@example.com"}},
		{LogType: "DATA_DELETE"},
	}}},
}

var emptyCondition = map[string]any{"expression": "", "title": "", "description": "", "location": ""}

func TestGetProxyConfigIamPolicy(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		policy    googledouble.Policy
		version   property.Value // Null leaves the argument out
		wantQuery string         // options.requestedPolicyVersion as sent; "" for absent
		want      map[string]any
	}{
		{
			name:   "empty policy",
			policy: googledouble.Policy{},
			want:   map[string]any{"auditConfigs": []any{}, "bindings": []any{}, "etag": "ACAB", "version": 0.0},
		},
		{
			name: "empty policy at version 1", policy: googledouble.Policy{}, version: num(1), wantQuery: "1",
			want: map[string]any{"auditConfigs": []any{}, "bindings": []any{}, "etag": "ACAB", "version": 0.0},
		},
		{
			name: "policy with conditions at version 3", policy: conditionalPolicy, version: num(3), wantQuery: "3",
			want: map[string]any{
				"version": 3.0,
				"etag":    "ZXRhZy12Mw==",
				"bindings": []any{
					map[string]any{"role": "roles/beyondcorp.viewer", "members": []any{"user:alice@example.com", "group:ops@example.com"},
						"condition": emptyCondition},
					map[string]any{"role": "roles/beyondcorp.admin", "members": []any{"serviceAccount:app@proj.iam.gserviceaccount.com"},
						"condition": map[string]any{"expression": `request.time < timestamp("2030-01-01T00:00:00Z")`,
							"title": "until 2030", "description": "", "location": ""}},
				},
				"auditConfigs": []any{map[string]any{"service": "allServices", "auditLogConfigs": []any{
					map[string]any{"logType": "DATA_READ", "exemptedMembers": []any{"user:bob@example.com"}},
					map[string]any{"logType": "DATA_DELETE", "exemptedMembers": []any{}},
				}}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := start(t, nil)
			h.double.SetPolicy("o", "t", "c", tt.policy)
			args := policyArgs()
			if !tt.version.IsNull() {
				args["optionsRequestedPolicyVersion"] = tt.version
			}
			got := h.mustInvoke(policyToken, args)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("outputs (-want +got):\n%s", diff)
			}
			r := h.onlyRequest()
			if want := "/v1/" + configPath + ":getIamPolicy"; r.Path != want || !r.Authorized {
				t.Errorf("request path %q authorized %v, want %s with the bearer token", r.Path, r.Authorized, want)
			}
			if got, sent := r.Query.Get("options.requestedPolicyVersion"), r.Query.Has("options.requestedPolicyVersion"); got != tt.wantQuery || sent != (tt.wantQuery != "") {
				t.Errorf("options.requestedPolicyVersion = %q (sent %v), want %q", got, sent, tt.wantQuery)
			}
			if want := "pulumi-resource-endpoints/" + provider.Version; !strings.Contains(r.UserAgent, want) {
				t.Errorf("user agent %q does not name %s", r.UserAgent, want)
			}
		})
	}
}

func TestConditionalPolicyNeedsVersion3(t *testing.T) {
	t.Parallel()
	h := start(t, nil)
	h.double.SetPolicy("o", "t", "c", conditionalPolicy)
	_, _, err := h.invoke(policyToken, with(policyArgs(), "optionsRequestedPolicyVersion", num(1)))
	want := "invalid argument (400) reading the IAM policy of proxy config " + configPath + ": The policy of '" + configPath +
		"' contains conditional role bindings; request policy version 3 to read it (requested version 1)."
	if err == nil || err.Error() != want {
		t.Errorf("err = %v\nwant %s", err, want)
	}
	if n := h.requests(); n != 1 {
		t.Errorf("the double received %d requests; a 400 must not be retried", n)
	}
}

func TestIDsArePathEscaped(t *testing.T) {
	t.Parallel()
	// Characters that are special in URLs; none is a path separator.
	const project, location, job, file = "p q", "loc?x=1", "job#frag", "50%:@[1]"
	const org, tenant, config = "o r", "t?x", "c#d%:e"
	h := start(t, nil)
	h.double.AddImportDataFile(project, location, job, file, googledouble.ImportDataFile{})
	h.double.SetPolicy(org, tenant, config, googledouble.Policy{})

	out := h.mustInvoke(importDataFile, map[string]property.Value{
		"project": str(project), "location": str(location), "importJobId": str(job), "importDataFileId": str(file),
	})
	if want := googledouble.ImportDataFileName(project, location, job, file); out["name"] != want {
		t.Errorf("name = %v, want %v", out["name"], want)
	}
	h.mustInvoke(policyToken, map[string]property.Value{
		"organizationId": str(org), "partnerTenantId": str(tenant), "proxyConfigId": str(config),
	})
	reqs := h.double.Requests()
	if len(reqs) != 2 {
		t.Fatalf("the double received %d requests, want 2", len(reqs))
	}
	if want := "/v1/" + googledouble.ProxyConfigName(org, tenant, config) + ":getIamPolicy"; reqs[1].Path != want {
		t.Errorf("policy request path = %q, want %q", reqs[1].Path, want)
	}
	for _, r := range reqs {
		if len(r.Query) > 2 { // alt and prettyPrint only: nothing of an ID leaked into the query
			t.Errorf("request %s carries query %v", r.EscapedPath, r.Query)
		}
	}
}

func TestUnknownArgumentsSkipTheCall(t *testing.T) {
	t.Parallel()
	h := start(t, nil)
	unknown := property.New(property.Computed)
	for _, tc := range []struct {
		token tokens.Type
		args  map[string]property.Value
	}{
		{importDataFile, with(fileArgs(), "importJobId", unknown)},
		{importDataFile, with(fileArgs(), "project", unknown)},
		{policyToken, with(policyArgs(), "optionsRequestedPolicyVersion", unknown)},
	} {
		out, failures, err := h.invoke(tc.token, tc.args)
		if err != nil || len(failures) > 0 || len(out) != 0 {
			t.Errorf("%s with unknown arguments: out = %v, failures = %v, err = %v; want an empty result", tc.token, out, failures, err)
		}
	}
	if n := h.requests(); n != 0 {
		t.Errorf("the double received %d requests; unknown arguments must not reach the API", n)
	}
}

func TestSecretArgumentsMakeSecretResults(t *testing.T) {
	t.Parallel()
	h := start(t, nil)
	h.double.AddImportDataFile("hidden", "l", "j", "f", googledouble.ImportDataFile{})
	out := h.mustInvoke(importDataFile, with(fileArgs(), "project", str("hidden").WithSecret(true)))
	for k, v := range out {
		if !propertytest.IsSecret(v) {
			t.Errorf("output %s = %v is not secret although the project argument was", k, v)
		}
	}
}

func TestRetries(t *testing.T) {
	t.Parallel()
	const unavailable = "service unavailable (503): The service is currently unavailable."
	tests := []struct {
		name     string
		faults   func(*googledouble.Server)
		wantErr  string // "" for success
		requests int
	}{
		{"two 503s then success", func(d *googledouble.Server) { d.Fail(2, 503) }, "", 3},
		{"429 then success", func(d *googledouble.Server) {
			d.Enqueue(googledouble.Fault{Status: 429, RetryAfter: time.Second})
		}, "", 2},
		{"500, 502 and 504 then success", func(d *googledouble.Server) { d.Fail(1, 500); d.Fail(1, 502); d.Fail(1, 504) }, "", 4},
		{"connection reset then success", func(d *googledouble.Server) { d.ResetConnections(1) }, "", 2},
		{"retries run out", func(d *googledouble.Server) { d.Fail(10, 503) },
			"reading import data file " + filePath + " failed after 4 attempts; last error: " + unavailable, 4},
		{"resets run out", func(d *googledouble.Server) { d.ResetConnections(10) },
			"reading import data file " + filePath + " failed after 4 attempts; last error: ", 4},
	}
	// Short waits and 4 attempts, so that the attempts run out quickly.
	fast := google.RetryPolicy{Base: 5 * time.Millisecond, Factor: 2, Max: 40 * time.Millisecond, Attempts: 4}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := startLookups(t, fast)
			h.double.AddImportDataFile("proj", "l", "j", "f", googledouble.ImportDataFile{State: "ACTIVE"})
			tt.faults(h.double)
			out, _, err := h.invoke(importDataFile, fileArgs())
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("Invoke: %v", err)
			case tt.wantErr == "" && out["state"] != "ACTIVE":
				t.Errorf("state = %v after retries, want ACTIVE", out["state"])
			case tt.wantErr != "" && (err == nil || !strings.HasPrefix(err.Error(), tt.wantErr)):
				t.Errorf("err = %v\nwant it to begin %s", err, tt.wantErr)
			}
			if n := h.requests(); n != tt.requests {
				t.Errorf("the double received %d requests, want %d", n, tt.requests)
			}
		})
	}
}

func TestPolicyLookupRetries(t *testing.T) {
	t.Parallel()
	h := start(t, nil)
	h.double.SetPolicy("o", "t", "c", googledouble.Policy{})
	h.double.Fail(1, 503)
	h.double.ResetConnections(1)
	out := h.mustInvoke(policyToken, policyArgs())
	if out["etag"] != "ACAB" {
		t.Errorf("etag = %v, want ACAB", out["etag"])
	}
	if n := h.requests(); n != 3 {
		t.Errorf("the double received %d requests, want 3", n)
	}
}

func TestErrorsAreNotRetried(t *testing.T) {
	t.Parallel()
	const policyAction = "reading the IAM policy of proxy config " + configPath
	tests := []struct {
		name   string
		token  tokens.Type
		config map[string]string
		setup  func(*googledouble.Server)
		want   string
	}{
		{
			name: "404", token: importDataFile, setup: func(*googledouble.Server) {},
			want: "import data file " + filePath + " not found (404): Resource '" + filePath + "' was not found",
		},
		{
			name: "403", token: importDataFile, setup: func(d *googledouble.Server) { d.Fail(1, 403) },
			want: "permission denied (403) reading import data file " + filePath + ": The caller does not have permission",
		},
		{
			name: "403 with Google's message", token: policyToken, setup: func(d *googledouble.Server) {
				d.Enqueue(googledouble.Fault{Status: 403, Message: "Permission 'beyondcorp.proxyConfigs.getIamPolicy' denied on resource"})
			},
			want: "permission denied (403) " + policyAction + ": Permission 'beyondcorp.proxyConfigs.getIamPolicy' denied on resource",
		},
		{
			name: "400", token: importDataFile, setup: func(d *googledouble.Server) { d.Fail(1, 400) },
			want: "invalid argument (400) reading import data file " + filePath + ": Request contains an invalid argument.",
		},
		{
			name: "401 for a wrong token", token: policyToken, config: map[string]string{"accessToken": wrongToken},
			setup: func(d *googledouble.Server) { d.SetPolicy("o", "t", "c", googledouble.Policy{}) },
			want: "unauthenticated (401) " + policyAction + ": Request had invalid authentication credentials. " +
				"Expected OAuth 2 access token, login cookie or other valid authentication credential. " +
				"See https://developers.google.com/identity/sign-in/web/devconsole-project.; " +
				"check the provider's accessToken or credentials setting, or the Application Default Credentials",
		},
		{
			name: "404 of a proxy config", token: policyToken, setup: func(*googledouble.Server) {},
			want: "proxy config " + configPath + " not found (404): Resource '" + configPath + "' was not found",
		},
		{
			name: "malformed JSON", token: policyToken, setup: func(d *googledouble.Server) {
				d.SetPolicy("o", "t", "c", googledouble.Policy{})
				d.Enqueue(googledouble.Fault{MalformedJSON: true})
			},
			want: policyAction + ": the answer is not the JSON the API documents (is the endpoint a Google API?): unexpected end of JSON input",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := start(t, tt.config)
			tt.setup(h.double)
			args := fileArgs()
			if tt.token == policyToken {
				args = policyArgs()
			}
			_, _, err := h.invoke(tt.token, args)
			if err == nil || err.Error() != tt.want {
				t.Errorf("err = %v\nwant %s", err, tt.want)
			}
			if n := h.requests(); n != 1 {
				t.Errorf("the double received %d requests, want 1: this failure is not retried", n)
			}
		})
	}
}

func TestTimeout(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		setup    func(*googledouble.Server)
		want     string
		requests int
	}{
		{
			name:  "a request that never answers",
			setup: func(d *googledouble.Server) { d.SetDelay(time.Hour) },
			want: fmt.Sprintf("reading import data file %s stopped after 1 attempt: the lookup timed out after %s (the provider's lookupTimeout setting, "+
				"retries included; allow more with `pulumi config set endpoints:lookupTimeout 2m`)", filePath, lookupTimeout),
			requests: 1,
		},
		{
			name: "an answer that never comes after a 503",
			setup: func(d *googledouble.Server) {
				d.Fail(1, 503)
				d.Enqueue(googledouble.Fault{Delay: time.Hour})
			},
			want: fmt.Sprintf("reading import data file %s stopped after 2 attempts: the lookup timed out after %s (the provider's lookupTimeout setting, "+
				"retries included; allow more with `pulumi config set endpoints:lookupTimeout 2m`); "+
				"last error: service unavailable (503): The service is currently unavailable.", filePath, lookupTimeout),
			requests: 2,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := start(t, nil)
			tt.setup(h.double)
			began := time.Now()
			err := h.invokeWithin(lookupTimeout+5*time.Second, importDataFile, fileArgs())
			took := time.Since(began)
			if err == nil || err.Error() != tt.want {
				t.Errorf("err = %v\nwant %s", err, tt.want)
			}
			if took < lookupTimeout || took > lookupTimeout+3*time.Second {
				t.Errorf("the lookup took %s, want about %s", took, lookupTimeout)
			}
			if n := h.requests(); n != tt.requests {
				t.Errorf("the double received %d requests, want %d", n, tt.requests)
			}
		})
	}
}

func TestCancelStopsALookupPromptly(t *testing.T) {
	t.Parallel()
	h := start(t, nil)
	h.double.SetDelay(time.Hour)
	done := make(chan error, 1)
	go func() {
		_, _, err := h.invoke(importDataFile, fileArgs())
		done <- err
	}()
	for deadline := time.Now().Add(lookupTimeout); h.requests() == 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the lookup never reached the double")
		}
	}
	canceled := time.Now()
	if err := h.srv.Cancel(); err != nil {
		t.Fatalf("Cancel: %v", err)
	}
	select {
	case err := <-done:
		want := "reading import data file " + filePath + " stopped after 1 attempt: "
		if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "cancel") {
			t.Errorf("err = %v\nwant it to begin %q and name the cancellation", err, want)
		}
		if took := time.Since(canceled); took > time.Second {
			t.Errorf("the lookup returned %s after Cancel, want promptly", took)
		}
	case <-time.After(lookupTimeout - time.Second):
		t.Fatal("the lookup did not return after Cancel")
	}
}

func TestBadEndpointSetting(t *testing.T) {
	t.Parallel()
	h := start(t, map[string]string{"beyondcorpCustomEndpoint": "ftp://127.0.0.1/"})
	_, _, err := h.invoke(policyToken, policyArgs())
	want := `getOrganizationPartnerTenantProxyConfigIamPolicy: the provider's beyondcorpCustomEndpoint setting "ftp://127.0.0.1/" ` +
		"must be an http:// or https:// URL, such as https://beyondcorp.googleapis.com/"
	if err == nil || err.Error() != want {
		t.Errorf("err = %v\nwant %s", err, want)
	}
}

func TestReconfigureRebuildsClients(t *testing.T) {
	t.Parallel()
	h := start(t, nil)
	h.double.AddImportDataFile("proj", "l", "j", "f", googledouble.ImportDataFile{State: "ACTIVE"})
	h.mustInvoke(importDataFile, fileArgs())

	other := startDouble(t, token)
	other.AddImportDataFile("proj", "l", "j", "f", googledouble.ImportDataFile{State: "CREATING"})
	h.configure(settingsFor(other, map[string]string{"accessToken": token}))
	out := h.mustInvoke(importDataFile, fileArgs())
	if out["state"] != "CREATING" || len(other.Requests()) != 1 || h.requests() != 1 {
		t.Errorf("after reconfiguring: state = %v, requests old/new = %d/%d; want CREATING from the new endpoint",
			out["state"], h.requests(), len(other.Requests()))
	}
}

// clearCredentialEnv unsets every environment variable that could supply Google
// credentials, and hides the gcloud configuration; tests that call it cannot be parallel.
func clearCredentialEnv(t *testing.T) {
	for _, env := range []string{
		"GOOGLE_OAUTH_ACCESS_TOKEN", "GOOGLE_CREDENTIALS", "GOOGLE_CLOUD_KEYFILE_JSON", "GCLOUD_KEYFILE_JSON",
		"GOOGLE_IMPERSONATE_SERVICE_ACCOUNT", "GOOGLE_APPLICATION_CREDENTIALS",
	} {
		t.Setenv(env, "")
	}
	dir := t.TempDir()
	t.Setenv("HOME", dir)
	t.Setenv("CLOUDSDK_CONFIG", dir)
}

// serviceAccountKey returns a JSON key of account whose tokens double grants.
func serviceAccountKey(t *testing.T, double *googledouble.Server, account string) []byte {
	t.Helper()
	key, err := double.ServiceAccountKey(account)
	if err != nil {
		t.Fatal(err)
	}
	return key
}

// keyFile writes key to a file of its own and returns the file's path.
func keyFile(t *testing.T, key []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "key.json")
	if err := os.WriteFile(path, key, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

//nolint:paralleltest // it clears the credential environment variables
func TestServiceAccountKey(t *testing.T) {
	clearCredentialEnv(t)
	for _, form := range []string{"JSON contents", "file path"} {
		t.Run(form, func(t *testing.T) {
			double := startDouble(t, token)
			double.AddImportDataFile("proj", "l", "j", "f", googledouble.ImportDataFile{State: "ACTIVE"})
			key := serviceAccountKey(t, double, "lookup@proj.iam.gserviceaccount.com")
			credentials := string(key)
			if form == "file path" {
				credentials = keyFile(t, key)
			}
			h := startWith(t, double, map[string]string{"credentials": credentials})
			for range 2 {
				if out := h.mustInvoke(importDataFile, fileArgs()); out["state"] != "ACTIVE" {
					t.Errorf("state = %v, want ACTIVE", out["state"])
				}
			}
			if n := double.TokenRequests(); n != 1 {
				t.Errorf("the token endpoint granted %d tokens for two lookups, want 1: clients and tokens are reused", n)
			}
		})
	}
}

//nolint:paralleltest // it clears the credential environment variables
func TestAccessTokenTakesPrecedenceOverCredentials(t *testing.T) {
	clearCredentialEnv(t)
	h := start(t, nil)
	h.double.AddImportDataFile("proj", "l", "j", "f", googledouble.ImportDataFile{})
	keyIssuer := startDouble(t, "a-different-token")
	key := serviceAccountKey(t, keyIssuer, "other@proj.iam.gserviceaccount.com")
	h.configure(settingsFor(h.double, map[string]string{"accessToken": token, "credentials": string(key)}))
	h.mustInvoke(importDataFile, fileArgs())
	if n := keyIssuer.TokenRequests(); n != 0 {
		t.Errorf("the credentials key was used (%d token requests) although an access token was set", n)
	}
}

//nolint:paralleltest // it sets GOOGLE_APPLICATION_CREDENTIALS
func TestApplicationDefaultCredentials(t *testing.T) {
	clearCredentialEnv(t)
	double := startDouble(t, token)
	double.AddImportDataFile("proj", "l", "j", "f", googledouble.ImportDataFile{})
	key := serviceAccountKey(t, double, "adc@proj.iam.gserviceaccount.com")
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", keyFile(t, key))
	h := startWith(t, double, nil)
	h.mustInvoke(importDataFile, fileArgs())
	if n := double.TokenRequests(); n != 1 {
		t.Errorf("the token endpoint granted %d tokens, want 1 for Application Default Credentials", n)
	}
}

//nolint:paralleltest // it clears the credential environment variables
func TestCredentialsAreNeededOnlyByLookups(t *testing.T) {
	clearCredentialEnv(t)
	h := startWith(t, startDouble(t, token), nil) // no credentials of any kind

	if _, failures, err := h.invoke(importDataFile, without(fileArgs(), "location")); err != nil || len(failures) != 1 {
		t.Errorf("a call with bad arguments: failures = %v, err = %v; want one failure and no credential error", failures, err)
	}
	if out, _, err := h.invoke(importDataFile, with(fileArgs(), "location", property.New(property.Computed))); err != nil || len(out) != 0 {
		t.Errorf("a preview call: out = %v, err = %v; want an empty result and no credential error", out, err)
	}
	_, _, err := h.invoke(importDataFile, fileArgs())
	if want := "getImportDataFile: no Google Cloud credentials: "; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("a real call without credentials: err = %v, want it to begin %q", err, want)
	}
	if n := h.double.Requests(); len(n) != 0 {
		t.Errorf("the double received %d requests without credentials", len(n))
	}
}

//nolint:paralleltest // it reads the log lines captured while no parallel test runs
func TestLogsShowRetriesButNoSecrets(t *testing.T) {
	h := start(t, nil)
	h.double.AddImportDataFile("proj", "l", "j", "f", googledouble.ImportDataFile{})
	h.double.Fail(1, 503)
	h.mustInvoke(importDataFile, fileArgs())
	text := logs.String()
	if !strings.Contains(text, "retrying a Google API call: reading import data file "+filePath) {
		t.Errorf("no log line tells of the retry; logs:\n%s", text)
	}
	assertNoSecret(t, "the logs", text)
}
