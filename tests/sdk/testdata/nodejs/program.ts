// Uses every token of the endpoints SDK as a user would: both resources, and both
// lookup functions in their direct (promise) and output forms. Compiled with
// tsc --strict against the packed SDK.
import * as pulumi from "@pulumi/pulumi";
import * as endpoints from "@endpoints-provider/endpoints";

// endpoints:core/v1:EndpointsList
const list = new endpoints.core.v1.EndpointsList("list", {
    items: [{
        metadata: { name: "web", namespace: "default", labels: { app: "web" } },
        subsets: [{
            addresses: [{
                ip: "10.0.0.5",
                hostname: "web-0",
                nodeName: "node-1",
                targetRef: { kind: "Pod", name: "web-0", namespace: "default" },
            }],
            notReadyAddresses: [{ ip: "10.0.0.6" }],
            ports: [{ port: 8080, name: "http", protocol: "TCP", appProtocol: "kubernetes.io/h2c" }],
        }],
    }],
    metadata: { continue: "token", remainingItemCount: 3 },
}, { protect: false });
const listContinue: pulumi.Output<string | undefined> = list.metadata.apply(m => m.continue);
const listItems: pulumi.Output<endpoints.types.output.core.v1.Endpoints[]> = list.items;

// endpoints:discovery.k8s.io/v1:EndpointSlice
const sliceArgs: endpoints.discovery.v1.EndpointSliceArgs = {
    addressType: endpoints.types.enums.discovery.v1.AddressType.IPV4,
    endpoints: [{
        addresses: ["10.0.0.5"],
        conditions: { ready: true, serving: true, terminating: false },
        hints: { forZones: [{ name: "zone-a" }] },
        zone: "zone-a",
        nodeName: "node-1",
    }],
    ports: [{ name: "http", port: 8080, protocol: endpoints.types.enums.core.v1.Protocol.TCP }],
    metadata: { generateName: "web-", labels: { "kubernetes.io/service-name": "web" } },
};
const slice = new endpoints.discovery.v1.EndpointSlice("slice", sliceArgs);
const sliceAddressType: pulumi.Output<string> = slice.addressType;

// endpoints:migration/v1alpha1:getImportDataFile
const file: Promise<endpoints.migration.v1alpha1.GetImportDataFileResult> =
    endpoints.migration.v1alpha1.getImportDataFile({
        location: "us-central1",
        importJobId: "job",
        importDataFileId: "file",
        project: "my-project",
    });
const fileState: Promise<string> = file.then(f => f.state);
const fileOutput: pulumi.Output<endpoints.migration.v1alpha1.GetImportDataFileResult> =
    endpoints.migration.v1alpha1.getImportDataFileOutput({
        location: pulumi.output("us-central1"),
        importJobId: "job",
        importDataFileId: "file",
    });
const fileUri: pulumi.Output<string> = fileOutput.uploadFileInfo.signedUri;

// endpoints:accessgateway/v1:getOrganizationPartnerTenantProxyConfigIamPolicy
const policy: Promise<endpoints.accessgateway.v1.GetOrganizationPartnerTenantProxyConfigIamPolicyResult> =
    endpoints.accessgateway.v1.getOrganizationPartnerTenantProxyConfigIamPolicy({
        organizationId: "123456789",
        partnerTenantId: "tenant",
        proxyConfigId: "proxy",
        optionsRequestedPolicyVersion: 3,
    });
const policyRoles: Promise<string[]> = policy.then(p => p.bindings.map(b => b.role));
const policyOutput: pulumi.Output<endpoints.accessgateway.v1.GetOrganizationPartnerTenantProxyConfigIamPolicyResult> =
    endpoints.accessgateway.v1.getOrganizationPartnerTenantProxyConfigIamPolicyOutput({
        organizationId: "123456789",
        partnerTenantId: "tenant",
        proxyConfigId: pulumi.output("proxy"),
    });
const policyVersion: pulumi.Output<number> = policyOutput.version;

export const outputs = {
    listContinue, listItems, sliceAddressType, fileState, fileUri, policyRoles, policyVersion,
};
