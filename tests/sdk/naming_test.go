package sdk_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/toolchain"
)

// TestNamingRules is the golden check of the interface's naming rules in the
// committed SDKs: ListMeta's property `continue` is `continue_` in Python,
// `Continue` in Go and C#, and `continue` in TypeScript; functions keep the get
// name (Lookup in Go, checked by TestGoLookupNames) with a direct and an output
// form; resources take a name, an arguments object and options.
func TestNamingRules(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		file string // under sdk/
		want []string
	}{
		{"python continue_ input", "python/pulumi_endpoints/meta/v1/_inputs.py", []string{
			"continue_: NotRequired[pulumi.Input[Optional[_builtins.str]]]",
			"continue_: pulumi.Input[Optional[_builtins.str]] = None,",
			`pulumi.set(__self__, "continue_", continue_)`,
		}},
		{"python continue_ output", "python/pulumi_endpoints/meta/v1/outputs.py", []string{
			"@pulumi.getter(name=\"continue\")\n    def continue_(self) -> Optional[_builtins.str]:",
		}},
		{"python functions", "python/pulumi_endpoints/migration/v1alpha1/get_import_data_file.py", []string{
			"def get_import_data_file(import_data_file_id: Optional[_builtins.str] = None,",
			"def get_import_data_file_output(import_data_file_id: pulumi.Input[Optional[_builtins.str]] = None,",
			"pulumi.runtime.invoke('" + spec.ImportDataFileToken + "'",
		}},
		{"python functions", "python/pulumi_endpoints/accessgateway/v1/get_organization_partner_tenant_proxy_config_iam_policy.py", []string{
			"def get_organization_partner_tenant_proxy_config_iam_policy(",
			"def get_organization_partner_tenant_proxy_config_iam_policy_output(",
		}},
		{"python resource", "python/pulumi_endpoints/core/v1/endpoints_list.py", []string{
			"class EndpointsList(pulumi.CustomResource):",
			"                 resource_name: str,\n                 args: EndpointsListArgs,\n                 opts: Optional[pulumi.ResourceOptions] = None):",
		}},
		{"python resource", "python/pulumi_endpoints/discovery/v1/endpoint_slice.py", []string{
			"class EndpointSlice(pulumi.CustomResource):",
			"                 resource_name: str,\n                 args: EndpointSliceArgs,\n                 opts: Optional[pulumi.ResourceOptions] = None):",
		}},
		{"go Continue", "go/endpoints/meta/v1/pulumiTypes.go", []string{
			"\tContinue *string `pulumi:\"continue\"`",
			"\tContinue pulumi.StringPtrInput `pulumi:\"continue\"`",
			"func (o ListMetaOutput) Continue() pulumi.StringPtrOutput {",
		}},
		{"go resource", "go/endpoints/core/v1/endpointsList.go", []string{
			"func NewEndpointsList(ctx *pulumi.Context,\n\tname string, args *EndpointsListArgs, opts ...pulumi.ResourceOption) (*EndpointsList, error) {",
			`ctx.RegisterResource("` + spec.EndpointsListToken + `"`,
		}},
		{"go resource", "go/endpoints/discovery/v1/endpointSlice.go", []string{
			"func NewEndpointSlice(ctx *pulumi.Context,\n\tname string, args *EndpointSliceArgs, opts ...pulumi.ResourceOption) (*EndpointSlice, error) {",
			`ctx.RegisterResource("` + spec.EndpointSliceToken + `"`,
		}},
		{"go function token", "go/endpoints/migration/v1alpha1/getImportDataFile.go", []string{
			`ctx.Invoke("` + spec.ImportDataFileToken + `", args, &rv, opts...)`,
		}},
		{"typescript continue input", "nodejs/types/input.ts", []string{
			"continue?: pulumi.Input<string | undefined>;",
		}},
		{"typescript continue output", "nodejs/types/output.ts", []string{
			"continue?: string;",
		}},
		{"typescript functions", "nodejs/migration/v1alpha1/getImportDataFile.ts", []string{
			"export function getImportDataFile(args: GetImportDataFileArgs, opts?: pulumi.InvokeOptions): Promise<GetImportDataFileResult> {",
			"export function getImportDataFileOutput(args: GetImportDataFileOutputArgs, opts?: pulumi.InvokeOutputOptions): pulumi.Output<GetImportDataFileResult> {",
		}},
		{"typescript functions", "nodejs/accessgateway/v1/getOrganizationPartnerTenantProxyConfigIamPolicy.ts", []string{
			"export function getOrganizationPartnerTenantProxyConfigIamPolicy(args: GetOrganizationPartnerTenantProxyConfigIamPolicyArgs, opts?: pulumi.InvokeOptions)",
			"export function getOrganizationPartnerTenantProxyConfigIamPolicyOutput(args: GetOrganizationPartnerTenantProxyConfigIamPolicyOutputArgs, opts?: pulumi.InvokeOutputOptions)",
		}},
		{"typescript resource", "nodejs/core/v1/endpointsList.ts", []string{
			"constructor(name: string, args: EndpointsListArgs, opts?: pulumi.CustomResourceOptions) {",
		}},
		{"typescript resource", "nodejs/discovery/v1/endpointSlice.ts", []string{
			"constructor(name: string, args: EndpointSliceArgs, opts?: pulumi.CustomResourceOptions) {",
		}},
		{"csharp Continue input", "dotnet/Meta/V1/Inputs/ListMetaArgs.cs", []string{
			"[Input(\"continue\")]\n        public Input<string>? Continue { get; set; }",
		}},
		{"csharp Continue output", "dotnet/Meta/V1/Outputs/ListMeta.cs", []string{
			"public readonly string? Continue;",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name+" "+tt.file, func(t *testing.T) {
			t.Parallel()
			content := toolchain.ReadFile(t, filepath.Join(sdkDir(t), filepath.FromSlash(tt.file)))
			for _, w := range tt.want {
				if !strings.Contains(content, w) {
					t.Errorf("sdk/%s lacks %q", tt.file, w)
				}
			}
		})
	}
}

// TestPluginMetadata checks that every SDK tells the engine which plugin it needs
// and where to download it: the resource plugin "endpoints" at the SDK version,
// from the schema's pluginDownloadURL, so a program installs it when it is missing.
func TestPluginMetadata(t *testing.T) {
	t.Parallel()
	var spec struct {
		PluginDownloadURL string `json:"pluginDownloadURL"`
	}
	if err := json.Unmarshal([]byte(toolchain.ReadFile(t, filepath.Join(repoRoot(t), "schema.json"))), &spec); err != nil {
		t.Fatal(err)
	}
	if want := pluginServer; spec.PluginDownloadURL != want {
		t.Fatalf("schema.json pluginDownloadURL is %q, want %q", spec.PluginDownloadURL, want)
	}
	want := pluginInfo{Resource: true, Name: "endpoints", Version: sdkVersion(t), Server: spec.PluginDownloadURL}
	for _, file := range []string{
		"go/endpoints/pulumi-plugin.json",
		"python/pulumi_endpoints/pulumi-plugin.json",
		"dotnet/pulumi-plugin.json",
		"java/src/main/resources/com/endpointsprovider/endpoints/plugin.json", // read by the Java language host
		"nodejs/package.json",                                                 // its "pulumi" section
	} {
		t.Run(file, func(t *testing.T) {
			t.Parallel()
			data := []byte(toolchain.ReadFile(t, filepath.Join(sdkDir(t), filepath.FromSlash(file))))
			var got pluginInfo
			if strings.HasSuffix(file, "package.json") {
				var pkg struct {
					Pulumi pluginInfo `json:"pulumi"`
				}
				if err := json.Unmarshal(data, &pkg); err != nil {
					t.Fatal(err)
				}
				got = pkg.Pulumi
			} else if err := json.Unmarshal(data, &got); err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("sdk/%s says %+v, want %+v", file, got, want)
			}
		})
	}
	t.Run("versions", func(t *testing.T) {
		t.Parallel()
		v := sdkVersion(t)
		for file, want := range map[string]string{
			"nodejs/package.json":                       `"version": "` + v + `"`,
			"python/pyproject.toml":                     `version = "` + toolchain.PythonPackageVersion(t, v) + `"`,
			"dotnet/EndpointsProvider.Endpoints.csproj": "<Version>" + v + "</Version>",
			"dotnet/version.txt":                        v,
			"java/pom.xml":                              "<version>" + v + "</version>",
			"java/src/main/resources/com/endpointsprovider/endpoints/version.txt": v,
		} {
			if !strings.Contains(toolchain.ReadFile(t, filepath.Join(sdkDir(t), filepath.FromSlash(file))), want) {
				t.Errorf("sdk/%s lacks %q", file, want)
			}
		}
	})
}

type pluginInfo struct {
	Resource bool   `json:"resource"`
	Name     string `json:"name"`
	Version  string `json:"version"`
	Server   string `json:"server"`
}

// TestReadmes checks that each SDK has a short README with its install line (for C#,
// that no package is published) and an example; the language tests compile the
// examples.
func TestReadmes(t *testing.T) {
	t.Parallel()
	v := sdkVersion(t)
	tests := []struct {
		file, install, lang string
	}{
		{"nodejs/README.md", "npm install @endpoints-provider/endpoints@" + v, "typescript"},
		{"python/README.md", "pip install pulumi_endpoints==" + v, "python"},
		{"python/pulumi_endpoints/README.md", "pip install pulumi_endpoints==" + v, "python"},
		{"go/endpoints/README.md", "go get github.com/endpoints-provider/pulumi-endpoints/sdk@v" + v, "go"},
		{"dotnet/README.md", "no NuGet package is built or published", "csharp"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(sdkDir(t), filepath.FromSlash(tt.file))
			content := toolchain.ReadFile(t, path)
			for _, want := range []string{tt.install, "pulumi plugin install resource endpoints " + v} {
				if !strings.Contains(content, want) {
					t.Errorf("sdk/%s lacks %q", tt.file, want)
				}
			}
			if ex := readmeExample(t, path, tt.lang); len(ex) < 200 {
				t.Errorf("sdk/%s: the %s example is too short to be one:\n%s", tt.file, tt.lang, ex)
			}
		})
	}
}
