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
import weakref
import xml.etree.ElementTree as ET
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from botocore.model import OperationModel, Shape

from harness.core.secret_shapes import (
    NAME_NAMES,
    VALUE_NAMES,
    ModelSecrets,
    Secret,
    document_entry,
    json_holds_credential,
    json_text,
    looks_like_credential,
    platform_caller,
    secret_entry,
    variable_entry,
)

MARKER = "(removed by the stepeval gateway: a secret)"
MAX_REDACTED_BYTES = 4 * 1024 * 1024  # an answer read whole to blank its secrets
MAX_SCANNED_CHARS = 1024 * 1024  # of one answer's text, what is searched for credentials; the rest is blanked...
PAST_SCANNED = "(removed by the stepeval gateway: past the 1 MiB of an answer's text searched for secrets)"  # so
AT_ONCE = 2  # answers being blanked at once in this process (a parsed answer takes several times its size)
UNGATED_BYTES = 64 * 1024  # an answer of a known length up to this, uncompressed, is blanked without a turn
WAIT_S = 30.0  # for a turn to blank one
XML_PROTOCOLS = frozenset({"query", "ec2", "rest-xml"})
JSON_PROTOCOLS = frozenset({"json", "rest-json"})
NAMESPACE = re.compile(r"\{[^}]*\}")
XML_ENVELOPE = frozenset({"ResponseMetadata", "requestId", "RequestId"})  # around an answer, not in its model
VALUE_SUFFIX = "value"  # a structure naming a value: the members that hold it...
NAME_SUFFIXES = ("name", "key")  # ...and those that name it
SECRET_FLAGS = frozenset({"isvaluesecret", "issecret"})  # a flag saying a pair's value is a secret
# Reads whose raw payload is a learner's file, read whole up to MAX_REDACTED_BYTES (a larger one streams as it is:
# `streamed`) and scrubbed line by line; other raw payloads (a media stream) are relayed as they are.
SCRUBBED_PAYLOADS = frozenset({"s3:GetObject"})
CHECKSUM_HEADER = "x-amz-checksum-"  # of the body as stored: dropped from a body relayed blanked (botocore checks it)
BINARY_SNIFF_BYTES = 8192  # a NUL in these: a binary file, relayed as it is
PAGING = re.compile(r"(?:Next|Continuation|Pagination|Page)\w*(?:Token|Marker)|Marker", re.I)  # a next page


@dataclass
class _Reading:
    """What blanking one answer has read of its text: what is left of MAX_SCANNED_CHARS (`scrub` spends it), and the
    texts found to hold no credential (the search is a function of the text alone: a text the answer repeats, a
    subnet's VPC id or `false`, is searched once)."""

    left: int = MAX_SCANNED_CHARS
    clean: set[str] = field(default_factory=set)


# The answer being blanked in this thread (`redact` sets it).
_READING: ContextVar[_Reading | None] = ContextVar("reading", default=None)
# Whether the XML answer being walked in this thread lost anything (`_redact_xml` sets it, each blanking marks it): one
# that lost nothing is relayed as the endpoint's own bytes, not written again (ElementTree writes in Python: 0.1-0.5 ms
# an answer, most of the walk's cost).
_BLANKED: ContextVar[list[bool] | None] = ContextVar("blanked", default=None)
XML_REWRITTEN = b"<!"  # a DOCTYPE, a comment, CDATA: parsed otherwise than it reads; such an answer is written anew


class Unredactable(Exception):
    """An answer whose secrets cannot be taken out: it is not relayed."""


def needed(secrets: ModelSecrets, operation: OperationModel, protocol: str) -> bool:
    """Whether answers of `operation` are read whole and blanked: those whose model names a secret, and every
    answer with a JSON or XML body (a member its model does not know, a credential under any map's key or in any
    text may sit in any of them); not a raw payload (an object's bytes), nor an event stream."""
    if secrets.holds(operation.output_shape):
        return True
    shape = operation.output_shape
    if shape is None or protocol not in XML_PROTOCOLS | JSON_PROTOCOLS or operation.has_event_stream_output:
        return False
    payload = _payload(operation)
    if payload is not None:
        return payload[1].type_name not in ("blob", "string") or _scrubbed_payload(secrets, operation)
    return any(not member.serialization.get("location") for member in shape.members.values())


def obstacle(secrets: ModelSecrets, operation: OperationModel, protocol: str) -> str | None:
    """Why an answer of `operation` in `protocol` could not have its secrets taken out (checked before the request
    goes: it is then refused), or None."""
    if not secrets.holds(operation.output_shape):
        return None
    if protocol not in XML_PROTOCOLS | JSON_PROTOCOLS:
        return f"its answer holds secrets, which the gateway removes from JSON and XML only, not {protocol}"
    if operation.has_event_stream_output:
        return "its answer holds secrets, in an event stream"
    payload = _payload(operation)
    if payload is None or payload[1].type_name not in ("blob", "string"):
        return None
    if secrets.member(operation.output_shape, payload[0]) is not None:
        return "its answer's raw payload is a secret"
    return None


def redact(secrets: ModelSecrets, operation: OperationModel, protocol: str, body: bytes) -> bytes:
    """`body` with its secrets blanked; Unredactable if it does not parse as `protocol` says. Its text is searched
    for credentials up to MAX_SCANNED_CHARS (the cost of one answer is bounded): text past it is PAST_SCANNED."""
    reading = _READING.set(_Reading())
    try:
        return _redact(secrets, operation, protocol, body)
    finally:
        _READING.reset(reading)


def _redact(secrets: ModelSecrets, operation: OperationModel, protocol: str, body: bytes) -> bytes:
    shape, payload = operation.output_shape, _payload(operation)
    if payload is not None:
        if payload[1].type_name in ("blob", "string"):
            return scrub_payload(body) if _scrubbed_payload(secrets, operation) else body
        shape = payload[1]
    if protocol in JSON_PROTOCOLS:
        return _redact_json(secrets, shape, body)
    if protocol in XML_PROTOCOLS:
        return _redact_xml(secrets, shape, body)
    raise Unredactable(f"an answer in {protocol}")


def _scrubbed_payload(secrets: ModelSecrets, operation: OperationModel) -> bool:
    """Whether `operation`'s raw payload is a learner's file, read whole and scrubbed (`scrub_payload`)."""
    return f"{secrets.service}:{operation.name}" in SCRUBBED_PAYLOADS


def streamed(secrets: ModelSecrets, operation: OperationModel, length: str | None) -> bool:
    """Whether a learner's file (`SCRUBBED_PAYLOADS`) is too large to read whole, by its declared length: relayed as
    it is (an object of several MiB streams through; a credential in a text object past MAX_REDACTED_BYTES passes)."""
    return (
        _scrubbed_payload(secrets, operation)
        and length is not None
        and length.isdigit()
        and (int(length) > MAX_REDACTED_BYTES)
    )


def scrub_payload(body: bytes) -> bytes:
    """A learner's file (an object's bytes): text (UTF-8, no NUL) has each line holding a credential replaced by
    MARKER (`DB_PASSWORD: x` in an `.env`), JSON text its credential-named values blanked; other bytes relayed as
    they are (an image, an archive)."""
    if b"\0" in body[:BINARY_SNIFF_BYTES]:
        return body
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        return body
    if json_text(text) is not None:
        return scrub(text).encode()
    lines = text.splitlines(keepends=True)
    kept = "".join(MARKER + line[len(line.rstrip("\r\n")) :] if looks_like_credential(line) else line for line in lines)
    return kept.encode()


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


def redact_header_bags(operation: OperationModel, headers: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The answer's headers, those of a bag of headers its model names (S3's `x-amz-meta-*`) blanked as a bag of
    variables is (`variable_entry`: all but the values known safe): a learner's metadata, any read."""
    shape = operation.output_shape
    if shape is None or shape.type_name != "structure":
        return headers
    prefixes = tuple(
        str(member.serialization.get("name", name)).lower()
        for name, member in shape.members.items()
        if member.serialization.get("location") == "headers"
    )
    if not prefixes:
        return headers
    return [
        (k, MARKER if k.lower().startswith(prefixes) and variable_entry(k.lower().removeprefix(_prefix(k, prefixes)), v)
         else v)
        for k, v in headers
    ]  # fmt: skip


def _prefix(header: str, prefixes: tuple[str, ...]) -> str:
    return next((p for p in prefixes if header.lower().startswith(p)), "")


def _payload(operation: OperationModel) -> tuple[str, Shape] | None:
    shape = operation.output_shape
    name = shape.serialization.get("payload") if shape is not None else None
    return (name, shape.members[name]) if name else None


# -- what is kept, whatever the member ------------------------------------------------------------------------------


def _paired(shape: Shape) -> tuple[list[str], list[str]]:
    """A structure that names a value (`{Name, Value}`, `{Key, Value}`, `{ParameterKey, ParameterValue,
    ResolvedValue}`): its members that name (text ending in Name or Key) and those that hold the value."""
    values = [n for n, m in shape.members.items() if n.lower().endswith(VALUE_SUFFIX) and _text(m)]
    if not values:
        return [], []
    names = [n for n, m in shape.members.items() if n.lower().endswith(NAME_SUFFIXES) and _text(m)]
    return names, values


def _text(shape: Shape) -> bool:
    return shape.type_name == "string" and not getattr(shape, "enum", None)


def scrub(text: str) -> str:
    """Text relayed as it is unless it holds a credential: MARKER for credential-shaped text, and JSON text (a state
    machine's definition, a policy, a config file in a variable) with the values under credential-named keys
    blanked inside it, the rest of it kept; PAST_SCANNED once the answer's text searched is MAX_SCANNED_CHARS."""
    reading = _READING.get()
    if reading is not None:
        if reading.left < len(text):
            reading.left = 0
            return PAST_SCANNED
        reading.left -= len(text)
        if text in reading.clean:
            return text
    if not looks_like_credential(text):
        if reading is not None:
            reading.clean.add(text)
        return text
    document = json_text(text)
    if document is None or not json_holds_credential(text):
        return MARKER
    try:
        return json.dumps(_document(document))
    except RecursionError:
        return MARKER


def _document(value: Any) -> Any:
    """A free-form value (a document, or one the model does not describe): its credential-looking text and the values
    under credential-named keys blanked, at any depth."""
    if isinstance(value, str):
        return scrub(value)
    if isinstance(value, list):
        return [_document(item) for item in value]
    if isinstance(value, dict):
        caller = platform_caller(value)
        return {k: MARKER if k in caller or document_entry(k, v) else _document(v) for k, v in value.items()}
    return value


# -- JSON ----------------------------------------------------------------------------------------------------------


def _redact_json(secrets: ModelSecrets, shape: Shape | None, body: bytes) -> bytes:
    if shape is None or not body.strip():
        return body
    try:
        document = json.loads(body)
    except (ValueError, RecursionError):
        raise Unredactable("an answer that is not the JSON its protocol says") from None
    try:
        kept = _json(secrets, document, shape)
        return json.dumps(kept, separators=(",", ":")).encode()
    except RecursionError:
        raise Unredactable("an answer nested deeper than the gateway reads") from None


def _json(secrets: ModelSecrets, value: Any, shape: Shape) -> Any:
    """`value` as a value of `shape`: what the model does not describe blanked (an unmodelled member, a value of the
    wrong type), the model's secrets blanked, credential-named entries of any map and credential-looking text
    blanked; the rest kept."""
    if value is None:
        return None
    kind = shape.type_name
    if isinstance(value, str):
        return MARKER if kind in ("structure", "list", "map") else scrub(value)
    if kind == "structure" and shape.is_document_type:
        return _document(value)
    if kind == "structure" and isinstance(value, dict):
        return _json_structure(secrets, value, shape)
    if kind == "list" and isinstance(value, list):
        return [_json(secrets, item, shape.member) for item in value]
    if kind == "map" and isinstance(value, dict):
        return {
            key: _json_blank(item, shape.value) if secret_entry(key, item) else _json(secrets, item, shape.value)
            for key, item in value.items()
        }
    if isinstance(value, (dict, list)):
        return MARKER  # not the shape its model says
    return value


def _json_structure(secrets: ModelSecrets, value: dict[str, Any], shape: Shape) -> dict[str, Any]:
    """A structure's members each as its member's shape says (an unknown one blanked), then its paired value."""
    members = _members_by_wire(shape)
    for key in list(value):
        found = members.get(key.lower())
        if found is None:
            value[key] = MARKER  # a member the model does not know: nothing says it is safe
        else:
            value[key] = _json_member(secrets, value[key], shape, *found)
    _json_pair(value, shape)
    return value


def _json_member(secrets: ModelSecrets, item: Any, shape: Shape, name: str, member: Shape) -> Any:
    """One member's value: a bag with its secret entries blanked, a secret blanked, the rest walked."""
    how = secrets.member(shape, name)
    if how is None and PAGING.fullmatch(name):
        return item  # where the next page starts, which may look like a token and is none
    if how in (Secret.KEYED, Secret.VARIABLES):
        return _json(secrets, _json_keyed(item, member, _entry(how)), member)
    if how is not None:
        return _json_blank(item, member)
    return _json(secrets, item, member)


def _json_pair(value: dict[str, Any], shape: Shape) -> None:
    """A structure naming a value (`_paired`): the value blanked when flagged secret or when its name says so."""
    names, values = _paired(shape)
    if not values:
        return
    named = [str(value[k]) for k in value if any(k.lower() == n.lower() for n in names)]
    flagged = any(value.get(k) is True for k in value if k.lower() in SECRET_FLAGS)
    for key in [k for k in value if any(k.lower() == v.lower() for v in values)]:
        if flagged or any(secret_entry(n, value[key]) for n in named):
            value[key] = MARKER


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
        kept, members = {}, _members_by_wire(shape)
        for key, item in value.items():
            member = members.get(key.lower())
            kept[key] = _json_blank(item, member[1]) if member else MARKER
        return kept
    return MARKER if isinstance(value, (str, dict, list)) else value


def _entry(how: Secret) -> Callable[[object, object], bool]:
    """Which entries of a bag are blanked: a bag of variables all but the safe ones, any other the secret ones."""
    return variable_entry if how is Secret.VARIABLES else secret_entry


def _json_keyed(value: Any, shape: Shape, entry: Callable[[object, object], bool] = secret_entry) -> Any:
    """A bag (a map, or a list of {name, value}) with its secret entries' values blanked (`entry`)."""
    if shape.type_name == "map" and isinstance(value, dict):
        return {k: _json_blank(v, shape.value) if entry(k, v) else v for k, v in value.items()}
    if shape.type_name == "list" and isinstance(value, list):
        for item in value:
            if not isinstance(item, dict):
                continue
            names = [v for k, v in item.items() if k.lower() in NAME_NAMES]
            for key in [k for k in item if k.lower() in VALUE_NAMES]:
                if any(entry(name, item[key]) for name in names or [""]):
                    item[key] = MARKER
    return value


def _members_by_wire(shape: Shape) -> dict[str, tuple[str, Shape]]:
    """The members of a structure in a JSON body by their key, lowered (case aside, as the gateway reads them; the
    first member of a key wins); those sent elsewhere (headers, the status) are none. Made once per value, not per
    key (a key looked up among every member was most of a typical answer's time)."""
    found: dict[str, tuple[str, Shape]] = {}
    for name, member in shape.members.items():
        if not member.serialization.get("location"):
            found.setdefault(str(member.serialization.get("name", name)).lower(), (name, member))
    return found


# -- XML -----------------------------------------------------------------------------------------------------------


def _local(tag: str) -> str:
    """An element's or attribute's name with its namespaces (`{uri}`) taken out, as NAMESPACE takes them."""
    if "{" not in tag:
        return tag
    _, closed, local = tag[1:].partition("}")
    if tag[0] == "{" and closed and "{" not in local:
        return local  # one namespace, in front (ElementTree's `{uri}name`): what NAMESPACE would leave, found sooner
    return NAMESPACE.sub("", tag)


class _Member(NamedTuple):
    """How the XML walk reads one member's element (`_xml_member`)."""

    shape: Shape
    secret: Secret | None
    paging: bool  # where the next page starts (`PAGING`, not a secret): relayed as it is
    flattened: bool  # a flattened list or map: its element is one item or entry
    leaf: bool  # text, a number, a flag or a date, neither secret nor paging: its element is read as a leaf


@dataclass(frozen=True)
class _Structure:
    """How the XML walk reads the elements of one structure: worked out once per structure of a model, not again at
    every element of its answers (a list of 50 subnets read the same 25 members' rules 50 times)."""

    members: dict[str, _Member]  # element name -> the member
    secret_attributes: tuple[str, ...]  # lowercased names of the members sent as attributes that are secrets
    naming: frozenset[str]  # element names of the members naming a value (`_paired`)
    values: frozenset[str]  # element names of the members holding it


_structures: weakref.WeakKeyDictionary[ModelSecrets, dict[str, _Structure]] = weakref.WeakKeyDictionary()


def _structure(secrets: ModelSecrets, shape: Shape) -> _Structure:
    """`shape`'s reading rules, kept as long as its model's secrets are (a shape's name is unique in its model)."""
    known = _structures.setdefault(secrets, {})
    found = known.get(shape.name)
    if found is None:
        members: dict[str, _Member] = {}
        attributes = []
        for name, member in shape.members.items():
            if member.serialization.get("location") or member.serialization.get("eventheader"):
                continue
            how = secrets.member(shape, name)
            if member.serialization.get("xmlAttribute"):
                if how:
                    attributes.append(name.lower())
                continue
            paging = how is None and bool(PAGING.fullmatch(name))
            flattened = member.type_name in ("list", "map") and bool(member.serialization.get("flattened"))
            leaf = how is None and not paging and member.type_name not in ("structure", "list", "map")
            members[_xml_key(name, member)] = _Member(member, how, paging, flattened, leaf)
        names, values = _paired(shape)
        found = known[shape.name] = _Structure(
            members,
            tuple(attributes),
            frozenset(_xml_key(k, shape.members[k]) for k in names),
            frozenset(_xml_key(v, shape.members[v]) for v in values),
        )
    return found


def _redact_xml(secrets: ModelSecrets, shape: Shape | None, body: bytes) -> bytes:
    """The answer as its elements were walked: the endpoint's bytes when nothing was blanked (and nothing in them
    parses otherwise than it reads: XML_REWRITTEN), else the tree written again."""
    if shape is None or not body.strip():
        return body
    try:
        root = ET.fromstring(body)
    except ET.ParseError:
        raise Unredactable("an answer that is not the XML its protocol says") from None
    wrapper = shape.serialization.get("resultWrapper")
    blanked = [False]
    walking = _BLANKED.set(blanked)
    try:
        if wrapper:
            for child in root:
                if _local(child.tag) == wrapper:
                    _xml(secrets, child, shape)
                elif _local(child.tag) not in XML_ENVELOPE:
                    _xml_unmodelled(child)
        else:
            _xml(secrets, root, shape)
    except RecursionError:
        raise Unredactable("an answer nested deeper than the gateway reads") from None
    finally:
        _BLANKED.reset(walking)
    if not blanked[0] and XML_REWRITTEN not in body:
        return body
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


def _blanking() -> None:
    """The XML answer being walked loses something: it is written again, not relayed as it came (`_redact_xml`)."""
    blanked = _BLANKED.get()
    if blanked is not None:
        blanked[0] = True


def _xml_unmodelled(element: ET.Element) -> None:
    _blanking()
    for child in list(element):
        element.remove(child)
    element.attrib.clear()
    element.text = MARKER


def _xml_text(element: ET.Element) -> None:
    """A leaf: its text kept unless it looks like a credential; elements under a leaf are none of the model's."""
    if len(element):
        _xml_unmodelled(element)
    elif element.text:
        kept = scrub(element.text)
        if kept is not element.text:
            _blanking()
            element.text = kept


def _xml(secrets: ModelSecrets, element: ET.Element, shape: Shape) -> None:
    kind = shape.type_name
    if kind == "structure":
        _xml_structure(secrets, element, shape)
    elif kind == "list":
        for item in element:
            _xml(secrets, item, shape.member)
    elif kind == "map":
        _xml_map(secrets, list(element), shape)
    else:
        _xml_text(element)


def _xml_structure(secrets: ModelSecrets, element: ET.Element, shape: Shape) -> None:
    """A structure's elements each as its member's shape says (an unknown one blanked), then its paired value."""
    structure = _structure(secrets, shape)
    if structure.secret_attributes and element.attrib:
        for attribute in [a for a in element.attrib if _local(a).lower() in structure.secret_attributes]:
            _blanking()
            element.attrib[attribute] = MARKER
    for node in list(element):
        tag = _local(node.tag)
        found = structure.members.get(tag)
        if found is not None and found.leaf:
            _xml_text(node)  # as `_xml_member` reads it, two calls sooner
        elif found is not None:
            _xml_member(secrets, node, found)
        elif tag not in XML_ENVELOPE:
            _xml_unmodelled(node)  # an element the model does not know: nothing says it is safe
    _xml_pair(element, structure)


def _xml_member(secrets: ModelSecrets, node: ET.Element, rules: _Member) -> None:
    """One member's element: a bag with its secret entries blanked, a secret blanked, the rest walked."""
    member, how, flattened = rules.shape, rules.secret, rules.flattened
    if rules.paging:
        return  # where the next page starts
    if how in (Secret.KEYED, Secret.VARIABLES):
        _xml_keyed(node, member, _entry(how), flattened=flattened)
        _xml(secrets, node, member.member if flattened and member.type_name == "list" else member)
    elif how:
        _xml_blank(node, member, flattened=flattened)
    elif flattened and member.type_name == "list":
        _xml(secrets, node, member.member)
    elif flattened:
        _xml_map(secrets, [node], member)
    else:
        _xml(secrets, node, member)


def _xml_pair(element: ET.Element, structure: _Structure) -> None:
    """A structure naming a value (`_paired`): the value blanked when flagged secret or when its name says so."""
    if not structure.values:
        return
    named = [n.text or "" for n in element if _local(n.tag) in structure.naming]
    flagged = any(_local(n.tag).lower() in SECRET_FLAGS and (n.text or "").strip() == "true" for n in element)
    for node in [n for n in element if _local(n.tag) in structure.values]:
        if flagged or any(secret_entry(name, node.text or "") for name in named):
            _xml_unmodelled(node)


def _xml_map(secrets: ModelSecrets, entries: list[ET.Element], shape: Shape) -> None:
    """A map's entries: a value under a credential-named key blanked, the others walked as the model says."""
    key_name = shape.key.serialization.get("name") or "key"
    value_name = shape.value.serialization.get("name") or "value"
    for entry in entries:
        keys = [part.text or "" for part in entry if _local(part.tag) == key_name]
        for part in entry:
            tag = _local(part.tag)
            if tag == key_name:
                continue
            if tag != value_name:
                _xml_unmodelled(part)
            elif any(secret_entry(key, part.text or "") for key in keys or [""]):
                _xml_blank(part, shape.value)
            else:
                _xml(secrets, part, shape.value)


def _xml_blank(element: ET.Element, shape: Shape, *, flattened: bool = False) -> None:
    """Blank the text of `element` as a value of `shape` (a flattened list's element is one item)."""
    if shape.type_name in ("string", "blob"):
        _blanking()
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


def _xml_keyed(
    element: ET.Element,
    shape: Shape,
    entry: Callable[[object, object], bool] = secret_entry,
    *,
    flattened: bool = False,
) -> None:
    """A bag (a map, or a list of {name, value}) with its secret entries' values blanked (`entry`)."""
    if shape.type_name == "map":
        key_name = shape.key.serialization.get("name") or "key"
        value_name = shape.value.serialization.get("name") or "value"
        entries, names = [element] if flattened else list(element), frozenset({key_name})
    elif shape.type_name == "list":
        entries, names, value_name = [element] if flattened else list(element), NAME_NAMES, "value"
    else:
        return
    for pair in entries:
        keys = [part.text or "" for part in pair if _local(part.tag).lower() in names]
        for part in [p for p in pair if _local(p.tag).lower() == value_name.lower()]:
            if any(entry(key, part.text or "") for key in keys or [""]):
                _blanking()
                for child in list(part):
                    part.remove(child)
                part.text = MARKER
