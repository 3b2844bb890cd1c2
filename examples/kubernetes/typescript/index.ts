import * as endpoints from "@endpoints-provider/endpoints";

// The addresses behind the selectorless Service "web": an EndpointSlice labelled with
// the Service's name. Its own name is generated (web-<random>).
const web = new endpoints.discovery.v1.EndpointSlice("web", {
    metadata: {
        labels: { "kubernetes.io/service-name": "web" },
    },
    addressType: "IPv4",
    endpoints: [
        { addresses: ["10.0.0.10"], conditions: { ready: true }, zone: "zone-a" },
        { addresses: ["10.0.0.11"], conditions: { ready: true }, zone: "zone-b" },
    ],
    ports: [{ name: "http", port: 8080, appProtocol: "http" }],
});

// The Endpoints of the selectorless Services web-legacy and db-legacy, managed as one
// set. Kubernetes mirrors each into an EndpointSlice.
const legacy = new endpoints.core.v1.EndpointsList("legacy", {
    items: [
        {
            metadata: { name: "web-legacy" },
            subsets: [{
                addresses: [{ ip: "10.0.0.10" }, { ip: "10.0.0.11" }],
                ports: [{ name: "http", port: 8080 }],
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
});

export const sliceName = web.metadata.name;
export const endpointsNames = legacy.items.apply(items => items.map(item => item.metadata?.name));
