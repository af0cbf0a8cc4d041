"""Which operation a raw AWS request is, read from botocore's own service models, never from the caller's word.

The gateway decides on this alone, so the reading is strict: a request that could be read two ways, or that
the service model does not describe, is refused rather than guessed. Every protocol botocore speaks is read:
JSON (`X-Amz-Target`), query and EC2 (`Action`), RPC v2 CBOR (`/service/S/operation/Op`), and REST (method,
URI template and the query keys the template requires). The body must be what the protocol sends, in the media
type it sends (a form for query and EC2, JSON for the JSON protocols, no body where the operation takes none),
uncompressed: a server reads a body by its own rules, so a body read otherwise here could carry another request.
"""

from __future__ import annotations

import contextlib
import json
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, unquote

from botocore.model import OperationModel, ServiceModel, Shape

from harness.core.readonly import refusal
from harness.sandbox import redact
from harness.sandbox.models import MODELS, LoadedService, UnknownService
from harness.sandbox.tap import RawRequest
from harness.sandbox.wire import QUERY, Malformed

FORM = "application/x-www-form-urlencoded"
JSON_TYPES = frozenset({"application/x-amz-json-1.0", "application/x-amz-json-1.1"})
CBOR = "application/cbor"
QUERY_PROTOCOLS = ("query", "ec2")
REST_PROTOCOLS = ("rest-json", "rest-xml")
CBOR_PATH = re.compile(r"/service/[A-Za-z0-9_.-]+/operation/([A-Za-z0-9_]+)")
UNSENT_QUERY_KEY = "x-id"  # in S3's templates (`?x-id=GetObject`), never sent by botocore nor needed by S3
LABEL = re.compile(r"\{([^}]+?)(\+?)\}")
LOCATED = frozenset({"uri", "querystring", "header", "headers", "statusCode"})
FALSE = frozenset({"false", "0", ""})
# The headers `identify` reads (with the method, path, query and body): the same values, the same reading.
IDENTIFYING_HEADERS = ("x-amz-target", "smithy-protocol", "content-type", "content-encoding")


class Unidentified(Exception):
    """The request is not one operation of the service, as far as its model says: it is refused."""


@dataclass(frozen=True)
class Identified:
    """What a request is: the operations it could be (the most likely first) and the protocol it speaks."""

    operations: tuple[str, ...]
    protocol: str


@dataclass(frozen=True)
class Route:
    """One REST operation's method, URI template (as a regex) and the query keys it requires."""

    operation: str
    method: str
    pattern: re.Pattern[str]
    required_query: tuple[tuple[str, str | None], ...]
    specificity: tuple[int, int]

    def matches(self, method: str, path: str, query: dict[str, list[str]]) -> bool:
        if method != self.method or not self.pattern.fullmatch(path):
            return False
        return all(key in query and (value is None or value in query[key]) for key, value in self.required_query)


def loaded(service: str) -> LoadedService:
    """`service`'s model and what is derived from it (Unidentified for a name botocore does not know): a service
    the labs name, shared (and made whole by the gateway: `complete`); another, the evaluation's own
    (harness/sandbox/models.py)."""
    try:
        return MODELS.get(service)
    except UnknownService as exc:
        raise Unidentified(str(exc)) from None


def complete(entry: LoadedService) -> None:
    """Derive now all the gateway derives from a shared model when a request needs it, so that no request leaves
    a trace in it (a later evaluation could time one): every operation's model, its REST route, the headers it
    forwards, whether it is a read, where its answer holds secrets and what it asks for."""
    model = entry.model
    if any(protocol.startswith("rest") for protocol in protocols(model)):
        _routes_of(entry)
    for name in model.operation_names:
        operation = model.operation_model(name)
        headers_of(entry, name)
        refusal(model.service_name, name, model)
        entry.secrets.in_output(name)
        entry.secrets.parameters(name)
        for protocol in protocols(model):
            redact.needed(entry.secrets, operation, protocol)
            redact.obstacle(entry.secrets, operation, protocol)
    entry.whole = True


def service_model(service: str) -> ServiceModel:
    """The botocore model of `service`, as published (Unidentified for a name botocore does not know)."""
    return loaded(service).model


def protocols(model: ServiceModel) -> tuple[str, ...]:
    """Every wire protocol the service accepts."""
    return tuple(model.metadata.get("protocols") or [model.metadata["protocol"]])


def _route(model: ServiceModel, operation: str) -> Route:
    http = model.operation_model(operation).http
    path, _, query = http.get("requestUri", "/").partition("?")
    regex, literal_chars, last = [], 0, 0
    for label in LABEL.finditer(path):
        literal = path[last : label.start()]
        regex.append(re.escape(literal))
        literal_chars += len(literal)
        regex.append(".+" if label.group(2) else "[^/]+")
        last = label.end()
    regex.append(re.escape(path[last:]))
    literal_chars += len(path) - last
    required = tuple(
        (key, None if not sep else value)
        for key, sep, value in (item.partition("=") for item in query.split("&") if item)
        if key != UNSENT_QUERY_KEY
    ) + _required_query_members(model.operation_model(operation))
    return Route(
        operation, http.get("method", "POST"), re.compile("".join(regex)), required, (literal_chars, len(required))
    )


def _required_query_members(operation: OperationModel) -> tuple[tuple[str, None], ...]:
    """The query keys of the members the operation cannot be made without (S3's `uploadId`): a request without one
    is no reading of it (`CompleteMultipartUpload` is no reading of `SelectObjectContent`'s `?select`), since no
    endpoint can do it without its key; any value."""
    shape = operation.input_shape
    if shape is None:
        return ()
    return tuple(
        (str(member.serialization.get("name", name)), None)
        for name, member in shape.members.items()
        if name in shape.required_members
        and member.serialization.get("location") == "querystring"
        and member.type_name not in ("list", "map")  # botocore leaves an empty one out
    )


def rest_routes(service: str) -> tuple[Route, ...]:
    """The REST routes of `service`, most specific first (kept with its model)."""
    return _routes_of(loaded(service))


def _routes_of(entry: LoadedService) -> tuple[Route, ...]:
    with entry.lock:
        routes = entry.derived.get("routes")
        if routes is None:
            model = entry.model
            made = [_route(model, name) for name in model.operation_names]
            routes = entry.derived["routes"] = tuple(sorted(made, key=lambda r: r.specificity, reverse=True))
    return routes  # type: ignore[return-value]


def headers_of(entry: LoadedService, operation: str) -> tuple[frozenset[str], tuple[str, ...]]:
    """The header names, and header-name prefixes, `operation`'s input takes (kept with the model)."""
    key = f"headers:{operation}"
    with entry.lock:
        found = entry.derived.get(key)
        if found is None:
            shape = entry.model.operation_model(operation).input_shape
            members = shape.members.values() if shape is not None else []
            located = [(m.serialization.get("location"), str(m.serialization.get("name", "")).lower()) for m in members]
            exact = frozenset(name for where, name in located if where == "header" and name)
            prefixed = tuple(name for where, name in located if where == "headers" and name)
            found = entry.derived[key] = (exact, prefixed)
    return found  # type: ignore[return-value]


def prepare(service: str) -> None:
    """Load what identifying, forwarding and answering `service`'s requests needs, all of it (`complete`)."""
    with contextlib.suppress(Unidentified):
        complete(loaded(service))


def identify(service: str, request: RawRequest) -> Identified:
    """What `request` is; Unidentified when it is no operation, or not one of them; Malformed when its body is not
    what its protocol sends.

    More than one operation comes back only for REST, where several templates can match one request: the caller
    must then treat the request as the least harmless of them.
    """
    model = service_model(service)
    accepted = protocols(model)
    if request.headers.get("content-encoding"):
        raise Malformed(400, "a compressed request body: reads are sent as they are")
    target = request.headers.get("x-amz-target")
    smithy = request.headers.get("smithy-protocol")
    action = _actions(request)
    if target is not None:
        if action or smithy is not None or "json" not in accepted:
            raise Unidentified("X-Amz-Target on a request this service does not read as JSON")
        return _identify_json(service, model, request, target)
    if smithy is not None:
        if smithy != "rpc-v2-cbor" or action or "smithy-rpc-v2-cbor" not in accepted:
            raise Unidentified("an RPC v2 CBOR request this service does not describe")
        return _identify_rpc_v2_cbor(model, request)
    if action:
        return _identify_query(service, model, accepted, request, action)
    return _identify_rest(service, model, accepted, request)


def _identify_json(service: str, model: ServiceModel, request: RawRequest, target: str) -> Identified:
    """A JSON request: the operation its `X-Amz-Target` names, sent as a JSON object to its route."""
    prefix, _, name = target.rpartition(".")
    if prefix != model.metadata.get("targetPrefix") or name not in model.operation_names:
        raise Unidentified(f"X-Amz-Target {target!r} is no operation of {service}")
    _json_body(request, JSON_TYPES)
    _at_its_route(request, model.operation_model(name))
    return Identified((name,), "json")


def _identify_rpc_v2_cbor(model: ServiceModel, request: RawRequest) -> Identified:
    """A Smithy RPC v2 CBOR request: the operation its path names, POSTed with a CBOR body (or none)."""
    match = CBOR_PATH.fullmatch(request.path)
    if not match or match.group(1) not in model.operation_names:
        raise Unidentified("an RPC v2 CBOR request this service does not describe")
    if request.body and _media_type(request) != CBOR:
        raise Malformed(400, f"an RPC v2 CBOR body sent as {_media_type(request)!r}")
    if request.method != "POST":
        raise Unidentified(f"an RPC v2 CBOR request sent as {request.method}: it is a POST")
    return Identified((match.group(1),), "smithy-rpc-v2-cbor")


def _identify_query(
    service: str, model: ServiceModel, accepted: tuple[str, ...], request: RawRequest, action: list[str]
) -> Identified:
    """A query (or EC2) request: the one operation its `Action` names, with a form body (or none), at its route."""
    protocol = next((p for p in QUERY_PROTOCOLS if p in accepted), None)
    if len(action) != 1 or protocol is None:
        raise Unidentified("Action given more than once, or to a service that takes no Action")
    if action[0] not in model.operation_names:
        raise Unidentified(f"Action {action[0]!r} is no operation of {service}")
    if request.body and _media_type(request) != FORM:
        raise Malformed(400, f"a body sent as {_media_type(request)!r} beside an Action: a form is what is read")
    _at_its_route(request, model.operation_model(action[0]))
    return Identified((action[0],), protocol)


def _identify_rest(service: str, model: ServiceModel, accepted: tuple[str, ...], request: RawRequest) -> Identified:
    """A REST request: every operation whose route its method, path and query match, each reading of its body
    judged (Malformed only when none takes it)."""
    protocol = next((p for p in REST_PROTOCOLS if p in accepted), None)
    if protocol is None:
        raise Unidentified(f"a request that names no operation of {service}")
    # An endpoint may route on the path decoded (`%2F` a slash, `%74ags` "tags"): the request is every operation
    # either reading of its path matches, and the caller treats it as the least harmless of them.
    paths = dict.fromkeys((request.path, unquote(request.path)))
    if any(segment in (".", "..") for path in paths for segment in path.split("/")):
        raise Unidentified("a path with . or .. segments")
    query: dict[str, list[str]] = {}
    for key, value in request.query_pairs():
        query.setdefault(key, []).append(value)
    matched = tuple(
        route.operation
        for route in rest_routes(service)
        if any(route.matches(request.method, path, query) for path in paths)
    )
    if not matched:
        raise Unidentified(f"{request.method} {request.path} matches no operation of {service}")
    problems = [_rest_body(request, model.operation_model(name), protocol) for name in matched]
    if all(problems):  # a body none of its readings takes (each is judged as a reading all the same)
        raise Malformed(400, str(problems[0]))
    return Identified(matched, protocol)


def _at_its_route(request: RawRequest, operation: OperationModel) -> None:
    """An operation named by X-Amz-Target or Action is sent as its model says (`POST /`): a server routes on the
    method and path first (an emulator's own API lives at a path), so any other is no reading of it."""
    http = operation.http
    method, path = http.get("method", "POST"), http.get("requestUri", "/").split("?", 1)[0]
    if request.method != method or request.path != path:
        raise Unidentified(f"{operation.name} is sent as {method} {path}, not {request.method} {request.path[:80]}")


def secret_asked(service: str, identified: Identified, request: RawRequest) -> str | None:
    """The parameter of `request` that asks for secrets in the answer (`WithDecryption`, `includeValues`, ...) set
    to anything but false, as `Operation.Parameter`; None when it asks for none."""
    entry = loaded(service)
    for name in identified.operations:
        for member_name, member in entry.secrets.parameters(name):
            if _asked(request, identified.protocol, member_name, member):
                return f"{name}.{member_name}"
    return None


def _asked(request: RawRequest, protocol: str, name: str, member: Shape) -> bool:
    """Whether the request sets this parameter, in any place and spelling a server might read it from."""
    names = {name.lower(), str(member.serialization.get("name", name)).lower()}
    names.add(str(member.serialization.get("queryName", name)).lower())
    if protocol == "smithy-rpc-v2-cbor":
        return bool(request.body)  # not read here: a CBOR request that could ask is refused
    values: list[Any] = [v for k, v in request.query_pairs() if k.lower() in names]
    values += [v for k, v in request.headers.items() if k in names]
    if protocol in QUERY_PROTOCOLS and request.body:
        values += [v for k, v in parse_qsl(request.body.decode("ascii"), keep_blank_values=True) if k.lower() in names]
    elif request.body and protocol in ("json", "rest-json"):
        document = json.loads(request.body)  # checked whole by identify()
        if isinstance(document, dict):
            values += [v for k, v in document.items() if k.lower() in names]
    elif request.body:
        return any(n.encode() in request.body.lower() for n in names)
    return any(value is not None and value is not False and str(value).lower() not in FALSE for value in values)


def _media_type(request: RawRequest) -> str:
    return request.headers.get("content-type", "").split(";")[0].strip().lower()


def _actions(request: RawRequest) -> list[str]:
    """Every `Action` the request carries, in its query string or its form body (held to the form's characters)."""
    found = [value for key, value in request.query_pairs() if key == "Action"]
    if request.body and _media_type(request) == FORM:
        try:
            text = request.body.decode("ascii")
        except UnicodeDecodeError:
            raise Malformed(400, "a form body that is not ASCII") from None
        if not QUERY.fullmatch(text):
            raise Malformed(400, "a form body with characters botocore does not write")
        found += [value for key, value in parse_qsl(text, keep_blank_values=True) if key == "Action"]
    elif request.body and _reads_as_action_form(request.body):
        # a server may read any body as a form when the URL has no query (moto does): an `Action` in a body of
        # another type (`{"z": "&Action=CreateQueue&"}` beside a read's X-Amz-Target) is a second operation
        raise Malformed(400, f"a {_media_type(request)!r} body that also reads as a form naming an Action")
    return found


def _reads_as_action_form(body: bytes) -> bool:
    """Whether `body`, read as a form whatever it says it is, names an `Action` (in any case)."""
    text = body.decode("latin-1")
    if "action" not in text.lower():
        return False
    return any(key.strip().lower() == "action" for key, _ in parse_qsl(text, keep_blank_values=True))


def _json_body(request: RawRequest, types: frozenset[str] | None) -> None:
    """A JSON object, in one of `types` (None: as the operation's model lets the caller say), with no name twice (a
    server may keep either of two)."""
    if types is not None and _media_type(request) not in types:
        raise Malformed(400, f"a JSON request sent as {_media_type(request)!r}")
    if not request.body:
        return
    try:
        document = json.loads(request.body, object_pairs_hook=_unique, parse_constant=_no_constant)
    except (ValueError, RecursionError) as exc:
        raise Malformed(400, f"a JSON body that does not parse: {str(exc)[:120]}") from None
    if not isinstance(document, dict):
        raise Malformed(400, "a JSON body that is not an object")


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    names = [name for name, _ in pairs]
    if len(set(names)) != len(names):
        raise ValueError("a name given twice in one object")
    return dict(pairs)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _rest_body(request: RawRequest, operation: OperationModel, protocol: str) -> Malformed | None:
    """Why the request's body is not one botocore sends for `operation` (none where it takes none, its payload as
    it is, else JSON for rest-json or XML for rest-xml), or None."""
    shape = operation.input_shape
    members = shape.members if shape is not None else {}
    payload = shape.serialization.get("payload") if shape is not None else None
    if not request.body:
        return None
    if payload is not None and members[payload].type_name in ("blob", "string"):
        return None  # a raw payload: any bytes, in any media type
    if payload is None and not any(m.serialization.get("location") not in LOCATED for m in members.values()):
        return Malformed(400, f"a body on {operation.name}, which takes none")
    modelled_type = any(
        m.serialization.get("location") == "header" and str(m.serialization.get("name", "")).lower() == "content-type"
        for m in members.values()
    )
    try:
        if protocol == "rest-json":
            _json_body(request, None if modelled_type else frozenset({"application/json", *JSON_TYPES}))
        elif _media_type(request) and "xml" not in _media_type(request) and not modelled_type:
            raise Malformed(400, f"an XML request sent as {_media_type(request)!r}")
    except Malformed as problem:
        return problem
    return None
