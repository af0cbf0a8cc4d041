"""Step bookkeeping: outputs start not_found, find/find_all match by configuration, the first failure explains,
and whatever happens the result holds to the seed contract."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.core.contract import Handle, Progress
from harness.core.lab import Lab, StepSpec
from harness.kit import net
from harness.kit.kinds import Kind
from harness.kit.require import attribute, require
from harness.kit.step import Step, StopStep
from tests.kit.conftest import GADGET, WIDGET, FakeAccount, client_error, held_to_contract, make_context

BLUE = attribute("color", "Color", "blue")
RED = attribute("color", "Color", "red")
SIZE_3 = attribute("size", "Size", 3)


@pytest.fixture
def one_widget(tiny_lab: Lab) -> StepSpec:
    """01.01: one output, 01_01_widget."""
    return tiny_lab.steps["01.01"]


@pytest.fixture
def two_gadgets(tiny_lab: Lab) -> StepSpec:
    """01.02: input 01_01_widget, outputs 01_02_a and 01_02_b (both gadgets)."""
    return tiny_lab.steps["01.02"]


@pytest.fixture
def widgets(account: FakeAccount) -> Kind:
    return account.kind(WIDGET, "widget")


@pytest.fixture
def gadgets(account: FakeAccount) -> Kind:
    return account.kind(GADGET, "gadget")


def statuses(result: dict[str, Any]) -> dict[str, tuple[str | None, str]]:
    return {e["name"]: (e["id"], e["status"]) for e in result["validated"]}


# --- outputs start not_found ------------------------------------------------------------------------------------


def test_every_output_starts_not_found(two_gadgets: StepSpec) -> None:
    result = Step(None, make_context(two_gadgets)).result()
    assert result["validated"] == [
        {"name": "01_02_a", "type": GADGET, "id": None, "status": "not_found"},
        {"name": "01_02_b", "type": GADGET, "id": None, "status": "not_found"},
    ]
    assert result["success"] is False
    assert result["checks"] == []
    assert result["message"] == "0 of 0 checks passed. A resource this step needs was not found."
    assert result["failure_context"] == {
        "step": "01.02",
        "issue": result["message"],
        "hint_context": "Create the resources this step asks for.",
    }
    assert held_to_contract(result, two_gadgets).status == "fail"


def test_event_ids_are_of_the_kinds_type_in_event_order(two_gadgets: StepSpec, gadgets: Kind) -> None:
    events = [(GADGET, "g-2"), (WIDGET, "w-1"), (GADGET, "g-1")]
    step = Step(None, make_context(two_gadgets, events=events))
    assert step.event_ids(gadgets) == ["g-2", "g-1"]


# --- find: one output -------------------------------------------------------------------------------------------


def test_a_fitting_candidate_is_found_with_its_checks(one_widget: StepSpec, account: FakeAccount, widgets) -> None:
    account.resources["w-1"] = {"Color": "blue", "Size": 3}
    step = Step(None, make_context(one_widget, events=[(WIDGET, "w-1")]))
    with step:
        found = step.find("01_01_widget", widgets, [BLUE, SIZE_3])
    assert found == {"Color": "blue", "Size": 3}
    result = step.result()
    assert result["validated"] == [{"name": "01_01_widget", "type": WIDGET, "id": "w-1", "status": "found"}]
    assert result["checks"] == [
        {"handle": "01_01_widget", "check": "color", "ok": True, "expected": "blue", "actual": "blue"},
        {"handle": "01_01_widget", "check": "size", "ok": True, "expected": 3, "actual": 3},
    ]
    assert result["success"] is True
    assert result["message"] == "All 2 checks passed."
    assert "failure_context" not in result
    answer = held_to_contract(result, one_widget)
    assert answer.status == "pass"
    assert answer.resolved == [Handle(name="01_01_widget", type=WIDGET, id="w-1")]
    assert answer.progress == Progress(passed=2, total=2)


@pytest.mark.parametrize(
    ("requirement_hint", "feedback", "expected_hint"),
    [
        ("Paint it blue.", {"01_02_a": "About another handle.", "hint": "In general."}, "Paint it blue."),
        ("Paint it blue.", {"01_01_widget": "About the widget.", "hint": "In general."}, "About the widget."),
        (None, {"01_01_widget": "About the widget.", "hint": "In general."}, "About the widget."),
        (None, {"01_02_a": "About another handle.", "hint": "In general."}, "In general."),
        (None, {}, "Look at the color of the widget."),
    ],
    ids=["requirement-hint", "handle-feedback-overrides-it", "feedback-for-the-handle", "feedback-hint", "default"],
)
def test_a_misfit_is_not_found_and_explained(
    one_widget: StepSpec, account: FakeAccount, widgets, requirement_hint, feedback, expected_hint
) -> None:
    account.resources["w-1"] = {"Color": "red"}
    step = Step(None, make_context(one_widget, events=[(WIDGET, "w-1")], feedback=feedback))
    with step:
        near_miss = step.find("01_01_widget", widgets, [attribute("color", "Color", "blue", hint=requirement_hint)])
        assert near_miss == {"Color": "red"}  # still a resource, so later checks are judged on it
    result = step.result()
    assert result["validated"][0]["status"] == "not_found"
    assert result["failure_context"] == {
        "step": "01.01",
        "issue": "Widget w-1: color should be blue, but is red.",
        "hint_context": expected_hint,
    }
    assert result["checks"] == [
        {"handle": "01_01_widget", "check": "color", "ok": False, "expected": "blue", "actual": "red"}
    ]
    assert result["message"] == "0 of 1 check passed. Widget w-1: color should be blue, but is red."
    assert held_to_contract(result, one_widget).status == "fail"


@pytest.mark.parametrize(
    ("requirements", "issue"),
    [
        ([BLUE, SIZE_3], "Widget w-1: color should be blue, but is red."),
        ([SIZE_3, BLUE], "Widget w-1: size should be 3, but is 1."),
    ],
    ids=["color-first", "size-first"],
)
def test_the_first_failed_requirement_is_the_issue(
    one_widget: StepSpec, account: FakeAccount, widgets, requirements, issue
) -> None:
    account.resources["w-1"] = {"Color": "red", "Size": 1}
    step = Step(None, make_context(one_widget, events=[(WIDGET, "w-1")]))
    with step:
        step.find("01_01_widget", widgets, requirements)
    result = step.result()
    assert result["failure_context"]["issue"] == issue
    assert [c["ok"] for c in result["checks"]] == [False, False]


def test_the_first_failure_of_the_step_wins(one_widget: StepSpec, account: FakeAccount, widgets) -> None:
    account.resources["w-1"] = {"Color": "red"}
    step = Step(None, make_context(one_widget, events=[(WIDGET, "w-1")]))
    with step:
        step.find("01_01_widget", widgets, [BLUE])
        assert step.check(None, "later check", False, expected=1, actual=2) is False
    result = step.result()
    assert result["failure_context"]["issue"] == "Widget w-1: color should be blue, but is red."
    assert [c["check"] for c in result["checks"]] == ["color", "later check"]
    assert result["message"].startswith("0 of 2 checks passed. Widget w-1:")


def test_no_candidate_says_none_was_created(one_widget: StepSpec, widgets) -> None:
    step = Step(None, make_context(one_widget, events=[(GADGET, "g-1")]))  # an event of another type only
    with step:
        found = step.find("01_01_widget", widgets, [BLUE])
        assert found is not None and not found and dict(found) == {}
    result = step.result()
    assert result["failure_context"] == {
        "step": "01.01",
        "issue": "No widget was created in this step.",  # the handle name is the platform's, not the learner's
        "hint_context": "Create the widget this step asks for, in the lab's region. (output 01_01_widget)",
    }
    assert result["checks"] == [
        {"handle": "01_01_widget", "check": "exists", "ok": False, "expected": True, "actual": False}
    ]
    assert statuses(result) == {"01_01_widget": (None, "not_found")}
    assert held_to_contract(result, one_widget).status == "fail"


@pytest.mark.usefixtures("no_retry_delay")
@pytest.mark.parametrize("answer", [None, client_error("InvalidWidgetID.NotFound")], ids=["empty", "not-found"])
def test_an_event_id_that_does_not_exist_is_retried_then_not_a_candidate(
    one_widget: StepSpec, account: FakeAccount, widgets, answer
) -> None:
    account.resources["w-gone"] = answer
    step = Step(None, make_context(one_widget, events=[(WIDGET, "w-gone")]))
    with step:
        step.find("01_01_widget", widgets, [BLUE])
    assert account.calls["w-gone"] == 5  # the first try and one per retry delay
    result = step.result()
    assert statuses(result) == {"01_01_widget": (None, "not_found")}
    # an event names it and AWS does not know it: never there, or deleted since; the issue claims neither
    assert result["failure_context"]["issue"] == "We could not find the widget w-gone recorded for this step."


def test_an_event_that_appears_late_is_found(
    one_widget: StepSpec, account: FakeAccount, widgets, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("harness.kit.aws.RETRY_DELAYS_S", (0.0, 0.0, 0.0, 0.0))
    answers = iter([client_error("InvalidWidgetID.NotFound"), None, {"Color": "blue"}])

    def eventually(session: Any, resource_id: str) -> dict[str, Any] | None:
        answer = next(answers)
        if isinstance(answer, Exception):
            raise answer
        return answer

    step = Step(None, make_context(one_widget, events=[(WIDGET, "w-1")]))
    with step:
        step.find("01_01_widget", Kind(WIDGET, "widget", eventually), [BLUE])
    assert step.result()["success"] is True


def test_a_resolved_id_that_is_gone_is_not_retried(two_gadgets: StepSpec, account: FakeAccount, gadgets) -> None:
    step = Step(None, make_context(two_gadgets, resolved=[("01_02_a", "g-gone")]))
    with step:
        step.find("01_02_a", gadgets, [BLUE])
    assert account.calls["g-gone"] == 1


def test_an_aws_error_while_finding_is_not_absorbed(one_widget: StepSpec, account: FakeAccount, widgets) -> None:
    account.resources["w-1"] = client_error("AccessDenied")
    step = Step(None, make_context(one_widget, events=[(WIDGET, "w-1")]))
    with pytest.raises(Exception, match="AccessDenied"), step:
        step.find("01_01_widget", widgets, [BLUE])


# --- resolved handles come first ---------------------------------------------------------------------------------


def test_a_resolved_handle_keeps_its_resource(two_gadgets: StepSpec, account: FakeAccount, gadgets) -> None:
    account.resources.update({"g-1": {"Color": "blue"}, "g-2": {"Color": "blue"}})
    events = [(GADGET, "g-1"), (GADGET, "g-2")]

    def assignment(resolved: list[tuple[str, str]]) -> dict[str, tuple[str | None, str]]:
        step = Step(None, make_context(two_gadgets, resolved=resolved, events=events))
        with step:
            step.find_all(gadgets, {"01_02_a": [BLUE], "01_02_b": [BLUE]})
        return statuses(step.result())

    assert assignment([]) == {"01_02_a": ("g-1", "found"), "01_02_b": ("g-2", "found")}
    assert assignment([("01_02_a", "g-2")]) == {"01_02_a": ("g-2", "found"), "01_02_b": ("g-1", "found")}


def test_a_resolved_misfit_is_explained_by_itself(two_gadgets: StepSpec, account: FakeAccount, gadgets) -> None:
    account.resources["g-1"] = {"Color": "red"}
    step = Step(None, make_context(two_gadgets, resolved=[("01_02_a", "g-1")]))
    with step:
        assert step.find("01_02_a", gadgets, [BLUE]) == {"Color": "red"}
    result = step.result()
    assert statuses(result)["01_02_a"] == ("g-1", "not_found")
    assert result["failure_context"]["issue"] == "Gadget g-1: color should be blue, but is red."


@pytest.mark.parametrize("resolved_to", ["g-1", "g-gone"], ids=["resolved-misfit", "resolved-gone"])
def test_a_fitting_event_candidate_is_not_used_for_a_handle_resolved_elsewhere(
    two_gadgets: StepSpec, account: FakeAccount, gadgets, resolved_to
) -> None:
    account.resources.update({"g-1": {"Color": "red"}, "g-2": {"Color": "blue"}})
    step = Step(None, make_context(two_gadgets, resolved=[("01_02_a", resolved_to)], events=[(GADGET, "g-2")]))
    with step:
        step.find("01_02_a", gadgets, [BLUE])
    result = step.result()
    held_to_contract(result, two_gadgets)
    assert statuses(result)["01_02_a"] != ("g-2", "found")
    assert resolved_to in result["failure_context"]["issue"]


# --- find_all: several outputs of one kind ----------------------------------------------------------------------


@pytest.mark.parametrize("order", [["g-red", "g-blue"], ["g-blue", "g-red"]], ids=["red-first", "blue-first"])
def test_find_all_matches_by_configuration_in_any_event_order(
    two_gadgets: StepSpec, account: FakeAccount, gadgets, order
) -> None:
    account.resources.update({"g-red": {"Color": "red"}, "g-blue": {"Color": "blue"}})
    step = Step(None, make_context(two_gadgets, events=[(GADGET, rid) for rid in order]))
    with step:
        found = step.find_all(gadgets, {"01_02_a": [BLUE], "01_02_b": [RED]})
    assert found == {"01_02_a": {"Color": "blue"}, "01_02_b": {"Color": "red"}}
    result = step.result()
    assert statuses(result) == {"01_02_a": ("g-blue", "found"), "01_02_b": ("g-red", "found")}
    assert result["success"] is True
    assert held_to_contract(result, two_gadgets).status == "pass"


@pytest.mark.parametrize("order", [["g-both", "g-plain"], ["g-plain", "g-both"]], ids=["both-first", "plain-first"])
def test_find_all_gives_the_flexible_candidate_where_it_is_needed(
    two_gadgets: StepSpec, account: FakeAccount, gadgets, order
) -> None:
    account.resources.update({"g-both": {"Color": "blue", "Size": 3}, "g-plain": {"Color": "blue", "Size": 1}})
    step = Step(None, make_context(two_gadgets, events=[(GADGET, rid) for rid in order]))
    with step:
        step.find_all(gadgets, {"01_02_a": [BLUE, SIZE_3], "01_02_b": [BLUE]})
    assert statuses(step.result()) == {"01_02_a": ("g-both", "found"), "01_02_b": ("g-plain", "found")}


def test_one_candidate_cannot_fill_two_outputs(two_gadgets: StepSpec, account: FakeAccount, gadgets) -> None:
    account.resources["g-1"] = {"Color": "blue"}
    step = Step(None, make_context(two_gadgets, events=[(GADGET, "g-1")]))
    with step:
        found = step.find_all(gadgets, {"01_02_a": [BLUE], "01_02_b": [BLUE]})
    assert found["01_02_a"] == {"Color": "blue"}
    assert not found["01_02_b"]  # chosen together: no candidate was left for it, so it reads as nothing
    result = step.result()
    assert statuses(result) == {"01_02_a": ("g-1", "found"), "01_02_b": (None, "not_found")}
    assert (
        result["failure_context"]["issue"] == "This step asks for 2 gadgets, and only 1 was created in it (gadget g-1)."
    )
    assert result["checks"][-1] == {
        "handle": "01_02_b",
        "check": "exists",
        "ok": False,
        "expected": True,
        "actual": False,
    }
    assert held_to_contract(result, two_gadgets).status == "fail"


def test_a_candidate_found_by_an_earlier_find_is_not_reused(
    two_gadgets: StepSpec, account: FakeAccount, gadgets
) -> None:
    account.resources["g-1"] = {"Color": "blue"}
    step = Step(None, make_context(two_gadgets, events=[(GADGET, "g-1")]))
    with step:
        assert step.find("01_02_a", gadgets, [BLUE]) == {"Color": "blue"}
        assert not step.find("01_02_b", gadgets, [BLUE])
    result = step.result()
    assert statuses(result) == {"01_02_a": ("g-1", "found"), "01_02_b": (None, "not_found")}
    assert result["failure_context"]["issue"] == (
        "This step asks for 2 gadgets, and only 1 was created in it (gadget g-1)."
    )


@pytest.mark.parametrize("order", [["g-1", "g-2"], ["g-2", "g-1"]], ids=["farther-first", "closer-first"])
def test_the_closest_candidate_explains_the_miss(two_gadgets: StepSpec, account: FakeAccount, gadgets, order) -> None:
    account.resources.update({"g-1": {"Color": "red", "Size": 1}, "g-2": {"Color": "blue", "Size": 1}})
    step = Step(None, make_context(two_gadgets, events=[(GADGET, rid) for rid in order]))
    with step:
        step.find("01_02_a", gadgets, [BLUE, SIZE_3])
    result = step.result()
    assert statuses(result)["01_02_a"] == ("g-2", "not_found")
    assert result["failure_context"]["issue"] == "Gadget g-2: size should be 3, but is 1."
    assert [(c["check"], c["ok"], c["actual"]) for c in result["checks"]] == [
        ("color", True, "blue"),
        ("size", False, 1),
    ]


def test_the_closest_free_candidate_explains_the_miss(two_gadgets: StepSpec, account: FakeAccount, gadgets) -> None:
    account.resources.update({"g-blue": {"Color": "blue", "Size": 1}, "g-red": {"Color": "red", "Size": 3}})
    step = Step(None, make_context(two_gadgets, events=[(GADGET, "g-blue"), (GADGET, "g-red")]))
    with step:
        step.find_all(gadgets, {"01_02_a": [BLUE], "01_02_b": [BLUE, SIZE_3]})
    result = step.result()
    assert statuses(result) == {"01_02_a": ("g-blue", "found"), "01_02_b": ("g-red", "not_found")}
    assert result["failure_context"]["issue"] == "Gadget g-red: color should be blue, but is red."


# --- input ------------------------------------------------------------------------------------------------------


def test_an_input_not_yet_validated_stops_the_step(two_gadgets: StepSpec, widgets, gadgets) -> None:
    step = Step(None, make_context(two_gadgets))
    reached = False
    with step:
        step.input("01_01_widget", widgets)
        reached = True
    assert reached is False
    result = step.result()
    assert statuses(result) == {
        "01_02_a": (None, "not_found"),
        "01_02_b": (None, "not_found"),
        "01_01_widget": (None, "not_found"),
    }
    assert result["failure_context"] == {
        "step": "01.02",
        "issue": "This step needs the widget from an earlier step, and that step has not passed yet.",
        "hint_context": "Complete the step that creates the widget first (input 01_01_widget).",
    }
    assert held_to_contract(result, two_gadgets).status == "fail"


def test_stop_step_is_absorbed_but_other_exceptions_are_not(two_gadgets: StepSpec) -> None:
    step = Step(None, make_context(two_gadgets))
    with step:
        raise StopStep("critical")
    with pytest.raises(ValueError, match="boom"), step:
        raise ValueError("boom")


@pytest.mark.parametrize("answer", [None, client_error("InvalidWidgetID.NotFound")], ids=["empty", "not-found"])
def test_an_input_that_is_gone_stops_the_step(two_gadgets: StepSpec, account: FakeAccount, widgets, answer) -> None:
    account.resources["w-9"] = answer
    step = Step(None, make_context(two_gadgets, resolved=[("01_01_widget", "w-9")]))
    reached = False
    with step:
        step.input("01_01_widget", widgets)
        reached = True
    assert reached is False
    assert account.calls["w-9"] == 1  # an earlier step's resource is not retried
    result = step.result()
    assert statuses(result)["01_01_widget"] == ("w-9", "not_found")
    assert result["failure_context"] == {
        "step": "01.02",
        "issue": "The widget w-9 from an earlier step no longer exists.",
        "hint_context": "Recreate the widget from the earlier step, then come back to this one.",
    }
    assert held_to_contract(result, two_gadgets).status == "fail"


def test_an_aws_error_on_an_input_is_not_read_as_gone(two_gadgets: StepSpec, account: FakeAccount, widgets) -> None:
    account.resources["w-1"] = client_error("UnauthorizedOperation")
    step = Step(None, make_context(two_gadgets, resolved=[("01_01_widget", "w-1")]))
    with pytest.raises(Exception, match="UnauthorizedOperation"), step:
        step.input("01_01_widget", widgets)


def test_a_full_step_with_an_input_passes_and_resolves_only_outputs(
    two_gadgets: StepSpec, account: FakeAccount, widgets, gadgets
) -> None:
    account.resources.update({"w-1": {"Color": "green"}, "g-1": {"Color": "blue"}, "g-2": {"Color": "red"}})
    context = make_context(two_gadgets, resolved=[("01_01_widget", "w-1")], events=[(GADGET, "g-2"), (GADGET, "g-1")])
    step = Step(None, context)
    with step:
        widget = step.input("01_01_widget", widgets)
        assert widget == {"Color": "green"}
        step.find_all(gadgets, {"01_02_a": [BLUE], "01_02_b": [RED]})
    result = step.result()
    assert statuses(result)["01_01_widget"] == ("w-1", "found")
    answer = held_to_contract(result, two_gadgets)
    assert answer.status == "pass"
    assert [(h.name, h.id) for h in answer.resolved] == [("01_02_a", "g-1"), ("01_02_b", "g-2")]


# --- custom checks ----------------------------------------------------------------------------------------------


def test_a_passing_custom_check_is_recorded(one_widget: StepSpec, account: FakeAccount, widgets) -> None:
    account.resources["w-1"] = {"Color": "blue"}
    step = Step(None, make_context(one_widget, events=[(WIDGET, "w-1")]))
    with step:
        step.find("01_01_widget", widgets, [BLUE])
        assert step.check("01_01_widget", "instance type", True, expected="t3.micro", actual="t3.micro") is True
    result = step.result()
    assert result["checks"][-1] == {
        "handle": "01_01_widget",
        "check": "instance type",
        "ok": True,
        "expected": "t3.micro",
        "actual": "t3.micro",
    }
    assert result["success"] is True and result["message"] == "All 2 checks passed."


def test_a_failed_custom_check_on_an_output_makes_it_not_found(
    one_widget: StepSpec, account: FakeAccount, widgets
) -> None:
    account.resources["w-1"] = {"Color": "blue"}
    step = Step(None, make_context(one_widget, events=[(WIDGET, "w-1")]))
    with step:
        step.find("01_01_widget", widgets, [BLUE])
        assert step.check("01_01_widget", "instance type", False, expected="t3.micro", actual="t2.micro") is False
    result = step.result()
    assert statuses(result) == {"01_01_widget": ("w-1", "not_found")}
    assert result["success"] is False
    assert result["failure_context"] == {
        "step": "01.01",
        "issue": "instance type should be 't3.micro', but is 't2.micro'.",
        "hint_context": "Look at the instance type of the resource.",
    }
    assert result["message"] == "1 of 2 checks passed. instance type should be 't3.micro', but is 't2.micro'."
    assert held_to_contract(result, one_widget).status == "fail"


def test_a_failed_check_on_no_handle_fails_the_step_with_every_entry_found(
    one_widget: StepSpec, account: FakeAccount, widgets
) -> None:
    account.resources["w-1"] = {"Color": "blue"}
    step = Step(None, make_context(one_widget, events=[(WIDGET, "w-1")], feedback={"hint": "Read the brief."}))
    with step:
        step.find("01_01_widget", widgets, [BLUE])
        step.check(None, "tags", False, issue="The widget has no Name tag.", hint="Tag it.")
    result = step.result()
    assert statuses(result) == {"01_01_widget": ("w-1", "found")}
    assert result["success"] is False
    assert result["failure_context"] == {
        "step": "01.01",
        "issue": "The widget has no Name tag.",
        "hint_context": "Tag it.",
    }
    answer = held_to_contract(result, one_widget)
    assert answer.status == "fail"
    assert answer.progress == Progress(passed=1, total=2)


def test_a_failed_check_takes_the_feedback_hint(one_widget: StepSpec) -> None:
    step = Step(None, make_context(one_widget, feedback={"hint": "Read the brief."}))
    step.check(None, "tags", False)
    assert step.result()["failure_context"]["hint_context"] == "Read the brief."


def test_a_critical_check_stops_the_step(one_widget: StepSpec) -> None:
    step = Step(None, make_context(one_widget))
    reached = False
    with step:
        step.check("01_01_widget", "region", False, expected="us-east-1", actual="eu-west-1", critical=True)
        reached = True
    assert reached is False
    result = step.result()
    assert result["failure_context"]["issue"] == "region should be 'us-east-1', but is 'eu-west-1'."
    assert held_to_contract(result, one_widget).status == "fail"


def test_a_critical_find_stops_the_step(one_widget: StepSpec, widgets) -> None:
    step = Step(None, make_context(one_widget))
    reached = False
    with step:
        step.find("01_01_widget", widgets, [BLUE], critical=True)
        reached = True
    assert reached is False
    assert step.result()["failure_context"]["issue"] == "No widget was created in this step."


# --- result -----------------------------------------------------------------------------------------------------


def test_the_success_message_counts_checks(one_widget: StepSpec, account: FakeAccount, widgets) -> None:
    account.resources["w-1"] = {"Color": "blue"}
    step = Step(None, make_context(one_widget, events=[(WIDGET, "w-1")]))
    with step:
        step.find("01_01_widget", widgets, [BLUE])
    assert step.result()["message"] == "All 1 check passed."
    assert step.result("Widget w-1 is blue.")["message"] == "Widget w-1 is blue."


def test_checks_are_json_serializable(one_widget: StepSpec, account: FakeAccount, widgets) -> None:
    account.resources["w-1"] = {
        "Ports": {443, 80},
        "Pair": ("a", 1),
        "Rules": net.rules(
            [{"IpProtocol": "tcp", "FromPort": 80, "ToPort": 80, "IpRanges": [{"CidrIp": "0.0.0.0/0"}]}]
        ),
        "Nested": {1: {"deep": {2, 1}}},
        "Object": object(),
    }
    requirements = [
        require("ports", {80, 443}, lambda w: w["Ports"]),
        require("pair", ("a", 1), lambda w: w["Pair"]),
        require("rules", frozenset({net.tcp(80, net.WORLD_V4)}), lambda w: w["Rules"]),
        require("nested", "anything", lambda w: w["Nested"], compare=lambda a, e: True),
        require("object", "anything", lambda w: w["Object"], compare=lambda a, e: True),
    ]
    step = Step(None, make_context(one_widget, events=[(WIDGET, "w-1")]))
    with step:
        step.find("01_01_widget", widgets, requirements)
    result = step.result()
    assert json.loads(json.dumps(result)) == result
    by_check = {c["check"]: c for c in result["checks"]}
    assert sorted(by_check["ports"]["actual"]) == [80, 443]  # a set becomes a list, in a deterministic order
    assert by_check["ports"]["actual"] == by_check["ports"]["expected"]
    assert by_check["pair"]["expected"] == ["a", 1]
    assert by_check["rules"]["actual"] == ["TCP 80 from 0.0.0.0/0"]
    assert by_check["nested"]["actual"] == {"1": {"deep": [1, 2]}}
    assert by_check["object"]["actual"].startswith("<object object")
    assert held_to_contract(result, one_widget).status == "pass"


# --- a property: any fit matrix gives a result the contract accepts ----------------------------------------------


@settings(max_examples=150, deadline=None)
@given(data=st.data(), fits=st.lists(st.tuples(st.booleans(), st.booleans()), max_size=4))
def test_any_fit_matrix_gives_a_contract_result(tiny_lab: Lab, data: st.DataObject, fits) -> None:
    spec = tiny_lab.steps["01.02"]
    order = data.draw(st.permutations(range(len(fits))), label="event order")
    account = FakeAccount()
    for index, (fits_a, fits_b) in enumerate(fits):
        account.resources[f"g-{index}"] = {"A": fits_a, "B": fits_b}
    gadgets = account.kind(GADGET, "gadget")
    step = Step(None, make_context(spec, events=[(GADGET, f"g-{i}") for i in order]))
    with step:
        found = step.find_all(
            gadgets,
            {"01_02_a": [attribute("fits a", "A", True)], "01_02_b": [attribute("fits b", "B", True)]},
        )
    result = step.result()

    answer = held_to_contract(result, spec)
    both = any(fits[i][0] and fits[j][1] for i in range(len(fits)) for j in range(len(fits)) if i != j)
    assert result["success"] is both
    assert answer.status == ("pass" if both else "fail")
    entries = statuses(result)
    found_ids = [rid for rid, status in entries.values() if status == "found"]
    assert len(found_ids) == len(set(found_ids))
    for name, key in (("01_02_a", "A"), ("01_02_b", "B")):
        rid, status = entries[name]
        assert (status == "found") == bool(found[name] and found[name][key] is True)
        if status == "found":
            assert account.resources[rid][key] is True
    if not both:
        assert result["failure_context"]["issue"]
        assert result["failure_context"]["hint_context"]


def test_set_valued_checks_read_in_natural_order(one_widget: StepSpec, account: FakeAccount, widgets) -> None:
    account.resources["w-1"] = {"Ports": {443, 80, 8080}}
    step = Step(None, make_context(one_widget, events=[(WIDGET, "w-1")]))
    with step:
        step.find("01_01_widget", widgets, [require("ports", {80, 443, 8080}, lambda w: w["Ports"])])
    check = step.result()["checks"][0]
    assert check["expected"] == check["actual"] == [80, 443, 8080]


def test_the_spec_feedback_overrides_the_kits_issue_and_hint_per_check(
    one_widget: StepSpec, account: FakeAccount, widgets
) -> None:
    account.resources["w-1"] = {"Color": "red", "Size": 3}
    feedback = {
        "color": {"issue": "{subject} is {actual}: the brief asked for {expected}.", "hint": "Repaint it."},
        "01_01_widget.color": {"hint": "The widget's color, precisely."},
        "01_01_widget": "About the widget.",
    }
    step = Step(None, make_context(one_widget, events=[(WIDGET, "w-1")], feedback=feedback))
    with step:
        step.find("01_01_widget", widgets, [attribute("color", "Color", "blue", hint="Paint it blue.")])
    assert step.result()["failure_context"] == {
        "step": "01.01",
        "issue": "Widget w-1 is red: the brief asked for blue.",
        "hint_context": "The widget's color, precisely.",
    }


def test_an_own_check_takes_the_spec_feedback_too(one_widget: StepSpec) -> None:
    feedback = {"size": {"issue": "The {check} is {actual}, not {expected}."}}
    step = Step(None, make_context(one_widget, feedback=feedback))
    step.check("01_01_widget", "size", False, expected=2, actual=3, hint="Count again.")
    assert step.result()["failure_context"] == {
        "step": "01.01",
        "issue": "The size is 3, not 2.",
        "hint_context": "Count again.",
    }


def test_a_string_output_is_found_with_its_value_when_it_meets_every_requirement() -> None:
    from harness.kit import values

    spec = {
        "step": "01.01",
        "outputs": [{"name": "01_01_arn", "type": "string"}, {"name": "01_01_url", "type": "string"}],
    }
    arn = "arn:aws:sqs:eu-west-1:123456789012:orders"
    step = Step(None, {"spec": spec, "resolved": [], "events": []})
    assert step.value("01_01_arn", arn, [values.is_arn("sqs"), values.equals(arn)]) == arn
    assert step.value("01_01_url", "http://x.example", [values.is_url("https")]) is None
    result = step.result()
    assert [(e["name"], e["id"], e["status"]) for e in result["validated"]] == [
        ("01_01_arn", arn, "found"),
        ("01_01_url", None, "not_found"),
    ]
    assert result["failure_context"]["issue"] == "The value http://x.example: URL scheme should be https, but is http."
    missing = Step(None, {"spec": spec, "resolved": [], "events": []})
    assert missing.value("01_01_arn", None) is None and missing.value("01_01_url", "x", [values.matches("y+")]) is None
    assert missing.result()["failure_context"] == {
        "step": "01.01",
        "issue": "The first value this step asks for is not there yet.",  # of two: no handle name
        "hint_context": "Give the first value this step asks for as its instructions say (output 01_01_arn).",
    }
    assert not values.is_arn("iam").evaluate({"Value": arn}).ok and values.is_arn().evaluate({"Value": arn}).ok


def test_a_string_input_is_its_resolved_value_and_stops_the_step_when_absent() -> None:
    spec = {"step": "01.02", "inputs": ["01_01_arn"], "outputs": [{"name": "01_02_x", "type": "string"}]}
    resolved = [{"name": "01_01_arn", "type": "string", "id": "arn:aws:sns:us-east-1:123456789012:t"}]
    step = Step(None, {"spec": spec, "resolved": resolved, "events": []})
    assert step.input_value("01_01_arn") == resolved[0]["id"]
    empty = Step(None, {"spec": spec, "resolved": [], "events": []})
    with empty:
        empty.input_value("01_01_arn")
        raise AssertionError("the step goes on without its input")
    assert empty.result()["failure_context"] == {
        "step": "01.02",
        "issue": "This step needs a value from an earlier step, and that step has not passed yet.",
        "hint_context": "Complete the step that gives it first (input 01_01_arn).",
    }
