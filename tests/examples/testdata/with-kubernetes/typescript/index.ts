import * as pulumi from "@pulumi/pulumi";
import * as k8s from "@pulumi/kubernetes";
import * as endpoints from "@endpoints-provider/endpoints";

const config = new pulumi.Config();
// The Services' port, and the port of the endpoints behind it.
const port = config.getNumber("port") ?? 80;
const backendPort = config.getNumber("backendPort") ?? 8080;

// The cluster. A program that makes its cluster (EKS, GKE, kind) takes the kubeconfig
// from it, and that is known only once the cluster exists: the first preview has none.
// Here a ConfigMap, made with the ambient kubeconfig, stands for the cluster, and the
// kubeconfig the stack holds is released once it exists.
const cluster = new k8s.core.v1.ConfigMap("cluster", { data: { role: "stands for the cluster" } });
const kubeconfig = pulumi.all([cluster.id, config.requireSecret("kubeconfig")]).apply(([, text]) => text);

// One kubeconfig for both providers.
const kubernetesProvider = new k8s.Provider("kubernetes", { kubeconfig });
const endpointsProvider = new endpoints.Provider("endpoints", { kubeconfig });

const apps = new k8s.core.v1.Namespace("apps", {}, { provider: kubernetesProvider });
const namespace = apps.metadata.name;

// Services without a selector: their endpoints are the program's.
const web = new k8s.core.v1.Service("web", {
    metadata: { namespace },
    spec: { ports: [{ name: "http", port }] },
}, { provider: kubernetesProvider });
const legacy = new k8s.core.v1.Service("legacy", {
    metadata: { namespace },
    spec: { ports: [{ name: "http", port }] },
}, { provider: kubernetesProvider });

// The endpoints of web, labelled with the Service's generated name.
const webEndpoints = new endpoints.discovery.v1.EndpointSlice("webEndpoints", {
    metadata: { namespace, labels: { "kubernetes.io/service-name": web.metadata.name } },
    addressType: "IPv4",
    endpoints: [{ addresses: ["10.0.0.10"] }, { addresses: ["10.0.0.11"] }],
    ports: [{ name: "http", port: backendPort }],
}, { provider: endpointsProvider });

// The v1 Endpoints of legacy, which Kubernetes mirrors into an EndpointSlice.
new endpoints.core.v1.EndpointsList("legacyEndpoints", {
    items: [{
        metadata: { name: legacy.metadata.name, namespace },
        subsets: [{ addresses: [{ ip: "10.0.1.10" }], ports: [{ name: "http", port: backendPort }] }],
    }],
}, { provider: endpointsProvider });

export const namespaceName = namespace;
export const webName = web.metadata.name;
export const webSliceName = webEndpoints.metadata.name;
export const legacyName = legacy.metadata.name;
