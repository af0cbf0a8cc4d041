"""Matching candidates to outputs: maximum, order-independent, one output per candidate, with reasons."""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.kit.match import NO_CANDIDATE, MatchResult, match, missed


@dataclass(frozen=True)
class Bucket:
    name: str
    versioned: bool = False
    encrypted: bool = False


def needs_versioning(b: Bucket) -> list[str]:
    return missed((b.versioned, "versioning enabled"))


def needs_encryption(b: Bucket) -> list[str]:
    return missed((b.encrypted, "default encryption"))


REQUIREMENTS = {"logs": needs_versioning, "site": needs_encryption}
OUTPUTS = ["logs", "site"]


def by_name(b: Bucket) -> str:
    return b.name


def run(*candidates: Bucket) -> MatchResult[Bucket]:
    return match(OUTPUTS, candidates, REQUIREMENTS, describe=by_name)


def test_order_of_candidates_does_not_matter() -> None:
    logs, site = Bucket("logs-b", versioned=True), Bucket("site-b", encrypted=True)
    for result in (run(logs, site), run(site, logs)):
        assert result.assigned == {"logs": logs, "site": site}
        assert result.unmatched == {}
        assert result.complete


def test_the_flexible_candidate_goes_where_it_is_needed() -> None:
    both = Bucket("a-both", versioned=True, encrypted=True)
    only_logs = Bucket("z-logs", versioned=True)
    for result in (run(both, only_logs), run(only_logs, both)):
        assert result.assigned == {"logs": only_logs, "site": both}


def test_one_candidate_cannot_fill_two_outputs() -> None:
    both = Bucket("both", versioned=True, encrypted=True)
    result = run(both)
    assert result.assigned == {"logs": both}
    assert result.unmatched == {"site": ["both fits, but is already matched to logs"]}
    assert not result.complete


def test_taken_candidate_is_reported_when_the_other_output_had_no_alternative() -> None:
    both = Bucket("both", versioned=True, encrypted=True)
    plain = Bucket("plain")
    result = match(["site", "logs"], [plain, both], REQUIREMENTS, describe=by_name)
    assert result.assigned == {"site": both}
    assert result.unmatched == {
        "logs": ["both fits, but is already matched to site", "plain misses: versioning enabled"]
    }


def test_reasons_name_every_missed_requirement() -> None:
    def strict(b: Bucket) -> list[str]:
        return missed((b.versioned, "versioning enabled"), (b.encrypted, "default encryption"))

    result = match(["archive"], [Bucket("plain"), Bucket("half", versioned=True)], {"archive": strict}, by_name)
    assert result.unmatched == {
        "archive": ["half misses: default encryption", "plain misses: versioning enabled, default encryption"]
    }


def test_no_candidates() -> None:
    result = run()
    assert result.assigned == {}
    assert result.unmatched == {"logs": [NO_CANDIDATE], "site": [NO_CANDIDATE]}
    assert NO_CANDIDATE == "no candidate of this type"


def test_describe_defaults_to_str() -> None:
    result = match(["even"], [3], {"even": lambda n: missed((n % 2 == 0, "an even number"))})
    assert result.unmatched == {"even": ["3 misses: an even number"]}


def test_predicates_may_return_tuples() -> None:
    assert match(["any"], ["x"], {"any": lambda _: ()}).assigned == {"any": "x"}


@pytest.mark.parametrize(
    ("outputs", "requirements", "error"),
    [
        (["logs", "logs"], {"logs": needs_versioning}, "duplicate output names"),
        (["logs"], REQUIREMENTS, "requirements are for"),
        (["logs", "site", "extra"], REQUIREMENTS, "requirements are for"),
    ],
)
def test_inconsistent_specs_are_rejected(outputs: list[str], requirements: dict, error: str) -> None:
    with pytest.raises(ValueError, match=error):
        match(outputs, [Bucket("a")], requirements)


@pytest.mark.parametrize("returned", [True, None, "versioning enabled", [1]])
def test_predicates_must_return_missed_requirements(returned: object) -> None:
    with pytest.raises(TypeError, match="must return a list of missed requirements"):
        match(["logs"], [Bucket("a")], {"logs": lambda _: returned})


def test_missed_keeps_only_failed_checks() -> None:
    assert missed((True, "a"), (False, "b"), (False, "c")) == ["b", "c"]
    assert missed() == []


# Property tests ------------------------------------------------------------------------------------------


def brute_force_maximum(fit: list[list[bool]], n_candidates: int) -> int:
    """Largest number of outputs that can each get a distinct fitting candidate (None = left unmatched)."""
    best = 0
    for choice in itertools.product([None, *range(n_candidates)], repeat=len(fit)):
        used = [c for c in choice if c is not None]
        if len(used) == len(set(used)) and all(c is None or fit[o][c] for o, c in enumerate(choice)):
            best = max(best, len(used))
    return best


@st.composite
def fit_matrices(draw: st.DrawFn) -> tuple[list[list[bool]], int]:
    n_outputs = draw(st.integers(0, 4))
    n_candidates = draw(st.integers(0, 5))
    rows = st.lists(st.booleans(), min_size=n_candidates, max_size=n_candidates)
    return draw(st.lists(rows, min_size=n_outputs, max_size=n_outputs)), n_candidates


def run_matrix(fit: list[list[bool]], candidates: list[str]) -> MatchResult[str]:
    outputs = [f"out{i}" for i in range(len(fit))]

    def requirement(i: int):
        return lambda c: missed((fit[i][int(c[1:])], f"requirement {i}"))

    return match(outputs, candidates, {o: requirement(i) for i, o in enumerate(outputs)})


@given(fit_matrices(), st.randoms(use_true_random=False))
def test_matching_is_maximum_valid_and_order_independent(matrix: tuple[list[list[bool]], int], random) -> None:
    fit, n_candidates = matrix
    candidates = [f"c{j}" for j in range(n_candidates)]
    result = run_matrix(fit, candidates)

    assert len(result.assigned) == brute_force_maximum(fit, n_candidates)
    assert len(set(result.assigned.values())) == len(result.assigned)
    for output, candidate in result.assigned.items():
        assert fit[int(output[3:])][int(candidate[1:])]
    assert set(result.assigned) | set(result.unmatched) == {f"out{i}" for i in range(len(fit))}
    assert not set(result.assigned) & set(result.unmatched)

    holders = {c: o for o, c in result.assigned.items()}
    for output, reasons in result.unmatched.items():
        assert len(reasons) == max(1, n_candidates)
        for reason in reasons:
            candidate, _, rest = reason.partition(" ")
            if rest.startswith("fits"):
                assert rest == f"fits, but is already matched to {holders[candidate]}"
            elif n_candidates:
                assert rest == f"misses: requirement {output[3:]}"

    shuffled = list(candidates)
    random.shuffle(shuffled)
    assert run_matrix(fit, shuffled) == result
