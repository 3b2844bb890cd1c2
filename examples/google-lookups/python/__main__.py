"""Looks up a Migration Center import data file and a BeyondCorp proxy
configuration's IAM policy."""

import pulumi
import pulumi_endpoints as endpoints

# The IDs of the Google Cloud resources to look up come from the stack's
# configuration (`pulumi config set location us-central1`, and so on).
config = pulumi.Config()

# A file of a Migration Center import job. Needs the IAM permission
# migrationcenter.importDataFiles.get in the project.
data_file = endpoints.migration.v1alpha1.get_import_data_file_output(
    project=config.require("project"),
    location=config.require("location"),
    import_job_id=config.require("importJobId"),
    import_data_file_id=config.require("importDataFileId"),
)

# The IAM policy of a BeyondCorp partner tenant's proxy configuration. Needs the IAM
# permission beyondcorp.proxyConfigs.getIamPolicy on it. Version 3 returns the
# bindings that have conditions too.
policy = endpoints.accessgateway.v1.get_organization_partner_tenant_proxy_config_iam_policy_output(
    organization_id=config.require("organizationId"),
    partner_tenant_id=config.require("partnerTenantId"),
    proxy_config_id=config.require("proxyConfigId"),
    options_requested_policy_version=3,
)

pulumi.export("dataFileName", data_file.display_name)
pulumi.export("dataFileFormat", data_file.format)
pulumi.export("dataFileState", data_file.state)
pulumi.export("policyVersion", policy.version)
pulumi.export("policyRoles", policy.bindings.apply(lambda bindings: [b.role for b in bindings]))
