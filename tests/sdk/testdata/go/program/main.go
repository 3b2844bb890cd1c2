// Command program uses every token of the endpoints Go SDK as a user would: both
// resources, and both lookup functions in their direct and output forms, under
// their Go names LookupImportDataFile and
// LookupOrganizationPartnerTenantProxyConfigIamPolicy. The test compiles and vets it
// inside a copy of the SDK module.
package main

import (
	accessgatewayv1 "github.com/endpoints-provider/pulumi-endpoints/sdk/go/endpoints/accessgateway/v1"
	corev1 "github.com/endpoints-provider/pulumi-endpoints/sdk/go/endpoints/core/v1"
	discoveryv1 "github.com/endpoints-provider/pulumi-endpoints/sdk/go/endpoints/discovery/v1"
	metav1 "github.com/endpoints-provider/pulumi-endpoints/sdk/go/endpoints/meta/v1"
	migrationv1alpha1 "github.com/endpoints-provider/pulumi-endpoints/sdk/go/endpoints/migration/v1alpha1"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

func main() {
	pulumi.Run(program)
}

func program(ctx *pulumi.Context) error {
	// endpoints:core/v1:EndpointsList
	list, err := corev1.NewEndpointsList(ctx, "list", &corev1.EndpointsListArgs{
		Items: corev1.EndpointsArray{&corev1.EndpointsArgs{
			Metadata: &metav1.ObjectMetaArgs{
				Name:      pulumi.String("web"),
				Namespace: pulumi.String("default"),
				Labels:    pulumi.StringMap{"app": pulumi.String("web")},
			},
			Subsets: corev1.EndpointSubsetArray{&corev1.EndpointSubsetArgs{
				Addresses: corev1.EndpointAddressArray{&corev1.EndpointAddressArgs{
					Ip:        pulumi.String("10.0.0.5"),
					Hostname:  pulumi.String("web-0"),
					NodeName:  pulumi.String("node-1"),
					TargetRef: &corev1.ObjectReferenceArgs{Kind: pulumi.String("Pod"), Name: pulumi.String("web-0")},
				}},
				NotReadyAddresses: corev1.EndpointAddressArray{&corev1.EndpointAddressArgs{Ip: pulumi.String("10.0.0.6")}},
				Ports: corev1.EndpointPortArray{&corev1.EndpointPortArgs{
					Port:        pulumi.Int(8080),
					Name:        pulumi.String("http"),
					Protocol:    corev1.ProtocolTCP,
					AppProtocol: pulumi.String("kubernetes.io/h2c"),
				}},
			}},
		}},
		Metadata: &metav1.ListMetaArgs{Continue: pulumi.String("token"), RemainingItemCount: pulumi.Int(3)},
	}, pulumi.Protect(false))
	if err != nil {
		return err
	}
	var listContinue pulumi.StringPtrOutput = list.Metadata.Continue()

	// endpoints:discovery.k8s.io/v1:EndpointSlice
	slice, err := discoveryv1.NewEndpointSlice(ctx, "slice", &discoveryv1.EndpointSliceArgs{
		AddressType: discoveryv1.AddressTypeIPV4,
		Endpoints: discoveryv1.EndpointArray{&discoveryv1.EndpointArgs{
			Addresses: pulumi.StringArray{pulumi.String("10.0.0.5")},
			Conditions: &discoveryv1.EndpointConditionsArgs{
				Ready: pulumi.Bool(true), Serving: pulumi.Bool(true), Terminating: pulumi.Bool(false),
			},
			Hints: &discoveryv1.EndpointHintsArgs{
				ForZones: discoveryv1.ForZoneArray{&discoveryv1.ForZoneArgs{Name: pulumi.String("zone-a")}},
			},
			Zone:     pulumi.String("zone-a"),
			NodeName: pulumi.String("node-1"),
		}},
		Ports: discoveryv1.EndpointPortArray{&discoveryv1.EndpointPortArgs{
			Name: pulumi.String("http"), Port: pulumi.Int(8080), Protocol: corev1.ProtocolTCP,
		}},
		Metadata: &metav1.ObjectMetaArgs{GenerateName: pulumi.String("web-")},
	})
	if err != nil {
		return err
	}

	// endpoints:migration/v1alpha1:getImportDataFile, direct form...
	project := "my-project"
	file, err := migrationv1alpha1.LookupImportDataFile(ctx, &migrationv1alpha1.LookupImportDataFileArgs{
		Location:         "us-central1",
		ImportJobId:      "job",
		ImportDataFileId: "file",
		Project:          &project,
	})
	if err != nil {
		return err
	}
	var fileResult *migrationv1alpha1.LookupImportDataFileResult = file
	// ...and output form.
	var fileOutput migrationv1alpha1.LookupImportDataFileResultOutput = migrationv1alpha1.LookupImportDataFileOutput(ctx,
		migrationv1alpha1.LookupImportDataFileOutputArgs{
			Location:         pulumi.String("us-central1"),
			ImportJobId:      pulumi.String("job"),
			ImportDataFileId: pulumi.String("file"),
		})

	// endpoints:accessgateway/v1:getOrganizationPartnerTenantProxyConfigIamPolicy, direct form...
	version := 3
	policy, err := accessgatewayv1.LookupOrganizationPartnerTenantProxyConfigIamPolicy(ctx,
		&accessgatewayv1.LookupOrganizationPartnerTenantProxyConfigIamPolicyArgs{
			OrganizationId:                "123456789",
			PartnerTenantId:               "tenant",
			ProxyConfigId:                 "proxy",
			OptionsRequestedPolicyVersion: &version,
		})
	if err != nil {
		return err
	}
	var policyResult *accessgatewayv1.LookupOrganizationPartnerTenantProxyConfigIamPolicyResult = policy
	roles := make([]string, 0, len(policyResult.Bindings))
	for _, b := range policyResult.Bindings {
		roles = append(roles, b.Role)
	}
	// ...and output form.
	var policyOutput accessgatewayv1.LookupOrganizationPartnerTenantProxyConfigIamPolicyResultOutput = accessgatewayv1.LookupOrganizationPartnerTenantProxyConfigIamPolicyOutput(ctx,
		accessgatewayv1.LookupOrganizationPartnerTenantProxyConfigIamPolicyOutputArgs{
			OrganizationId:  pulumi.String("123456789"),
			PartnerTenantId: pulumi.String("tenant"),
			ProxyConfigId:   pulumi.String("proxy"),
		})

	ctx.Export("listContinue", listContinue)
	ctx.Export("sliceAddressType", slice.AddressType)
	ctx.Export("fileState", pulumi.String(fileResult.State))
	ctx.Export("fileUri", fileOutput.UploadFileInfo().SignedUri())
	ctx.Export("policyRoles", pulumi.ToStringArray(roles))
	ctx.Export("policyEtag", policyOutput.Etag())
	return nil
}
