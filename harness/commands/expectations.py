"""What a scenario expected, in words: "passes", "fails on versioning", not the regex its author wrote."""

from __future__ import annotations

import re

from harness.authoring.playthrough import ScenarioResult

FLAGS = re.compile(r"^\(\?[aiLmsux]+\)")
META = set(".^$*+?()[]{}|\\")
ANY = (".*", ".+")
NOT_AFTER = "(?!.*"


def expected_in_words(result: ScenarioResult) -> str:
    """ "passes", or "fails on <the issue pattern in words>" (the pattern as written where it is more than text,
    alternatives, `.*` and a leading `(?!.*text)`)."""
    if result.expected == "pass":
        return "passes"
    if not result.expected_issue:
        return "fails"
    words = issue_in_words(result.expected_issue)
    return f"fails on {words}" if words is not None else f"fails on an issue matching /{result.expected_issue}/"


def issue_in_words(pattern: str) -> str | None:
    """`(?i)route 0\\.0\\.0\\.0/0` -> "route 0.0.0.0/0", `a|b` -> "a or b", `x.*y` -> "x … y", `^(?!.*z)y` -> 'y (not
    "z")'; None for anything else (a class, a group, a quantifier)."""
    body = FLAGS.sub("", pattern)
    alternatives: list[str] = []
    without: list[str] = []
    current = ""
    i = 0
    while i < len(body):
        char = body[i]
        if char == "\\" and i + 1 < len(body) and not body[i + 1].isalnum():
            current, i = current + body[i + 1], i + 2
        elif body.startswith(NOT_AFTER, i):
            end = body.find(")", i)
            inner = body[i + len(NOT_AFTER) : end]
            if end < 0 or META & set(inner):
                return None
            without.append(inner)
            i = end + 1
        elif body.startswith(ANY, i):
            current, i = (current + " … " if current.strip() else current), i + 2
        elif char in "^$":
            i += 1
        elif char == "|":
            alternatives.append(current)
            current, i = "", i + 1
        elif char in META:
            return None
        else:
            current, i = current + char, i + 1
    alternatives.append(current)
    text = " or ".join(" ".join(alternative.split()) for alternative in alternatives if alternative.strip())
    if not text:
        return None
    return text + "".join(f' (not "{part}")' for part in without)
