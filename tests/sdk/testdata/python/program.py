"""Uses every token of the endpoints SDK as a user would: both resources, and both
lookup functions in their direct and output forms. Type-checked with mypy --strict."""

from typing import Optional, Sequence

import pulumi
import pulumi_endpoints as endpoints
from pulumi_endpoints.accessgateway import v1 as accessgateway
from pulumi_endpoints.core import v1 as core
from pulumi_endpoints.discovery import v1 as discovery
from pulumi_endpoints.meta import v1 as meta
from pulumi_endpoints.migration import v1alpha1 as migration

# endpoints:core/v1:EndpointsList, with typed argument classes.
endpoints_list = core.EndpointsList(
    "list",
    items=[
        core.EndpointsArgs(
            metadata=meta.ObjectMetaArgs(name="web", namespace="default", labels={"app": "web"}),
            subsets=[
                core.EndpointSubsetArgs(
                    addresses=[
                        core.EndpointAddressArgs(
                            ip="10.0.0.5",
                            hostname="web-0",
                            node_name="node-1",
                            target_ref=core.ObjectReferenceArgs(kind="Pod", name="web-0", namespace="default"),
                        )
                    ],
                    not_ready_addresses=[core.EndpointAddressArgs(ip="10.0.0.6")],
                    ports=[
                        core.EndpointPortArgs(
                            port=8080,
                            name="http",
                            protocol=core.Protocol.TCP,
                            app_protocol="kubernetes.io/h2c",
                        )
                    ],
                )
            ],
        )
    ],
    metadata=meta.ListMetaArgs(continue_="token", remaining_item_count=3),
    opts=pulumi.ResourceOptions(protect=False),
)
list_continue: pulumi.Output[Optional[str]] = endpoints_list.metadata.apply(lambda m: m.continue_)
list_items: pulumi.Output[Sequence[core.outputs.Endpoints]] = endpoints_list.items

# endpoints:discovery.k8s.io/v1:EndpointSlice, with dictionary literals.
endpoint_slice = endpoints.discovery.v1.EndpointSlice(
    "slice",
    address_type=discovery.AddressType.IPV4,
    endpoints=[
        {
            "addresses": ["10.0.0.5"],
            "conditions": {"ready": True, "serving": True, "terminating": False},
            "hints": {"for_zones": [{"name": "zone-a"}]},
            "zone": "zone-a",
            "node_name": "node-1",
        }
    ],
    ports=[{"name": "http", "port": 8080, "protocol": core.Protocol.TCP}],
    metadata={"generate_name": "web-", "labels": {"kubernetes.io/service-name": "web"}},
)
slice_address_type: pulumi.Output[str] = endpoint_slice.address_type

# endpoints:migration/v1alpha1:getImportDataFile, direct and output forms.
data_file: migration.GetImportDataFileResult = migration.get_import_data_file(
    location="us-central1",
    import_job_id="job",
    import_data_file_id="file",
    project="my-project",
)
data_file_state: str = data_file.state
data_file_uri: str = data_file.upload_file_info.signed_uri
data_file_output: pulumi.Output[migration.GetImportDataFileResult] = migration.get_import_data_file_output(
    location=pulumi.Output.from_input("us-central1"),
    import_job_id="job",
    import_data_file_id="file",
)
# Output.format is a method of pulumi.Output, so that property is read with apply.
data_file_format: pulumi.Output[str] = data_file_output.apply(lambda f: f.format)
data_file_state_output: pulumi.Output[str] = data_file_output.state

# endpoints:accessgateway/v1:getOrganizationPartnerTenantProxyConfigIamPolicy, direct and output forms.
policy: accessgateway.GetOrganizationPartnerTenantProxyConfigIamPolicyResult = (
    accessgateway.get_organization_partner_tenant_proxy_config_iam_policy(
        organization_id="123456789",
        partner_tenant_id="tenant",
        proxy_config_id="proxy",
        options_requested_policy_version=3,
    )
)
policy_version: int = policy.version
policy_roles: list[str] = [binding.role for binding in policy.bindings]
policy_output: pulumi.Output[accessgateway.GetOrganizationPartnerTenantProxyConfigIamPolicyResult] = (
    accessgateway.get_organization_partner_tenant_proxy_config_iam_policy_output(
        organization_id="123456789",
        partner_tenant_id="tenant",
        proxy_config_id=pulumi.Output.from_input("proxy"),
    )
)
policy_etag: pulumi.Output[str] = policy_output.etag

pulumi.export("continue", list_continue)
