// Reads objects the cluster has, without managing them: the EndpointSlice by its
// namespace/name, the Endpoints by namespace and label selector.
import * as pulumi from "@pulumi/pulumi";
import * as endpoints from "@endpoints-provider/endpoints";

export async function program(): Promise<Record<string, unknown>> {
    const config = new pulumi.Config();
    const slice = endpoints.discovery.v1.EndpointSlice.get("existing-slice", config.require("sliceId"));
    const list = endpoints.core.v1.EndpointsList.get("existing-endpoints", config.require("listId"));
    return {
        sliceId: slice.id,
        slice: { metadata: slice.metadata, addressType: slice.addressType, endpoints: slice.endpoints, ports: slice.ports },
        listId: list.id,
        list: { metadata: list.metadata, items: list.items },
    };
}
