"""A user's program with the Python package: an EndpointSlice and an EndpointsList,
run as an Automation API inline program (no Python language host needed).

    python main.py <up|destroy>

It uses the stack "dev" of Pulumi.yaml in the current directory and prints one JSON
line on stdout: {"changes": {<op>: <count>}, "outputs": {...}}.
"""

import json
import os
import sys
from typing import Any

import pulumi
import pulumi_endpoints as endpoints
from pulumi import automation as auto


def program() -> None:
    web = endpoints.discovery.v1.EndpointSlice(
        "web",
        metadata={"labels": {"kubernetes.io/service-name": "web"}},
        address_type=endpoints.discovery.v1.AddressType.IPV4,
        endpoints=[{"addresses": ["10.0.0.10"], "conditions": {"ready": True}}],
        ports=[{"name": "http", "port": 8080}],
    )
    legacy = endpoints.core.v1.EndpointsList(
        "legacy",
        items=[
            {
                "metadata": {"name": "web-legacy"},
                "subsets": [{"addresses": [{"ip": "10.0.0.10"}], "ports": [{"name": "http", "port": 8080}]}],
            }
        ],
    )
    pulumi.export("sliceName", web.metadata.apply(lambda m: m.name))
    pulumi.export("sliceNamespace", web.metadata.apply(lambda m: m.namespace))
    pulumi.export("legacyItems", legacy.items.apply(lambda items: [i.metadata.name if i.metadata else None for i in items]))


def main(operation: str) -> dict[str, Any]:
    stack = auto.select_stack(
        stack_name="dev",
        project_name="packages-python",
        program=program,
        opts=auto.LocalWorkspaceOptions(work_dir=os.getcwd()),
    )

    def on_output(out: str) -> None:
        print(out, file=sys.stderr, flush=True)

    if operation == "up":
        up = stack.up(on_output=on_output)
        return {
            "changes": up.summary.resource_changes,
            "outputs": {key: output.value for key, output in up.outputs.items()},
        }
    if operation == "destroy":
        return {"changes": stack.destroy(on_output=on_output).summary.resource_changes}
    raise SystemExit(f"unknown operation {operation!r}: want up or destroy")


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1])))
