using System.Collections.Generic;
using System.Linq;
using Pulumi;
using Core = EndpointsProvider.Endpoints.Core.V1;
using Discovery = EndpointsProvider.Endpoints.Discovery.V1;
using Meta = EndpointsProvider.Endpoints.Meta.V1;

return await Deployment.RunAsync(() =>
{
    // The addresses behind the selectorless Service "web": an EndpointSlice labelled with
    // the Service's name. Its own name is generated (web-<random>).
    var web = new Discovery.EndpointSlice("web", new Discovery.EndpointSliceArgs
    {
        Metadata = new Meta.Inputs.ObjectMetaArgs
        {
            Labels = { { "kubernetes.io/service-name", "web" } },
        },
        AddressType = Discovery.AddressType.IPV4,
        Endpoints =
        {
            new Discovery.Inputs.EndpointArgs
            {
                Addresses = { "10.0.0.10" },
                Conditions = new Discovery.Inputs.EndpointConditionsArgs { Ready = true },
                Zone = "zone-a",
            },
            new Discovery.Inputs.EndpointArgs
            {
                Addresses = { "10.0.0.11" },
                Conditions = new Discovery.Inputs.EndpointConditionsArgs { Ready = true },
                Zone = "zone-b",
            },
        },
        Ports =
        {
            new Discovery.Inputs.EndpointPortArgs { Name = "http", Port = 8080, AppProtocol = "http" },
        },
    });

    // The Endpoints of the selectorless Services web-legacy and db-legacy, managed as one
    // set. Kubernetes mirrors each into an EndpointSlice.
    var legacy = new Core.EndpointsList("legacy", new Core.EndpointsListArgs
    {
        Items =
        {
            new Core.Inputs.EndpointsArgs
            {
                Metadata = new Meta.Inputs.ObjectMetaArgs { Name = "web-legacy" },
                Subsets =
                {
                    new Core.Inputs.EndpointSubsetArgs
                    {
                        Addresses =
                        {
                            new Core.Inputs.EndpointAddressArgs { Ip = "10.0.0.10" },
                            new Core.Inputs.EndpointAddressArgs { Ip = "10.0.0.11" },
                        },
                        Ports = { new Core.Inputs.EndpointPortArgs { Name = "http", Port = 8080 } },
                    },
                },
            },
            new Core.Inputs.EndpointsArgs
            {
                Metadata = new Meta.Inputs.ObjectMetaArgs { Name = "db-legacy" },
                Subsets =
                {
                    new Core.Inputs.EndpointSubsetArgs
                    {
                        Addresses = { new Core.Inputs.EndpointAddressArgs { Ip = "10.0.1.5" } },
                        NotReadyAddresses = { new Core.Inputs.EndpointAddressArgs { Ip = "10.0.1.6" } },
                        Ports = { new Core.Inputs.EndpointPortArgs { Port = 5432 } },
                    },
                },
            },
        },
    });

    return new Dictionary<string, object?>
    {
        ["sliceName"] = web.Metadata.Apply(m => m.Name),
        ["endpointsNames"] = legacy.Items.Apply(items => items.Select(item => item.Metadata?.Name).ToList()),
    };
});
