"""How prowler_aws_calls.json was made (kept for its provenance; not run by the tests).

Prowler's AWS checks read an account through one service class per AWS service
(`prowler/providers/aws/services/<name>/<name>_service.py` and helpers beside it); the checks themselves only
look at what those classes gathered, and fixers (`*_fixer.py`) are the only writers. This walks every service
file but the fixers with `ast`, notes the botocore service each class opens (`super().__init__(NAME, ...)`, the
class name lower-cased by default, and `client("NAME")`) and every method called on anything, or named to
`get_paginator`, and keeps the names that are operations of those services (botocore's `xform_name`).

    python tests/core/data/extract_prowler_calls.py PROWLER_CHECKOUT COMMIT > tests/core/data/prowler_aws_calls.json
"""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path

import botocore.session
from botocore import xform_name


def services_opened(tree: ast.AST) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            for call in ast.walk(node):
                if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "__init__":
                    first = call.args[0] if call.args else None
                    if isinstance(first, ast.Constant) and isinstance(first.value, str):
                        found.add(first.value.lower() if not first.value.islower() else first.value)
                    elif isinstance(first, ast.Attribute) and first.attr == "__name__":
                        found.add(node.name.lower())
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "client":
            first = node.args[0] if node.args else None
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                found.add(first.value)
    return found


def methods_called(tree: ast.AST) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            found.add(node.func.attr)
            if node.func.attr in ("get_paginator", "get_waiter") and node.args:
                first = node.args[0]
                if isinstance(first, ast.Constant) and isinstance(first.value, str):
                    found.add(first.value)
    return found


def main(checkout: Path, commit: str) -> None:
    session = botocore.session.get_session()
    available = set(session.get_available_services())
    methods: dict[str, dict[str, str]] = {}
    calls: set[tuple[str, str]] = set()
    root = checkout / "prowler" / "providers" / "aws" / "services"
    for path in sorted(root.rglob("*.py")):
        if path.name.endswith("_fixer.py"):
            continue
        tree = ast.parse(path.read_text())
        services = {s for s in services_opened(tree) if s in available}
        if not services:  # a helper beside a service class: the service of its folder
            folder = path.relative_to(root).parts[0]
            services = {folder} if folder in available else set()
        for service in services:
            if service not in methods:
                model = session.get_service_model(service)
                methods[service] = {xform_name(op): op for op in model.operation_names}
        for name in methods_called(tree):
            for service in services:
                if name in methods[service]:
                    calls.add((service, methods[service][name]))
    print(
        json.dumps(
            {
                "source": "https://github.com/prowler-cloud/prowler",
                "commit": commit,
                "what": "every AWS operation Prowler's AWS service classes call (fixers excluded), "
                "extracted by tests/core/data/extract_prowler_calls.py",
                "botocore": botocore.__version__,
                "calls": [f"{service}:{operation}" for service, operation in sorted(calls)],
            },
            indent=1,
        )
    )


if __name__ == "__main__":
    main(Path(sys.argv[1]), sys.argv[2])
