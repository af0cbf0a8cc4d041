"""Which operation a raw AWS request is, read from botocore's own service models, never from the caller's word.

The gateway decides on this alone, so the reading is strict: a request that could be read two ways, or that
the service model does not describe, is refused rather than guessed. Every protocol botocore speaks is read:
JSON (`X-Amz-Target`), query and EC2 (`Action`), RPC v2 CBOR (`/service/S/operation/Op`), and REST (method,
URI template and the query keys the template requires).
"""

from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass
from functools import cache
from urllib.parse import parse_qsl

import botocore.loaders
from botocore.model import ServiceModel

from harness.sandbox.tap import RawRequest

FORM = "application/x-www-form-urlencoded"
QUERY_PROTOCOLS = ("query", "ec2")
REST_PROTOCOLS = ("rest-json", "rest-xml")
CBOR_PATH = re.compile(r"/service/[A-Za-z0-9_.-]+/operation/([A-Za-z0-9_]+)")
UNSENT_QUERY_KEY = "x-id"  # in S3's templates (`?x-id=GetObject`), never sent by botocore nor needed by S3
LABEL = re.compile(r"\{([^}]+?)(\+?)\}")


class Unidentified(Exception):
    """The request is not one operation of the service, as far as its model says: it is refused."""


@dataclass(frozen=True)
class Route:
    """One REST operation's method, URI template (as a regex) and the query keys it requires."""

    operation: str
    method: str
    pattern: re.Pattern[str]
    required_query: tuple[tuple[str, str | None], ...]
    specificity: tuple[int, int]

    def matches(self, request: RawRequest, query: dict[str, list[str]]) -> bool:
        if request.method != self.method or not self.pattern.fullmatch(request.path):
            return False
        return all(key in query and (value is None or value in query[key]) for key, value in self.required_query)


@cache
def _pristine_loader() -> botocore.loaders.Loader:
    """A loader of the gateway's own: botocore's S3 customizations rewrite the request URIs of the models that
    clients share (`/{Bucket}/{Key+}` becomes `/{Key+}`), so the process's shared loader cannot be read as sent."""
    return botocore.loaders.create_loader()


@cache
def service_model(service: str) -> ServiceModel:
    """The botocore model of `service`, as published (Unidentified for a name botocore does not know)."""
    loader = _pristine_loader()
    if service not in loader.list_available_services("service-2"):
        raise Unidentified(f"no AWS service named {service!r}")
    return ServiceModel(loader.load_service_model(service, "service-2"), service_name=service)


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
    )
    return Route(
        operation, http.get("method", "POST"), re.compile("".join(regex)), required, (literal_chars, len(required))
    )


@cache
def rest_routes(service: str) -> tuple[Route, ...]:
    """The REST routes of `service`, most specific first."""
    model = service_model(service)
    routes = [_route(model, name) for name in model.operation_names]
    return tuple(sorted(routes, key=lambda r: r.specificity, reverse=True))


def prepare(service: str) -> None:
    """Load what identifying `service`'s first request would: its model and, for a REST service, its routes."""
    with contextlib.suppress(Unidentified):
        if any(protocol.startswith("rest") for protocol in protocols(service_model(service))):
            rest_routes(service)


def identify(service: str, request: RawRequest) -> list[str]:
    """The operations `request` could be, the most likely first; Unidentified when it is none, or not one of them.

    More than one name comes back only for REST, where several templates can match one request: the caller must
    then treat the request as the least harmless of them.
    """
    model = service_model(service)
    accepted = protocols(model)
    target = request.headers.get("x-amz-target")
    action = _actions(request)
    if target is not None:
        if action or not {"json"} & set(accepted):
            raise Unidentified("X-Amz-Target on a request this service does not read as JSON")
        prefix, _, name = target.rpartition(".")
        if prefix != model.metadata.get("targetPrefix") or name not in model.operation_names:
            raise Unidentified(f"X-Amz-Target {target!r} is no operation of {service}")
        return [name]
    if request.headers.get("smithy-protocol") == "rpc-v2-cbor":
        match = CBOR_PATH.fullmatch(request.path)
        if action or "smithy-rpc-v2-cbor" not in accepted or not match or match.group(1) not in model.operation_names:
            raise Unidentified("an RPC v2 CBOR request this service does not describe")
        return [match.group(1)]
    if action:
        if len(action) != 1 or not set(QUERY_PROTOCOLS) & set(accepted):
            raise Unidentified("Action given more than once, or to a service that takes no Action")
        if action[0] not in model.operation_names:
            raise Unidentified(f"Action {action[0]!r} is no operation of {service}")
        return action
    if not set(REST_PROTOCOLS) & set(accepted):
        raise Unidentified(f"a request that names no operation of {service}")
    if any(segment in (".", "..") for segment in request.path.split("/")):
        raise Unidentified("a path with . or .. segments")
    query: dict[str, list[str]] = {}
    for key, value in request.query_pairs():
        query.setdefault(key, []).append(value)
    matched = [route for route in rest_routes(service) if route.matches(request, query)]
    if not matched:
        raise Unidentified(f"{request.method} {request.path} matches no operation of {service}")
    return [route.operation for route in matched]


def _actions(request: RawRequest) -> list[str]:
    """Every `Action` the request carries, in its query string or its form body."""
    found = [value for key, value in request.query_pairs() if key == "Action"]
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if request.body and content_type == FORM:
        found += [
            value for key, value in parse_qsl(request.body.decode("latin-1"), keep_blank_values=True) if key == "Action"
        ]
    return found
