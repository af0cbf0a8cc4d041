"""A step's outputs, chosen together: the `Output` that requirements refer to, and the judging of candidates.

`Step.find` declares an output and returns its `Output`; the step chooses resources for every output declared
so far at once (`Judging.choose`), when one is read, when an input, a check or the result needs it. An output's
requirement may refer to another output (`net.tcp(5432, app)`): judging a candidate then reads the candidate the
search is trying for that output, and a requirement that reads an output not tried yet waits until it is.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from harness.kit import refs
from harness.kit.kinds import Kind, Resource
from harness.kit.later import Later
from harness.kit.match import Fit, assign
from harness.kit.require import Outcome, Requirement
from harness.kit.stops import Absent

Candidate = tuple[str, Resource]
"""(id, the described resource)."""


class Unassigned(BaseException):
    """A requirement read an output the search has not tried a candidate for yet (it is judged again later).

    A BaseException, so that no `except Exception` in a requirement can swallow it."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name


class Output(Later, Mapping[str, Any]):
    """An output of the step as requirements refer to it: pass it whole (`ec2.in_vpc(vpc)`,
    `net.tcp(5432, app)`) and the step chooses it together with the outputs that refer to it. Reading it
    (`app["GroupId"]`, `if app:`) chooses every output found so far, and gives the resource chosen: a near miss
    is still a resource; an output with no candidate at all reads as empty and false."""

    def __init__(
        self, name: str, value_of: Callable[[str], Resource | None], label_of: Callable[[str], str] | None = None
    ) -> None:
        self.name = name
        self._value_of = value_of
        self._label_of = label_of

    @property
    def label(self) -> str:
        """The output as the learner knows it (`the second subnet this step asks for`), for a miss's sentence: its
        handle name is the platform's, and a learner never saw it."""
        return self._label_of(self.name) if self._label_of is not None else self.name

    def settle(self) -> Resource | None:
        return self._value_of(self.name)

    def absent(self) -> list[str]:
        return [self.label] if self.settle() is None else []

    def __getitem__(self, key: str) -> Any:
        resource = self.settle()
        if resource is None:
            raise Absent(self.name, key, self.label)
        return resource[key]

    def get(self, key: str, default: Any = None) -> Any:
        resource = self.settle()
        return default if resource is None else resource.get(key, default)

    def __iter__(self) -> Iterator[str]:
        return iter(self.settle() or {})

    def __len__(self) -> int:
        return len(self.settle() or {})

    def __bool__(self) -> bool:
        return self.settle() is not None

    def __repr__(self) -> str:
        return f"Output({self.name!r})"


@dataclass
class Finding:
    """One `find`/`find_all` call: its outputs, their requirements and candidates (in preference order)."""

    kind: Kind
    requirements: Mapping[str, Sequence[Requirement]]
    candidates: dict[str, list[Candidate]]
    gone: list[str]
    regions: dict[str, str]
    critical: bool = False
    away: dict[str, str] = field(default_factory=dict)
    """Resources of the kind found in a region the lab does not allow: id -> region (no candidates)."""

    @property
    def names(self) -> list[str]:
        return list(self.requirements)


@dataclass
class Verdict:
    """How a candidate meets its output's requirements: FITS, PENDING or MISSES, with the outcomes behind it.

    `waiting` are the misses AWS may still turn into passes (see `Requirement.waits`), `wrong` the others;
    `settling` is the transitional state the candidate's Kind reads on it."""

    fit: Fit
    outcomes: list[Outcome]
    wrong: list[Outcome]
    waiting: list[Outcome]
    settling: str | None


def verdict_of(kind: Kind, resource: Resource, outcomes: list[Outcome]) -> Verdict:
    """A resource that is settling, or whose only misses wait on AWS, is PENDING; any other miss is MISSES."""
    settling = kind.settling(resource) if kind.settling else None
    misses = [o for o in outcomes if not o.ok]
    waiting = [o for o in misses if _not_yet(o.requirement, resource, settling)]
    wrong = [o for o in misses if all(o is not w for w in waiting)]
    fit = Fit.MISSES if wrong else Fit.PENDING if settling or waiting else Fit.FITS
    return Verdict(fit, outcomes, wrong, waiting, settling)


def _not_yet(requirement: Requirement, resource: Resource, settling: str | None) -> bool:
    """Whether a miss of `requirement` is AWS not having finished with the resource, rather than something wrong."""
    waits = requirement.waits
    if callable(waits):
        return bool(waits(resource))
    return bool(waits) and settling is not None


@dataclass
class Judging:
    """The choosing of one group of findings: each requirement evaluated on a candidate once per value of the
    outputs it reads (learnt as it reads them), in the candidate's region."""

    findings: list[Finding]
    resolver: refs.Resolver
    taken: dict[tuple[str, str], str]
    """(type, id) -> the output outside this group already holding it."""
    trial: dict[str, Candidate | None] = field(default_factory=dict)
    choosing: bool = True
    _reads: dict[tuple[str, int], set[str]] = field(default_factory=dict)
    _reading: set[str] | None = None
    _cache: dict[Any, Outcome] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.finding_of = {name: f for f in self.findings for name in f.names}

    @property
    def names(self) -> list[str]:
        return list(self.finding_of)

    @property
    def reads(self) -> Mapping[tuple[str, int], set[str]]:
        """(output, requirement index) -> the outputs that requirement was seen to read."""
        return self._reads

    def value_of(self, name: str) -> Resource | None:
        """The resource an output stands for while this group is judged (Unassigned while choosing, for an
        output of the group not tried yet)."""
        if self._reading is not None:
            self._reading.add(name)
        if name in self.trial:
            candidate = self.trial[name]
            return candidate[1] if candidate else None
        if self.choosing and name in self.finding_of:
            raise Unassigned(name)
        return None

    def options(self, name: str) -> list[Candidate]:
        """The output's candidates not held by an output outside the group, in preference order."""
        finding = self.finding_of[name]
        return [c for c in finding.candidates[name] if (finding.kind.type, c[0]) not in self.taken]

    def choose(self) -> dict[str, Candidate | None]:
        """The best assignment of the group's outputs (see `match.assign`); afterwards outputs read as chosen."""
        chosen = assign(
            self.names,
            {name: self.options(name) for name in self.names},
            self._judge,
            lambda name, candidate: (self.finding_of[name].kind.type, candidate[0]),
            self._weigh,
        )
        self.choosing = False
        self.trial = dict(chosen)
        return chosen

    def _judge(self, name: str, candidate: Candidate, trial: Mapping[str, Candidate | None]) -> Fit:
        self.trial = dict(trial)
        verdict = self.verdict(name, candidate)
        return Fit.UNDECIDED if verdict is None else verdict.fit

    def _weigh(self, name: str, candidate: Candidate | None, trial: Mapping[str, Candidate | None]) -> int:
        """The requirements `candidate` breaks as `name`'s resource; none at all breaks every one, and `exists`."""
        if candidate is None:
            return len(self.finding_of[name].requirements[name]) + 1
        self.trial = dict(trial)
        verdict = self.verdict(name, candidate)
        return len(verdict.wrong) if verdict else 0

    def verdict(self, name: str, candidate: Candidate) -> Verdict | None:
        """How `candidate` meets `name`'s requirements with the other outputs as `trial` has them; None while a
        requirement reads an output not tried yet."""
        finding = self.finding_of[name]
        outcomes = []
        for index, requirement in enumerate(finding.requirements[name]):
            reads = self._reads.setdefault((name, index), set())
            key = (name, index, candidate[0], self._held(reads))
            if key not in self._cache:
                self._reading = set()
                try:
                    outcome = self._evaluate(requirement, candidate, finding)
                except Unassigned:
                    return None
                finally:
                    reads |= self._reading
                    self._reading = None
                key = (name, index, candidate[0], self._held(reads))
                self._cache[key] = outcome
            outcomes.append(self._cache[key])
        return verdict_of(finding.kind, candidate[1], outcomes)

    def _held(self, reads: set[str]) -> tuple[tuple[str, str | None], ...]:
        """What the outputs in `reads` hold now, as a cache key: an output not tried yet while choosing is told
        apart from one tried with none (a requirement reading it is undecided, not missed)."""
        return tuple(sorted((r, _id(self.trial[r]) if r in self.trial else self._unset(r)) for r in reads))

    def _unset(self, name: str) -> str | None:
        return UNTRIED if self.choosing and name in self.finding_of else None

    def _evaluate(self, requirement: Requirement, candidate: Candidate, finding: Finding) -> Outcome:
        with refs.resolving(self.resolver.at(finding.regions.get(candidate[0]))):
            return requirement.evaluate(candidate[1], finding.kind.describe(candidate[0], candidate[1]))


UNTRIED = "\0untried"
"""The cache key's mark for an output not tried yet (no resource id holds a NUL)."""


def _id(candidate: Candidate | None) -> str | None:
    return candidate[0] if candidate else None
