"""Runs one operation of the pulumi CLI (up, preview, refresh or destroy) on the Python
program of the current directory through the Automation API, for a machine without
the Python language host: the virtualenv's pulumi serves the program, as an inline
program, to the CLI on PATH. The program is the project's __main__.py, run as the
language host runs it (runpy, the project directory first on sys.path). The stack is
the project's current one (`pulumi stack init` or `pulumi stack select` chose it).

    venv/bin/python run.py <up|preview|refresh|destroy> [--yes] [--skip-preview] [--expect-no-changes]
"""

import os
import runpy
import sys
from typing import Any

from pulumi import automation as auto

DIR = os.getcwd()


def program() -> None:
    sys.path.insert(0, DIR)
    runpy.run_path(DIR, run_name="__main__")


def options(operation: str, flags: list[str]) -> dict[str, Any]:
    """The keyword arguments of the operation for the CLI flags the tests pass."""
    opts: dict[str, Any] = {"on_output": print}
    for flag in flags:
        if flag == "--expect-no-changes" and operation in ("preview", "refresh"):
            opts["expect_no_changes"] = True
        elif flag not in ("--yes", "-y", "--skip-preview", "--non-interactive"):
            raise SystemExit(f"run.py does not take {flag} for {operation}")
    return opts


def main(operation: str, flags: list[str]) -> None:
    opts = options(operation, flags)
    workspace = auto.LocalWorkspace(work_dir=DIR, program=program)
    current = workspace.stack()
    if current is None:
        raise SystemExit("no stack is selected: run `pulumi stack init` or `pulumi stack select` first")
    stack = auto.Stack.select(current.name, workspace)
    operations = {"up": stack.up, "preview": stack.preview, "refresh": stack.refresh, "destroy": stack.destroy}
    if operation not in operations:
        raise SystemExit(f"run.py runs up, preview, refresh or destroy, not {operation}")
    operations[operation](**opts)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
