"""How a drafted evaluation writes a value: as a literal, or as a reference to a described input or output.

A draft must not copy the ids the emulator gave the solution (a learner's differ): a value that is an input's or
another output's id, ARN or name is written as that resource (`role`) or its attribute (`table["TableName"]`).
`Code` pairs what a module writes with the value it stands for, so a requirement can be built and tried here
exactly as the module will build it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from harness.kit import logs

IDENTIFYING = ("Id", "Arn", "ARN", "Name", "Url")


@dataclass(frozen=True)
class Code:
    """`text` as a module writes it, `value` what it evaluates to; `refs` the variables it reads."""

    text: str
    value: Any
    refs: frozenset[str] = frozenset()


def literal(value: Any) -> Code:
    """A value written as Python source (strings double-quoted, as ruff formats them)."""
    return Code(_source(value), value)


def _source(value: Any) -> str:
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(_source(v) for v in value) + "]"
    if isinstance(value, tuple):
        inner = ", ".join(_source(v) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_source(k)}: {_source(v)}" for k, v in value.items()) + "}"
    return repr(value)


@dataclass
class Refs:
    """The resources a step module holds in variables: each variable's described resource and handle id."""

    described: dict[str, dict[str, Any]] = field(default_factory=dict)
    ids: dict[str, str] = field(default_factory=dict)
    optional: set[str] = field(default_factory=set)  # outputs: `find` may return None
    plain: set[str] = field(default_factory=set)  # values, not resources: written as themselves

    def add(
        self, variable: str, resource_id: str, resource: dict[str, Any], *, optional: bool = False, plain: bool = False
    ) -> None:
        """Hold `variable`: a described resource, or (`plain`) a value such as a "string" input's."""
        self.described[variable] = resource
        self.ids[variable] = resource_id
        if optional:
            self.optional.add(variable)
        if plain:
            self.plain.add(variable)

    def without(self, variable: str) -> Refs:
        """These references but `variable` (a resource is not written as a reference to itself)."""
        keep = [v for v in self.described if v != variable]
        return Refs({v: self.described[v] for v in keep}, {v: self.ids[v] for v in keep}, self.optional - {variable})

    def resource(self, value: Any) -> Code:
        """`value` (an id, ARN or name) as the variable holding that resource, else as a literal."""
        if isinstance(value, str):
            for variable, resource in self.described.items():
                if variable in self.plain:
                    if value == self.ids[variable]:
                        return Code(variable, value, frozenset({variable}))
                elif value == self.ids[variable] or value in _identifying(resource).values():
                    return Code(variable, resource, frozenset({variable}))
        return literal(value)

    def key_of(self, code: Code, value: str, default: str) -> str:
        """The key under which the resource `code` refers to holds `value` (`InternetGatewayId`), else `default`."""
        for variable in code.refs:
            found = next((k for k, v in _identifying(self.described[variable]).items() if v == value), None)
            if found:
                return found
        return default

    def value(self, value: Any) -> Code:
        """`value` as a variable's identifying attribute (`table["TableName"]`) or a kit helper of one
        (`logs.function_log_group(function)`), else as a literal."""
        if not isinstance(value, str) or len(value) < 3:
            return literal(value)
        for variable in self.plain:
            if self.ids[variable] == value:
                return Code(variable, value, frozenset({variable}))
        for variable, resource in self.described.items():
            for key, held in _identifying(resource).items():
                if held == value:
                    text = f'({variable} or {{}}).get("{key}")' if variable in self.optional else f'{variable}["{key}"]'
                    return Code(text, value, frozenset({variable}))
            for text, held in self.helpers(variable).items():
                if held == value:
                    return Code(text, value, frozenset({variable}))
        return literal(value)

    def helpers(self, variable: str) -> dict[str, str]:
        """Values the kit derives from one resource, by the code that derives them."""
        resource = self.described[variable]
        if "FunctionArn" not in resource or variable in self.optional:
            return {}
        return {
            f"logs.function_log_group({variable})": logs.function_log_group(resource),
            f"logs.streams_arn({variable})": logs.streams_arn(resource),
        }


def _identifying(resource: dict[str, Any]) -> dict[str, str]:
    return {
        key: value
        for key, value in resource.items()
        if isinstance(value, str) and key.endswith(IDENTIFYING) and len(value) >= 3
    }
