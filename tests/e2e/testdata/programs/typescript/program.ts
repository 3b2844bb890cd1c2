// The program: an EndpointSlice, an EndpointsList and both Google Cloud lookups, each
// called in its direct form (plain arguments, a Promise) and its output form
// (arguments that may be Outputs, an Output); run.ts runs it as an Automation API
// inline program.
import * as pulumi from "@pulumi/pulumi";
import * as endpoints from "@endpoints-provider/endpoints";

type AddressType = endpoints.types.enums.discovery.v1.AddressType;

export async function program() {
    // Stack configuration, with these defaults:
    //   pulumi config set port 8081
    //   pulumi config set addressType IPv6
    //   pulumi config set --path 'addresses[0]' fd00::10   (one address per endpoint)
    // The namespace is the provider's: `pulumi config set endpoints:namespace apps`.
    const config = new pulumi.Config();
    const port = config.getNumber("port") ?? 8080;
    const addressType = config.get<AddressType>("addressType", { allowedValues: ["IPv4", "IPv6"] }) ?? "IPv4";
    const addresses = config.getObject<string[]>("addresses") ?? ["10.0.0.10", "10.0.0.11"];

    // With `pulumi config set explicitProvider true`, the slice and the list go on a
    // provider of the program's own that sets only its namespace (the stack's
    // endpoints:namespace, which configures only the default provider).
    const provider = config.getBoolean("explicitProvider")
        ? new endpoints.Provider("cluster", { namespace: new pulumi.Config("endpoints").get("namespace") })
        : undefined;

    // One EndpointSlice for a Service named "web"; it is autonamed (web-<hex>).
    const web = new endpoints.discovery.v1.EndpointSlice("web", {
        metadata: {
            labels: {
                "kubernetes.io/service-name": "web",
                "example.com/organization": "123456789",
            },
        },
        addressType,
        endpoints: addresses.map((address, i) => ({
            addresses: [address],
            conditions: { ready: true },
            zone: i % 2 === 0 ? "zone-a" : "zone-b",
        })),
        ports: [{ name: "http", port, appProtocol: "http" }],
    }, { provider });

    // Two v1 Endpoints objects managed as one set.
    const legacy = new endpoints.core.v1.EndpointsList("legacy", {
        items: [
            {
                metadata: { name: "web-legacy" },
                subsets: [{
                    addresses: addresses.map(ip => ({ ip })),
                    ports: [{ name: "http", port }],
                }],
            },
            {
                metadata: { name: "db-legacy" },
                subsets: [{
                    addresses: [{ ip: "10.0.1.5" }],
                    notReadyAddresses: [{ ip: "10.0.1.6" }],
                    ports: [{ port: 5432 }],
                }],
            },
        ],
    }, { provider });

    // Direct form: plain arguments; the call returns a Promise of the result. The
    // project comes from the provider configuration (endpoints:project).
    const dataFile = await endpoints.migration.v1alpha1.getImportDataFile({
        location: "us-central1",
        importJobId: "job-1",
        importDataFileId: "file-1",
    });

    // Output form: an argument comes from a resource's output, so the call waits for
    // the slice; the result is an Output.
    const policy = endpoints.accessgateway.v1.getOrganizationPartnerTenantProxyConfigIamPolicyOutput({
        organizationId: web.metadata.apply(m => m.labels?.["example.com/organization"] ?? ""),
        partnerTenantId: "tenant-1",
        proxyConfigId: "proxy-1",
        optionsRequestedPolicyVersion: 3,
    });

    // The other form of each lookup.
    const dataFileOutput = endpoints.migration.v1alpha1.getImportDataFileOutput({
        location: "us-central1",
        importJobId: "job-1",
        importDataFileId: "file-1",
    });
    const policyDirect = await endpoints.accessgateway.v1.getOrganizationPartnerTenantProxyConfigIamPolicy({
        organizationId: "123456789",
        partnerTenantId: "tenant-1",
        proxyConfigId: "proxy-1",
        optionsRequestedPolicyVersion: 3,
    });

    // The stack outputs.
    return {
        sliceName: web.metadata.apply(m => m.name),
        sliceNamespace: web.metadata.apply(m => m.namespace),
        legacyItems: legacy.items.apply(items => items.map(item => item.metadata?.name)),
        dataFileState: dataFile.state,
        dataFileFormat: dataFile.format,
        uploadUri: dataFile.uploadFileInfo.signedUri,
        policyVersion: policy.version,
        policyBindings: policy.bindings,
        dataFileDisplayName: dataFileOutput.displayName,
        policyEtag: policyDirect.etag,
    };
}
