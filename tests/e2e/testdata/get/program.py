"""Reads objects the cluster has, without managing them: the EndpointSlice by its
namespace/name, the Endpoints by namespace and label selector."""

import pulumi
import pulumi_endpoints as endpoints


def program() -> None:
    config = pulumi.Config()
    existing = endpoints.discovery.v1.EndpointSlice.get("existing-slice", config.require("sliceId"))
    legacy = endpoints.core.v1.EndpointsList.get("existing-endpoints", config.require("listId"))
    pulumi.export("sliceId", existing.id)
    pulumi.export("slice", {
        "metadata": existing.metadata,
        "addressType": existing.address_type,
        "endpoints": existing.endpoints,
        "ports": existing.ports,
    })
    pulumi.export("listId", legacy.id)
    pulumi.export("list", {"metadata": legacy.metadata, "items": legacy.items})
