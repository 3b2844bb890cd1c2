import * as pulumi from "@pulumi/pulumi";
import * as endpoints from "@endpoints-provider/endpoints";

// The IDs of the Google Cloud resources to look up come from the stack's
// configuration (`pulumi config set location us-central1`, and so on).
const config = new pulumi.Config();

// A file of a Migration Center import job. Needs the IAM permission
// migrationcenter.importDataFiles.get in the project.
const dataFile = endpoints.migration.v1alpha1.getImportDataFileOutput({
    project: config.require("project"),
    location: config.require("location"),
    importJobId: config.require("importJobId"),
    importDataFileId: config.require("importDataFileId"),
});

// The IAM policy of a BeyondCorp partner tenant's proxy configuration. Needs the IAM
// permission beyondcorp.proxyConfigs.getIamPolicy on it. Version 3 returns the
// bindings that have conditions too.
const policy = endpoints.accessgateway.v1.getOrganizationPartnerTenantProxyConfigIamPolicyOutput({
    organizationId: config.require("organizationId"),
    partnerTenantId: config.require("partnerTenantId"),
    proxyConfigId: config.require("proxyConfigId"),
    optionsRequestedPolicyVersion: 3,
});

export const dataFileName = dataFile.displayName;
export const dataFileFormat = dataFile.format;
export const dataFileState = dataFile.state;
export const policyVersion = policy.version;
export const policyRoles = policy.bindings.apply(bindings => bindings.map(b => b.role));
