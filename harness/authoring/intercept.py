"""Watch the write calls a scenario's action makes, and change one of them: the machinery behind mutants.

`Interceptor(plan)` wraps the session an action is given: every client it makes reports its calls here (reads
pass untouched). With no plan it only records; with a `Mutant` it changes, at the mutant's call, what the mutant
changed in the solve's parameters (the rest stays as this play of the action chose it: a solution that names
what it creates at random gives other names each time), or answers that call with the solve's response (as
parsed) without sending it.
"""

from __future__ import annotations

import copy
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from harness.authoring.events import events_for
from harness.authoring.mutants import Call, Mutant
from harness.core.readonly import is_read

_active = threading.local()
WATCHED = "_stepeval_intercepted"


class _Sent:
    """Stands in for the HTTP response of a call answered without being sent (botocore reads `status_code`)."""

    status_code = 200
    headers: dict[str, str] = {}  # noqa: RUF012 - read-only stand-in
    content = b""


class Interceptor:
    """The write calls made while active (`calls`), with the plan's change applied to its call."""

    def __init__(self, plan: Mutant | None = None) -> None:
        self.plan = plan
        self.calls: list[Call] = []
        self._made: dict[tuple[str, str], None] = {}  # (type, id) of what the calls made, in order, each once
        self._counts: Counter[str] = Counter()
        self._pending: dict[str, Any] | None = None

    @property
    def created(self) -> dict[str, str]:
        """id -> type of what the calls made, as the recorder's events say it (the last event of an id wins)."""
        return {resource_id: resource_type for resource_type, resource_id in self._made}

    @contextmanager
    def active(self) -> Iterator[Interceptor]:
        """Report this thread's calls (on watched clients) here while inside."""
        previous = getattr(_active, "interceptor", None)
        _active.interceptor = self
        try:
            yield self
        finally:
            _active.interceptor = previous

    def session(self, session: Any) -> WatchedSession:
        """`session`, with every client it hands out watched."""
        return WatchedSession(session)

    def _before_parameters(self, params: dict[str, Any], model: Any, context: dict[str, Any], **_: Any) -> None:
        if is_read(model.service_model.service_name, model.name, model.service_model):
            return
        index = len(self.calls)
        context[WATCHED] = {"index": index, "params": copy.deepcopy(params), "omit": False}
        plan = self.plan
        if plan is None or plan.index != index:
            return
        if plan.params is None:
            context[WATCHED]["omit"] = True
        else:
            changed = changed_as(params, plan.call.params, plan.params)
            params.clear()
            params.update(changed)
            context[WATCHED]["params"] = copy.deepcopy(changed)

    def _before_call(self, model: Any, context: dict[str, Any], **_: Any) -> tuple[_Sent, dict[str, Any]] | None:
        watched = context.get(WATCHED)
        if watched is None or not watched["omit"] or self.plan is None:
            return None
        call = self.plan.call
        return _Sent(), copy.deepcopy(call.response if call.parsed is None else call.parsed)

    def _as_parsed(self, parsed: dict[str, Any], context: dict[str, Any], **_: Any) -> None:
        watched = context.get(WATCHED)
        if watched is not None:
            watched["parsed"] = _without_metadata(parsed)

    def _after_call(self, http_response: Any, parsed: dict[str, Any], model: Any, context: dict[str, Any], **_: Any):
        watched = context.get(WATCHED)
        if watched is None or http_response.status_code >= 300:
            return
        self._counts[model.name] += 1
        for event in events_for(model, watched["params"], parsed, context.get("client_region")):
            self._made.setdefault((event["type"], event["id"]), None)
        self.calls.append(
            Call(
                model.service_model.service_name,
                model.name,
                self._counts[model.name],
                watched["params"],
                _without_metadata(parsed),
                model.input_shape,
                watched.get("parsed"),
            )
        )


class WatchedSession:
    """A session whose clients (and resources' clients) report to the interceptor active in their thread."""

    def __init__(self, session: Any) -> None:
        self._session = session

    def client(self, *args: Any, **kwargs: Any) -> Any:
        """The session's client, watched."""
        return watch(self._session.client(*args, **kwargs))

    def resource(self, *args: Any, **kwargs: Any) -> Any:
        """The session's resource, its client watched."""
        resource = self._session.resource(*args, **kwargs)
        watch(resource.meta.client)
        return resource

    def __getattr__(self, name: str) -> Any:
        return getattr(self._session, name)


def watch(client: Any) -> Any:
    """Route `client`'s calls to the active interceptor of the calling thread (registered once per client)."""
    if getattr(client, WATCHED, False):
        return client
    events = client.meta.events
    events.register_first("before-parameter-build", _dispatch("_before_parameters"), unique_id=f"{WATCHED}-params")
    events.register_first("before-call", _dispatch("_before_call"), unique_id=f"{WATCHED}-call")
    # first of all after-call handlers (the most specific name runs first): the answer as parsed
    events.register_first("after-call.*.*", _dispatch("_as_parsed"), unique_id=f"{WATCHED}-parsed")
    events.register("after-call", _dispatch("_after_call"), unique_id=f"{WATCHED}-after")
    setattr(client, WATCHED, True)
    return client


def changed_as(live: Any, recorded: Any, mutated: Any) -> Any:
    """`live` with the change that turned `recorded` into `mutated`: a key or item the mutant did not change keeps
    its live value; what it changed, added or dropped is changed, added or dropped (lists item by item when all
    three have the same length, else replaced whole)."""
    if recorded == mutated:
        return copy.deepcopy(live)
    if isinstance(live, dict) and isinstance(recorded, dict) and isinstance(mutated, dict):
        result = {key: copy.deepcopy(value) for key, value in live.items() if key in mutated or key not in recorded}
        for key, value in mutated.items():
            if key in recorded and key in live:
                result[key] = changed_as(live[key], recorded[key], value)
            elif key not in recorded or recorded[key] != value:
                result[key] = copy.deepcopy(value)
        return result
    lists = isinstance(live, list) and isinstance(recorded, list) and isinstance(mutated, list)
    if lists and len(live) == len(recorded) == len(mutated):
        return [changed_as(*items) for items in zip(live, recorded, mutated, strict=True)]
    return copy.deepcopy(mutated)


def _without_metadata(parsed: dict[str, Any]) -> dict[str, Any]:
    return copy.deepcopy({k: v for k, v in parsed.items() if k != "ResponseMetadata"})


def _dispatch(method: str) -> Any:
    def handler(**kwargs: Any) -> Any:
        interceptor = getattr(_active, "interceptor", None)
        return None if interceptor is None else getattr(interceptor, method)(**kwargs)

    return handler
