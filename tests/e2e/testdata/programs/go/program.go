package main

import (
	accessgatewayv1 "github.com/endpoints-provider/pulumi-endpoints/sdk/go/endpoints/accessgateway/v1"
	corev1 "github.com/endpoints-provider/pulumi-endpoints/sdk/go/endpoints/core/v1"
	discoveryv1 "github.com/endpoints-provider/pulumi-endpoints/sdk/go/endpoints/discovery/v1"
	metav1 "github.com/endpoints-provider/pulumi-endpoints/sdk/go/endpoints/meta/v1"
	migrationv1alpha1 "github.com/endpoints-provider/pulumi-endpoints/sdk/go/endpoints/migration/v1alpha1"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"
)

// program declares an EndpointSlice, an EndpointsList and both Google Cloud lookups,
// each called in its direct form (plain arguments, the result itself) and its output
// form (arguments that may be Outputs, an Output); run.go runs it as an Automation
// API inline program.
func program(ctx *pulumi.Context) error {
	// Stack configuration, with these defaults:
	//   pulumi config set port 8081
	//   pulumi config set addressType IPv6
	//   pulumi config set --path 'addresses[0]' fd00::10   (one address per endpoint)
	// The namespace is the provider's: `pulumi config set endpoints:namespace apps`.
	cfg := config.New(ctx, "")
	port := cfg.GetInt("port")
	if port == 0 {
		port = 8080
	}
	addressType := cfg.Get("addressType")
	if addressType == "" {
		addressType = "IPv4"
	}
	addresses := []string{"10.0.0.10", "10.0.0.11"}
	if err := cfg.GetObject("addresses", &addresses); err != nil {
		return err
	}

	// One EndpointSlice for a Service named "web"; it is autonamed (web-<hex>).
	sliceEndpoints := discoveryv1.EndpointArray{}
	for i, address := range addresses {
		zone := "zone-a"
		if i%2 == 1 {
			zone = "zone-b"
		}
		sliceEndpoints = append(sliceEndpoints, &discoveryv1.EndpointArgs{
			Addresses:  pulumi.StringArray{pulumi.String(address)},
			Conditions: &discoveryv1.EndpointConditionsArgs{Ready: pulumi.Bool(true)},
			Zone:       pulumi.String(zone),
		})
	}
	web, err := discoveryv1.NewEndpointSlice(ctx, "web", &discoveryv1.EndpointSliceArgs{
		Metadata: &metav1.ObjectMetaArgs{
			Labels: pulumi.StringMap{
				"kubernetes.io/service-name": pulumi.String("web"),
				"example.com/organization":   pulumi.String("123456789"),
			},
		},
		AddressType: discoveryv1.AddressType(addressType),
		Endpoints:   sliceEndpoints,
		Ports: discoveryv1.EndpointPortArray{&discoveryv1.EndpointPortArgs{
			Name:        pulumi.String("http"),
			Port:        pulumi.Int(port),
			AppProtocol: pulumi.String("http"),
		}},
	})
	if err != nil {
		return err
	}

	// Two v1 Endpoints objects managed as one set.
	webAddresses := corev1.EndpointAddressArray{}
	for _, address := range addresses {
		webAddresses = append(webAddresses, &corev1.EndpointAddressArgs{Ip: pulumi.String(address)})
	}
	legacy, err := corev1.NewEndpointsList(ctx, "legacy", &corev1.EndpointsListArgs{
		Items: corev1.EndpointsArray{
			&corev1.EndpointsArgs{
				Metadata: &metav1.ObjectMetaArgs{Name: pulumi.String("web-legacy")},
				Subsets: corev1.EndpointSubsetArray{&corev1.EndpointSubsetArgs{
					Addresses: webAddresses,
					Ports: corev1.EndpointPortArray{&corev1.EndpointPortArgs{
						Name: pulumi.String("http"),
						Port: pulumi.Int(port),
					}},
				}},
			},
			&corev1.EndpointsArgs{
				Metadata: &metav1.ObjectMetaArgs{Name: pulumi.String("db-legacy")},
				Subsets: corev1.EndpointSubsetArray{&corev1.EndpointSubsetArgs{
					Addresses:         corev1.EndpointAddressArray{&corev1.EndpointAddressArgs{Ip: pulumi.String("10.0.1.5")}},
					NotReadyAddresses: corev1.EndpointAddressArray{&corev1.EndpointAddressArgs{Ip: pulumi.String("10.0.1.6")}},
					Ports:             corev1.EndpointPortArray{&corev1.EndpointPortArgs{Port: pulumi.Int(5432)}},
				}},
			},
		},
	})
	if err != nil {
		return err
	}

	// Direct form: plain arguments; the call returns the result itself. The project
	// comes from the provider configuration (endpoints:project).
	dataFile, err := migrationv1alpha1.LookupImportDataFile(ctx, &migrationv1alpha1.LookupImportDataFileArgs{
		Location:         "us-central1",
		ImportJobId:      "job-1",
		ImportDataFileId: "file-1",
	})
	if err != nil {
		return err
	}

	// Output form: an argument comes from a resource's output, so the call waits for
	// the slice; the result is an Output.
	policy := accessgatewayv1.LookupOrganizationPartnerTenantProxyConfigIamPolicyOutput(ctx,
		accessgatewayv1.LookupOrganizationPartnerTenantProxyConfigIamPolicyOutputArgs{
			OrganizationId:                web.Metadata.Labels().MapIndex(pulumi.String("example.com/organization")),
			PartnerTenantId:               pulumi.String("tenant-1"),
			ProxyConfigId:                 pulumi.String("proxy-1"),
			OptionsRequestedPolicyVersion: pulumi.Int(3),
		})

	// The other form of each lookup.
	dataFileOutput := migrationv1alpha1.LookupImportDataFileOutput(ctx, migrationv1alpha1.LookupImportDataFileOutputArgs{
		Location:         pulumi.String("us-central1"),
		ImportJobId:      pulumi.String("job-1"),
		ImportDataFileId: pulumi.String("file-1"),
	})
	version := 3
	policyDirect, err := accessgatewayv1.LookupOrganizationPartnerTenantProxyConfigIamPolicy(ctx,
		&accessgatewayv1.LookupOrganizationPartnerTenantProxyConfigIamPolicyArgs{
			OrganizationId:                "123456789",
			PartnerTenantId:               "tenant-1",
			ProxyConfigId:                 "proxy-1",
			OptionsRequestedPolicyVersion: &version,
		})
	if err != nil {
		return err
	}

	// The stack outputs.
	ctx.Export("sliceName", web.Metadata.Name())
	ctx.Export("sliceNamespace", web.Metadata.Namespace())
	ctx.Export("legacyItems", legacy.Items.ApplyT(func(items []corev1.Endpoints) []string {
		names := make([]string, 0, len(items))
		for _, item := range items {
			if item.Metadata != nil && item.Metadata.Name != nil {
				names = append(names, *item.Metadata.Name)
			}
		}
		return names
	}).(pulumi.StringArrayOutput))
	ctx.Export("dataFileState", pulumi.String(dataFile.State))
	ctx.Export("dataFileFormat", pulumi.String(dataFile.Format))
	ctx.Export("uploadUri", pulumi.String(dataFile.UploadFileInfo.SignedUri))
	ctx.Export("policyVersion", policy.Version())
	ctx.Export("policyBindings", policy.Bindings())
	ctx.Export("dataFileDisplayName", dataFileOutput.DisplayName())
	ctx.Export("policyEtag", pulumi.String(policyDirect.Etag))
	return nil
}
