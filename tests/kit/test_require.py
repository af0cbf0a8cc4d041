"""Requirements (evaluate, word a miss), LazyResource (attributes fetched once, on first use) and Kind naming."""

from __future__ import annotations

import pytest

from harness.kit.kinds import Kind, LazyResource
from harness.kit.require import Outcome, Requirement, attribute, includes, require


def test_attribute_compares_one_key() -> None:
    requirement = attribute("instance type", "InstanceType", "t3.micro", hint="Pick t3.micro.")
    assert requirement.evaluate({"InstanceType": "t3.micro"}) == Outcome(requirement, True, "t3.micro")
    missed = requirement.evaluate({"InstanceType": "t2.micro"})
    assert (missed.ok, missed.actual) == (False, "t2.micro")
    assert requirement.hint == "Pick t3.micro."


def test_attribute_reads_a_missing_key_as_none() -> None:
    outcome = attribute("instance type", "InstanceType", "t3.micro").evaluate({})
    assert (outcome.ok, outcome.actual) == (False, None)
    assert outcome.issue("instance i-1") == "Instance i-1: instance type should be t3.micro, but is none."


def test_require_compares_actual_then_expected_and_coerces_to_bool() -> None:
    seen = []

    def compare(actual, expected):
        seen.append((actual, expected))
        return [actual] if actual > expected else []  # truthy / falsy, not bool

    requirement = require("size", 2, lambda r: r["Size"], compare=compare)
    assert requirement.evaluate({"Size": 3}).ok is True
    assert requirement.evaluate({"Size": 1}).ok is False
    assert seen == [(3, 2), (1, 2)]


@pytest.mark.parametrize(
    ("expected", "actual", "sentence"),
    [
        (True, False, "DNS hostnames should be enabled, but is disabled."),
        (False, True, "DNS hostnames should be disabled, but is enabled."),
        ("10.0.0.0/16", "10.1.0.0/16", "DNS hostnames should be 10.0.0.0/16, but is 10.1.0.0/16."),
        (["b", "a"], [], "DNS hostnames should be a, b, but is none."),
        ({"z", "y"}, ("x",), "DNS hostnames should be y, z, but is x."),
        (3, None, "DNS hostnames should be 3, but is none."),
    ],
    ids=["bool-on", "bool-off", "text", "list-vs-empty", "set-vs-tuple", "none"],
)
def test_the_default_wording_of_a_miss(expected, actual, sentence) -> None:
    outcome = require("DNS hostnames", expected, lambda r: r).evaluate(actual)
    assert outcome.ok is False
    assert outcome.issue("vPC vpc-1") == f"VPC vpc-1: {sentence}"  # the subject's first letter is capitalized


def test_explain_words_a_miss_from_the_actual_value() -> None:
    requirement = require(
        "attachment", "vpc-1", lambda igw: igw["Attached"], explain=lambda actual: f"it is attached to {actual}."
    )
    outcome = requirement.evaluate({"Attached": "vpc-2"})
    assert outcome.issue("internet gateway igw-1") == "Internet gateway igw-1: it is attached to vpc-2."


def test_a_requirement_is_a_frozen_value() -> None:
    requirement = Requirement("check", 1, lambda r: r)
    with pytest.raises(AttributeError):
        requirement.expected = 2  # type: ignore[misc]


# --- LazyResource -----------------------------------------------------------------------------------------------


def counted_loader(value, calls: list[str], name: str):
    def load():
        calls.append(name)
        return value

    return load


def test_a_lazy_attribute_is_loaded_once_on_first_use() -> None:
    calls: list[str] = []
    resource = LazyResource({"Id": "r-1"}, {"Extra": counted_loader(42, calls, "Extra")})
    assert calls == []
    assert resource["Extra"] == 42
    assert resource["Extra"] == 42
    assert resource.get("Extra") == 42
    assert calls == ["Extra"]


def test_get_loads_a_lazy_attribute_too() -> None:
    calls: list[str] = []
    resource = LazyResource({"Id": "r-1"}, {"Extra": counted_loader(False, calls, "Extra")})
    assert resource.get("Extra", "default") is False  # a falsy loaded value, not the default
    assert calls == ["Extra"]


def test_a_key_without_a_loader_is_a_key_error_or_the_default() -> None:
    resource = LazyResource({"Id": "r-1", "Nothing": None}, {})
    with pytest.raises(KeyError):
        resource["Missing"]
    assert resource.get("Missing") is None
    assert resource.get("Missing", "fallback") == "fallback"
    assert resource.get("Nothing", "fallback") is None  # a described key holding None is not missing
    assert resource.get("Id") == "r-1"


def test_a_described_value_wins_over_a_loader() -> None:
    calls: list[str] = []
    resource = LazyResource({"Extra": "described"}, {"Extra": counted_loader("loaded", calls, "Extra")})
    assert resource["Extra"] == "described"
    assert calls == []


def test_a_lazy_resource_is_a_plain_dict_of_what_was_described() -> None:
    resource = LazyResource({"Id": "r-1"}, {"Extra": lambda: 1})
    assert resource == {"Id": "r-1"}
    assert isinstance(resource, dict)


def test_an_attribute_requirement_reads_a_lazy_attribute() -> None:
    calls: list[str] = []
    resource = LazyResource({"Id": "vpc-1"}, {"EnableDnsHostnames": counted_loader(True, calls, "dns")})
    assert attribute("DNS hostnames", "EnableDnsHostnames", True).evaluate(resource).ok is True
    assert calls == ["dns"]


def test_a_kind_names_a_resource_for_a_sentence() -> None:
    assert Kind("AWS::EC2::VPC", "VPC", lambda s, i: None).describe("vpc-1") == "VPC vpc-1"


def test_includes_looks_for_the_expected_among_the_listed() -> None:
    requirement = includes("targets", "arn:t1", lambda rule: rule.get("Targets"))
    assert requirement.evaluate({"Targets": ["arn:t0", "arn:t1"]}).ok
    missed = requirement.evaluate({"Targets": ["arn:t0"]})
    assert missed.issue("rule r") == "Rule r: targets should be arn:t1, but is arn:t0."
    assert not requirement.evaluate({}).ok  # nothing listed: a miss, not a TypeError
