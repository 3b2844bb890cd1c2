// Command with-kubernetes-go is a Pulumi program that uses pulumi-kubernetes and
// pulumi-endpoints side by side, on a cluster the same program makes.
package main

import (
	"github.com/endpoints-provider/pulumi-endpoints/sdk/go/endpoints"
	epcorev1 "github.com/endpoints-provider/pulumi-endpoints/sdk/go/endpoints/core/v1"
	discoveryv1 "github.com/endpoints-provider/pulumi-endpoints/sdk/go/endpoints/discovery/v1"
	epmetav1 "github.com/endpoints-provider/pulumi-endpoints/sdk/go/endpoints/meta/v1"
	"github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes"
	corev1 "github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/core/v1"
	metav1 "github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/meta/v1"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		cfg := config.New(ctx, "")
		// The Services' port, and the port of the endpoints behind it.
		port, backendPort := cfg.GetInt("port"), cfg.GetInt("backendPort")
		if port == 0 {
			port = 80
		}
		if backendPort == 0 {
			backendPort = 8080
		}
		kubeconfig, err := clusterKubeconfig(ctx, cfg)
		if err != nil {
			return err
		}

		// One kubeconfig for both providers.
		kubernetesProvider, err := kubernetes.NewProvider(ctx, "kubernetes", &kubernetes.ProviderArgs{Kubeconfig: kubeconfig})
		if err != nil {
			return err
		}
		endpointsProvider, err := endpoints.NewProvider(ctx, "endpoints", &endpoints.ProviderArgs{Kubeconfig: kubeconfig})
		if err != nil {
			return err
		}

		apps, err := corev1.NewNamespace(ctx, "apps", &corev1.NamespaceArgs{}, pulumi.Provider(kubernetesProvider))
		if err != nil {
			return err
		}
		namespace := apps.Metadata.Name()
		web, err := selectorlessService(ctx, "web", namespace, port, kubernetesProvider)
		if err != nil {
			return err
		}
		legacy, err := selectorlessService(ctx, "legacy", namespace, port, kubernetesProvider)
		if err != nil {
			return err
		}

		// The endpoints of web, labelled with the Service's generated name.
		webEndpoints, err := discoveryv1.NewEndpointSlice(ctx, "webEndpoints", &discoveryv1.EndpointSliceArgs{
			Metadata: &epmetav1.ObjectMetaArgs{
				Namespace: namespace,
				Labels:    pulumi.StringMap{"kubernetes.io/service-name": web.Metadata.Name().Elem()},
			},
			AddressType: discoveryv1.AddressTypeIPV4,
			Endpoints: discoveryv1.EndpointArray{
				&discoveryv1.EndpointArgs{Addresses: pulumi.StringArray{pulumi.String("10.0.0.10")}},
				&discoveryv1.EndpointArgs{Addresses: pulumi.StringArray{pulumi.String("10.0.0.11")}},
			},
			Ports: discoveryv1.EndpointPortArray{&discoveryv1.EndpointPortArgs{Name: pulumi.String("http"), Port: pulumi.Int(backendPort)}},
		}, pulumi.Provider(endpointsProvider))
		if err != nil {
			return err
		}

		// The v1 Endpoints of legacy, which Kubernetes mirrors into an EndpointSlice.
		_, err = epcorev1.NewEndpointsList(ctx, "legacyEndpoints", &epcorev1.EndpointsListArgs{
			Items: epcorev1.EndpointsArray{&epcorev1.EndpointsArgs{
				Metadata: &epmetav1.ObjectMetaArgs{Name: legacy.Metadata.Name(), Namespace: namespace},
				Subsets: epcorev1.EndpointSubsetArray{&epcorev1.EndpointSubsetArgs{
					Addresses: epcorev1.EndpointAddressArray{&epcorev1.EndpointAddressArgs{Ip: pulumi.String("10.0.1.10")}},
					Ports:     epcorev1.EndpointPortArray{&epcorev1.EndpointPortArgs{Name: pulumi.String("http"), Port: pulumi.Int(backendPort)}},
				}},
			}},
		}, pulumi.Provider(endpointsProvider))
		if err != nil {
			return err
		}

		ctx.Export("namespaceName", namespace)
		ctx.Export("webName", web.Metadata.Name())
		ctx.Export("webSliceName", webEndpoints.Metadata.Name())
		ctx.Export("legacyName", legacy.Metadata.Name())
		return nil
	})
}

// clusterKubeconfig returns the kubeconfig of the cluster. A program that makes its
// cluster (EKS, GKE, kind) takes the kubeconfig from it, and that is known only once the
// cluster exists: the first preview has none. Here a ConfigMap, made with the ambient
// kubeconfig, stands for the cluster, and the kubeconfig the stack holds is released
// once it exists.
func clusterKubeconfig(ctx *pulumi.Context, cfg *config.Config) (pulumi.StringOutput, error) {
	cluster, err := corev1.NewConfigMap(ctx, "cluster", &corev1.ConfigMapArgs{
		Data: pulumi.StringMap{"role": pulumi.String("stands for the cluster")},
	})
	if err != nil {
		return pulumi.StringOutput{}, err
	}
	return pulumi.All(cluster.ID(), cfg.RequireSecret("kubeconfig")).ApplyT(func(args []any) string {
		return args[1].(string)
	}).(pulumi.StringOutput), nil
}

// selectorlessService makes a Service without a selector, its port named http: its
// endpoints are the program's.
func selectorlessService(ctx *pulumi.Context, name string, namespace pulumi.StringPtrOutput, port int, provider pulumi.ProviderResource) (*corev1.Service, error) {
	return corev1.NewService(ctx, name, &corev1.ServiceArgs{
		Metadata: &metav1.ObjectMetaArgs{Namespace: namespace},
		Spec: &corev1.ServiceSpecArgs{
			Ports: corev1.ServicePortArray{&corev1.ServicePortArgs{Name: pulumi.String("http"), Port: pulumi.Int(port)}},
		},
	}, pulumi.Provider(provider))
}
