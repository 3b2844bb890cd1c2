// A Pulumi program that looks up a Migration Center import data file and the IAM
// policy of a BeyondCorp partner tenant's proxy configuration.
package main

import (
	accessgatewayv1 "github.com/endpoints-provider/pulumi-endpoints/sdk/go/endpoints/accessgateway/v1"
	migrationv1alpha1 "github.com/endpoints-provider/pulumi-endpoints/sdk/go/endpoints/migration/v1alpha1"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		// The IDs of the Google Cloud resources to look up come from the stack's
		// configuration (`pulumi config set location us-central1`, and so on).
		cfg := config.New(ctx, "")

		// A file of a Migration Center import job. Needs the IAM permission
		// migrationcenter.importDataFiles.get in the project.
		dataFile := migrationv1alpha1.LookupImportDataFileOutput(ctx, migrationv1alpha1.LookupImportDataFileOutputArgs{
			Project:          pulumi.String(cfg.Require("project")),
			Location:         pulumi.String(cfg.Require("location")),
			ImportJobId:      pulumi.String(cfg.Require("importJobId")),
			ImportDataFileId: pulumi.String(cfg.Require("importDataFileId")),
		})

		// The IAM policy of a BeyondCorp partner tenant's proxy configuration. Needs the
		// IAM permission beyondcorp.proxyConfigs.getIamPolicy on it. Version 3 returns
		// the bindings that have conditions too.
		policy := accessgatewayv1.LookupOrganizationPartnerTenantProxyConfigIamPolicyOutput(ctx,
			accessgatewayv1.LookupOrganizationPartnerTenantProxyConfigIamPolicyOutputArgs{
				OrganizationId:                pulumi.String(cfg.Require("organizationId")),
				PartnerTenantId:               pulumi.String(cfg.Require("partnerTenantId")),
				ProxyConfigId:                 pulumi.String(cfg.Require("proxyConfigId")),
				OptionsRequestedPolicyVersion: pulumi.Int(3),
			})

		ctx.Export("dataFileName", dataFile.DisplayName())
		ctx.Export("dataFileFormat", dataFile.Format())
		ctx.Export("dataFileState", dataFile.State())
		ctx.Export("policyVersion", policy.Version())
		ctx.Export("policyRoles", policy.Bindings().ApplyT(func(bindings []accessgatewayv1.BindingResponse) []string {
			roles := make([]string, len(bindings))
			for i, b := range bindings {
				roles[i] = b.Role
			}
			return roles
		}))
		return nil
	})
}
