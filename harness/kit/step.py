"""`Step`: the bookkeeping of one evaluation, so a step module reads like the lab instruction.

    step = Step(session, context, logger)
    with step:
        vpc = step.input("02_01_vpc", ec2.VPC)                      # re-verified; stops the step if gone
        step.find("02_04_private_subnet", ec2.SUBNET, [ec2.in_vpc(vpc), ec2.cidr("10.0.3.0/24")])
    return step.result()

Every output starts `not_found`; `find` and `find_all` search resolved handles first, then this step's events by
type, describe each candidate, and match outputs to candidates by their requirements (a maximum matching, so
event order never matters). Each requirement becomes a recorded check; the first failed one becomes the
`failure_context`; `success` is computed, never set by hand.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from harness.kit.aws import fetch_or_none
from harness.kit.kinds import Kind, Resource
from harness.kit.match import match
from harness.kit.require import Outcome, Requirement

Candidate = tuple[str, Resource]


class StopStep(Exception):
    """A critical check failed: the rest of the step cannot be judged. `with step:` absorbs it."""


class Step:
    """Collects found/not_found per handle and named checks, and produces the seed result."""

    def __init__(self, session: Any, context: Mapping[str, Any], logger: logging.Logger | None = None) -> None:
        spec = context.get("spec", {})
        self.session = session
        self.logger = logger or logging.getLogger("stepeval.kit")
        self.key: str = spec.get("step", "")
        self.feedback: dict[str, Any] = dict(spec.get("feedback") or {})
        self._resolved = {h["name"]: h for h in context.get("resolved", [])}
        self._events: list[Mapping[str, str]] = list(context.get("events", []))
        self._entries: dict[str, dict[str, Any]] = {
            o["name"]: {"name": o["name"], "type": o["type"], "id": None, "status": "not_found"}
            for o in spec.get("outputs", [])
        }
        self._checks: list[dict[str, Any]] = []
        self._failure: dict[str, str] | None = None

    def __enter__(self) -> Step:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, *_: object) -> bool:
        return exc_type is not None and issubclass(exc_type, StopStep)

    def client(self, service: str) -> Any:
        """A client of the handed session (cached by the harness)."""
        return self.session.client(service)

    def event_ids(self, kind: Kind) -> list[str]:
        """Ids of this step's events of `kind`'s type, in event order (for requirements that refer to them)."""
        return [e["id"] for e in self._events if e.get("type") == kind.type]

    def region_of(self, name: str) -> str | None:
        """The region an output or input was found in, if not the session's (None: the session's)."""
        entry = self._entries.get(name)
        return entry.get("region") if entry else None

    def input(self, name: str, kind: Kind) -> Resource:
        """The resource an earlier step validated, re-described now (in its region); the step stops if it is gone.

        Recorded as the check `exists` of the handle."""
        handle = self._resolved.get(name)
        entry = self._entries.setdefault(name, {"name": name, "type": kind.type, "id": None, "status": "not_found"})
        if handle is None:
            self._checks.append(_check_record(name, "exists", False, True, False))
            self._fail(
                name,
                f"The {kind.noun} from an earlier step ({name}) has not been validated yet.",
                f"Complete the step that creates the {kind.noun} first.",
                critical=True,
                check="exists",
                subject=f"the {kind.noun} {name}",
            )
        entry["id"] = handle["id"]
        _set_region(entry, handle.get("region"))
        region = handle.get("region")
        resource = fetch_or_none(lambda: kind.fetch_in(self.session, handle["id"], region), service=kind.service_name)
        self._checks.append(_check_record(name, "exists", resource is not None, True, resource is not None))
        if resource is None:
            self._fail(
                name,
                f"The {kind.describe(handle['id'])} from an earlier step no longer exists.",
                f"Recreate the {kind.noun} from the earlier step, then come back to this one.",
                critical=True,
                check="exists",
                subject=f"the {kind.describe(handle['id'])}",
            )
        entry["status"] = "found"
        return resource

    def find(
        self, name: str, kind: Kind, requirements: Sequence[Requirement], *, critical: bool = False
    ) -> Resource | None:
        """The one candidate that meets every requirement for output `name`, or None (recorded as a failure)."""
        return self.find_all(kind, {name: requirements}, critical=critical)[name]

    def find_all(
        self, kind: Kind, requirements: Mapping[str, Sequence[Requirement]], *, critical: bool = False
    ) -> dict[str, Resource | None]:
        """Several outputs of one kind, each matched to a distinct candidate by configuration, never by order.

        An output no candidate fits is not_found, with the closest candidate's failed checks; that candidate is
        still returned (so later requirements that refer to it are judged on it), None only if there is none.
        """
        names = list(requirements)
        candidates, gone, held = self._candidates(kind, names)
        regions = self._regions(kind, names)
        resolved_ids = {n: self._resolved[n]["id"] for n in names if n in self._resolved}

        def misses_for(name: str) -> Callable[[Candidate], list[str]]:
            def misses(candidate: Candidate) -> list[str]:
                if name in resolved_ids and candidate[0] != resolved_ids[name]:
                    return [f"is not {resolved_ids[name]}, validated earlier"]
                return [o.requirement.check for o in _evaluate(requirements[name], candidate[1]) if not o.ok]

            return misses

        matched = match(names, candidates, {n: misses_for(n) for n in names}, describe=lambda c: c[0])
        found: dict[str, Resource | None] = {}
        for name in names:
            entry = self._entries.setdefault(name, {"name": name, "type": kind.type, "id": None, "status": "not_found"})
            if name in matched.assigned:
                resource_id, resource = matched.assigned[name]
                entry.update(id=resource_id, status="found")
                _set_region(entry, regions.get(resource_id))
                self._record(name, _evaluate(requirements[name], resource))
                found[name] = resource
                continue
            taken = held | {c[0]: other for other, c in matched.assigned.items()}
            found[name] = self._explain_miss(name, kind, requirements[name], candidates, gone, taken, critical=critical)
        return found

    def value(
        self, name: str, value: str | None, requirements: Sequence[Requirement] = (), *, critical: bool = False
    ) -> str | None:
        """A "string" output (an ARN, a URL, a name: no resource of its own): found, with `value` as its id, when
        there is one and it meets every requirement (each judged on `{"Value": value}`; see `harness.kit.values`).
        Returns the value when found, else None."""
        entry = self._entries.setdefault(name, {"name": name, "type": "string", "id": None, "status": "not_found"})
        if not value:
            issue = f"There is no {name} yet."
            self.check(name, "value", False, expected="a value", actual=None, critical=critical, issue=issue)
            return None
        outcomes = _evaluate(requirements, {"Value": value})
        self._record(name, outcomes)
        missed = next((o for o in outcomes if not o.ok), None)
        if missed is not None:
            hint = self._hint(name, missed.requirement.check) if missed.hint is None else missed.hint
            subject = f"{name} {value}"
            check = missed.requirement.check
            expected = missed.requirement.expected
            self._fail(name, missed.issue(subject), hint, critical=critical, check=check, subject=subject,
                       expected=expected, actual=missed.actual)  # fmt: skip
            return None
        entry.update(id=value, status="found")
        return value

    def input_value(self, name: str) -> str:
        """The value of a "string" handle an earlier step resolved (recorded as the check `exists`); the step stops
        if there is none."""
        handle = self._resolved.get(name)
        entry = self._entries.setdefault(name, {"name": name, "type": "string", "id": None, "status": "not_found"})
        self._checks.append(_check_record(name, "exists", handle is not None, True, handle is not None))
        if handle is None:
            issue = f"The {name} from an earlier step has not been validated yet."
            hint = "Complete the step that gives it first."
            self._fail(name, issue, hint, critical=True, check="exists", subject=name)
        entry.update(id=handle["id"], status="found")
        return handle["id"]

    def check(
        self,
        handle: str | None,
        check: str,
        ok: bool,
        *,
        expected: Any = None,
        actual: Any = None,
        issue: str | None = None,
        hint: str | None = None,
        critical: bool = False,
    ) -> bool:
        """Record a check of your own (PrairieLearn style): returns `ok`; a miss on an output makes it not_found."""
        self._checks.append(_check_record(handle, check, ok, expected, actual))
        if not ok:
            if handle in self._entries:
                self._entries[handle]["status"] = "not_found"
            sentence = issue or f"{check} should be {expected!r}, but is {actual!r}."
            self._fail(
                handle,
                sentence,
                hint or self._hint(handle, check),
                critical=critical,
                check=check,
                subject=handle or "the resource",
                expected=expected,
                actual=actual,
            )
        return ok

    def todo(self, handle: str, note: str) -> None:
        """Mark a part of the evaluation as not written yet (as `stepeval new` does): the step fails, naming it, and
        `stepeval check` reports the call, so it cannot ship by accident."""
        self.check(
            handle,
            "TODO",
            False,
            expected=note,
            actual="not evaluated",
            issue=f"The evaluation of {handle} is not written yet: {note}.",
            hint="This step's evaluation is unfinished; tell the lab's author.",
        )

    def result(self, message: str | None = None) -> dict[str, Any]:
        """The seed result: validated, success (computed), message, failure_context, and the checks made."""
        validated = list(self._entries.values())
        success = self._failure is None and all(e["status"] == "found" for e in validated)
        passed = sum(c["ok"] for c in self._checks)
        if success:
            text = message or f"All {len(self._checks)} check{'' if len(self._checks) == 1 else 's'} passed."
        else:
            issue = self._failure["issue"] if self._failure else "A resource this step needs was not found."
            text = f"{passed} of {len(self._checks)} checks passed. {issue}"
        result: dict[str, Any] = {"validated": validated, "success": success, "message": text, "checks": self._checks}
        if not success:
            result["failure_context"] = self._failure or {
                "step": self.key,
                "issue": text,
                "hint_context": "Create the resources this step asks for.",
            }
        return result

    def _candidates(self, kind: Kind, names: list[str]) -> tuple[list[Candidate], list[str], dict[str, str]]:
        """Existing candidates for `names`, the ids whose resources are gone, and ids other outputs already hold."""
        held = {
            e["id"]: n
            for n, e in self._entries.items()
            if n not in names and e["status"] == "found" and e["type"] == kind.type
        }
        ids: dict[str, bool] = {}  # id -> from this step's events (so possibly not yet visible)
        for name in names:
            if name in self._resolved:
                ids.setdefault(self._resolved[name]["id"], False)
        for event_id in self.event_ids(kind):
            ids.setdefault(event_id, True)
        regions = self._regions(kind, names)
        candidates, gone = [], []
        for resource_id, from_events in ids.items():
            if resource_id in held:
                continue
            resource = fetch_or_none(
                lambda rid=resource_id: kind.fetch_in(self.session, rid, regions.get(rid)),
                retry=from_events,
                service=kind.service_name,
            )
            if resource is None:
                gone.append(resource_id)
            else:
                candidates.append((resource_id, resource))
        return candidates, gone, {rid: holder for rid, holder in held.items() if rid in ids}

    def _regions(self, kind: Kind, names: list[str]) -> dict[str, str]:
        """id -> region, for the handles and events of `kind` that name one."""
        regions = {e["id"]: e["region"] for e in self._events if e.get("type") == kind.type and e.get("region")}
        for name in names:
            handle = self._resolved.get(name)
            if handle and handle.get("region"):
                regions[handle["id"]] = handle["region"]
        return regions

    def _explain_miss(
        self,
        name: str,
        kind: Kind,
        requirements: Sequence[Requirement],
        candidates: list[Candidate],
        gone: list[str],
        taken: dict[str, str],
        *,
        critical: bool,
    ) -> Resource | None:
        """Record why `name` found nothing; the closest candidate, if there is one, else None."""
        free = [c for c in candidates if c[0] not in taken]
        resolved_id = self._resolved[name]["id"] if name in self._resolved else None
        if resolved_id is not None:  # an output validated earlier is judged on that resource alone
            free = [c for c in free if c[0] == resolved_id]
        if not free:
            if resolved_id is not None and resolved_id not in taken:
                issue = f"The {kind.describe(resolved_id)} validated earlier no longer exists."
            elif taken:
                holders = ", ".join(f"{kind.describe(rid)} is {holder}" for rid, holder in taken.items())
                issue = f"No other {kind.noun} from this step is left for {name} ({holders})."
            elif gone:
                issue = f"The {', '.join(map(kind.describe, gone))} created in this step no longer exists."
            else:
                issue = f"No {kind.noun} was created in this step for {name}."
            self._checks.append(_check_record(name, "exists", False, True, False))
            self._fail(
                name, issue, self._hint(name, "exists", kind), critical=critical, check="exists", subject=kind.noun
            )
            return None
        closest_id, closest = min(free, key=lambda c: sum(not o.ok for o in _evaluate(requirements, c[1])))
        outcomes = _evaluate(requirements, closest)
        self._entries[name]["id"] = closest_id
        self._record(name, outcomes)
        first = next(o for o in outcomes if not o.ok)
        hint = first.hint or self._hint(name, first.requirement.check, kind)
        subject = kind.describe(closest_id)
        self._fail(
            name,
            first.issue(subject),
            hint,
            critical=critical,
            check=first.requirement.check,
            subject=subject[:1].upper() + subject[1:],
            expected=first.requirement.expected,
            actual=first.actual,
        )
        return closest

    def _record(self, handle: str, outcomes: list[Outcome]) -> None:
        for o in outcomes:
            self._checks.append(_check_record(handle, o.requirement.check, o.ok, o.requirement.expected, o.actual))

    def _fail(
        self,
        handle: str | None,
        issue: str,
        hint: str,
        *,
        critical: bool,
        check: str | None = None,
        subject: str = "the resource",
        expected: Any = None,
        actual: Any = None,
    ) -> None:
        """Record the step's first failure, in the author's words where the spec's feedback has some."""
        authored = self._authored(handle, check)
        if authored.get("issue"):
            values = {"subject": subject, "check": check or "", "expected": _show(expected), "actual": _show(actual)}
            issue = authored["issue"].format_map(values)
        hint = authored.get("hint") or hint
        if self._failure is None:
            self._failure = {"step": self.key, "issue": issue, "hint_context": hint}
        if critical:
            raise StopStep(issue)

    def _authored(self, handle: str | None, check: str | None) -> dict[str, str]:
        """The spec's feedback for this handle and check, the most specific first: `HANDLE.CHECK`, `CHECK`, `HANDLE`.

        A plain string is a hint; a mapping may hold `hint` and `issue`. These override the kit's own words.
        """
        found: dict[str, str] = {}
        for key in (handle, check, f"{handle}.{check}" if handle and check else None):
            value = self.feedback.get(key) if key and key != "hint" else None
            if value:
                found.update({"hint": value} if isinstance(value, str) else {k: v for k, v in value.items() if v})
        return found

    def _hint(self, handle: str | None, check: str, kind: Kind | None = None) -> str:
        """The fallback hint: the spec's step-wide `feedback.hint`, else a sentence of the kit's."""
        authored = self.feedback.get("hint")
        if isinstance(authored, str) and authored:
            return authored
        subject = f"the {kind.noun}" if kind else "the resource"
        if check == "exists":
            return f"Create {subject} this step asks for, in the lab's region."
        return f"Look at the {check} of {subject}."


def _show(value: Any) -> str:
    """A value as an issue sentence shows it (lists joined, None as "none")."""
    if value is None:
        return "none"
    if isinstance(value, list | tuple | set | frozenset):
        return ", ".join(str(v) for v in value) or "none"
    return str(value)


def _set_region(entry: dict[str, Any], region: str | None) -> None:
    if region:
        entry["region"] = region
    else:
        entry.pop("region", None)


def _evaluate(requirements: Sequence[Requirement], resource: Resource) -> list[Outcome]:
    return [r.evaluate(resource) for r in requirements]


def _check_record(handle: str | None, check: str, ok: bool, expected: Any, actual: Any) -> dict[str, Any]:
    return {
        "handle": handle,
        "check": check,
        "ok": bool(ok),
        "expected": _jsonable(expected),
        "actual": _jsonable(actual),
    }


def _jsonable(value: Any) -> Any:
    if value is None or isinstance(value, str | int | float | bool):
        return value
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        items = [_jsonable(v) for v in value]
        return _sorted(items) if isinstance(value, set | frozenset) else items
    return str(value)


def _sorted(items: list[Any]) -> list[Any]:
    """A set's members in a stable order: natural when they compare (80 before 443), else as text."""
    try:
        return sorted(items)
    except TypeError:
        return sorted(items, key=str)
