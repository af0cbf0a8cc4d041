"""Rehearsals: in the template, one call of each read the expected labs' files name (sandbox/warming.py), answered
by a canned empty response instead of the gateway, so that botocore's lazy work for it (operation model, serializer,
endpoint rules, event handler lookups, parser) is done once, before the fork, and not again in every evaluation. The
answer comes through the link's own code (`GatewayHTTP`, http.client) on a socket pair, so theirs is done too.

A rehearsal holds nothing of anyone's: minimal made-up parameters, an empty answer, dummy keys; it sends nothing.
"""

from __future__ import annotations

import datetime
import logging
import socket
from typing import Any

from botocore import xform_name
from botocore.awsrequest import AWSPreparedRequest, AWSResponse
from botocore.model import OperationModel, Shape

from harness._compat.botocore import send_through
from harness.inside.link import GatewayConnection, GatewayLink

MAX_DEPTH = 6
log = logging.getLogger(__name__)


class Rehearsal:
    """botocore's http session interface, answering every request with an empty success for `operation`, read by
    the link's code from a socket pair that holds it (the request's bytes are left unread there)."""

    def __init__(self, operation: OperationModel) -> None:
        self._body = empty_answer(operation)
        self._sockets: list[socket.socket] = []

    def send(self, request: AWSPreparedRequest) -> AWSResponse:
        ours, theirs = socket.socketpair()
        self._sockets += [ours, theirs]
        theirs.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(self._body), self._body))
        link = GatewayLink()
        link.give_back(GatewayConnection(ours))
        return link.http().send(request)

    def close(self) -> None:
        for sock in self._sockets:
            sock.close()


def empty_answer(operation: OperationModel) -> bytes:
    """The smallest successful body botocore parses for `operation` in its service's protocol."""
    protocol = operation.service_model.protocol
    if protocol in ("json", "rest-json"):
        return b"{}"
    if protocol == "query":
        wrapper = operation.output_shape.serialization.get("resultWrapper") if operation.output_shape else None
        inner = f"<{wrapper}></{wrapper}>" if wrapper else ""
        return f"<{operation.name}Response>{inner}</{operation.name}Response>".encode()
    if protocol == "ec2":
        return f"<{operation.name}Response></{operation.name}Response>".encode()
    if protocol == "rest-xml":
        return f"<{operation.name}Output/>".encode()  # an empty document (some customizations parse the body)
    return b""  # smithy-rpc-v2-cbor: an empty body is an empty output


def minimal_input(shape: Shape | None, depth: int = 0) -> Any:
    """Made-up values for the required members only: what passes botocore's parameter validation."""
    if shape is None:
        return {}
    kind = shape.type_name
    if kind == "structure":
        if depth >= MAX_DEPTH:
            return {}
        return {name: minimal_input(shape.members[name], depth + 1) for name in shape.required_members}
    if kind == "list":
        return [minimal_input(shape.member, depth + 1)] if shape.metadata.get("min", 0) and depth < MAX_DEPTH else []
    if kind == "map":
        return {}
    if kind == "string":
        return shape.enum[0] if shape.enum else "x" * max(1, int(shape.metadata.get("min", 1)))
    if kind in ("integer", "long"):
        return max(1, int(shape.metadata.get("min", 1)))
    if kind in ("float", "double"):
        return 1.0
    if kind == "boolean":
        return False
    if kind == "blob":
        return b"x"
    if kind == "timestamp":
        return datetime.datetime(2020, 1, 1, tzinfo=datetime.UTC)
    return None


def resolve_shapes(shape: Shape | None, depth: int = 0) -> None:
    """Every shape an answer of `shape` may hold, resolved now as botocore's parser resolves them (each structure's
    members, a list's member, a map's key and value, each one's serialization), down to MAX_DEPTH: an empty answer
    leaves them unresolved, and every evaluation whose answer holds items would resolve them again."""
    if shape is None or depth > MAX_DEPTH:
        return
    shape.serialization, shape.metadata  # noqa: B018  (cached on first use)
    kind = shape.type_name
    if kind == "structure":
        for member in shape.members.values():
            resolve_shapes(member, depth + 1)
    elif kind == "list":
        resolve_shapes(shape.member, depth + 1)
    elif kind == "map":
        resolve_shapes(shape.key, depth + 1)
        resolve_shapes(shape.value, depth + 1)


def rehearse(client: Any, operation_name: str) -> bool:
    """One call of `operation_name` on `client`, answered in-process; whether it went the whole way (a failure
    only means a colder first call in the evaluations)."""
    model = client.meta.service_model
    if operation_name not in model.operation_names:
        return False
    operation = model.operation_model(operation_name)
    if operation.has_event_stream_output:  # a stream of events: no empty answer to give
        return False
    resolve_shapes(operation.output_shape)
    rehearsal = Rehearsal(operation)
    sending = send_through(client, rehearsal)
    try:
        getattr(client, xform_name(operation_name))(**minimal_input(operation.input_shape))
    except Exception as exc:  # a made-up parameter the service's rules reject: the rehearsal is only shorter
        log.debug("rehearsal of %s:%s stopped early: %s", model.service_name, operation_name, exc)
        return False
    finally:
        send_through(client, sending)
        rehearsal.close()
    return True
