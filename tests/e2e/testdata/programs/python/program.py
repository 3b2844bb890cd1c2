"""The program: an EndpointSlice, an EndpointsList and both Google Cloud lookups,
each called in its direct form (plain arguments, the result itself) and its output
form (arguments that may be Outputs, an Output); run.py runs it as an Automation API
inline program."""

import pulumi
import pulumi_endpoints as endpoints


def program() -> None:
    # Stack configuration, with these defaults:
    #   pulumi config set port 8081
    #   pulumi config set addressType IPv6
    #   pulumi config set --path 'addresses[0]' fd00::10   (one address per endpoint)
    # The namespace is the provider's: `pulumi config set endpoints:namespace apps`.
    config = pulumi.Config()
    port = config.get_int("port") or 8080
    address_type = endpoints.discovery.v1.AddressType(config.get("addressType") or "IPv4")
    addresses: list[str] = config.get_object("addresses") or ["10.0.0.10", "10.0.0.11"]

    # One EndpointSlice for a Service named "web"; it is autonamed (web-<hex>).
    web = endpoints.discovery.v1.EndpointSlice(
        "web",
        metadata={
            "labels": {
                "kubernetes.io/service-name": "web",
                "example.com/organization": "123456789",
            },
        },
        address_type=address_type,
        endpoints=[
            {
                "addresses": [address],
                "conditions": {"ready": True},
                "zone": "zone-a" if i % 2 == 0 else "zone-b",
            }
            for i, address in enumerate(addresses)
        ],
        ports=[{"name": "http", "port": port, "app_protocol": "http"}],
    )

    # Two v1 Endpoints objects managed as one set.
    legacy = endpoints.core.v1.EndpointsList(
        "legacy",
        items=[
            {
                "metadata": {"name": "web-legacy"},
                "subsets": [
                    {
                        "addresses": [{"ip": address} for address in addresses],
                        "ports": [{"name": "http", "port": port}],
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

    # Direct form: plain arguments; the call returns the result itself. The project
    # comes from the provider configuration (endpoints:project).
    data_file = endpoints.migration.v1alpha1.get_import_data_file(
        location="us-central1",
        import_job_id="job-1",
        import_data_file_id="file-1",
    )

    # Output form: an argument comes from a resource's output, so the call waits for
    # the slice; the result is an Output.
    policy = endpoints.accessgateway.v1.get_organization_partner_tenant_proxy_config_iam_policy_output(
        organization_id=web.metadata.apply(lambda m: (m.labels or {}).get("example.com/organization", "")),
        partner_tenant_id="tenant-1",
        proxy_config_id="proxy-1",
        options_requested_policy_version=3,
    )

    # The other form of each lookup.
    data_file_output = endpoints.migration.v1alpha1.get_import_data_file_output(
        location="us-central1",
        import_job_id="job-1",
        import_data_file_id="file-1",
    )
    policy_direct = endpoints.accessgateway.v1.get_organization_partner_tenant_proxy_config_iam_policy(
        organization_id="123456789",
        partner_tenant_id="tenant-1",
        proxy_config_id="proxy-1",
        options_requested_policy_version=3,
    )

    # The stack outputs.
    pulumi.export("sliceName", web.metadata.apply(lambda m: m.name))
    pulumi.export("sliceNamespace", web.metadata.apply(lambda m: m.namespace))
    pulumi.export("legacyItems", legacy.items.apply(lambda items: [item.metadata.name if item.metadata else None for item in items]))
    pulumi.export("dataFileState", data_file.state)
    pulumi.export("dataFileFormat", data_file.format)
    pulumi.export("uploadUri", data_file.upload_file_info.signed_uri)
    pulumi.export("policyVersion", policy.version)
    pulumi.export("policyBindings", policy.bindings)
    pulumi.export("dataFileDisplayName", data_file_output.display_name)
    pulumi.export("policyEtag", policy_direct.etag)
