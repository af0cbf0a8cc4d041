"""IAM resource patterns and the catalog's ARN formats as automata, to decide questions over every ARN at once.

A `Glob` is a tuple of tokens: a one-character string matches itself, `ANY_RUN` any run of characters (IAM's `*`),
`ANY_ONE` one character (IAM's `?`), `SEGMENT` any run without a `:` (an ARN format's `${Name}` before a `:`,
which must stay one field of the ARN), `WORD` any run without a `/` or `:` (a `${Name}` that cannot hold a `/`).
`regions` finds every distinct combination of "which pattern sets match", each with a shortest witness, by walking
the product of the automata.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterable, Sequence
from functools import lru_cache

ANY_RUN = 0
ANY_ONE = 1
SEGMENT = 2
WORD = 3

Token = str | int
Glob = tuple[Token, ...]
PatternSet = tuple[tuple[Glob, ...], bool]
"""Globs and whether the set is negated (a NotResource): it matches what none of its globs match."""

_LOOPS = (ANY_RUN, SEGMENT, WORD)


@lru_cache(maxsize=8192)
def iam_glob(pattern: str) -> Glob:
    """An IAM resource pattern: `*` any run (including `/` and `:`), `?` any one character, the rest literal."""
    return tuple(ANY_RUN if c == "*" else ANY_ONE if c == "?" else c for c in pattern)


def verbatim(text: str) -> Glob:
    """Exactly `text` (e.g. the resource `*` an action without resource types is requested on)."""
    return tuple(text)


@lru_cache(maxsize=4096)
def arn_format(template: str, words: frozenset[str] = frozenset()) -> Glob:
    """A catalog ARN format such as `arn:${Partition}:logs:${Region}:${Account}:log-group:${LogGroupName}`: a
    `${Name}` of `words` is a `WORD` (no `/`, no `:`); another followed by `:` is one field (no `:`); any other
    (the last, or before a `/`) is any run."""
    tokens: list[Token] = []
    for part in re.split(r"(\$\{[^}]*\})", template):
        if part[2:-1] in words and part.startswith("${"):
            tokens.append(WORD)
        elif part.startswith("${") and part.endswith("}"):
            tokens.append(ANY_RUN)
        else:
            tokens.extend(ANY_RUN if c == "*" else c for c in part)
    following = [*tokens[1:], None]
    return tuple(SEGMENT if t == ANY_RUN and nxt == ":" else t for t, nxt in zip(tokens, following, strict=True))


def surely_disjoint(a: Glob, b: Glob) -> bool:
    """A cheap, sound test that no string matches both: one is a plain string the other does not match, or both
    are ARNs naming different services in a literal `arn:PARTITION:SERVICE:` head. False means "may overlap"."""
    for one, other in ((a, b), (b, a)):
        if all(isinstance(t, str) for t in one):
            return not matches(other, "".join(one))  # type: ignore[arg-type]
    service_a, service_b = _service(a), _service(b)
    return service_a is not None and service_b is not None and service_a != service_b


@lru_cache(maxsize=65536)
def overlap(a: Glob, b: Glob) -> bool:
    """Whether some string matches both (exact: a walk of the two automata together, stopping at the first)."""
    if surely_disjoint(a, b):
        return False
    literals = {t for t in (*a, *b) if isinstance(t, str)} | {":", "/"}
    alphabet = [next(c for c in _fresh_chars() if c not in literals), *sorted(literals)]
    start = (_closure(a, (0,)), _closure(b, (0,)))
    seen, queue = {start}, deque([start])
    while queue:
        sa, sb = queue.popleft()
        if len(a) in sa and len(b) in sb:
            return True
        for char in alphabet:
            nxt = (_step(a, sa, char), _step(b, sb, char))
            if nxt[0] and nxt[1] and nxt not in seen:
                seen.add(nxt)
                queue.append(nxt)
    return False


def escapes(glob: Glob, patterns: Sequence[Glob]) -> bool:
    """A cheap, sound test that some string of `glob` matches none of `patterns`: `glob` with every wildcard
    filled by one character no pattern spells out. False means "unsure"."""
    literals = {t for p in patterns for t in p if isinstance(t, str)} | {":"}
    fresh = next(c for c in _fresh_chars() if c not in literals)
    witness = "".join(t if isinstance(t, str) else fresh for t in glob)
    return not any(matches(p, witness) for p in patterns)


def surely_covers(a: Glob, b: Glob) -> bool:
    """A cheap, sound test that every string `b` matches is matched by `a`: `a` is `*`, or a plain prefix and `*`
    that `b` starts with, or `b` is a plain string `a` matches. False means "may not"."""
    if a and a[-1] == ANY_RUN and all(isinstance(t, str) for t in a[:-1]):
        return b[: len(a) - 1] == a[:-1]
    return all(isinstance(t, str) for t in b) and matches(a, "".join(b))  # type: ignore[arg-type]


def _service(glob: Glob) -> str | None:
    """The SERVICE of a glob that starts `arn:` PARTITION `:` SERVICE `:` with SERVICE literal, else None."""
    fields: list[list[Token]] = [[]]
    for token in glob:
        if token == ":":
            if len(fields) == 3:
                break
            fields.append([])
        else:
            fields[-1].append(token)
    else:
        return None
    head, partition, service = fields
    if head != list("arn") or ANY_RUN in partition or ANY_ONE in partition or not service:
        return None
    return "".join(service) if all(isinstance(t, str) for t in service) else None  # type: ignore[arg-type]


def matches(glob: Glob, text: str) -> bool:
    """Whether `text` is one of the strings `glob` describes."""
    states = _closure(glob, (0,))
    for char in text:
        states = _step(glob, states, char)
    return len(glob) in states


def regions(prefix: str, sets: Sequence[PatternSet]) -> dict[tuple[bool, ...], str]:
    """Every distinct tuple (does set i match `prefix + key`?) over all non-empty keys, each with a shortest
    witness key; insertion order is shortest-witness first."""
    globs = [(n, g) for n, (members, _) in enumerate(sets) for g in members]
    states = tuple(_closure(g, (0,)) for _, g in globs)
    for char in prefix:
        states = tuple(_step(g, st, char) for (_, g), st in zip(globs, states, strict=True))
    literals = {t for _, g in globs for t in g if isinstance(t, str)}
    if any(SEGMENT in g or WORD in g for _, g in globs):
        literals.add(":")
    if any(WORD in g for _, g in globs):
        literals.add("/")
    fresh = next(c for c in _fresh_chars() if c not in literals)
    alphabet = [fresh, *sorted(literals)]

    def advance(st: tuple[frozenset[int], ...], char: str) -> tuple[frozenset[int], ...]:
        return tuple(_step(g, s, char) for (_, g), s in zip(globs, st, strict=True))

    def verdict(st: tuple[frozenset[int], ...]) -> tuple[bool, ...]:
        matched = [False] * len(sets)
        for (n, g), s in zip(globs, st, strict=True):
            matched[n] = matched[n] or len(g) in s
        return tuple(m != negated for m, (_, negated) in zip(matched, sets, strict=True))

    found: dict[tuple[bool, ...], str] = {}
    queue: deque[tuple[tuple[frozenset[int], ...], str]] = deque()
    seen: set[tuple[frozenset[int], ...]] = set()

    def visit(st: tuple[frozenset[int], ...], key: str) -> None:
        for char in alphabet:
            nxt = advance(st, char)
            if nxt not in seen:
                seen.add(nxt)
                queue.append((nxt, key + char))

    visit(states, "")  # keys are never empty, so the state after the bare prefix is not itself a verdict
    while queue:
        st, key = queue.popleft()
        found.setdefault(verdict(st), key)
        visit(st, key)
    return found


def _closure(glob: Glob, states: Iterable[int]) -> frozenset[int]:
    out: set[int] = set()
    for i in states:
        out.add(i)
        while i < len(glob) and glob[i] in _LOOPS:
            i += 1
            out.add(i)
    return frozenset(out)


def _step(glob: Glob, states: frozenset[int], char: str) -> frozenset[int]:
    nxt = []
    for i in states:
        if i < len(glob):
            token = glob[i]
            if token == ANY_RUN or (token == SEGMENT and char != ":") or (token == WORD and char not in "/:"):
                nxt.append(i)
            elif token in (ANY_ONE, char):
                nxt.append(i + 1)
    return _closure(glob, nxt)


def _fresh_chars() -> Iterable[str]:
    yield from "xyzkq"
    yield from (chr(c) for c in range(0x100, 0x110000))
