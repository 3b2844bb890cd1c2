package sdk_test

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/toolchain"
	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/ from sdk/")

// TestDotnetSDKFiles is the golden check of the C# SDK's file names
// (testdata/dotnet/files.golden; `go test ./tests/sdk -run TestDotnetSDKFiles -update`
// rewrites it after an intended change).
func TestDotnetSDKFiles(t *testing.T) {
	t.Parallel()
	files := readTree(t, filepath.Join(sdkDir(t), "dotnet"))
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	got := strings.Join(names, "\n") + "\n"
	golden := filepath.Join("testdata", "dotnet", "files.golden")
	if *update {
		toolchain.WriteFile(t, golden, got)
	}
	if diff := cmp.Diff(strings.Split(toolchain.ReadFile(t, golden), "\n"), strings.Split(got, "\n")); diff != "" {
		t.Errorf("sdk/dotnet files differ from %s (-want +got; -update rewrites it):\n%s", golden, diff)
	}
}

// TestDotnetSDKIdentifiers checks the key C# declarations: namespaces, resource
// classes with their (name, args, options) constructors and type tokens, both lookup
// forms (InvokeAsync with plain args, Invoke with input args), and ListMeta's
// Continue.
func TestDotnetSDKIdentifiers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file string // under sdk/dotnet
		want []string
	}{
		{"Core/V1/EndpointsList.cs", []string{
			"namespace EndpointsProvider.Endpoints.Core.V1\n",
			"[EndpointsResourceType(\"" + spec.EndpointsListToken + "\")]\n    public partial class EndpointsList : global::Pulumi.CustomResource",
			"public EndpointsList(string name, EndpointsListArgs args, CustomResourceOptions? options = null)",
			"public Output<EndpointsProvider.Endpoints.Meta.V1.Outputs.ListMeta> Metadata { get; private set; } = null!;",
			"public sealed class EndpointsListArgs : global::Pulumi.ResourceArgs",
		}},
		{"Discovery/V1/EndpointSlice.cs", []string{
			"namespace EndpointsProvider.Endpoints.Discovery.V1\n",
			"[EndpointsResourceType(\"" + spec.EndpointSliceToken + "\")]\n    public partial class EndpointSlice : global::Pulumi.CustomResource",
			"public EndpointSlice(string name, EndpointSliceArgs args, CustomResourceOptions? options = null)",
			"public Input<EndpointsProvider.Endpoints.Discovery.V1.AddressType> AddressType { get; set; } = null!;",
		}},
		{"Migration/V1Alpha1/GetImportDataFile.cs", []string{
			"namespace EndpointsProvider.Endpoints.Migration.V1Alpha1\n",
			"public static class GetImportDataFile\n",
			"public static Task<GetImportDataFileResult> InvokeAsync(GetImportDataFileArgs args, InvokeOptions? options = null)",
			"public static Output<GetImportDataFileResult> Invoke(GetImportDataFileInvokeArgs args, InvokeOptions? options = null)",
			`InvokeAsync<GetImportDataFileResult>("` + spec.ImportDataFileToken + `"`,
			"public sealed class GetImportDataFileResult",
		}},
		{"AccessGateway/V1/GetOrganizationPartnerTenantProxyConfigIamPolicy.cs", []string{
			"namespace EndpointsProvider.Endpoints.AccessGateway.V1\n",
			"public static class GetOrganizationPartnerTenantProxyConfigIamPolicy\n",
			"public static Task<GetOrganizationPartnerTenantProxyConfigIamPolicyResult> InvokeAsync(GetOrganizationPartnerTenantProxyConfigIamPolicyArgs args, InvokeOptions? options = null)",
			"public static Output<GetOrganizationPartnerTenantProxyConfigIamPolicyResult> Invoke(GetOrganizationPartnerTenantProxyConfigIamPolicyInvokeArgs args, InvokeOptions? options = null)",
			`"` + spec.ProxyConfigIamPolicyToken + `"`,
		}},
		{"Meta/V1/Inputs/ListMetaArgs.cs", []string{
			"public sealed class ListMetaArgs : global::Pulumi.ResourceArgs",
			"[Input(\"continue\")]\n        public Input<string>? Continue { get; set; }",
		}},
		{"Meta/V1/Outputs/ListMeta.cs", []string{
			"public readonly string? Continue;",
		}},
		{"Provider.cs", []string{
			"public partial class Provider : global::Pulumi.ProviderResource",
		}},
		{"EndpointsProvider.Endpoints.csproj", []string{
			`<PackageReference Include="Pulumi" Version="3.*" />`,
			`<EmbeddedResource Include="pulumi-plugin.json" />`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			content := toolchain.ReadFile(t, filepath.Join(sdkDir(t), "dotnet", filepath.FromSlash(tt.file)))
			for _, w := range tt.want {
				if !strings.Contains(content, w) {
					t.Errorf("sdk/dotnet/%s lacks %q", tt.file, w)
				}
			}
		})
	}
	// No C# keyword is used as a bare identifier: `continue` appears only as the
	// schema name in attributes and as the escaped parameter @continue.
	re := regexp.MustCompile(`[^"@\w]continue\b`)
	err := filepath.WalkDir(filepath.Join(sdkDir(t), "dotnet"), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".cs") {
			return err
		}
		for i, line := range strings.Split(toolchain.ReadFile(t, path), "\n") {
			if !strings.HasPrefix(strings.TrimSpace(line), "///") && re.MatchString(line) {
				t.Errorf("%s:%d uses the C# keyword continue as a name: %s", path, i+1, line)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestDotnetSDKSyntax parses every C# file of the SDK, and the README's example,
// with tree-sitter-c-sharp (from PyPI, in a virtualenv): no .NET toolchain exists
// here to compile them. A file with a syntax error must make the check fail.
func TestDotnetSDKSyntax(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	parser := toolchain.CSharpParser(t)
	python, script := parser[0], parser[1]

	dir := filepath.Join(sdkDir(t), "dotnet")
	var files []string
	for name := range readTree(t, dir) {
		if strings.HasSuffix(name, ".cs") {
			files = append(files, filepath.Join(dir, filepath.FromSlash(name)))
		}
	}
	readme := filepath.Join(tmp, "Program.cs")
	toolchain.WriteFile(t, readme, readmeExample(t, filepath.Join(dir, "README.md"), "csharp"))
	files = append(files, readme)
	if len(files) < 40 {
		t.Fatalf("only %d C# files in sdk/dotnet", len(files))
	}
	run(t, tmp, nil, python, append([]string{script}, files...)...)

	// The check itself must be able to fail.
	broken := filepath.Join(tmp, "Broken.cs")
	toolchain.WriteFile(t, broken, "namespace N { public class C { public void F( { } }\n")
	if out, err := command(t.Context(), tmp, nil, python, script, broken); err == nil {
		t.Errorf("the C# syntax check accepted a broken file:\n%s", out)
	}
}
