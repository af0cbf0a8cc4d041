"""One name per idea in harness/: a public class or function (defined at a module's top level) that more than one
module defines names the same idea in each, as DOUBLES says; any other is defined once. Private `_names` are each
module's own helpers and may repeat."""

from __future__ import annotations

import ast
from collections import defaultdict
from functools import cache
from pathlib import Path

HARNESS = Path(__file__).resolve().parents[2] / "harness"

KIT_REQUIREMENTS = {
    "accepts_from",
    "attached_to",
    "enabled",
    "encrypted",
    "encrypted_with",
    "endpoint_type",
    "execution_role",
    "in_subnets_exactly",
    "logs_to",
    "may",
    "may_not",
    "named",
    "protocol",
    "retention",
    "security_groups_exactly",
    "tracing",
    "with_security_group",
}
"""The kit's words for one requirement on a resource, said by each service module of its own kind (`s3.encrypted`,
`sqs.encrypted`): steps write them qualified by the module, as docs/user.md teaches."""

DOUBLES: dict[str, tuple[set[str], str]] = {
    "cidr_within": ({"kit.net", "kit.ec2"}, "a network inside another: net's predicate, ec2's requirement on it"),
    "canonical": ({"kit.net", "kit.patterns"}, "the form the kit compares: of a network rule, of an event pattern"),
    "matches": ({"kit.globs", "kit.values", "authoring.selection"}, "whether a pattern matches"),
    "handler": (
        {"kit.awslambda", "service.lambda_handler"},
        "a Lambda function's handler: the kit's requirement on one; the service's own (named in Dockerfile's CMD)",
    ),
    "main": ({"commands.cli", "sandbox.template", "service.serve"}, "a process's entry point"),
    "prepare": (
        {"inside.job", "inside.worker", "sandbox.operations"},
        "load ahead what a first evaluation (or request) would load",
    ),
    "warm_services": ({"inside.job", "inside.worker"}, "a worker template's step, called by the pool"),
    "serve_one": ({"inside.job", "inside.worker"}, "a worker template's step, called by the pool"),
    "plain": ({"commands.mutate", "commands.testrun"}, "a command's result as JSON-able data"),
    "read_body": ({"commands.sign", "service.app"}, "a webhook's body, the exact bytes its signature covers"),
    "render": ({"commands.report", "authoring.drafts.drafting"}, "a module's whole output document"),
}


@cache
def top_level_definitions() -> dict[str, list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef]]]:
    """Each public name defined at the top of a harness module -> (module, without `harness.`; its definition)."""
    found: dict[str, list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef]]] = defaultdict(list)
    for path in sorted(HARNESS.rglob("*.py")):
        module = ".".join(path.relative_to(HARNESS).with_suffix("").parts)
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and not node.name.startswith(
                "_"
            ):
                found[node.name].append((module, node))
    return found


def doubled() -> dict[str, list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef]]]:
    return {name: where for name, where in top_level_definitions().items() if len(where) > 1}


def test_a_public_name_defined_twice_is_one_idea_listed_here() -> None:
    shown = {name: sorted(module for module, _ in where) for name, where in doubled().items()}
    unlisted = {name: modules for name, modules in shown.items() if name not in KIT_REQUIREMENTS | DOUBLES.keys()}
    assert unlisted == {}, "rename one (one name per idea), or say in DOUBLES which idea they share"
    assert sorted(KIT_REQUIREMENTS | DOUBLES.keys()) == sorted(shown), "a listed name is no longer doubled: drop it"


def test_the_doubles_listed_are_where_they_say() -> None:
    for name, where in doubled().items():
        if name in DOUBLES:
            assert {module for module, _ in where} == DOUBLES[name][0], name


def test_the_kit_s_shared_words_are_each_a_requirement_of_a_kit_module() -> None:
    for name in KIT_REQUIREMENTS:
        for module, node in doubled()[name]:
            assert module.startswith("kit."), (name, module)
            returns = ast.unparse(node.returns) if isinstance(node, ast.FunctionDef) and node.returns else None
            assert returns == "Requirement", (name, module, returns)


def test_the_scan_finds_a_double() -> None:  # else the tests above prove nothing
    assert {module for module, _ in top_level_definitions()["encrypted"]} >= {"kit.s3", "kit.sqs"}
    assert [module for module, _ in top_level_definitions()["open_engine"]] == ["store.engine"]
