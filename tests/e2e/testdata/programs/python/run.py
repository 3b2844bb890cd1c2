"""Runs program() as an Automation API inline program: the Python SDK itself serves
the program to the pulumi CLI, so no Python language host is needed.

    python run.py <preview|up|refresh|destroy> [stack]

It uses Pulumi.yaml and Pulumi.<stack>.yaml of the current directory (the stack,
default "dev", is created if missing), shows the engine's progress on stderr and
prints one JSON line on stdout:
{"changes": {<op>: <count>}, "outputs": {...}, "warnings": [...]}, where warnings
are the messages of the engine's warning diagnostics (the provider's among them;
the progress on stderr, shown as a diff, does not list them).
"""

import json
import os
import sys
from typing import Any

from pulumi import automation as auto

from program import program


def main(argv: list[str]) -> dict[str, Any]:
    warnings: list[str] = []
    result = run(argv, warnings)
    result["warnings"] = warnings
    return result


def run(argv: list[str], warnings: list[str]) -> dict[str, Any]:
    if len(argv) not in (1, 2) or argv[0] not in ("preview", "up", "refresh", "destroy"):
        raise SystemExit("usage: python run.py <preview|up|refresh|destroy> [stack]")
    operation, stack_name = argv[0], argv[1] if len(argv) == 2 else "dev"
    stack = auto.create_or_select_stack(
        stack_name=stack_name,
        project_name="endpoints-python",
        program=program,
        # For inline programs the work directory is an option of the workspace.
        opts=auto.LocalWorkspaceOptions(work_dir=os.getcwd()),
    )

    def on_output(out: str) -> None:
        print(out, file=sys.stderr, flush=True)

    def on_event(event: auto.EngineEvent) -> None:
        diagnostic = event.diagnostic_event
        if diagnostic is not None and diagnostic.severity == "warning":
            warnings.append(diagnostic.message.strip())

    if operation == "preview":
        preview = stack.preview(on_output=on_output, on_event=on_event, diff=True)
        return {"changes": preview.change_summary}
    if operation == "up":
        up = stack.up(on_output=on_output, on_event=on_event, diff=True)
        return {
            "changes": up.summary.resource_changes,
            "outputs": {key: output.value for key, output in up.outputs.items()},
        }
    if operation == "refresh":
        return {"changes": stack.refresh(on_output=on_output, on_event=on_event).summary.resource_changes}
    return {"changes": stack.destroy(on_output=on_output, on_event=on_event).summary.resource_changes}


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1:])))
