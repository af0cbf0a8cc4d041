"""Baselines for a drafted evaluation: what AWS gives a resource the solution did not shape, made on the emulator.

For each output, the call that created it is sent again with only its required parameters (fresh names), and
with each of its parameters got wrong as a mutant would (what the solution chose there); calls that overwrite
(`Put*`, `Modify*`...) are replayed on the resource itself, changed, and then sent as the solution sent them, to
leave it as it was. A requirement that holds for the solution's resource and not for some baseline is a choice
the solution made.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from botocore import xform_name
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError

from harness.authoring.drafts.probes import Candidate
from harness.authoring.events import event_for
from harness.authoring.mutants import Call, leaves, mutants
from harness.kit.aws import fetch_or_none
from harness.kit.kinds import Kind, LazyResource
from harness.kit.require import Requirement

OVERWRITES = ("Put", "Modify", "Update", "Set")
FREE = ("Tags", "TagSpecifications", "tags", "Description")


def described(kind: Kind, session: Any, resource_id: str) -> dict[str, Any] | None:
    """The resource as `kind` describes it, every lazy attribute loaded (a plain dict), or None."""
    found = fetch_or_none(lambda: kind.fetch_in(session, resource_id), service=kind.service_name)
    if isinstance(found, LazyResource):
        return _loaded(found)
    return dict(found) if found is not None else None


def _loaded(resource: LazyResource) -> dict[str, Any] | None:
    try:
        return resource.complete()
    except (ClientError, BotoCoreError):
        return None


def event_of(session: Any, call: Call) -> dict[str, str] | None:
    """The event `{type, id}` the call made (as the recorder writes it), or None."""
    client = session.client(call.service)
    model = client.meta.service_model.operation_model(call.operation)
    return event_for(model, call.params, call.response, session.region_name)


def acts_on(call: Call, resource_id: str) -> bool:
    """Whether the call names `resource_id` as one of its parameters (the resource it acts on)."""
    return resource_id in call.params.values()


@dataclass(frozen=True)
class Baselines:
    """The baselines of one resource, and its minimal baseline made twice (`twins`): what differs between those
    two is the emulator's chance (a zone picked for a subnet), never anybody's choice."""

    made: tuple[dict[str, Any], ...]
    twins: tuple[dict[str, Any], ...] = ()

    def set_apart(self, candidate: Candidate) -> bool:
        """The candidate fails on some baseline, and reads the same on both twins."""
        if self.twins and any(_differs(r, self.twins) for r in candidate.requirements):
            return False
        return any(not candidate.holds(b) for b in self.made)


def _differs(requirement: Requirement, twins: tuple[dict[str, Any], ...]) -> bool:
    try:
        return len({repr(requirement.actual(t)) for t in twins}) > 1
    except Exception:  # a requirement that cannot read a twin tells nothing apart
        return False


def baselines(session: Any, kind: Kind, calls: Sequence[Call], resource_id: str) -> Baselines:
    """The baselines of `resource_id` (see the module's docstring)."""
    creating = next((c for c in calls if (event_of(session, c) or {}).get("id") == resource_id), None)
    made: list[dict[str, Any]] = []
    twins: tuple[dict[str, Any], ...] = ()
    if creating is not None and not creating.operation.startswith(OVERWRITES):
        twins, changed = _fresh(session, kind, creating)
        made += [*twins[:1], *changed]
    for call in calls:
        if call.operation.startswith(OVERWRITES) and acts_on(call, resource_id):
            made += _in_place(session, kind, call, resource_id, required_only=call is creating)
    return Baselines(tuple(made), twins)


_ONCE = Config(retries={"max_attempts": 1})


def _send(session: Any, call: Call, params: dict[str, Any]) -> dict[str, Any] | None:
    """Send `call` with `params` (once: a refusal is an answer); the parsed answer, or None when refused."""
    client = session.client(call.service, config=_ONCE)
    try:
        return getattr(client, xform_name(call.operation))(**params)
    except Exception:  # refused, or answered so that botocore cannot parse it: no baseline
        return None


def _required(call: Call) -> list[str]:
    return list(getattr(call.shape, "required_members", []) or [])


def _in_place(session: Any, kind: Kind, call: Call, resource_id: str, *, required_only: bool) -> list[dict[str, Any]]:
    """The resource after `call` sent with each change (and with its required parameters only, if asked), each
    change undone by sending the call as the solution did."""
    changed = _changed(call, call.params)
    if required_only:
        changed.insert(0, {k: v for k, v in call.params.items() if k in _required(call)})
    found = []
    for params in changed:
        if _send(session, call, params) is not None and (after := described(kind, session, resource_id)) is not None:
            found.append(after)
        _send(session, call, call.params)
    return found


def _fresh(session: Any, kind: Kind, call: Call) -> tuple[tuple[dict[str, Any], ...], list[dict[str, Any]]]:
    """New resources made by `call` with fresh names: with its required parameters only (and what the emulator
    also needs, added one by one), twice; and with each parameter changed as a mutant would."""
    names = _fresh_names(call)
    required = {k: v for k, v in call.params.items() if k in _required(call)}
    own = {k: v for k, v in call.params.items() if k not in FREE or k in required}  # tags and descriptions: free
    accepted = _minimal(session, kind, call, required, own, names)
    twins = tuple(t for t in (_made(session, kind, call, accepted, names) for _ in range(2)) if t) if accepted else ()
    worked: dict[str, Any] | None = None
    found = []
    for params in _changed(call, own):
        made = _made(session, kind, call, params, names)
        if made is None and worked is not None:  # e.g. a zone moved but the CIDR taken: move both
            made = _made(session, kind, call, _combined(params, worked, own), names)
        if made is not None:
            if worked is None and not twins:  # the minimal one was taken (its CIDR in use): twins that differ
                twins = _twins(session, kind, call, made, params, own, names)  # where this one did
            worked = worked or params
            found.append(made)
    return twins, found


def _twins(
    session: Any, kind: Kind, call: Call, made: dict[str, Any], params: dict, own: dict, names: dict[str, str]
) -> tuple[dict[str, Any], ...]:
    """`made` and one more resource whose parameters differ from `params` only where `params` differ from the
    solution's (`own`): a CIDR moved once more."""
    apart = _keys_apart(params, own)
    again = next((p for p in _changed(call, params) if _keys_apart(p, params) == apart), None)
    other = _made(session, kind, call, again, names) if again is not None else None
    return (made, other) if other is not None else ()


def _changed(call: Call, params: dict[str, Any]) -> list[dict[str, Any]]:
    """`params` of `call` changed as each of its mutants would change them, and each flag or number that an API
    takes as a string (`"true"`, `"60"`: SQS's and SNS's attributes) changed once."""
    changes = mutants([Call(call.service, call.operation, 1, params, call.response, call.shape)])
    return [m.params for m in changes if m.params is not None] + list(_textual(params))


def _textual(value: Any) -> Iterator[Any]:
    """`value` with one of its textual flags or numbers changed, each way there is."""
    if isinstance(value, dict):
        for key, member in value.items():
            yield from ({**value, key: changed} for changed in _textual(member))
    elif isinstance(value, list):
        for index, member in enumerate(value):
            yield from ([*value[:index], changed, *value[index + 1 :]] for changed in _textual(member))
    elif isinstance(value, str) and value in ("true", "false"):
        yield "false" if value == "true" else "true"
    elif isinstance(value, str) and value.isdigit():
        yield str(int(value) + 1)


def _keys_apart(params: dict[str, Any], other: dict[str, Any]) -> set[str]:
    return {k for k in {*params, *other} if params.get(k) != other.get(k)}


def _minimal(
    session: Any, kind: Kind, call: Call, required: dict[str, Any], own: dict[str, Any], names: dict[str, str]
) -> dict[str, Any] | None:
    """The parameters the emulator accepts for the resource: the required ones, with the solution's others
    added one at a time (in its order) until it does; None if it never does."""
    params = dict(required)
    for key in [None, *(k for k in own if k not in required)]:
        if key is not None:
            params[key] = own[key]
        if _made(session, kind, call, params, names) is not None:
            return params
    return None


def _combined(params: dict[str, Any], worked: dict[str, Any], original: dict[str, Any]) -> dict[str, Any]:
    merged = dict(params)
    for key, value in worked.items():
        if original.get(key) != value and params.get(key) == original.get(key):
            merged[key] = value
    return merged


_counter = iter(range(1, 1_000_000))


def _is_name(key: str) -> bool:
    return key.endswith(("Name", "name")) or key in ("Bucket", "family")


def _fresh_names(call: Call) -> dict[str, str]:
    """Name parameters (`TableName`, `Bucket`, `Name`...) of the create call, each with a name of its own."""
    return {
        k: f"{v[:40]}-draft{next(_counter)}".lower()
        for k, v in call.params.items()
        if isinstance(v, str) and _is_name(k)
    }


def chosen_values(session: Any, calls: Sequence[Call], resource_id: str) -> set[Any]:
    """The strings and numbers the solution set explicitly on the resource: the parameters (names, tags and
    descriptions aside) of the call that made it and of the calls that act on it."""
    chosen: set[Any] = set()
    for call in calls:
        if acts_on(call, resource_id) or (event_of(session, call) or {}).get("id") == resource_id:
            for key, value in call.params.items():
                if not _is_name(key) and key not in FREE and value != resource_id:
                    chosen.update(v for v in leaves(value) if isinstance(v, str | int) and not isinstance(v, bool))
    return chosen


def _made(session: Any, kind: Kind, call: Call, params: dict[str, Any], names: dict[str, str]) -> dict | None:
    sent = {**copy.deepcopy(params), **{k: v for k, v in names.items() if k in params}}
    for key in names:
        names[key] = f"{names[key].rsplit('-draft', 1)[0]}-draft{next(_counter)}"  # the next one needs another
    answer = _send(session, call, sent)
    if answer is None:
        return None
    event = event_for(
        session.client(call.service).meta.service_model.operation_model(call.operation),
        sent,
        answer,
        session.region_name,
    )
    return described(kind, session, event["id"]) if event and event["type"] == kind.type else None


def changed_inputs(calls: Sequence[Call], ids: dict[str, str]) -> Iterator[str]:
    """The inputs (name -> id) a write call of the step acted on: their state is part of what the step built."""
    for name, resource_id in ids.items():
        if any(acts_on(c, resource_id) for c in calls):
            yield name
