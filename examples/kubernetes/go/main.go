package main

import (
	corev1 "github.com/endpoints-provider/pulumi-endpoints/sdk/go/endpoints/core/v1"
	discoveryv1 "github.com/endpoints-provider/pulumi-endpoints/sdk/go/endpoints/discovery/v1"
	metav1 "github.com/endpoints-provider/pulumi-endpoints/sdk/go/endpoints/meta/v1"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		// The addresses behind the selectorless Service "web": an EndpointSlice labelled
		// with the Service's name. Its own name is generated (web-<random>).
		web, err := discoveryv1.NewEndpointSlice(ctx, "web", &discoveryv1.EndpointSliceArgs{
			Metadata: &metav1.ObjectMetaArgs{
				Labels: pulumi.StringMap{"kubernetes.io/service-name": pulumi.String("web")},
			},
			AddressType: discoveryv1.AddressTypeIPV4,
			Endpoints: discoveryv1.EndpointArray{
				&discoveryv1.EndpointArgs{
					Addresses:  pulumi.StringArray{pulumi.String("10.0.0.10")},
					Conditions: &discoveryv1.EndpointConditionsArgs{Ready: pulumi.Bool(true)},
					Zone:       pulumi.String("zone-a"),
				},
				&discoveryv1.EndpointArgs{
					Addresses:  pulumi.StringArray{pulumi.String("10.0.0.11")},
					Conditions: &discoveryv1.EndpointConditionsArgs{Ready: pulumi.Bool(true)},
					Zone:       pulumi.String("zone-b"),
				},
			},
			Ports: discoveryv1.EndpointPortArray{&discoveryv1.EndpointPortArgs{
				Name:        pulumi.String("http"),
				Port:        pulumi.Int(8080),
				AppProtocol: pulumi.String("http"),
			}},
		})
		if err != nil {
			return err
		}

		// The Endpoints of the selectorless Services web-legacy and db-legacy, managed
		// as one set. Kubernetes mirrors each into an EndpointSlice.
		legacy, err := corev1.NewEndpointsList(ctx, "legacy", &corev1.EndpointsListArgs{
			Items: corev1.EndpointsArray{
				&corev1.EndpointsArgs{
					Metadata: &metav1.ObjectMetaArgs{Name: pulumi.String("web-legacy")},
					Subsets: corev1.EndpointSubsetArray{&corev1.EndpointSubsetArgs{
						Addresses: corev1.EndpointAddressArray{
							&corev1.EndpointAddressArgs{Ip: pulumi.String("10.0.0.10")},
							&corev1.EndpointAddressArgs{Ip: pulumi.String("10.0.0.11")},
						},
						Ports: corev1.EndpointPortArray{&corev1.EndpointPortArgs{
							Name: pulumi.String("http"),
							Port: pulumi.Int(8080),
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

		ctx.Export("sliceName", web.Metadata.Name())
		ctx.Export("endpointsNames", legacy.Items.ApplyT(func(items []corev1.Endpoints) []string {
			var names []string
			for _, item := range items {
				if item.Metadata != nil && item.Metadata.Name != nil {
					names = append(names, *item.Metadata.Name)
				}
			}
			return names
		}))
		return nil
	})
}
