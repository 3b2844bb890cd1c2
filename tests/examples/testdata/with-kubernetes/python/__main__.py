"""pulumi-kubernetes and pulumi-endpoints in one program that also makes the cluster."""

import pulumi
import pulumi_endpoints as endpoints
import pulumi_kubernetes as k8s

config = pulumi.Config()
# The Services' port, and the port of the endpoints behind it.
port = config.get_int("port") or 80
backend_port = config.get_int("backendPort") or 8080

# The cluster. A program that makes its cluster (EKS, GKE, kind) takes the kubeconfig
# from it, and that is known only once the cluster exists: the first preview has none.
# Here a ConfigMap, made with the ambient kubeconfig, stands for the cluster, and the
# kubeconfig the stack holds is released once it exists.
cluster = k8s.core.v1.ConfigMap("cluster", data={"role": "stands for the cluster"})
kubeconfig = pulumi.Output.all(cluster.id, config.require_secret("kubeconfig")).apply(lambda args: args[1])

# One kubeconfig for both providers.
kubernetes_provider = k8s.Provider("kubernetes", kubeconfig=kubeconfig)
endpoints_provider = endpoints.Provider("endpoints", kubeconfig=kubeconfig)

apps = k8s.core.v1.Namespace("apps", opts=pulumi.ResourceOptions(provider=kubernetes_provider))
namespace = apps.metadata.name

# Services without a selector: their endpoints are the program's.
web = k8s.core.v1.Service(
    "web",
    metadata={"namespace": namespace},
    spec={"ports": [{"name": "http", "port": port}]},
    opts=pulumi.ResourceOptions(provider=kubernetes_provider),
)
legacy = k8s.core.v1.Service(
    "legacy",
    metadata={"namespace": namespace},
    spec={"ports": [{"name": "http", "port": port}]},
    opts=pulumi.ResourceOptions(provider=kubernetes_provider),
)

# The endpoints of web, labelled with the Service's generated name.
web_endpoints = endpoints.discovery.v1.EndpointSlice(
    "webEndpoints",
    metadata={"namespace": namespace, "labels": {"kubernetes.io/service-name": web.metadata.name}},
    address_type="IPv4",
    endpoints=[{"addresses": ["10.0.0.10"]}, {"addresses": ["10.0.0.11"]}],
    ports=[{"name": "http", "port": backend_port}],
    opts=pulumi.ResourceOptions(provider=endpoints_provider),
)

# The v1 Endpoints of legacy, which Kubernetes mirrors into an EndpointSlice.
endpoints.core.v1.EndpointsList(
    "legacyEndpoints",
    items=[{
        "metadata": {"name": legacy.metadata.name, "namespace": namespace},
        "subsets": [{"addresses": [{"ip": "10.0.1.10"}], "ports": [{"name": "http", "port": backend_port}]}],
    }],
    opts=pulumi.ResourceOptions(provider=endpoints_provider),
)

pulumi.export("namespaceName", namespace)
pulumi.export("webName", web.metadata.name)
pulumi.export("webSliceName", web_endpoints.metadata.name)
pulumi.export("legacyName", legacy.metadata.name)
