"""`Step`: the bookkeeping of one evaluation, so a step module reads like the lab instruction.

    step = Step(session, context, logger)
    with step:
        vpc = step.input("02_01_vpc", ec2.VPC)                      # re-verified; stops the step if gone
        app = step.find("03_01_app_sg", ec2.SECURITY_GROUP, [ec2.in_vpc(vpc)])
        step.find("03_01_db_sg", ec2.SECURITY_GROUP, [ec2.in_vpc(vpc), ec2.ingress_exactly(net.tcp(5432, app))])
    return step.result()

Every output starts `not_found`. `find` and `find_all` declare outputs: their candidates are the resolved handle
of that name, else this step's events of the kind's type (in event order), each described once. The step then
chooses resources for all the outputs declared so far together (`outputs.Judging`, `match.assign`): an
assignment under which as many outputs as possible meet every requirement, cross-references between outputs
included, one resource per output of a kind. Each requirement becomes a recorded check; the first failure (in
the order the module declared things) becomes the `failure_context`; `success` is computed, never set by hand.
A resource AWS is still creating or changing makes the output `pending` rather than failed (see `Kind.settling`
and `Requirement.waits`): the step answers `pending` when nothing else is wrong.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any, Literal, NoReturn, overload

from harness.kit import closest, refs, tally
from harness.kit.aws import fetch_or_none
from harness.kit.kinds import KINDS, Kind, Resource, outside
from harness.kit.match import Fit
from harness.kit.outputs import Candidate, Finding, Judging, Output, Verdict
from harness.kit.require import Missing, Outcome, Requirement
from harness.kit.stops import StopStep

LISTED = 3
"""How many broken requirements of the resource meant a failure lists (the first in `issue`, the others after it in
the message and the hint context): enough to fix them in one go, few enough to read."""


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
        self._asked: dict[str, Mapping[str, Any]] = {o["name"]: o for o in spec.get("outputs", [])}
        self._kinds: dict[str, Kind] = {}  # output -> the kind its find gave, whose noun names it
        self._input_names = frozenset(spec.get("inputs") or ())
        self._entries: dict[str, dict[str, Any]] = {
            o["name"]: {"name": o["name"], "type": o["type"], "id": None, "status": "not_found"}
            for o in spec.get("outputs", [])
        }
        self._checks: list[dict[str, Any]] = []
        self._failure: dict[str, str] | None = None
        self._failure_derived = False  # the failure is a miss for want of another output's resource
        self._failure_also = ""  # the failure's other broken requirements, listed after its issue
        self._waiting: list[tuple[dict[str, str], int]] = []  # (failure context, retry after s) per pending output
        self.region: str | None = getattr(session, "region_name", None)
        """The lab's region: the evaluation's. A regional resource elsewhere is not a candidate (`kinds.outside`)."""
        self._other_regions: tuple[str, ...] = tuple(spec.get("regions") or ())
        self.resolver = refs.Resolver(session)
        """Reads references as identities for this evaluation, asking AWS each question once."""
        self._outputs: dict[str, Output] = {}
        self._declared: list[Finding] = []  # found, not chosen yet
        self._judging: Judging | None = None  # the group being chosen or recorded
        self._chosen: dict[str, Candidate | None] = {}
        self._opaque: dict[str, set[str]] = {}  # output -> the checks every candidate missed alike
        self._inputs: dict[str, Candidate] = {}  # what `input` re-described: ties a near miss to the learner's work

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
        self._choose()
        entry = self._entries.get(name)
        return entry.get("region") if entry else None

    def output(self, name: str) -> Output:
        """The output `name` of this step as requirements refer to it, before or after its `find`: an output
        may refer to one found later in the module (`ec2.ingress_exactly(net.tcp(5432, step.output("web")))`),
        and the step chooses both together."""
        if name not in self._outputs:
            self._outputs[name] = Output(name, self._value_of, self._wanted)
        return self._outputs[name]

    def input(self, name: str, kind: Kind) -> Resource:
        """The resource an earlier step validated, re-described now (in its region); the step stops if it is gone.

        Recorded as the check `exists` of the handle."""
        self._choose()
        handle = self._resolved.get(name)
        entry = self._entries.setdefault(name, {"name": name, "type": kind.type, "id": None, "status": "not_found"})
        if handle is None:
            self._checks.append(_check_record(name, "exists", False, True, False))
            self._fail(
                name,
                f"This step needs the {kind.noun} from an earlier step, and that step has not passed yet.",
                f"Complete the step that creates the {kind.noun} first (input {name}).",
                critical=True,
                check="exists",
                subject=f"the {kind.noun} from an earlier step",
            )
        entry["id"] = handle["id"]
        _set_region(entry, handle.get("region"))
        region = handle.get("region")
        elsewhere = outside(kind, handle["id"], region, self.region, self._other_regions)
        if elsewhere is not None:
            self._checks.append(_check_record(name, "region", False, self.region, elsewhere))
            issue, hint = self._away(kind, {handle["id"]: elsewhere})
            self._fail(name, issue, hint, critical=True, check="region", subject=f"the {kind.describe(handle['id'])}")
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
        self._inputs[name] = (handle["id"], resource)
        return resource

    def find(self, name: str, kind: Kind, requirements: Sequence[Requirement], *, critical: bool = False) -> Output:
        """Output `name`: the candidate that meets every requirement, chosen with the step's other outputs (see
        `find_all`). Always its `Output`, however many candidates there are (it reads as empty and false when
        none is left for it)."""
        return self.find_all(kind, {name: requirements}, critical=critical)[name]

    def find_all(
        self, kind: Kind, requirements: Mapping[str, Sequence[Requirement]], *, critical: bool = False
    ) -> dict[str, Output]:
        """Several outputs of one kind, each to get a distinct candidate by configuration, never by order.

        Each is returned as its `Output`, whatever its candidates (test `if found:` for one left without any: it
        reads as empty and false). The step chooses the resources of
        every output found so far together, once one is needed (an output read, an input, a check, the result):
        an output's requirements may refer to another output, passed whole. An output no candidate fits is
        not_found, with the closest candidate's failed checks; that candidate is still what it reads as (so
        requirements that refer to it are judged on it). `critical`: choose now, and stop the step if one of
        these outputs fails.
        """
        names = list(requirements)
        for name in names:
            if name in self._chosen or any(name in f.requirements for f in self._declared):
                raise ValueError(f"step.find: the output {name} is found twice in one step")
        self._kinds.update(dict.fromkeys(names, kind))
        regions = self._regions(kind, names)
        candidates, gone, away = self._candidates(kind, names, regions)
        self._declared.append(Finding(kind, dict(requirements), candidates, gone, regions, critical, away))
        if critical:
            self._choose()
        return {name: self.output(name) for name in names}

    def value(
        self, name: str, value: str | None, requirements: Sequence[Requirement] = (), *, critical: bool = False
    ) -> str | None:
        """A "string" output (an ARN, a URL, a name: no resource of its own): found, with `value` as its id, when
        there is one and it meets every requirement (each judged on `{"Value": value}`; see `harness.kit.values`).
        Returns the value when found, else None."""
        entry = self._entries.setdefault(name, {"name": name, "type": "string", "id": None, "status": "not_found"})
        if not value:
            wanted = self._wanted(name)
            issue = f"{wanted[:1].upper()}{wanted[1:]} is not there yet."
            hint = f"Give {wanted} as its instructions say (output {name})."
            self.check(name, "value", False, expected="a value", actual=None, critical=critical, issue=issue, hint=hint)
            return None
        outcomes = [requirement.evaluate({"Value": value}) for requirement in requirements]
        self._record(name, outcomes)
        missed = next((o for o in outcomes if not o.ok), None)
        if missed is not None:
            hint = self._hint(name, missed.requirement.check) if missed.hint is None else missed.hint
            subject = f"the value {value}"
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
            issue = "This step needs a value from an earlier step, and that step has not passed yet."
            hint = f"Complete the step that gives it first (input {name})."
            self._fail(name, issue, hint, critical=True, check="exists", subject="the value from an earlier step")
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
        self._choose()
        self._checks.append(_check_record(handle, check, ok, expected, actual))
        if not ok:
            if handle in self._entries:
                self._entries[handle]["status"] = "not_found"
                self._waiting = [w for w in self._waiting if w[0].get("handle") != handle]
            sentence = issue or f"{check} should be {expected!r}, but is {actual!r}."
            self._fail(
                handle,
                sentence,
                hint or self._hint(handle, check),
                critical=critical,
                check=check,
                subject=self._wanted(handle) if handle else "the resource",
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
            issue=f"The evaluation of {self._wanted(handle)} is not written yet: {note}.",
            hint="This step's evaluation is unfinished; tell the lab's author.",
        )

    def result(self, message: str | None = None) -> dict[str, Any]:
        """The seed result: validated, success (computed), message, failure_context, and the checks made; with
        `retry_after_s` when the step is pending (AWS is still working on a resource and nothing else is wrong)."""
        self._choose()
        validated = list(self._entries.values())
        success = self._failure is None and all(e["status"] == "found" for e in validated)
        counted = tally.tallied(self._checks, lambda c: c["handle"], self._input_names)
        passed, total = sum(c["ok"] for c in counted), len(counted)
        passed_of = f"{passed} of {total} check{'' if total == 1 else 's'} passed."
        waiting = {w[0]["handle"] for w in self._waiting}
        pending = not success and self._failure is None and bool(self._waiting)
        pending = pending and all(e["status"] == "found" or e["name"] in waiting for e in validated)
        if success:
            text = message or f"All {total} check{'' if total == 1 else 's'} passed."
        elif pending:
            text = f"{passed_of} Not yet: {self._waiting[0][0]['issue']}"
        else:
            issue = self._failure["issue"] if self._failure else "A resource this step needs was not found."
            text = f"{passed_of} {issue}{self._failure_also}"
        result: dict[str, Any] = {"validated": validated, "success": success, "message": text, "checks": self._checks}
        if pending:
            context = {k: v for k, v in self._waiting[0][0].items() if k != "handle"}
            result["failure_context"] = context
            result["retry_after_s"] = max(w[1] for w in self._waiting)
        elif not success:
            result["failure_context"] = self._failure or {
                "step": self.key,
                "issue": text,
                "hint_context": "Create the resources this step asks for.",
            }
        return result

    # --- choosing the outputs -----------------------------------------------------------------------------------

    def _value_of(self, name: str) -> Resource | None:
        """What an Output reads as: while its group is judged, the candidate tried or chosen; after, the resource
        chosen. Reading an output found but not chosen yet chooses now."""
        if self._judging is not None and name in self._judging.finding_of:
            return self._judging.value_of(name)
        if name in self._chosen:
            chosen = self._chosen[name]
            return chosen[1] if chosen else None
        if self._judging is None and any(name in f.requirements for f in self._declared):
            self._choose()
            return self._value_of(name)
        raise ValueError(
            f"step.output({name!r}) was read before the step found it: find {name} before anything reads it"
        )

    def _choose(self) -> None:
        """Choose resources for every output found and not chosen yet, together, and record what they show."""
        if not self._declared or self._judging is not None:
            return
        findings, self._declared = self._declared, []
        group = {name for f in findings for name in f.requirements}
        taken = {
            (e["type"], e["id"]): n
            for n, e in self._entries.items()
            if n not in group and e["status"] == "found" and e["id"] is not None
        }
        judging = Judging(findings, self.resolver, taken)
        self._judging = judging
        try:
            chosen = judging.choose()
            # every output none fits reads as its closest candidate before any verdict is recorded, so an output
            # that refers to a near miss judges that resource rather than failing for want of one
            for finding in findings:
                for name in finding.names:
                    self._place(judging, finding, name, chosen)
            for finding in findings:
                for name in finding.names:
                    self._record_output(judging, finding, name, chosen)
        finally:
            for name in judging.names:
                self._chosen.setdefault(name, judging.trial.get(name))
            self._judging = None

    def _place(self, judging: Judging, finding: Finding, name: str, chosen: dict[str, Candidate | None]) -> None:
        """An output none fits reads as its closest free candidate from now on (`judging.trial`); one with no free
        candidate is left to `_record_output`, which says why in its turn."""
        if chosen[name] is not None:
            return
        taken = self._taken(judging, finding, chosen)
        judged = [c for c in finding.candidates[name] if c[0] not in taken]
        judging.trial[name] = self._closest(judging, finding, name, taken) if judged else None

    @staticmethod
    def _taken(judging: Judging, finding: Finding, chosen: dict[str, Candidate | None]) -> dict[str, str]:
        """The resources of `finding`'s kind that other outputs hold (by id): no candidate for this one."""
        kind = finding.kind
        taken = {rid: holder for (type_, rid), holder in judging.taken.items() if type_ == kind.type}
        return taken | {c[0]: n for n, c in chosen.items() if c and judging.finding_of[n].kind.type == kind.type}

    def _record_output(
        self, judging: Judging, finding: Finding, name: str, chosen: dict[str, Candidate | None]
    ) -> None:
        """Record output `name` as chosen, or explain its miss with its closest candidate (which it reads as)."""
        kind = finding.kind
        entry = self._entries.setdefault(name, {"name": name, "type": kind.type, "id": None, "status": "not_found"})
        candidate = chosen[name] or judging.trial.get(name)
        if candidate is None:
            self._closest(judging, finding, name, self._taken(judging, finding, chosen))  # records why there is none
            return
        verdict = judging.verdict(name, candidate)
        assert verdict is not None  # every output has its candidate or None once chosen
        opaque = self._opaque.pop(name, set())
        region = finding.regions.get(candidate[0])
        entry["id"] = candidate[0]
        _set_region(entry, region)
        self._record(name, verdict.outcomes)
        if verdict.fit is Fit.FITS:
            entry["status"] = "found"
        elif verdict.fit is Fit.PENDING:
            self._wait(name, kind, candidate, verdict)
        else:
            with refs.resolving(self.resolver.at(region)):  # a miss's sentence may name what a reference resolved to
                first = closest.named_miss(verdict, opaque)
                others = [o for o in verdict.wrong if o is not first]
                self._miss(name, kind, candidate, first, others, critical=finding.critical)

    def _closest(self, judging: Judging, finding: Finding, name: str, taken: dict[str, str]) -> Candidate | None:
        """The free candidate the learner most plausibly meant (`closest.rank`), or None after recording why there
        is none."""
        kind = finding.kind
        free = [c for c in finding.candidates[name] if c[0] not in taken]
        if free:
            judged = [closest.Judged(c, self._verdict_alone(judging, name, c), i) for i, c in enumerate(free)]
            self._opaque[name] = closest.opaque_checks(judged)
            claimed = self._claimed(judging, name, judged, taken)
            return closest.rank(judged, self._anchors(judging, name), claimed)[0].candidate
        resolved_id = self._resolved[name]["id"] if name in self._resolved else None
        ids = {c[0] for c in finding.candidates[name]}
        near = {rid: holder for rid, holder in taken.items() if rid in ids}
        away = {rid: r for rid, r in finding.away.items() if resolved_id is None or rid == resolved_id}
        if away and not near:
            issue, hint = self._away(kind, away)
            self._checks.append(_check_record(name, "region", False, self.region, _show(sorted(set(away.values())))))
            self._fail(name, issue, hint, critical=finding.critical, check="region", subject=kind.noun)
            return None
        if resolved_id is not None and resolved_id not in taken:
            issue = f"The {kind.describe(resolved_id)} validated earlier no longer exists."
        elif near:
            issue = self._all_taken(kind, name, near, len(ids))
        elif finding.gone:
            # an event names it and AWS does not know it: never there, or deleted since; we cannot tell which
            issue = f"We could not find the {' or the '.join(map(kind.describe, finding.gone))} recorded for this step."
        else:
            issue = self._none_made(kind, name)
        self._checks.append(_check_record(name, "exists", False, True, False))
        hint = f"{self._hint(name, 'exists', kind)} (output {name})"
        self._fail(name, issue, hint, critical=finding.critical, check="exists", subject=kind.noun)
        return None

    def _none_made(self, kind: Kind, name: str) -> str:
        """Why output `name` has no candidate when this step made no resource of its kind, in what the learner
        knows: the kind, what the spec says of the output, how many of the kind the step asks for."""
        described = _description(self._asked.get(name))
        asked = sum(o.get("type") == kind.type for o in self._asked.values())
        if described:
            return f"No {kind.noun} was created in this step ({described})."
        if asked > 1:
            return f"No {kind.noun} was created in this step, which asks for {asked}."
        return f"No {kind.noun} was created in this step."

    def _all_taken(self, kind: Kind, name: str, near: Mapping[str, str], made: int) -> str:
        """Why output `name` has no candidate when other handles of the step hold every resource of its kind it made
        (`near`: id -> the handle holding it, of `made`), each named as the learner knows it."""
        asked = sum(o.get("type") == kind.type for o in self._asked.values())
        if asked > made:
            which = ", ".join(map(kind.describe, near))
            were = "was" if made == 1 else "were"
            return f"This step asks for {asked} {_plural(kind.noun)}, and only {made} {were} created in it ({which})."
        holders = "; ".join(f"{kind.describe(rid)} is {self._wanted(holder)}" for rid, holder in near.items())
        return f"No other {kind.noun} created in this step is left for {self._wanted(name)}: {holders}."

    def _wanted(self, name: str) -> str:
        """Output or input `name` as the learner knows it (`the second subnet this step asks for`, `the S3 bucket
        from an earlier step`): a handle name is the platform's, and a learner never saw it."""
        if name in self._input_names and name not in self._asked:
            handle = self._resolved.get(name)
            return f"the {_noun(handle['type'] if handle else '')} from an earlier step"
        asked = self._asked.get(name)
        if asked is None:
            return name  # not the spec's: the module's own name for a check of its own
        noun = self._kinds[name].noun if name in self._kinds else _noun(asked.get("type", ""))
        described = _description(asked)
        if described:
            return f"the {noun} this step asks for ({described})"
        same = [o for o in self._asked.values() if o.get("type") == asked.get("type")]
        if len(same) == 1:
            return f"the {noun} this step asks for"
        return f"the {_ordinal(same.index(asked) + 1)} {noun} this step asks for"

    def _claimed(self, judging: Judging, name: str, judged: list[closest.Judged], taken: dict[str, str]) -> set[str]:
        """The candidates of `name` that another output of the step, still without a resource, fits better: they
        miss fewer of its requirements (those they can be judged on) than of `name`'s, or as many but meet more of
        its requirements before the first miss (`closest.fitting_prefix`: of two subnets with their zones swapped,
        each is the output whose CIDR it has)."""
        others = [
            other
            for other, finding in judging.finding_of.items()
            if other != name and other not in taken.values() and finding.kind.type == judging.finding_of[name].kind.type
        ]
        claimed = set()
        for entry in judged:
            if entry.verdict is None:
                continue
            here = closest.fit_for(entry.verdict)
            for other in others:
                if entry.candidate not in judging.finding_of[other].candidates[other]:
                    continue
                there = self._verdict_alone(judging, other, entry.candidate)
                if there is not None and closest.fit_for(there) < here:
                    claimed.add(entry.candidate[0])
                    break
        return claimed

    def _anchors(self, judging: Judging, name: str) -> closest.Anchors:
        """The step's inputs, and the resources of the outputs `name` reads or that read `name` (as tried now)."""
        now = {**{n: c for n, c in self._chosen.items() if c}, **{n: c for n, c in judging.trial.items() if c}}
        read = {r for (output, _), names in judging.reads.items() if output == name for r in names} - {name}
        readers = {output for (output, _), names in judging.reads.items() if name in names} - {name}

        def resources(names: set[str]) -> list[Candidate]:
            """Each output's resource as tried now, else all its candidates (it may be chosen after this one)."""
            found: list[Candidate] = []
            for n in sorted(names):
                found += (
                    [now[n]] if n in now else judging.finding_of[n].candidates[n] if n in judging.finding_of else []
                )
            return found

        return closest.Anchors(list(self._inputs.values()), resources(read), resources(readers))

    @staticmethod
    def _verdict_alone(judging: Judging, name: str, candidate: Candidate) -> Verdict | None:
        """How `candidate` meets `name`'s requirements, judged as `name`'s own candidate."""
        before = judging.trial.get(name)
        judging.trial[name] = candidate
        verdict = judging.verdict(name, candidate)
        judging.trial[name] = before
        return verdict

    def _miss(
        self, name: str, kind: Kind, candidate: Candidate, first: Outcome, others: list[Outcome], *, critical: bool
    ) -> None:
        """Output `name`'s closest candidate misses `first` (the wrong requirement to name) and `others`: the step's
        failure, `first` its issue, the first of `others` listed after it (`LISTED` in all)."""
        hint = first.hint or self._hint(name, first.requirement.check, kind)
        subject = kind.describe(*candidate)
        also = [self._words(name, subject, o) for o in others[: LISTED - 1]]
        if len(others) > LISTED - 1:
            also.append(f"and {len(others) - (LISTED - 1)} more")
        self._fail(
            name,
            first.issue(subject),
            hint,
            critical=critical,
            check=first.requirement.check,
            subject=subject[:1].upper() + subject[1:],
            expected=first.requirement.expected,
            actual=first.actual,
            derived=isinstance(first.actual, Missing),
            also=also,
        )

    def _words(self, name: str, subject: str, outcome: Outcome) -> str:
        """Another miss of output `name`'s resource, as listed after the first: the author's issue for its check
        where the spec has one, else the kit's words."""
        authored = self._authored(name, outcome.requirement.check).get("issue")
        if authored:
            values = {
                "subject": subject[:1].upper() + subject[1:],
                "check": outcome.requirement.check,
                "expected": _show(outcome.requirement.expected),
                "actual": _show(outcome.actual),
            }
            return authored.format_map(values).rstrip().removesuffix(".")
        return outcome.words().removesuffix(".")

    def _wait(self, name: str, kind: Kind, candidate: Candidate, verdict: Verdict) -> None:
        """Output `name`'s resource is right so far, and AWS has not finished with it: not yet, not wrong."""
        subject = kind.describe(*candidate)
        subject = subject[:1].upper() + subject[1:]
        if verdict.settling:
            self._checks.append(_check_record(name, "settled", False, "settled", verdict.settling))
            now = verdict.settling
        else:
            first = verdict.waiting[0]
            now = f"{first.requirement.check} is {_show(first.actual)}"
        context = {
            "step": self.key,
            "issue": f"{subject} is not ready yet ({now}): AWS is still working on it.",
            "hint_context": f"Nothing is wrong so far: check again in about {kind.retry_after_s} seconds.",
            "handle": name,
        }
        self._waiting.append((context, kind.retry_after_s))

    def _candidates(
        self, kind: Kind, names: list[str], regions: dict[str, str]
    ) -> tuple[dict[str, list[Candidate]], list[str], dict[str, str]]:
        """Each output's candidates (a resolved handle's resource alone, else this step's events of the kind, in
        event order, and what AWS made with this step's other resources: `Kind.made_with`), each described once;
        the ids whose resources are gone; and those in a region the lab does not allow (id -> region), which are no
        candidates: the one place the lab's region is applied."""
        ids: dict[str, bool] = {}  # id -> from this step's events (so possibly not yet visible)
        for name in names:
            if name in self._resolved:
                ids.setdefault(self._resolved[name]["id"], False)
        for event_id in self.event_ids(kind):
            ids.setdefault(event_id, True)
        for made_id in self._made_with(kind):
            ids.setdefault(made_id, True)
        described: dict[str, Candidate] = {}
        gone = []
        away = {}
        for resource_id, from_events in ids.items():
            elsewhere = outside(kind, resource_id, regions.get(resource_id), self.region, self._other_regions)
            if elsewhere is not None:
                away[resource_id] = elsewhere
                continue
            resource = fetch_or_none(
                partial(kind.fetch_in, self.session, resource_id, regions.get(resource_id)),
                retry=from_events,
                service=kind.service_name,
            )
            if resource is None:
                gone.append(resource_id)
            else:
                described[resource_id] = (resource_id, resource)
        per_name = {}
        for name in names:
            if name in self._resolved:
                own = described.get(self._resolved[name]["id"])
                per_name[name] = [own] if own else []
            else:
                per_name[name] = [c for rid, c in described.items() if ids[rid]]
        return per_name, gone, away

    def _made_with(self, kind: Kind) -> list[str]:
        """The ids of `kind` that AWS made along with this step's resources of other types (`Kind.made_with`)."""
        made = []
        for source_type, implied in kind.made_with:
            for event in self._events:
                if event.get("type") == source_type:
                    found = fetch_or_none(partial(implied, self.session, event["id"]), service=kind.service_name)
                    made.extend(found or [])
        return made

    def _away(self, kind: Kind, away: Mapping[str, str]) -> tuple[str, str]:
        """The issue and hint for resources of `kind` found only in regions the lab does not allow."""
        places = "; ".join(f"the {kind.describe(rid)} is in {region}" for rid, region in away.items())
        rest = f"this lab is in {self.region} (a resource in another region does not count)"
        issue = f"{places[:1].upper()}{places[1:]}; {rest}."
        hint = (
            f"Create the {kind.noun} in {self.region}, the lab's region (the console's region, or the SDK's or CLI's)."
        )
        return issue, hint

    def _regions(self, kind: Kind, names: list[str]) -> dict[str, str]:
        """id -> region, for the handles and events of `kind` that name one."""
        regions = {e["id"]: e["region"] for e in self._events if e.get("type") == kind.type and e.get("region")}
        for name in names:
            handle = self._resolved.get(name)
            if handle and handle.get("region"):
                regions[handle["id"]] = handle["region"]
        return regions

    def _record(self, handle: str, outcomes: list[Outcome]) -> None:
        for o in outcomes:
            self._checks.append(_check_record(handle, o.requirement.check, o.ok, o.requirement.expected, o.actual))

    @overload
    def _fail(
        self,
        handle: str | None,
        issue: str,
        hint: str,
        *,
        critical: Literal[True],
        check: str | None = None,
        subject: str = "the resource",
        expected: Any = None,
        actual: Any = None,
        derived: bool = False,
        also: Sequence[str] = (),
    ) -> NoReturn: ...

    @overload
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
        derived: bool = False,
        also: Sequence[str] = (),
    ) -> None: ...

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
        derived: bool = False,
        also: Sequence[str] = (),
    ) -> None:
        """Record the step's first failure, in the author's words where the spec's feedback has some; a miss for want
        of another output's resource (`derived`) gives way to the first that is not. `also`: the same resource's
        other misses, listed after the issue in the message and the hint context (the issue stays one sentence)."""
        authored = self._authored(handle, check)
        if authored.get("issue"):
            values = {"subject": subject, "check": check or "", "expected": _show(expected), "actual": _show(actual)}
            issue = authored["issue"].format_map(values)
        hint = authored.get("hint") or hint
        if self._failure is None or (self._failure_derived and not derived):
            listed = f" Also: {'; '.join(also)}." if also else ""
            self._failure = {"step": self.key, "issue": issue, "hint_context": f"{hint}{listed}"}
            self._failure_derived = derived
            self._failure_also = listed
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
            where = f" ({self.region})" if self.region else ""
            return f"Create {subject} this step asks for, in the lab's region{where}."
        return f"Look at the {check} of {subject}."


_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth")


def _ordinal(n: int) -> str:
    return _ORDINALS[n - 1] if 0 < n <= len(_ORDINALS) else f"number {n}"


def _noun(type_: str) -> str:
    """What a learner calls a resource of this CloudFormation type (the kit's noun), or a value."""
    kind = KINDS.get(type_)
    return kind.noun if kind else "value" if type_ == "string" else "resource"


def _plural(noun: str) -> str:
    """`subnets`, `bucket policies`, `KMS aliases`, `HTTP APIs`."""
    if noun.endswith("s"):
        return f"{noun}es"
    if noun.endswith("y") and noun[-2:-1] not in "aeiou":
        return f"{noun[:-1]}ies"
    return f"{noun}s"


def _description(output: Mapping[str, Any] | None) -> str | None:
    """What the spec says an output is, as given (no closing full stop), if it says."""
    text = str((output or {}).get("description") or "").strip().removesuffix(".")
    return text or None


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
