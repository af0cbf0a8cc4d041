"""The gateway's tap: what it consults for each allowed request of an evaluation that has one (record or replay).

Owned by the gateway, the side that calls it; the store implements it (harness/store/recording.py) and the
gateway never imports the store.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol
from urllib.parse import parse_qsl

MAX_RECORDED_BODY_BYTES = 256 * 1024  # what the gateway keeps of a response body for `observe`


@dataclass(frozen=True)
class RawRequest:
    """An HTTP request in the form the gateway read it (harness/sandbox/wire.py: its target checked, its headers
    each given once, lower-case), its path relative to the service's endpoint once the gateway has split it; what
    goes upstream is built from this form."""

    method: str
    path: str
    query: str
    headers: dict[str, str]  # lower-case names
    body: bytes

    def query_pairs(self) -> list[tuple[str, str]]:
        return parse_qsl(self.query, keep_blank_values=True)


@dataclass(frozen=True)
class Canned:
    """A response the gateway sends without going upstream (a replayed answer)."""

    status: int
    headers: list[tuple[str, str]]
    body: bytes


@dataclass(frozen=True)
class Exchange:
    """One allowed request and the response the endpoint gave, as the gateway saw them (body capped)."""

    service: str
    region: str
    operation: str
    request: RawRequest
    status: int
    headers: list[tuple[str, str]]
    body: bytes
    truncated: bool


class Tap(Protocol):
    """What the gateway consults for each allowed request when an evaluation has one (record or replay)."""

    def answer(self, service: str, region: str, operation: str, request: RawRequest) -> Canned | None:
        """A canned response (replay), or None to go upstream."""

    def observe(self, exchange: Exchange) -> None:
        """The exchange as it went (recording)."""

    @property
    def wants_body(self) -> bool:
        """Whether the gateway should keep the response body for `observe`."""
