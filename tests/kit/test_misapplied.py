"""A requirement given to the find of a kind it is not for (`kms.has_alias` on an alias) is the author's
mistake: the step raises Misapplied naming the kit function, its check and the resource's kind, never a bare
KeyError from inside the kit; and an alias has requirements of its own (`alias_named`, `points_to`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.core.lab import StepSpec, load_lab
from harness.kit import kms
from harness.kit.require import Misapplied, require
from harness.kit.step import Step
from tests.kit.conftest import make_context, unique

SPEC = """\
project: misapplied
objectives:
  - id: "01"
    steps:
      - id: "01"
        outputs:
          - {name: 01_01_key, type: AWS::KMS::Key}
          - {name: 01_01_alias, type: AWS::KMS::Alias}
"""


@pytest.fixture(scope="module")
def key_step(tmp_path_factory: pytest.TempPathFactory) -> StepSpec:
    root: Path = tmp_path_factory.mktemp("misapplied")
    (root / "specs").mkdir()
    (root / "specs" / "lab.yaml").write_text(SPEC, encoding="utf-8")
    return load_lab(root).steps["01.01"]


def key_and_alias(session) -> tuple[str, str, list[tuple[str, str]]]:
    client = session.client("kms")
    key = client.create_key()["KeyMetadata"]["KeyId"]
    alias = f"alias/{unique('orders')}"
    client.create_alias(AliasName=alias, TargetKeyId=key)
    return key, alias, [("AWS::KMS::Key", key), ("AWS::KMS::Alias", alias)]


def test_a_key_requirement_on_an_alias_names_itself_and_the_kind(aws_session, key_step: StepSpec) -> None:
    _, alias, events = key_and_alias(aws_session)
    step = Step(aws_session, make_context(key_step, events=events))
    with step:
        found = step.find("01_01_key", kms.KEY, [kms.has_alias(alias)])
        step.find("01_01_alias", kms.ALIAS, [kms.points_to(found), kms.has_alias(alias)])
        with pytest.raises(Misapplied) as raised:
            step.result()
    message = str(raised.value)
    assert message.startswith(f"kms.has_alias(...) (check 'aliases') cannot be judged on KMS alias {alias}:")
    assert "KeyError: 'Aliases'" in message and "another kind" in message


def test_an_authors_own_requirement_that_cannot_read_is_named_too(aws_session, key_step: StepSpec) -> None:
    _, _, events = key_and_alias(aws_session)
    step = Step(aws_session, make_context(key_step, events=events))
    with step:
        step.find("01_01_key", kms.KEY, [require("key name", "x", lambda k: k["Name"])])
        with pytest.raises(Misapplied, match=r"^require\(\.\.\.\) \(check 'key name'\) cannot be judged on KMS key "):
            step.result()


def test_an_alias_is_judged_by_its_own_name_and_target(aws_session, key_step: StepSpec) -> None:
    _, alias, events = key_and_alias(aws_session)
    step = Step(aws_session, make_context(key_step, events=events))
    with step:
        found = step.find("01_01_key", kms.KEY, [kms.has_alias(alias)])
        step.find("01_01_alias", kms.ALIAS, [kms.points_to(found), kms.alias_named(alias.removeprefix("alias/"))])
    assert step.result()["success"]
    step = Step(aws_session, make_context(key_step, events=events))
    with step:
        step.find("01_01_key", kms.KEY, [])
        step.find("01_01_alias", kms.ALIAS, [kms.alias_named("alias/other")])
    assert step.result()["failure_context"]["issue"] == (
        f"KMS alias {alias}: alias name should be alias/other, but is arn:aws:kms:us-east-1:123456789012:{alias}."
    )
