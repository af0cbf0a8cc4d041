"""Secrets out of the answers the gateway relays: every member harness/core/secret_shapes.py names, at any depth,
is blanked (its text replaced by MARKER) in the JSON or XML of an answer, and in its headers; the rest of the
answer is the endpoint's. A lab checking a user pool client's settings, or which environment variables a function
has, gets them; the client's secret and the variables' values stay behind.

The walk follows the operation's output shape as botocore's parsers do, and blanks every element or key a parser
could read as a secret member (repeated elements included). An answer that does not parse as its protocol says,
or that a secret would reach in a form not blanked here (CBOR, an event stream, a raw payload), is Unredactable:
the gateway then answers an error instead.
"""

from __future__ import annotations

import base64
import json
import re
import xml.etree.ElementTree as ET
from typing import Any

from botocore.model import OperationModel, Shape

from harness.core.secret_shapes import NAME_NAMES, VALUE_NAMES, ModelSecrets, Secret, secret_entry

MARKER = "(removed by the stepeval gateway: a secret)"
MAX_REDACTED_BYTES = 4 * 1024 * 1024  # an answer read whole to blank its secrets
AT_ONCE = 2  # answers being blanked at once in this process (a parsed answer takes several times its size)
WAIT_S = 30.0  # for a turn to blank one
XML_PROTOCOLS = frozenset({"query", "ec2", "rest-xml"})
JSON_PROTOCOLS = frozenset({"json", "rest-json"})
NAMESPACE = re.compile(r"\{[^}]*\}")


class Unredactable(Exception):
    """An answer whose secrets cannot be taken out: it is not relayed."""


def needed(secrets: ModelSecrets, operation: OperationModel) -> bool:
    """Whether answers of `operation` can hold a secret."""
    return secrets.holds(operation.output_shape)


def obstacle(secrets: ModelSecrets, operation: OperationModel, protocol: str) -> str | None:
    """Why an answer of `operation` in `protocol` could not have its secrets taken out (checked before the request
    goes: it is then refused), or None."""
    if not needed(secrets, operation):
        return None
    if protocol not in XML_PROTOCOLS | JSON_PROTOCOLS:
        return f"its answer holds secrets, which the gateway removes from JSON and XML only, not {protocol}"
    if operation.has_event_stream_output:
        return "its answer holds secrets, in an event stream"
    payload = _payload(operation)
    raw_payload = payload is not None and payload[1].type_name in ("blob", "string")
    if raw_payload and secrets.member(operation.output_shape, payload[0]) is not None:
        return "its answer's raw payload is a secret"
    return None


def redact(secrets: ModelSecrets, operation: OperationModel, protocol: str, body: bytes) -> bytes:
    """`body` with its secrets blanked; Unredactable if it does not parse as `protocol` says."""
    shape, payload = operation.output_shape, _payload(operation)
    if payload is not None:
        if payload[1].type_name in ("blob", "string"):
            return body
        shape = payload[1]
    if protocol in JSON_PROTOCOLS:
        return _redact_json(secrets, shape, body)
    if protocol in XML_PROTOCOLS:
        return _redact_xml(secrets, shape, body)
    raise Unredactable(f"an answer in {protocol}")


def redact_headers(
    secrets: ModelSecrets, operation: OperationModel, headers: list[tuple[str, str]]
) -> list[tuple[str, str]]:
    """The answer's headers, those that carry a secret member blanked."""
    shape = operation.output_shape
    if shape is None or shape.type_name != "structure":
        return headers
    exact, prefixes = set(), []
    for name, member in shape.members.items():
        location = member.serialization.get("location")
        if location in ("header", "headers") and secrets.member(shape, name) is not None:
            wire = str(member.serialization.get("name", name)).lower()
            if location == "header":
                exact.add(wire)
            else:
                prefixes.append(wire)
    if not exact and not prefixes:
        return headers
    return [
        (k, MARKER if k.lower() in exact or any(k.lower().startswith(p) for p in prefixes) else v) for k, v in headers
    ]


def _payload(operation: OperationModel) -> tuple[str, Shape] | None:
    shape = operation.output_shape
    name = shape.serialization.get("payload") if shape is not None else None
    return (name, shape.members[name]) if name else None


# -- JSON ----------------------------------------------------------------------------------------------------------


def _redact_json(secrets: ModelSecrets, shape: Shape | None, body: bytes) -> bytes:
    if shape is None or not body.strip():
        return body
    try:
        document = json.loads(body)
    except (ValueError, RecursionError):
        raise Unredactable("an answer that is not the JSON its protocol says") from None
    return json.dumps(_json(secrets, document, shape), separators=(",", ":")).encode()


def _json(secrets: ModelSecrets, value: Any, shape: Shape) -> Any:
    if value is None or not secrets.holds(shape):
        return value
    if shape.type_name == "structure" and isinstance(value, dict):
        for name, member in shape.members.items():
            if member.serialization.get("location"):
                continue
            key = str(member.serialization.get("name", name))
            for found in [k for k in value if k == key or k.lower() == key.lower()]:
                how = secrets.member(shape, name)
                if how is Secret.KEYED:
                    value[found] = _json_keyed(value[found], member)
                elif how is not None:
                    value[found] = _json_blank(value[found], member)
                else:
                    value[found] = _json(secrets, value[found], member)
    elif shape.type_name == "list" and isinstance(value, list):
        return [_json(secrets, item, shape.member) for item in value]
    elif shape.type_name == "map" and isinstance(value, dict):
        return {key: _json(secrets, item, shape.value) for key, item in value.items()}
    return value


def _json_blank(value: Any, shape: Shape) -> Any:
    """`value` with all its text blanked."""
    if value is None:
        return None
    if shape.type_name == "string":
        return MARKER
    if shape.type_name == "blob":
        return base64.b64encode(MARKER.encode()).decode()
    if shape.type_name == "list" and isinstance(value, list):
        return [_json_blank(item, shape.member) for item in value]
    if shape.type_name == "map" and isinstance(value, dict):
        return {key: _json_blank(item, shape.value) for key, item in value.items()}
    if shape.type_name == "structure" and isinstance(value, dict):
        kept = {}
        for key, item in value.items():
            member = _member_by_wire(shape, key)
            kept[key] = _json_blank(item, member[1]) if member else (MARKER if isinstance(item, str) else None)
        return kept
    return MARKER if isinstance(value, str) else value


def _json_keyed(value: Any, shape: Shape) -> Any:
    """A bag (a map, or a list of {name, value}) with its secret entries' values blanked (`secret_entry`)."""
    if shape.type_name == "map" and isinstance(value, dict):
        return {k: _json_blank(v, shape.value) if secret_entry(k, v) else v for k, v in value.items()}
    if shape.type_name == "list" and isinstance(value, list):
        for item in value:
            if not isinstance(item, dict):
                continue
            names = [v for k, v in item.items() if k.lower() in NAME_NAMES]
            for key in [k for k in item if k.lower() in VALUE_NAMES]:
                if any(secret_entry(name, item[key]) for name in names or [""]):
                    item[key] = MARKER
    return value


def _member_by_wire(shape: Shape, wire: str) -> tuple[str, Shape] | None:
    for name, member in shape.members.items():
        if str(member.serialization.get("name", name)).lower() == wire.lower():
            return name, member
    return None


# -- XML -----------------------------------------------------------------------------------------------------------


def _local(tag: str) -> str:
    return NAMESPACE.sub("", tag)


def _redact_xml(secrets: ModelSecrets, shape: Shape | None, body: bytes) -> bytes:
    if shape is None or not body.strip():
        return body
    try:
        root = ET.fromstring(body)
    except ET.ParseError:
        raise Unredactable("an answer that is not the XML its protocol says") from None
    start = [root]
    wrapper = shape.serialization.get("resultWrapper")
    if wrapper:
        start = [child for child in root if _local(child.tag) == wrapper]
    for element in start:
        _xml(secrets, element, shape)
    namespace = root.tag[1:].split("}")[0] if root.tag.startswith("{") else None
    try:
        return ET.tostring(root, encoding="utf-8", default_namespace=namespace)
    except ValueError:  # elements outside that namespace: written with prefixes, which parsers strip
        return ET.tostring(root, encoding="utf-8")


def _xml_key(name: str, member: Shape) -> str:
    """The element name of a member, as botocore's XML parsers look it up."""
    if member.type_name == "list" and member.serialization.get("flattened"):
        listed = member.member.serialization.get("name")
        if listed is not None:
            return str(listed)
    return str(member.serialization.get("name", name))


def _xml(secrets: ModelSecrets, element: ET.Element, shape: Shape) -> None:
    if not secrets.holds(shape):
        return
    if shape.type_name == "structure":
        for name, member in shape.members.items():
            if member.serialization.get("location") or member.serialization.get("eventheader"):
                continue
            how = secrets.member(shape, name)
            if member.serialization.get("xmlAttribute"):
                if how:
                    for attribute in [a for a in element.attrib if _local(a).lower() == name.lower()]:
                        element.attrib[attribute] = MARKER
                continue
            key = _xml_key(name, member)
            nodes = [child for child in element if _local(child.tag) == key]
            flattened = member.type_name in ("list", "map") and member.serialization.get("flattened")
            for node in nodes:
                if how is Secret.KEYED:
                    _xml_keyed(node, member, flattened=bool(flattened))
                elif how:
                    _xml_blank(node, member, flattened=bool(flattened))
                elif flattened:
                    _xml(secrets, node, member.member if member.type_name == "list" else member)
                else:
                    _xml(secrets, node, member)
    elif shape.type_name == "list":
        for item in element:
            _xml(secrets, item, shape.member)
    elif shape.type_name == "map":
        entries = [element] if shape.serialization.get("flattened") else list(element)
        value_name = shape.value.serialization.get("name") or "value"
        for entry in entries:
            for part in entry:
                if _local(part.tag) == value_name:
                    _xml(secrets, part, shape.value)


def _xml_blank(element: ET.Element, shape: Shape, *, flattened: bool = False) -> None:
    """Blank the text of `element` as a value of `shape` (a flattened list's element is one item)."""
    if shape.type_name in ("string", "blob"):
        for child in list(element):
            element.remove(child)
        element.text = MARKER if shape.type_name == "string" else base64.b64encode(MARKER.encode()).decode()
    elif shape.type_name == "list":
        for item in [element] if flattened else list(element):
            _xml_blank(item, shape.member)
    elif shape.type_name == "map":
        value_name = shape.value.serialization.get("name") or "value"
        for entry in [element] if flattened else list(element):
            for part in [p for p in entry if _local(p.tag) == value_name]:
                _xml_blank(part, shape.value)
    elif shape.type_name == "structure":
        for name, member in shape.members.items():
            key = _xml_key(name, member)
            for child in [c for c in element if _local(c.tag) == key]:
                flattened = member.type_name in ("list", "map") and bool(member.serialization.get("flattened"))
                _xml_blank(child, member, flattened=flattened)


def _xml_keyed(element: ET.Element, shape: Shape, *, flattened: bool = False) -> None:
    """A bag (a map, or a list of {name, value}) with its secret entries' values blanked (`secret_entry`)."""
    if shape.type_name == "map":
        key_name = shape.key.serialization.get("name") or "key"
        value_name = shape.value.serialization.get("name") or "value"
        entries, names = [element] if flattened else list(element), {key_name}
    elif shape.type_name == "list":
        entries, names, value_name = [element] if flattened else list(element), NAME_NAMES, "value"
    else:
        return
    for entry in entries:
        keys = [part.text or "" for part in entry if _local(part.tag).lower() in names]
        for part in [p for p in entry if _local(p.tag).lower() == value_name.lower()]:
            if any(secret_entry(key, part.text or "") for key in keys or [""]):
                for child in list(part):
                    part.remove(child)
                part.text = MARKER
