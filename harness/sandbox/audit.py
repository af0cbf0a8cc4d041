"""One evaluation at the gateway: its account, its log of operations (bounded), the services it calls (bounded),
and the requests being forwarded for it, so that none is missing from the log when the evaluation ends.

The log keeps the first MAX_LOGGED operations and counts the rest (a refusal among them still makes the evaluation
an error). At the end, requests still being forwarded are waited for (at most the caller's timeout) and those still
going are cut (their upstream connections shut down, so the threads forwarding them end) and logged as cut off at
the answer; from then on no request of it is forwarded. At most MAX_IN_FLIGHT of its requests are forwarded at once.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field

from harness.core.account import Account
from harness.core.contract import Operation
from harness.sandbox.cut import Carrier
from harness.sandbox.models import ModelScope
from harness.sandbox.owner import Owner
from harness.sandbox.tap import Tap
from harness.sandbox.upstream import Upstream

MAX_IN_FLIGHT = 16  # requests one evaluation may have forwarded at once; past it, answered "slow down"
MAX_LOGGED = 1000  # operations one evaluation's log keeps; the rest are counted
MAX_SERVICES = 24  # distinct services one evaluation may call (each may be a model to read)
MAX_ENDPOINTS = 64  # distinct (service, region) pairs it may call (each may be an endpoint to resolve)
CUT_OFF = "cut off at the answer: still being forwarded when the evaluation ended"


class TooManyServices(Exception):
    """The evaluation called more than MAX_SERVICES services."""


@dataclass
class Flight:
    """A request being forwarded: what it is, once known, for the log if the evaluation ends first, and the
    upstream connections carrying it, cut if it does (harness/sandbox/cut.py)."""

    started: float
    service: str = "?"
    operation: str = "(unread)"
    over_cap: bool = False  # past MAX_IN_FLIGHT: not forwarded
    carriers: list[Carrier] = field(default_factory=list)

    def carried_by(self, carrier: Carrier) -> None:
        self.carriers.append(carrier)

    def cut(self) -> None:
        """Shut down the upstream connections still carrying this request: its forwarding thread ends now."""
        for carrier in list(self.carriers):
            carrier.cut(self)


@dataclass
class Evaluation:
    """One evaluation's account and its log of operations, keyed by its token."""

    sandbox: Account
    operations: list[Operation] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    tap: Tap | None = None  # recording (keeps each exchange) or replay (answers from a recording)
    in_flight: dict[int, Flight] = field(default_factory=dict)  # the requests being forwarded, by id
    idle: threading.Condition = field(default_factory=threading.Condition)
    endpoints: set[tuple[str, str]] = field(default_factory=set)
    unlogged: Counter[str] = field(default_factory=Counter)  # operations past MAX_LOGGED, by outcome
    closing: bool = False  # ending: no request is forwarded any more
    over: bool = False  # ended: nothing more is logged
    owner: Owner = field(default_factory=Owner)  # the sandbox account's id and buckets, learned when first needed
    models: ModelScope = field(default_factory=ModelScope)  # the models it reads that no lab names: its own
    upstreams: dict[tuple[str, str], Upstream] = field(default_factory=dict)  # AWS endpoints only it asked for
    blanking: threading.RLock = field(default_factory=threading.RLock)  # its answers blanked one at a time

    def record(self, operation: Operation) -> None:
        with self.lock:
            if self.over:
                return
            if len(self.operations) < MAX_LOGGED:
                self.operations.append(operation)
            else:
                self.unlogged[operation.refusal or "allowed"] += 1

    def uses(self, service: str, region: str) -> None:
        """Count a (service, region) this evaluation calls; TooManyServices past MAX_SERVICES services or
        MAX_ENDPOINTS pairs."""
        with self.lock:
            if (service, region) in self.endpoints:
                return
            services = {known for known, _ in self.endpoints}
            if service not in services and len(services) >= MAX_SERVICES:
                raise TooManyServices(f"more than {MAX_SERVICES} services in one evaluation")
            if len(self.endpoints) >= MAX_ENDPOINTS:
                raise TooManyServices(f"more than {MAX_ENDPOINTS} (service, region) pairs in one evaluation")
            self.endpoints.add((service, region))

    @contextlib.contextmanager
    def forwarding(self) -> Iterator[Flight | None]:
        """A flight for one request while it is forwarded; None once the evaluation is ending (do not forward); one
        `over_cap` when MAX_IN_FLIGHT of its requests are being forwarded already (answer it "slow down")."""
        flight: Flight | None = None
        with self.idle:
            if not self.closing:
                flight = Flight(time.perf_counter(), over_cap=len(self.in_flight) >= MAX_IN_FLIGHT)
                if not flight.over_cap:
                    self.in_flight[id(flight)] = flight
        try:
            yield flight
        finally:
            if flight is not None and not flight.over_cap:
                with self.idle:
                    self.in_flight.pop(id(flight), None)
                    self.idle.notify_all()

    def end(self, timeout_s: float) -> None:
        """Forward nothing more; wait (at most `timeout_s`) for the requests still being forwarded, then cut those
        still going (their upstream connections shut down) and log them as cut off at the answer; nothing is
        logged after."""
        with self.idle:
            self.closing = True
            self.idle.wait_for(lambda: not self.in_flight, timeout_s)
            going = list(self.in_flight.values())
        now = time.perf_counter()
        for flight in going:
            ms = round((now - flight.started) * 1000, 3)
            cut = Operation(service=flight.service, operation=flight.operation, allowed=True, ms=ms, detail=CUT_OFF)
            self.record(cut)
        with self.lock:
            self.over = True
        for flight in going:  # after the log is closed: what a cut request fails with is not logged
            flight.cut()

    def log(self) -> list[Operation]:
        """The operations, in order, and one line for those past MAX_LOGGED (refused, if any of them was)."""
        with self.lock:
            found = list(self.operations)
            if self.unlogged:
                refused = [kind for kind in ("read_only", "bad_request") if self.unlogged[kind]]
                counts = ", ".join(f"{n} {outcome}" for outcome, n in sorted(self.unlogged.items()))
                found.append(
                    Operation(
                        service="*",
                        operation=f"(not logged: {sum(self.unlogged.values())} more requests)",
                        allowed=not refused,
                        status=(403 if "read_only" in refused else 400) if refused else None,
                        detail=f"past the log's {MAX_LOGGED} entries: {counts}",
                    )
                )
            return found
