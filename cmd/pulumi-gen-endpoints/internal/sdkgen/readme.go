package sdkgen

import (
	"bytes"
	"fmt"
	"text/template"

	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

// readmePaths are the files, relative to each SDK directory, that get the SDK's
// README. Python needs it twice: beside pyproject.toml (its readme field) and in the
// package, where the Python generator writes its own.
var readmePaths = map[string][]string{
	"go":     {"endpoints/README.md"},
	"nodejs": {"README.md"},
	"python": {"README.md", "pulumi_endpoints/README.md"},
	"dotnet": {"README.md"},
	"java":   {"README.md"},
}

// addReadme adds (or replaces) the README of the lang SDK in files: what the package
// is, how to install it and the plugin, and a short program. The examples are
// checked by tests/sdk, which compiles the first code block of each README.
func addReadme(lang string, spec schema.PackageSpec, files map[string][]byte) error {
	paths, ok := readmePaths[lang]
	if !ok {
		return fmt.Errorf("internal error: no README for language %q", lang)
	}
	var buf bytes.Buffer
	err := readmes.ExecuteTemplate(&buf, lang, struct {
		Description, Version, PluginDownloadURL, Repository string
	}{spec.Description, spec.Version, spec.PluginDownloadURL, spec.Repository})
	if err != nil {
		return fmt.Errorf("internal error: README template: %w", err)
	}
	for _, p := range paths {
		files[p] = bytes.Clone(buf.Bytes())
	}
	return nil
}

var readmes = template.Must(template.New("").Parse(`
{{- define "plugin" -}}
The SDK runs with the provider plugin ` + "`endpoints`" + ` version {{.Version}}
(pulumi-resource-endpoints). Its plugin metadata names the plugin's download source,
` + "`{{.PluginDownloadURL}}`" + `, so ` + "`pulumi up`" + ` installs the plugin on
first use. To install it ahead of time:

` + "```sh" + `
pulumi plugin install resource endpoints {{.Version}} --server {{.PluginDownloadURL}}
` + "```" + `

The provider reaches Kubernetes with the kubeconfig settings (` + "`endpoints:kubeconfig`" + `,
` + "`KUBECONFIG`" + `) and Google Cloud with the usual Google credentials; every setting
is described in ` + "`docs/installation-configuration.md`" + ` of {{.Repository}}.
{{- end -}}

{{- define "footer" }}
This SDK is generated from schema.json by pulumi-gen-endpoints: do not edit it by hand.
{{- end -}}

{{- define "nodejs" -}}
# @endpoints-provider/endpoints

{{.Description}}

## Install

` + "```sh" + `
npm install @endpoints-provider/endpoints@{{.Version}}
` + "```" + `

{{template "plugin" .}}

## Example

` + "```typescript" + `
import * as endpoints from "@endpoints-provider/endpoints";

// An EndpointSlice of the service "web", with one ready endpoint.
const slice = new endpoints.discovery.v1.EndpointSlice("web", {
    metadata: { labels: { "kubernetes.io/service-name": "web" } },
    addressType: "IPv4",
    endpoints: [{ addresses: ["10.0.0.5"], conditions: { ready: true } }],
    ports: [{ name: "http", port: 8080, protocol: "TCP" }],
});

// The IAM policy of a BeyondCorp partner-tenant proxy configuration.
const policy = endpoints.accessgateway.v1.getOrganizationPartnerTenantProxyConfigIamPolicyOutput({
    organizationId: "123456789",
    partnerTenantId: "my-tenant",
    proxyConfigId: "my-proxy",
});

export const sliceName = slice.metadata.apply(m => m?.name);
export const policyEtag = policy.etag;
` + "```" + `
{{template "footer" .}}
{{end}}

{{- define "python" -}}
# pulumi_endpoints

{{.Description}}

## Install

` + "```sh" + `
pip install pulumi_endpoints=={{.Version}}
` + "```" + `

{{template "plugin" .}}

## Example

` + "```python" + `
import pulumi
import pulumi_endpoints as endpoints

# An EndpointSlice of the service "web", with one ready endpoint.
web = endpoints.discovery.v1.EndpointSlice(
    "web",
    metadata={"labels": {"kubernetes.io/service-name": "web"}},
    address_type=endpoints.discovery.v1.AddressType.IPV4,
    endpoints=[{"addresses": ["10.0.0.5"], "conditions": {"ready": True}}],
    ports=[{"name": "http", "port": 8080, "protocol": endpoints.core.v1.Protocol.TCP}],
)

# The IAM policy of a BeyondCorp partner-tenant proxy configuration.
policy = endpoints.accessgateway.v1.get_organization_partner_tenant_proxy_config_iam_policy_output(
    organization_id="123456789",
    partner_tenant_id="my-tenant",
    proxy_config_id="my-proxy",
)

pulumi.export("slice_name", web.metadata.apply(lambda m: m.name if m else None))
pulumi.export("policy_etag", policy.etag)
` + "```" + `
{{template "footer" .}}
{{end}}

{{- define "go" -}}
# Go SDK for the endpoints provider

{{.Description}}

## Install

The Go module is ` + "`github.com/endpoints-provider/pulumi-endpoints/sdk`" + ` (its releases are
tagged ` + "`sdk/vX.Y.Z`" + `); the packages are under ` + "`sdk/go/endpoints`" + `:

` + "```sh" + `
go get github.com/endpoints-provider/pulumi-endpoints/sdk@v{{.Version}}
` + "```" + `

{{template "plugin" .}}

## Example

The get functions are named Lookup... in Go, each with a ...Output form.

` + "```go" + `
package main

import (
	corev1 "github.com/endpoints-provider/pulumi-endpoints/sdk/go/endpoints/core/v1"
	discoveryv1 "github.com/endpoints-provider/pulumi-endpoints/sdk/go/endpoints/discovery/v1"
	metav1 "github.com/endpoints-provider/pulumi-endpoints/sdk/go/endpoints/meta/v1"
	migrationv1alpha1 "github.com/endpoints-provider/pulumi-endpoints/sdk/go/endpoints/migration/v1alpha1"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		// An EndpointSlice of the service "web", with one ready endpoint.
		slice, err := discoveryv1.NewEndpointSlice(ctx, "web", &discoveryv1.EndpointSliceArgs{
			Metadata: &metav1.ObjectMetaArgs{
				Labels: pulumi.StringMap{"kubernetes.io/service-name": pulumi.String("web")},
			},
			AddressType: discoveryv1.AddressTypeIPV4,
			Endpoints: discoveryv1.EndpointArray{&discoveryv1.EndpointArgs{
				Addresses:  pulumi.StringArray{pulumi.String("10.0.0.5")},
				Conditions: &discoveryv1.EndpointConditionsArgs{Ready: pulumi.Bool(true)},
			}},
			Ports: discoveryv1.EndpointPortArray{&discoveryv1.EndpointPortArgs{
				Name:     pulumi.String("http"),
				Port:     pulumi.Int(8080),
				Protocol: corev1.ProtocolTCP,
			}},
		})
		if err != nil {
			return err
		}

		// A Migration Center import data file.
		file := migrationv1alpha1.LookupImportDataFileOutput(ctx, migrationv1alpha1.LookupImportDataFileOutputArgs{
			Location:         pulumi.String("us-central1"),
			ImportJobId:      pulumi.String("my-job"),
			ImportDataFileId: pulumi.String("my-file"),
		})

		ctx.Export("sliceName", slice.Metadata.Name())
		ctx.Export("fileState", file.State())
		return nil
	})
}
` + "```" + `
{{template "footer" .}}
{{end}}

{{- define "dotnet" -}}
# EndpointsProvider.Endpoints

{{.Description}}

## Install

Not published: this SDK is generated from schema.json and its C# is syntax-checked, but
it is not compiled, and no NuGet package is built or published.

{{template "plugin" .}}

## Example

` + "```csharp" + `
using System.Collections.Generic;
using Pulumi;
using Discovery = EndpointsProvider.Endpoints.Discovery.V1;
using Migration = EndpointsProvider.Endpoints.Migration.V1Alpha1;

return await Deployment.RunAsync(() =>
{
    // An EndpointSlice of the service "web", with one ready endpoint.
    var slice = new Discovery.EndpointSlice("web", new Discovery.EndpointSliceArgs
    {
        Metadata = new EndpointsProvider.Endpoints.Meta.V1.Inputs.ObjectMetaArgs
        {
            Labels = { { "kubernetes.io/service-name", "web" } },
        },
        AddressType = Discovery.AddressType.IPV4,
        Endpoints =
        {
            new Discovery.Inputs.EndpointArgs
            {
                Addresses = { "10.0.0.5" },
                Conditions = new Discovery.Inputs.EndpointConditionsArgs { Ready = true },
            },
        },
    });

    // A Migration Center import data file.
    var file = Migration.GetImportDataFile.Invoke(new Migration.GetImportDataFileInvokeArgs
    {
        Location = "us-central1",
        ImportJobId = "my-job",
        ImportDataFileId = "my-file",
    });

    return new Dictionary<string, object?>
    {
        ["sliceName"] = slice.Metadata.Apply(m => m?.Name),
        ["fileState"] = file.Apply(f => f.State),
    };
});
` + "```" + `
{{template "footer" .}}
{{end}}

{{- define "java" -}}
# com.endpointsprovider:endpoints

{{.Description}}

## Install

With Maven:

` + "```xml" + `
<dependency>
  <groupId>com.endpointsprovider</groupId>
  <artifactId>endpoints</artifactId>
  <version>{{.Version}}</version>
</dependency>
` + "```" + `

{{template "plugin" .}}

## Example

` + "```java" + `
package myproject;

import com.endpointsprovider.endpoints.discovery.v1.EndpointSlice;
import com.endpointsprovider.endpoints.discovery.v1.EndpointSliceArgs;
import com.endpointsprovider.endpoints.discovery.v1.enums.AddressType;
import com.endpointsprovider.endpoints.discovery.v1.inputs.EndpointArgs;
import com.endpointsprovider.endpoints.discovery.v1.inputs.EndpointConditionsArgs;
import com.endpointsprovider.endpoints.meta.v1.inputs.ObjectMetaArgs;
import com.pulumi.Context;
import com.pulumi.Pulumi;
import java.util.Map;

public class App {
    public static void main(String[] args) {
        Pulumi.run(App::stack);
    }

    public static void stack(Context ctx) {
        // An EndpointSlice of the service "web", with one ready endpoint.
        var slice = new EndpointSlice("web", EndpointSliceArgs.builder()
            .metadata(ObjectMetaArgs.builder()
                .labels(Map.of("kubernetes.io/service-name", "web"))
                .build())
            .addressType(AddressType.IPV4)
            .endpoints(EndpointArgs.builder()
                .addresses("10.0.0.5")
                .conditions(EndpointConditionsArgs.builder().ready(true).build())
                .build())
            .build());

        ctx.export("sliceName", slice.metadata().applyValue(m -> m.name().orElse("")));
    }
}
` + "```" + `
{{template "footer" .}}
{{end}}
`))
