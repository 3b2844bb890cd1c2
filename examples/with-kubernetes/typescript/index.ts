import * as pulumi from "@pulumi/pulumi";
import * as k8s from "@pulumi/kubernetes";
import * as endpoints from "@endpoints-provider/endpoints";

// One kubeconfig for both providers: the stack's secret setting `kubeconfig` (its
// contents or a path). A program that makes the cluster passes the cluster's
// kubeconfig output here instead.
const kubeconfig = new pulumi.Config().requireSecret("kubeconfig");
const kubernetesProvider = new k8s.Provider("kubernetes", { kubeconfig });
const endpointsProvider = new endpoints.Provider("endpoints", { kubeconfig });

const apps = new k8s.core.v1.Namespace("apps", {}, { provider: kubernetesProvider });
const namespace = apps.metadata.name;

// Services without a selector: Kubernetes leaves their endpoints to the program.
const web = new k8s.core.v1.Service("web", {
    metadata: { namespace },
    spec: { ports: [{ name: "http", port: 80 }] },
}, { provider: kubernetesProvider });
const legacy = new k8s.core.v1.Service("legacy", {
    metadata: { namespace },
    spec: { ports: [{ name: "http", port: 80 }] },
}, { provider: kubernetesProvider });

// The endpoints of web: a slice labelled with the Service's generated name. Port
// "http" of the Service reaches port 8080 of each address.
const webEndpoints = new endpoints.discovery.v1.EndpointSlice("webEndpoints", {
    metadata: { namespace, labels: { "kubernetes.io/service-name": web.metadata.name } },
    addressType: "IPv4",
    endpoints: [{ addresses: ["10.0.0.10"] }, { addresses: ["10.0.0.11"] }],
    ports: [{ name: "http", port: 8080 }],
}, { provider: endpointsProvider });

// The v1 Endpoints of legacy, named after it; Kubernetes mirrors them into a slice.
new endpoints.core.v1.EndpointsList("legacyEndpoints", {
    items: [{
        metadata: { name: legacy.metadata.name, namespace },
        subsets: [{ addresses: [{ ip: "10.0.1.10" }], ports: [{ name: "http", port: 8080 }] }],
    }],
}, { provider: endpointsProvider });

export const namespaceName = namespace;
export const webName = web.metadata.name;
export const webSliceName = webEndpoints.metadata.name;
export const legacyName = legacy.metadata.name;
