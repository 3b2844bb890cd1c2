"""An EndpointSlice and an EndpointsList for selectorless Services."""

import pulumi
import pulumi_endpoints as endpoints

# The addresses behind the selectorless Service "web": an EndpointSlice labelled with
# the Service's name. Its own name is generated (web-<random>).
web = endpoints.discovery.v1.EndpointSlice(
    "web",
    metadata={"labels": {"kubernetes.io/service-name": "web"}},
    address_type="IPv4",
    endpoints=[
        {"addresses": ["10.0.0.10"], "conditions": {"ready": True}, "zone": "zone-a"},
        {"addresses": ["10.0.0.11"], "conditions": {"ready": True}, "zone": "zone-b"},
    ],
    ports=[{"name": "http", "port": 8080, "app_protocol": "http"}],
)

# The Endpoints of the selectorless Services web-legacy and db-legacy, managed as one
# set. Kubernetes mirrors each into an EndpointSlice.
legacy = endpoints.core.v1.EndpointsList(
    "legacy",
    items=[
        {
            "metadata": {"name": "web-legacy"},
            "subsets": [
                {
                    "addresses": [{"ip": "10.0.0.10"}, {"ip": "10.0.0.11"}],
                    "ports": [{"name": "http", "port": 8080}],
                }
            ],
        },
        {
            "metadata": {"name": "db-legacy"},
            "subsets": [
                {
                    "addresses": [{"ip": "10.0.1.5"}],
                    "not_ready_addresses": [{"ip": "10.0.1.6"}],
                    "ports": [{"port": 5432}],
                }
            ],
        },
    ],
)

pulumi.export("sliceName", web.metadata.name)
pulumi.export("endpointsNames", legacy.items.apply(lambda items: [item.metadata.name for item in items]))
