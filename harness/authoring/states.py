"""The moto states a playthrough copies: the process holding the state before a step, and its copies forked ahead."""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from concurrent.futures import Executor, Future
from dataclasses import dataclass, field

from harness.authoring.emulator import MotoState, Seat
from harness.core.contract import Answer, Handle


class StateTemplate:
    """The moto process holding the state before a step, and the copies its step will ask for: up to `spares`
    (one per lane) are forked ahead, serving nothing, by `making`, so that a lane's next copy is ready when it asks
    (a fork costs the template 10-20 ms). The step's solve takes the process itself (`take`), unless `closes` is
    False (the root, which only copies: its solve gets a copy); what is still owed then comes from a keeper forked
    first, closed once the last copy it owes is made."""

    def __init__(self, state: MotoState, copies: int, making: Executor, spares: int, *, closes: bool = True) -> None:
        self.state = state
        self.left = copies  # the solve's included
        self.closes = closes
        self.taken = False
        self._making = making
        self._ahead = spares
        self._spares: list[Future[MotoState]] = []
        self._forked: list[Future[MotoState]] = []  # every spare asked of `state` (a fork must not follow a take)
        self._lock = threading.Lock()
        with self._lock:
            self._top_up()

    def copy(self, seat: Seat, seed: int | None) -> MotoState:
        """A serving copy on `seat`: a spare put on it, else a fork; the last one owed closes the template."""
        with self._lock:
            self.left = max(self.left - 1, 0)
            spare = self._spares.pop(0) if self._spares else None
            if spare is None:
                copied = self.state.fork(seat, seed)  # under the lock: `take` cannot serve the state meanwhile
            self._top_up()
            last = self.closes and self.left == 0
        if spare is not None:
            copied = spare.result()
            copied.serve(seat, seed)
        if last:
            self.state.close()
        return copied

    def take(self, seat: Seat, seed: int | None) -> MotoState:
        """The state itself, serving on `seat`, for the solve (which acts on it and then hands its seat over: the
        same process is the next step's template, so no state is more than one fork from the root); the copies
        still owed are made from a keeper forked from it first, once every fork asked of it is done."""
        if not self.closes:
            return self.copy(seat, seed)
        with self._lock:
            self.left = max(self.left - 1, 0)
            self.taken = True
            taken, asked = self.state, self._forked
            if self.left:
                self.state = taken.fork()
                self._forked = []
                self._top_up()
        for spare in asked:  # copies of the state before the solve acts on it
            spare.result()
        taken.serve(seat, seed)
        return taken

    def settle(self, more: int) -> None:
        """`more` copies are still wanted in place of the one held back for them (closed when none are; spares
        forked beyond what is still owed are closed)."""
        with self._lock:
            self.left = max(self.left + more - 1, 0)
            surplus = self._spares[self.left :]
            del self._spares[self.left :]
            self._top_up()
            last = self.closes and self.left == 0
        for spare in surplus:
            spare.result().close()
        if last:
            self.state.close()

    def _top_up(self) -> None:
        """Fork spares ahead while fewer than `spares` are on the way and more forks are owed than are on the way
        (the solve's copy is no fork when it takes the state)."""
        owed = self.left - int(self.closes and not self.taken)
        while len(self._spares) < min(self._ahead, owed):
            spare = self._making.submit(self.state.fork)
            self._spares.append(spare)
            self._forked.append(spare)


@dataclass(frozen=True)
class StateBefore:
    """The state before a step: where to copy it from (None: the solve before it raised, there is none) and the
    handles resolved so far."""

    template: StateTemplate | None
    resolved: Mapping[str, Handle] = field(default_factory=dict)

    def then(
        self, template: StateTemplate | None, answer: Answer | None, own: Sequence[Handle] | None = None
    ) -> StateBefore:
        """The state before the next step, once the solve that left `template` answered `answer`: the handles it
        resolved itself (`own`: a reference solution's resources) if it says, else those of its answer."""
        resolved = dict(self.resolved)
        handles = own if own is not None else answer.resolved if answer is not None else ()
        resolved.update((handle.name, handle) for handle in handles)
        return StateBefore(template, resolved)
