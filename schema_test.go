package endpoints_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/hashicorp/hcl/v2"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"

	endpoints "github.com/endpoints-provider/pulumi-endpoints"
)

// Tokens of the package, spelled out once.
const (
	core      = "endpoints:core/v1:"
	meta      = "endpoints:meta/v1:"
	discovery = "endpoints:discovery.k8s.io/v1:"
	migration = "endpoints:migration/v1alpha1:"
	gateway   = "endpoints:accessgateway/v1:"

	goImportBase = "github.com/endpoints-provider/pulumi-endpoints/sdk/go/endpoints"
)

// Property type shorthands used by the tables below; see propertyType.
const (
	tString  = "string"
	tInt     = "integer"
	tNumber  = "number"
	tBool    = "boolean"
	tStrings = "array<string>"
	tMap     = "map<string>"
	tAny     = "any"
)

func ref(token string) string     { return "ref<" + token + ">" }
func arrayOf(token string) string { return "array<" + ref(token) + ">" }

// propertyType renders the type of a property in the shorthand of the tables.
func propertyType(t schema.TypeSpec) string {
	switch {
	case t.Ref == "pulumi.json#/Any":
		return tAny
	case t.Ref != "":
		return "ref<" + strings.TrimPrefix(t.Ref, "#/types/") + ">"
	case t.Type == "array" && t.Items != nil:
		return "array<" + propertyType(*t.Items) + ">"
	case t.Type == "object" && t.AdditionalProperties != nil:
		return "map<" + propertyType(*t.AdditionalProperties) + ">"
	case t.Type != "" && t.Items == nil && t.AdditionalProperties == nil && len(t.OneOf) == 0:
		return t.Type
	default:
		b, err := json.Marshal(t)
		if err != nil {
			return fmt.Sprintf("unprintable type: %v", err)
		}
		return "unexpected type " + string(b)
	}
}

// objectWant is what the interface spec says about one object type.
type objectWant struct {
	spec     string            // name of the type in the interface spec
	token    string            // schema token
	props    map[string]string // property name -> type shorthand
	required []string
}

// objectTypes lists every object type of the interface spec, with all of its
// properties. It is exact: the schema must have these types and properties and
// no others.
var objectTypes = []objectWant{
	{
		spec:  "Endpoints",
		token: core + "Endpoints",
		props: map[string]string{
			"metadata": ref(meta + "ObjectMeta"),
			"subsets":  arrayOf(core + "EndpointSubset"),
		},
	},
	{
		spec:  "EndpointSubset",
		token: core + "EndpointSubset",
		props: map[string]string{
			"addresses":         arrayOf(core + "EndpointAddress"),
			"notReadyAddresses": arrayOf(core + "EndpointAddress"),
			"ports":             arrayOf(core + "EndpointPort"),
		},
	},
	{
		spec:  "EndpointAddress",
		token: core + "EndpointAddress",
		props: map[string]string{
			"ip":        tString,
			"hostname":  tString,
			"nodeName":  tString,
			"targetRef": ref(core + "ObjectReference"),
		},
		required: []string{"ip"},
	},
	{
		spec:  "EndpointPort (core form)",
		token: core + "EndpointPort",
		props: map[string]string{
			"port":        tInt,
			"name":        tString,
			"protocol":    ref(core + "Protocol"),
			"appProtocol": tString,
		},
		required: []string{"port"},
	},
	{
		spec:  "ObjectReference",
		token: core + "ObjectReference",
		props: map[string]string{
			"apiVersion":      tString,
			"fieldPath":       tString,
			"kind":            tString,
			"name":            tString,
			"namespace":       tString,
			"resourceVersion": tString,
			"uid":             tString,
		},
	},
	{
		spec:  "ListMeta",
		token: meta + "ListMeta",
		props: map[string]string{
			"continue":           tString,
			"remainingItemCount": tInt,
			"resourceVersion":    tString,
			"selfLink":           tString,
		},
	},
	{
		spec:  "ObjectMeta",
		token: meta + "ObjectMeta",
		props: map[string]string{
			"annotations":                tMap,
			"clusterName":                tString,
			"creationTimestamp":          tString,
			"deletionGracePeriodSeconds": tInt,
			"deletionTimestamp":          tString,
			"finalizers":                 tStrings,
			"generateName":               tString,
			"generation":                 tInt,
			"labels":                     tMap,
			"managedFields":              arrayOf(meta + "ManagedFieldsEntry"),
			"name":                       tString,
			"namespace":                  tString,
			"ownerReferences":            arrayOf(meta + "OwnerReference"),
			"resourceVersion":            tString,
			"selfLink":                   tString,
			"uid":                        tString,
		},
	},
	{
		spec:  "ManagedFieldsEntry",
		token: meta + "ManagedFieldsEntry",
		props: map[string]string{
			"apiVersion":  tString,
			"fieldsType":  ref(meta + "FieldsType"),
			"fieldsV1":    tAny,
			"manager":     tString,
			"operation":   ref(meta + "ManagedFieldsOperation"),
			"subresource": tString,
			"time":        tString,
		},
	},
	{
		spec:  "OwnerReference",
		token: meta + "OwnerReference",
		props: map[string]string{
			"apiVersion":         tString,
			"kind":               tString,
			"name":               tString,
			"uid":                tString,
			"blockOwnerDeletion": tBool,
			"controller":         tBool,
		},
		required: []string{"apiVersion", "kind", "name", "uid"},
	},
	{
		spec:  "Endpoint (slice form)",
		token: discovery + "Endpoint",
		props: map[string]string{
			"addresses":          tStrings,
			"conditions":         ref(discovery + "EndpointConditions"),
			"deprecatedTopology": tMap,
			"hints":              ref(discovery + "EndpointHints"),
			"hostname":           tString,
			"nodeName":           tString,
			"targetRef":          ref(core + "ObjectReference"),
			"zone":               tString,
		},
		required: []string{"addresses"},
	},
	{
		spec:  "EndpointConditions",
		token: discovery + "EndpointConditions",
		props: map[string]string{
			"ready":       tBool,
			"serving":     tBool,
			"terminating": tBool,
		},
	},
	{
		spec:  "EndpointHints",
		token: discovery + "EndpointHints",
		props: map[string]string{
			"forNodes": arrayOf(discovery + "ForNode"),
			"forZones": arrayOf(discovery + "ForZone"),
		},
	},
	{
		spec:     "ForNode (Kubernetes 1.34)",
		token:    discovery + "ForNode",
		props:    map[string]string{"name": tString},
		required: []string{"name"},
	},
	{
		spec:     "ForZone",
		token:    discovery + "ForZone",
		props:    map[string]string{"name": tString},
		required: []string{"name"},
	},
	{
		spec:  "EndpointPort (slice form)",
		token: discovery + "EndpointPort",
		props: map[string]string{
			"appProtocol": tString,
			"name":        tString,
			"port":        tInt,
			"protocol":    ref(core + "Protocol"),
		},
	},
	{
		spec:  "UploadFileInfo",
		token: migration + "UploadFileInfoResponse",
		props: map[string]string{
			"headers":           tMap,
			"signedUri":         tString,
			"uriExpirationTime": tString,
		},
		required: []string{"headers", "signedUri", "uriExpirationTime"},
	},
	{
		spec:  "AuditConfig",
		token: gateway + "AuditConfigResponse",
		props: map[string]string{
			"service":         tString,
			"auditLogConfigs": arrayOf(gateway + "AuditLogConfigResponse"),
		},
		required: []string{"auditLogConfigs", "service"},
	},
	{
		spec:  "AuditLogConfig",
		token: gateway + "AuditLogConfigResponse",
		props: map[string]string{
			"exemptedMembers": tStrings,
			"logType":         tString,
		},
		required: []string{"exemptedMembers", "logType"},
	},
	{
		spec:  "Binding",
		token: gateway + "BindingResponse",
		props: map[string]string{
			"role":      tString,
			"members":   tStrings,
			"condition": ref(gateway + "ExprResponse"),
		},
		required: []string{"condition", "members", "role"},
	},
	{
		spec:  "Expr",
		token: gateway + "ExprResponse",
		props: map[string]string{
			"expression":  tString,
			"title":       tString,
			"description": tString,
			"location":    tString,
		},
		required: []string{"description", "expression", "location", "title"},
	},
}

// enumTypes lists every enum type with its values, in order.
var enumTypes = map[string][]string{
	discovery + "AddressType":       {"IPv4", "IPv6", "FQDN"},
	core + "Protocol":               {"TCP", "UDP", "SCTP"},
	meta + "ManagedFieldsOperation": {"Apply", "Update"},
	meta + "FieldsType":             {"FieldsV1"},
}

// ioWant describes the inputs and outputs of a resource or function.
type ioWant struct {
	token           string
	inputs          map[string]string
	requiredInputs  []string
	outputs         map[string]string
	requiredOutputs []string
}

var endpointSliceProps = map[string]string{
	"addressType": ref(discovery + "AddressType"),
	"endpoints":   arrayOf(discovery + "Endpoint"),
	"metadata":    ref(meta + "ObjectMeta"),
	"ports":       arrayOf(discovery + "EndpointPort"),
}

var endpointsListProps = map[string]string{
	"items":    arrayOf(core + "Endpoints"),
	"metadata": ref(meta + "ListMeta"),
}

var resourceTable = []ioWant{
	{
		token:           core + "EndpointsList",
		inputs:          endpointsListProps,
		requiredInputs:  []string{"items"},
		outputs:         endpointsListProps,
		requiredOutputs: []string{"items", "metadata"},
	},
	{
		token:           discovery + "EndpointSlice",
		inputs:          endpointSliceProps,
		requiredInputs:  []string{"addressType", "endpoints"},
		outputs:         endpointSliceProps,
		requiredOutputs: []string{"addressType", "endpoints", "metadata", "ports"},
	},
}

var functionTable = []ioWant{
	{
		token: migration + "getImportDataFile",
		inputs: map[string]string{
			"importDataFileId": tString,
			"importJobId":      tString,
			"location":         tString,
			"project":          tString,
		},
		requiredInputs: []string{"importDataFileId", "importJobId", "location"},
		outputs: map[string]string{
			"createTime":     tString,
			"displayName":    tString,
			"format":         tString,
			"name":           tString,
			"state":          tString,
			"uploadFileInfo": ref(migration + "UploadFileInfoResponse"),
		},
		requiredOutputs: []string{"createTime", "displayName", "format", "name", "state", "uploadFileInfo"},
	},
	{
		token: gateway + "getOrganizationPartnerTenantProxyConfigIamPolicy",
		inputs: map[string]string{
			"organizationId":                tString,
			"partnerTenantId":               tString,
			"proxyConfigId":                 tString,
			"optionsRequestedPolicyVersion": tInt,
		},
		requiredInputs: []string{"organizationId", "partnerTenantId", "proxyConfigId"},
		outputs: map[string]string{
			"auditConfigs": arrayOf(gateway + "AuditConfigResponse"),
			"bindings":     arrayOf(gateway + "BindingResponse"),
			"etag":         tString,
			"version":      tInt,
		},
		requiredOutputs: []string{"auditConfigs", "bindings", "etag", "version"},
	},
}

// configWant describes one provider configuration setting.
type configWant struct {
	secret bool
	env    []string // defaultInfo.environment, in order
	typ    string   // the type, when not a string
}

var configTable = map[string]configWant{
	"kubeconfig":              {secret: true, env: []string{"KUBECONFIG"}},
	"context":                 {},
	"namespace":               {},
	"deletePropagationPolicy": {},
	"lookupTimeout":           {},
	"project": {env: []string{
		"GOOGLE_PROJECT", "GOOGLE_CLOUD_PROJECT", "GCLOUD_PROJECT", "CLOUDSDK_CORE_PROJECT",
	}},
	"credentials": {secret: true, env: []string{
		"GOOGLE_CREDENTIALS", "GOOGLE_CLOUD_KEYFILE_JSON", "GCLOUD_KEYFILE_JSON",
	}},
	"accessToken":                   {secret: true, env: []string{"GOOGLE_OAUTH_ACCESS_TOKEN"}},
	"impersonateServiceAccount":     {env: []string{"GOOGLE_IMPERSONATE_SERVICE_ACCOUNT"}},
	"migrationCenterCustomEndpoint": {env: []string{"GOOGLE_MIGRATION_CENTER_CUSTOM_ENDPOINT"}},
	"beyondcorpCustomEndpoint":      {env: []string{"GOOGLE_BEYONDCORP_CUSTOM_ENDPOINT"}},
	"clusterIdentifier":             {env: []string{"PULUMI_ENDPOINTS_CLUSTER_IDENTIFIER"}},
	"renderDirectory":               {env: []string{"PULUMI_ENDPOINTS_RENDER_DIRECTORY"}},
	"refreshBeforeUpdate":           {env: []string{"PULUMI_ENDPOINTS_REFRESH_BEFORE_UPDATE"}, typ: tBool},
	"qps":                           {env: []string{"PULUMI_ENDPOINTS_CLIENT_QPS"}, typ: tNumber},
	"burst":                         {env: []string{"PULUMI_ENDPOINTS_CLIENT_BURST"}, typ: tInt},
	"requestTimeout":                {env: []string{"PULUMI_ENDPOINTS_CLIENT_REQUEST_TIMEOUT"}},
	"deleteUnreachable":             {env: []string{"PULUMI_ENDPOINTS_DELETE_UNREACHABLE"}, typ: tBool},
	"skipUpdateUnreachable":         {env: []string{"PULUMI_ENDPOINTS_SKIP_UPDATE_UNREACHABLE"}, typ: tBool},
	"suppressDeprecationWarnings": {
		env: []string{"PULUMI_ENDPOINTS_SUPPRESS_DEPRECATION_WARNINGS"}, typ: tBool,
	},
	"cloudCredentials":    {env: []string{"PULUMI_ENDPOINTS_CLOUD_CREDENTIALS"}},
	"billingProject":      {env: []string{"GOOGLE_BILLING_PROJECT"}},
	"userProjectOverride": {env: []string{"USER_PROJECT_OVERRIDE"}, typ: tBool},
	"requestReason":       {env: []string{"CLOUDSDK_CORE_REQUEST_REASON"}},
	"appendUserAgent":     {env: []string{"GOOGLE_APPEND_USER_AGENT"}},
}

// defaultTable lists every property default of the schema ("<owner token>.<property>").
// A provider input that falls back to an environment variable has none: the SDKs'
// provider resources would send the default whenever the program leaves the input
// unset, and the state would record it as if the program had set it, so a later
// `pulumi refresh` or `pulumi destroy` (which configure the provider from that record)
// would never read the variable. The provider applies those defaults itself
// (config.variables, which the SDKs do not send).
var defaultTable = map[string]any{
	core + "EndpointPort.protocol":      "TCP",
	discovery + "EndpointPort.protocol": "TCP",
	discovery + "EndpointPort.name":     "",
	// The Kubernetes client settings.
	"config.qps":                   float64(200),
	"config.burst":                 float64(400),
	"config.requestTimeout":        "30s",
	"config.deleteUnreachable":     false,
	"config.skipUpdateUnreachable": false,
	"config.refreshBeforeUpdate":   false,
	"config.cloudCredentials":      "automatic",
	// How long a Google lookup may take, and how a delete propagates to dependents
	// (no environment variable: the provider's inputs hold the default).
	"config.lookupTimeout":             "60s",
	"config.deletePropagationPolicy":   "Background",
	"provider.lookupTimeout":           "60s",
	"provider.deletePropagationPolicy": "Background",
	// The Kubernetes warnings and the Google quota project.
	"config.suppressDeprecationWarnings": false,
	"config.userProjectOverride":         false,
}

func loadSpec(t *testing.T) schema.PackageSpec {
	t.Helper()
	var spec schema.PackageSpec
	if err := json.Unmarshal(endpoints.Schema(), &spec); err != nil {
		t.Fatalf("schema.json does not decode into a package spec: %v", err)
	}
	return spec
}

// checkProperties compares the property names and types of one property bag
// with the table, reporting missing, unexpected and mistyped properties.
func checkProperties(t *testing.T, where string, got map[string]schema.PropertySpec, want map[string]string) {
	t.Helper()
	var missing, extra, mistyped []string
	for name, typ := range want {
		p, ok := got[name]
		switch {
		case !ok:
			missing = append(missing, name)
		case propertyType(p.TypeSpec) != typ:
			mistyped = append(mistyped, fmt.Sprintf("%s: got %s, want %s", name, propertyType(p.TypeSpec), typ))
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			extra = append(extra, name)
		}
	}
	slices.Sort(missing)
	slices.Sort(extra)
	slices.Sort(mistyped)
	if len(missing) > 0 {
		t.Errorf("%s: missing properties %v", where, missing)
	}
	if len(extra) > 0 {
		t.Errorf("%s: properties not in the spec table %v", where, extra)
	}
	for _, m := range mistyped {
		t.Errorf("%s: wrong type of %s", where, m)
	}
}

func checkRequired(t *testing.T, where string, got, want []string) {
	t.Helper()
	sorted := cmpopts.SortSlices(func(a, b string) bool { return a < b })
	if diff := cmp.Diff(want, got, sorted, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("%s: required list differs from the spec (-want +got):\n%s", where, diff)
	}
}

func TestSchemaBinds(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name string
		spec func(t *testing.T) schema.PackageSpec
	}{
		{name: "schema.json", spec: loadSpec},
		{
			// The SDK generator and the provider may decode and re-encode the
			// spec; it must survive that unchanged in meaning.
			name: "after a round trip through PackageSpec",
			spec: func(t *testing.T) schema.PackageSpec {
				t.Helper()
				b, err := json.Marshal(loadSpec(t))
				if err != nil {
					t.Fatalf("encoding the package spec: %v", err)
				}
				var spec schema.PackageSpec
				if err := json.Unmarshal(b, &spec); err != nil {
					t.Fatalf("decoding the re-encoded package spec: %v", err)
				}
				return spec
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			pkg, diags, err := schema.BindSpecWithContext(t.Context(), tt.spec(t), schema.NewNullLoader(),
				schema.ValidationOptions{})
			for _, d := range diags {
				severity := "error"
				if d.Severity == hcl.DiagWarning {
					severity = "warning"
				}
				t.Errorf("binding %s: %s: %s", severity, d.Summary, d.Detail)
			}
			if err != nil {
				t.Fatalf("binding failed: %v", err)
			}
			if got, want := len(pkg.Resources), len(resourceTable); got != want {
				t.Errorf("bound %d resources, want %d", got, want)
			}
			if got, want := len(pkg.Functions), len(functionTable); got != want {
				t.Errorf("bound %d functions, want %d", got, want)
			}
			for _, f := range pkg.Functions {
				if out, ok := f.ReturnType.(*schema.ObjectType); !ok || len(out.Properties) == 0 {
					t.Errorf("function %s: bound without object outputs (return type %v)", f.Token, f.ReturnType)
				}
			}
			if pkg.Provider == nil || len(pkg.Provider.InputProperties) != len(configTable) {
				t.Errorf("bound provider has the wrong inputs: %+v", pkg.Provider)
			}
		})
	}
}

// languageOptionNames lists, per language, every package option the code
// generators understand. Go, Node.js and Python are the JSON names of
// GoPackageInfo, NodePackageInfo and PackageInfo in codegen/{go,nodejs,python}/importer.go
// of github.com/pulumi/pulumi/pkg/v3 v3.256.0; C# is CSharpPackageInfo of the
// .NET code generator (pulumi-dotnet, codegen/importer.go); Java is PackageInfo of
// github.com/pulumi/pulumi-java/pkg v1.16.0 (codegen/java/package_info.go). They are listed here
// rather than imported because those packages pull in dependencies this module
// does not carry.
var languageOptionNames = map[string][]string{
	"go": {
		"importBasePath", "modulePath", "rootPackageName", "moduleToPackage", "packageImportAliases",
		"importPathPattern", "generateResourceContainerTypes", "pulumiSDKVersion",
		"disableFunctionOutputVersions", "liftSingleValueMethodReturns", "disableInputTypeRegistrations",
		"internalModuleName", "disableObjectDefaults", "generateExtraInputTypes", "omitExtraInputTypes",
		"respectSchemaVersion", "internalDependencies", "generics",
	},
	"nodejs": {
		"packageName", "packageDescription", "readme", "dependencies", "devDependencies",
		"peerDependencies", "resolutions", "typescriptVersion", "moduleToPackage", "compatibility",
		"disableUnionOutputTypes", "containsEnums", "providerNameToModuleName", "extraTypeScriptFiles",
		"liftSingleValueMethodReturns", "respectSchemaVersion", "useTypeOnlyReferences",
	},
	"python": {
		"packageName", "pythonRequires", "requires", "readme", "moduleNameOverrides", "compatibility",
		"usesIOClasses", "liftSingleValueMethodReturns", "respectSchemaVersion", "pyproject", "inputTypes",
	},
	"csharp": {
		"packageReferences", "namespaces", "compatibility", "dictionaryConstructors", "projectReferences",
		"liftSingleValueMethodReturns", "rootNamespace", "respectSchemaVersion",
	},
	"java": {
		"packages", "basePackage", "buildFiles", "repositories", "dependencies",
		"gradleNexusPublishPluginVersion", "gradleTest",
	},
}

// TestSchemaLanguageOptions checks that every language option is one the code
// generator knows (JSON decoding would silently ignore a misspelt one) and that
// the sections hold exactly the options we mean to set.
func TestSchemaLanguageOptions(t *testing.T) {
	t.Parallel()

	modules := map[string]any{
		"core/v1":             "core/v1",
		"meta/v1":             "meta/v1",
		"discovery.k8s.io/v1": "discovery/v1",
		"migration/v1alpha1":  "migration/v1alpha1",
		"accessgateway/v1":    "accessgateway/v1",
	}
	tests := []struct {
		language string
		want     map[string]any
	}{
		{
			language: "go",
			want: map[string]any{
				"importBasePath":  goImportBase,
				"moduleToPackage": modules,
				"packageImportAliases": map[string]any{
					goImportBase + "/core/v1":            "corev1",
					goImportBase + "/meta/v1":            "metav1",
					goImportBase + "/discovery/v1":       "discoveryv1",
					goImportBase + "/migration/v1alpha1": "migrationv1alpha1",
					goImportBase + "/accessgateway/v1":   "accessgatewayv1",
				},
				"generateResourceContainerTypes": true,
				"respectSchemaVersion":           true,
			},
		},
		{
			language: "nodejs",
			want: map[string]any{
				"packageName":          "@endpoints-provider/endpoints",
				"dependencies":         map[string]any{"@pulumi/pulumi": "^3.142.0"},
				"devDependencies":      map[string]any{"@types/node": "^20.0.0", "typescript": "^5.0.0"},
				"moduleToPackage":      map[string]any{"discovery.k8s.io/v1": "discovery/v1"},
				"respectSchemaVersion": true,
			},
		},
		{
			language: "python",
			want: map[string]any{
				"packageName":          "pulumi_endpoints",
				"requires":             map[string]any{"pulumi": ">=3.142.0,<4.0.0"},
				"pyproject":            map[string]any{"enabled": true},
				"moduleNameOverrides":  modules,
				"respectSchemaVersion": true,
				// What the pulumi package of PyPI that the tests install declares.
				"pythonRequires": ">=3.10",
			},
		},
		{
			language: "csharp",
			want: map[string]any{
				"rootNamespace": "EndpointsProvider",
				"namespaces": map[string]any{
					"endpoints":           "Endpoints",
					"core/v1":             "Core.V1",
					"meta/v1":             "Meta.V1",
					"discovery.k8s.io/v1": "Discovery.V1",
					"migration/v1alpha1":  "Migration.V1Alpha1",
					"accessgateway":       "AccessGateway",
					"core":                "Core",
					"discovery.k8s.io":    "Discovery",
					"meta":                "Meta",
					"migration":           "Migration",
					"accessgateway/v1":    "AccessGateway.V1",
				},
				"packageReferences":    map[string]any{"Pulumi": "3.*"},
				"respectSchemaVersion": true,
			},
		},
		{
			language: "java",
			want: map[string]any{
				"basePackage": "com.endpointsprovider",
				"packages": map[string]any{
					"core/v1":             "core.v1",
					"meta/v1":             "meta.v1",
					"discovery.k8s.io/v1": "discovery.v1",
					"migration/v1alpha1":  "migration.v1alpha1",
					"accessgateway/v1":    "accessgateway.v1",
				},
			},
		},
	}

	spec := loadSpec(t)
	var languages []string
	for _, tt := range tests {
		languages = append(languages, tt.language)
	}
	slices.Sort(languages)
	if diff := cmp.Diff(languages, sortedKeys(spec.Language)); diff != "" {
		t.Errorf("language sections differ (-want +got):\n%s", diff)
	}

	for _, tt := range tests {
		t.Run(tt.language, func(t *testing.T) {
			t.Parallel()
			raw, ok := spec.Language[tt.language]
			if !ok {
				t.Fatalf("no %q language section", tt.language)
			}
			var got map[string]any
			if err := json.Unmarshal(raw, &got); err != nil {
				t.Fatalf("language section %q is not a JSON object: %v", tt.language, err)
			}
			for _, name := range sortedKeys(got) {
				if !slices.Contains(languageOptionNames[tt.language], name) {
					t.Errorf("language section %q: the code generator has no option %q", tt.language, name)
				}
			}
			if tt.language == "nodejs" {
				// Free text: only require that it is there.
				if d, _ := got["packageDescription"].(string); strings.TrimSpace(d) == "" {
					t.Error("nodejs packageDescription is missing or empty")
				}
				delete(got, "packageDescription")
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("language section %q differs (-want +got):\n%s", tt.language, diff)
			}
		})
	}
}

func TestSchemaPackageInfo(t *testing.T) {
	t.Parallel()
	spec := loadSpec(t)
	const home = "https://github.com/endpoints-provider/pulumi-endpoints"

	tests := []struct {
		field string
		got   any
		want  any
	}{
		{"name", spec.Name, "endpoints"},
		{"displayName", spec.DisplayName, "Endpoints"},
		{"version", spec.Version, ""}, // stamped by the build
		{"homepage", spec.Homepage, home},
		{"repository", spec.Repository, home},
		{"publisher", spec.Publisher, "endpoints-provider"},
		{"license", spec.License, "Apache-2.0"},
		{"pluginDownloadURL", spec.PluginDownloadURL, "github://api.github.com/endpoints-provider/pulumi-endpoints"},
		{"keywords", spec.Keywords, []string{"pulumi", "kubernetes", "endpoints", "google cloud", "category/cloud"}},
		{"meta", spec.Meta, &schema.MetadataSpec{ModuleFormat: "(.*)"}},
		{"description is set", spec.Description != "", true},
	}
	for _, tt := range tests {
		t.Run(tt.field, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, tt.got); diff != "" {
				t.Errorf("%s differs (-want +got):\n%s", tt.field, diff)
			}
		})
	}
}

func TestSchemaCoversSpec(t *testing.T) {
	t.Parallel()
	spec := loadSpec(t)

	t.Run("object types", func(t *testing.T) {
		t.Parallel()
		for _, want := range objectTypes {
			typ, ok := spec.Types[want.token]
			if !ok {
				t.Errorf("spec type %s: token %s is missing", want.spec, want.token)
				continue
			}
			where := want.spec + " (" + want.token + ")"
			if typ.Type != "object" || len(typ.Enum) != 0 {
				t.Errorf("%s: want an object type, got type %q with %d enum values", where, typ.Type, len(typ.Enum))
			}
			checkProperties(t, where, typ.Properties, want.props)
			checkRequired(t, where, typ.Required, want.required)
		}
	})

	t.Run("enum types", func(t *testing.T) {
		t.Parallel()
		for token, values := range enumTypes {
			typ, ok := spec.Types[token]
			if !ok {
				t.Errorf("enum %s is missing", token)
				continue
			}
			if typ.Type != "string" {
				t.Errorf("enum %s: type %q, want string", token, typ.Type)
			}
			var gotValues []string
			for _, v := range typ.Enum {
				s, ok := v.Value.(string)
				if !ok {
					t.Errorf("enum %s: value %v is not a string", token, v.Value)
					continue
				}
				gotValues = append(gotValues, s)
				// Names are the values, upper-cased so that every language's
				// identifier is readable (Python would turn IPv4 into I_PV4).
				if want := strings.ToUpper(s); v.Name != want && v.Name != s {
					t.Errorf("enum %s: value %q has name %q, want %q", token, s, v.Name, want)
				}
			}
			if diff := cmp.Diff(values, gotValues); diff != "" {
				t.Errorf("enum %s: values differ (-want +got):\n%s", token, diff)
			}
		}
	})

	t.Run("no unexpected types", func(t *testing.T) {
		t.Parallel()
		known := map[string]bool{}
		for _, o := range objectTypes {
			known[o.token] = true
		}
		for token := range enumTypes {
			known[token] = true
		}
		var extra []string
		for token := range spec.Types {
			if !known[token] {
				extra = append(extra, token)
			}
		}
		slices.Sort(extra)
		if len(extra) > 0 {
			t.Errorf("types not in the spec table: %v", extra)
		}
	})

	t.Run("resources", func(t *testing.T) {
		t.Parallel()
		if got, want := sortedKeys(spec.Resources), tokens(resourceTable); !slices.Equal(got, want) {
			t.Errorf("resource tokens: got %v, want %v", got, want)
		}
		for _, want := range resourceTable {
			res, ok := spec.Resources[want.token]
			if !ok {
				continue // reported above
			}
			checkProperties(t, want.token+" inputs", res.InputProperties, want.inputs)
			checkRequired(t, want.token+" inputs", res.RequiredInputs, want.requiredInputs)
			checkProperties(t, want.token+" outputs", res.Properties, want.outputs)
			checkRequired(t, want.token+" outputs", res.Required, want.requiredOutputs)
		}
	})

	t.Run("functions", func(t *testing.T) {
		t.Parallel()
		if got, want := sortedKeys(spec.Functions), tokens(functionTable); !slices.Equal(got, want) {
			t.Errorf("function tokens: got %v, want %v", got, want)
		}
		for _, want := range functionTable {
			fn, ok := spec.Functions[want.token]
			if !ok {
				continue // reported above
			}
			if fn.Inputs == nil {
				t.Errorf("%s: no inputs", want.token)
			} else {
				checkProperties(t, want.token+" inputs", fn.Inputs.Properties, want.inputs)
				checkRequired(t, want.token+" inputs", fn.Inputs.Required, want.requiredInputs)
			}
			outputs := functionOutputs(fn)
			if outputs == nil {
				t.Errorf("%s: no object outputs", want.token)
				continue
			}
			checkProperties(t, want.token+" outputs", outputs.Properties, want.outputs)
			checkRequired(t, want.token+" outputs", outputs.Required, want.requiredOutputs)
		}
	})

	t.Run("provider configuration", func(t *testing.T) {
		t.Parallel()
		bags := map[string]map[string]schema.PropertySpec{
			"config.variables":         spec.Config.Variables,
			"provider.inputProperties": spec.Provider.InputProperties,
		}
		want := map[string]string{}
		for name, w := range configTable {
			want[name] = tString
			if w.typ != "" {
				want[name] = w.typ
			}
		}
		for where, bag := range bags {
			checkProperties(t, where, bag, want)
			for name, w := range configTable {
				p, ok := bag[name]
				if !ok {
					continue // reported by checkProperties
				}
				if p.Secret != w.secret {
					t.Errorf("%s.%s: secret is %v, want %v", where, name, p.Secret, w.secret)
				}
				var env []string
				if p.DefaultInfo != nil {
					env = p.DefaultInfo.Environment
				}
				if diff := cmp.Diff(w.env, env, cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("%s.%s: defaultInfo.environment differs (-want +got):\n%s", where, name, diff)
				}
			}
		}
		if len(spec.Config.Required) != 0 {
			t.Errorf("config defaults (required settings) = %v, want none", spec.Config.Required)
		}
	})

	t.Run("defaults", func(t *testing.T) {
		t.Parallel()
		got := map[string]any{}
		forEachProperty(spec, func(where, name string, p schema.PropertySpec) {
			if p.Default != nil {
				got[where+"."+name] = p.Default
			}
		})
		if diff := cmp.Diff(defaultTable, got); diff != "" {
			t.Errorf("property defaults differ (-want +got):\n%s", diff)
		}
		for name, p := range spec.Provider.InputProperties {
			if p.Default != nil && p.DefaultInfo != nil && len(p.DefaultInfo.Environment) > 0 {
				t.Errorf("provider.inputProperties.%s has a default and falls back to %v: the SDKs would always send "+
					"the default, and the variable would not reach a refresh or destroy of an explicit provider",
					name, p.DefaultInfo.Environment)
			}
		}
	})

	t.Run("descriptions", func(t *testing.T) {
		t.Parallel()
		var empty []string
		note := func(where, desc string) {
			if strings.TrimSpace(desc) == "" {
				empty = append(empty, where)
			}
		}
		note("package", spec.Description)
		note("provider", spec.Provider.Description)
		for token, typ := range spec.Types {
			note(token, typ.Description)
			for _, v := range typ.Enum {
				note(fmt.Sprintf("%s value %v", token, v.Value), v.Description)
			}
		}
		for token, res := range spec.Resources {
			note(token, res.Description)
		}
		for token, fn := range spec.Functions {
			note(token, fn.Description)
		}
		forEachProperty(spec, func(where, name string, p schema.PropertySpec) {
			note(where+"."+name, p.Description)
		})
		slices.Sort(empty)
		if len(empty) > 0 {
			t.Errorf("empty descriptions: %v", empty)
		}
	})

	t.Run("description content", func(t *testing.T) {
		t.Parallel()
		const readOnly = "read-only, set by the server"
		const (
			importDataFile = migration + "getImportDataFile"
			iamPolicy      = gateway + "getOrganizationPartnerTenantProxyConfigIamPolicy"
		)
		// Lookups that tolerate missing entries; those are reported elsewhere.
		typeProp := func(token, name string) string { return spec.Types[token].Properties[name].Description }
		fnInput := func(token, name string) string {
			if in := spec.Functions[token].Inputs; in != nil {
				return in.Properties[name].Description
			}
			return ""
		}
		tests := []struct {
			where string
			desc  string
			want  []string
		}{
			{"ObjectMeta.creationTimestamp", typeProp(meta+"ObjectMeta", "creationTimestamp"), []string{readOnly}},
			{"ObjectMeta.deletionGracePeriodSeconds", typeProp(meta+"ObjectMeta", "deletionGracePeriodSeconds"),
				[]string{readOnly}},
			{"ObjectMeta.deletionTimestamp", typeProp(meta+"ObjectMeta", "deletionTimestamp"), []string{readOnly}},
			{"ObjectMeta.generation", typeProp(meta+"ObjectMeta", "generation"), []string{readOnly}},
			{"ObjectMeta.resourceVersion", typeProp(meta+"ObjectMeta", "resourceVersion"), []string{readOnly}},
			{"ObjectMeta.uid", typeProp(meta+"ObjectMeta", "uid"), []string{readOnly}},
			{"EndpointSlice", spec.Resources[discovery+"EndpointSlice"].Description, []string{
				"`addressType`", "`metadata.name`", "`metadata.namespace`", "replaced",
				"## Import", "`<namespace>/<name>`", "`<namespace>/<generateName>*`",
				"$ pulumi import endpoints:discovery.k8s.io/v1:EndpointSlice web default/web-1a2b3c",
			}},
			{"EndpointsList", spec.Resources[core+"EndpointsList"].Description, []string{
				"one Kubernetes v1 `Endpoints` object", "managed as a set",
				"## Import", "`<namespace>?labelSelector=<selector>&fieldSelector=<selector>&limit=<n>`",
				"$ pulumi import endpoints:core/v1:EndpointsList legacy 'default?labelSelector=",
			}},
			{"getImportDataFile", spec.Functions[importDataFile].Description, []string{
				"GET https://migrationcenter.googleapis.com/v1alpha1/projects/{project}/locations/{location}" +
					"/importJobs/{importJobId}/importDataFiles/{importDataFileId}",
				"provider's `project` setting",
			}},
			{"getImportDataFile.project", fnInput(importDataFile, "project"), []string{"provider's `project` setting"}},
			{"getOrganizationPartnerTenantProxyConfigIamPolicy", spec.Functions[iamPolicy].Description, []string{
				"GET https://beyondcorp.googleapis.com/v1/organizations/{organizationId}/locations/global" +
					"/partnerTenants/{partnerTenantId}/proxyConfigs/{proxyConfigId}:getIamPolicy",
				"empty policy",
			}},
			{"optionsRequestedPolicyVersion", fnInput(iamPolicy, "optionsRequestedPolicyVersion"), []string{"0, 1 and 3"}},
			{"BindingResponse.members", typeProp(gateway+"BindingResponse", "members"), []string{
				"`allUsers`", "`allAuthenticatedUsers`", "`user:{email}`", "`serviceAccount:{email}`", "svc.id.goog",
				"`group:{email}`", "`domain:{domain}`", "`deleted:user:{email}?uid={unique_id}`",
				"`deleted:serviceAccount:{email}?uid={unique_id}`", "`deleted:group:{email}?uid={unique_id}`",
			}},
			{"migrationCenterCustomEndpoint", spec.Config.Variables["migrationCenterCustomEndpoint"].Description,
				[]string{"https://migrationcenter.googleapis.com/"}},
			{"beyondcorpCustomEndpoint", spec.Config.Variables["beyondcorpCustomEndpoint"].Description,
				[]string{"https://beyondcorp.googleapis.com/"}},
		}
		for _, tt := range tests {
			for _, w := range tt.want {
				if !strings.Contains(strings.ToLower(tt.desc), strings.ToLower(w)) {
					t.Errorf("%s: description does not mention %q:\n%s", tt.where, w, tt.desc)
				}
			}
		}
	})
}

func TestSchemaIsCanonical(t *testing.T) {
	t.Parallel()
	raw := endpoints.Schema()

	// reencode decodes into generic values and encodes again with sorted keys,
	// two-space indentation and no HTML escaping.
	reencode := func(b []byte) ([]byte, error) {
		var v any
		if err := json.Unmarshal(b, &v); err != nil {
			return nil, err
		}
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(v); err != nil {
			return nil, err
		}
		return buf.Bytes(), nil
	}
	indent := func(b []byte) ([]byte, error) {
		var buf bytes.Buffer
		if err := json.Indent(&buf, b, "", "  "); err != nil {
			return nil, err
		}
		return buf.Bytes(), nil
	}

	tests := []struct {
		name      string
		normalize func([]byte) ([]byte, error)
	}{
		{"indented with two spaces", indent},
		{"keys sorted", reencode},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if !json.Valid(raw) {
				t.Fatal("schema.json is not valid JSON")
			}
			got, err := tt.normalize(raw)
			if err != nil {
				t.Fatalf("normalizing schema.json: %v", err)
			}
			if !bytes.Equal(got, raw) {
				t.Errorf("schema.json is not in canonical form (-file +canonical):\n%s",
					cmp.Diff(strings.Split(string(raw), "\n"), strings.Split(string(got), "\n")))
			}
		})
	}
}

// forEachProperty calls fn for every property of the package: object types,
// resource inputs and outputs, function inputs and outputs, configuration and
// provider inputs. where names the owner (a token or a section).
func forEachProperty(spec schema.PackageSpec, fn func(where, name string, p schema.PropertySpec)) {
	each := func(where string, props map[string]schema.PropertySpec) {
		for _, name := range sortedKeys(props) {
			fn(where, name, props[name])
		}
	}
	for token, typ := range spec.Types {
		each(token, typ.Properties)
	}
	for token, res := range spec.Resources {
		each(token+" inputs", res.InputProperties)
		each(token+" outputs", res.Properties)
	}
	for token, f := range spec.Functions {
		if f.Inputs != nil {
			each(token+" inputs", f.Inputs.Properties)
		}
		if out := functionOutputs(f); out != nil {
			each(token+" outputs", out.Properties)
		}
	}
	each("config", spec.Config.Variables)
	each("provider", spec.Provider.InputProperties)
}

// functionOutputs returns the object outputs of a function, whichever field
// the decoder put them in.
func functionOutputs(f schema.FunctionSpec) *schema.ObjectTypeSpec {
	if f.ReturnType != nil && f.ReturnType.ObjectTypeSpec != nil {
		return f.ReturnType.ObjectTypeSpec
	}
	return f.Outputs
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func tokens(table []ioWant) []string {
	out := make([]string, 0, len(table))
	for _, w := range table {
		out = append(out, w.token)
	}
	slices.Sort(out)
	return out
}
