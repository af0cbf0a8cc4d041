"""A stand-in for AWS that costs the machine almost nothing: a loopback HTTP server (uvicorn, h11, connections kept
alive) that answers each request with the answer moto gave the same request (`python -m bench.service --aws replay`).

It starts recording: every request is sent on to moto and its answer kept, under the request's key (its service,
region and caller's access key from the signature's scope, its method, path, query, `X-Amz-Target` and parameters;
not the signature, its date or the request's other headers). `POST /_stand-in/replay` ends the recording: from then
on moto is not asked, and a request never recorded gets a 400 shaped as its service's errors (code `NotRecorded`),
never another request's answer. In production AWS answers on its own machines: replay leaves on the bench's cores
what is the service's (and the load's), which moto's ~9 ms per evaluation otherwise shares.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import uuid
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl

from harness.sandbox.faults import error_body

CONTROL_PATH = "/_stand-in/replay"
ERROR_CODE = "NotRecorded"
KEEP_ALIVE_S = 75  # AWS keeps an idle connection about a minute: the clients' pools reuse theirs as they would there
SCOPE = re.compile(r"Credential=([^/,\s]+)/[^/]+/([^/]+)/([^/]+)/aws4_request")
SIGNING_QUERY = frozenset(
    {"x-amz-algorithm", "x-amz-credential", "x-amz-date", "x-amz-expires", "x-amz-signature", "x-amz-signedheaders"}
)
DROPPED_ANSWER_HEADERS = frozenset(
    {"connection", "keep-alive", "transfer-encoding", "content-length", "content-encoding", "date", "server"}
)

Key = tuple[Any, ...]


@dataclass(frozen=True)
class Answer:
    """What moto answered: its status, headers (less the connection's and the date) and body."""

    status: int
    headers: list[tuple[bytes, bytes]]
    body: bytes


def request_key(method: str, path: str, query: bytes, headers: dict[str, str], body: bytes) -> Key:
    """What makes two requests the same question: who asks which service in which region (the signature's scope),
    the method, path, query and operation, and the parameters, each body read as its protocol writes it (form
    fields and JSON in any order); not the signature, its date, the session token or other headers."""
    scope = SCOPE.search(headers.get("authorization", ""))
    pairs = parse_qsl(query.decode("latin-1"), keep_blank_values=True)
    if scope is None:  # signed in the query (a presigned URL)
        credential = dict(pairs).get("X-Amz-Credential", "").split("/")
        scope_parts = (credential[0], *credential[2:4]) if len(credential) >= 4 else ("", "", "")
    else:
        scope_parts = scope.groups()
    access_key, region, service = scope_parts
    query_key = tuple(sorted((k, v) for k, v in pairs if k.lower() not in SIGNING_QUERY))
    operation = headers.get("x-amz-target", "")
    return (service, region, access_key, method, path, query_key, operation, _params(headers, body))


def _params(headers: dict[str, str], body: bytes) -> Any:
    kind = headers.get("content-type", "")
    if kind.startswith("application/x-www-form-urlencoded"):
        return tuple(sorted(parse_qsl(body.decode("utf-8"), keep_blank_values=True)))
    if "json" in kind and body:
        try:
            return json.dumps(json.loads(body), sort_keys=True)
        except ValueError:
            return body
    return body


def not_recorded(key: Key, headers: dict[str, str], body: bytes) -> Answer:
    """A 400 in the shape the request's service answers errors in (`faults.error_body`: JSON for a JSON protocol,
    EC2's XML for EC2, the query protocol's `ErrorResponse` otherwise), naming the operation, so that a bench asking
    what was not recorded fails saying so."""
    service, region = key[0] or "an unknown service", key[1]
    action = headers.get("x-amz-target") or dict(parse_qsl(body.decode("utf-8", "replace"))).get("Action", "")
    message = (
        f"the replaying stand-in has no answer recorded for {service} {action or key[4]} in {region or '?'} with "
        "these parameters: it answers only what moto answered while it recorded"
    )
    if headers.get("x-amz-target") or "json" in headers.get("content-type", ""):
        protocol = "json"
    else:
        protocol = "ec2" if service == "ec2" else "query"
    document, kind = error_body(protocol, ERROR_CODE, message)
    request_id = str(uuid.uuid4()).encode()
    return Answer(400, [(b"content-type", kind.encode()), (b"x-amzn-requestid", request_id)], document)


class StandIn:
    """The ASGI app: records moto's answers, then replays them (`CONTROL_PATH` switches, and says how many)."""

    def __init__(self, upstream: str) -> None:
        self.upstream = upstream.rstrip("/")
        self.recorded: dict[Key, Answer] = {}
        self.replaying = False
        self._client: Any = None

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        if scope["path"] == CONTROL_PATH:
            answer = self.control(scope["method"])
        else:
            key = request_key(scope["method"], scope["path"], scope["query_string"], headers, body)
            if self.replaying:
                answer = self.recorded.get(key) or not_recorded(key, headers, body)
            else:
                answer = self.recorded[key] = await self.ask_moto(scope, headers, body)
        answer_headers = [*answer.headers, (b"content-length", str(len(answer.body)).encode())]
        await send({"type": "http.response.start", "status": answer.status, "headers": answer_headers})
        await send({"type": "http.response.body", "body": answer.body})

    def control(self, method: str) -> Answer:
        """POST: replay from now on; either way, the mode and how many answers are recorded."""
        if method == "POST":
            self.replaying = True
        said = {"mode": "replaying" if self.replaying else "recording", "recorded": len(self.recorded)}
        return Answer(200, [(b"content-type", b"application/json")], json.dumps(said).encode())

    async def ask_moto(self, scope: dict[str, Any], headers: dict[str, str], body: bytes) -> Answer:
        import httpx

        if self._client is None:
            self._client = httpx.AsyncClient(base_url=self.upstream, timeout=60)
        query = scope["query_string"].decode("latin-1")
        url = scope["path"] + (f"?{query}" if query else "")
        sent = {k: v for k, v in headers.items() if k not in ("host", "connection", "content-length")}
        response = await self._client.request(scope["method"], url, headers=sent, content=body)
        kept = [
            (k.encode("latin-1"), v.encode("latin-1"))
            for k, v in response.headers.items()
            if k.lower() not in DROPPED_ANSWER_HEADERS
        ]
        return Answer(response.status_code, kept, response.content)


def start(upstream: str, env: dict[str, str] | None = None) -> tuple[subprocess.Popen[bytes], str]:
    """The stand-in in a process of its own on a free loopback port, recording from `upstream`; it and its URL."""
    from bench.common import free_port, wait_for

    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "bench.replay", "--upstream", upstream, "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    url = f"http://127.0.0.1:{port}"
    wait_for(url + CONTROL_PATH, "the replaying stand-in")
    return process, url


def replay(url: str) -> int:
    """End the stand-in's recording: from now on it only replays; how many answers it holds."""
    import httpx

    return int(httpx.post(url + CONTROL_PATH, timeout=30).json()["recorded"])


def main() -> int:
    import argparse

    import uvicorn

    parser = argparse.ArgumentParser(prog="python -m bench.replay", description=__doc__)
    parser.add_argument("--upstream", required=True, help="moto's URL, asked while recording")
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    uvicorn.run(
        StandIn(args.upstream),
        host="127.0.0.1",
        port=args.port,
        http="h11",
        loop="asyncio",
        lifespan="off",
        access_log=False,
        log_level="warning",
        timeout_keep_alive=KEEP_ALIVE_S,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
