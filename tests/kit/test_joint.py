"""A step's outputs are chosen together: where several candidates pass one output's own requirements, the choice
is one under which every requirement of the step holds, cross-references included; never by order or by id."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest

from harness.core.lab import StepSpec, load_lab
from harness.kit import ec2, net
from harness.kit.require import require
from harness.kit.step import Step
from tests.kit.conftest import held_to_contract, make_context, unique

SG = "AWS::EC2::SecurityGroup"
SPEC = """\
project: joint
objectives:
  - id: "01"
    steps:
      - id: "01"
        outputs:
          - {name: 01_01_vpc, type: AWS::EC2::VPC}
      - id: "02"
        inputs: [01_01_vpc]
        outputs:
          - {name: 01_02_app_sg, type: AWS::EC2::SecurityGroup}
          - {name: 01_02_db_sg, type: AWS::EC2::SecurityGroup}
"""


@pytest.fixture(scope="module")
def groups_step(tmp_path_factory: pytest.TempPathFactory) -> StepSpec:
    root: Path = tmp_path_factory.mktemp("joint-lab")
    (root / "specs").mkdir()
    (root / "specs" / "joint.yaml").write_text(SPEC, encoding="utf-8")
    return load_lab(root).steps["01.02"]


def vpc_with_groups(session: Any, *, db_admits: str = "app", app_admits: str | None = None) -> dict[str, str]:
    """A VPC with a bastion group, an app group and a database group admitting `db_admits` on 5432 (and the app
    group admitting `app_admits` on 8080, if given): their ids by role."""
    client = session.client("ec2")
    vpc = client.create_vpc(CidrBlock="10.0.0.0/16")["Vpc"]["VpcId"]
    ids = {"vpc": vpc}
    for role in ("bastion", "app", "db"):
        ids[role] = client.create_security_group(GroupName=unique(role), Description=role, VpcId=vpc)["GroupId"]
    client.authorize_security_group_ingress(
        GroupId=ids["db"],
        IpPermissions=[
            {"IpProtocol": "tcp", "FromPort": 5432, "ToPort": 5432, "UserIdGroupPairs": [{"GroupId": ids[db_admits]}]}
        ],
    )
    if app_admits:
        client.authorize_security_group_ingress(
            GroupId=ids["app"],
            IpPermissions=[
                {
                    "IpProtocol": "tcp",
                    "FromPort": 8080,
                    "ToPort": 8080,
                    "UserIdGroupPairs": [{"GroupId": ids[app_admits]}],
                }
            ],
        )
    return ids


def judge(session: Any, spec: StepSpec, ids: dict[str, str], order: tuple[str, ...], body) -> dict[str, Any]:
    context = make_context(spec, resolved=[("01_01_vpc", ids["vpc"])], events=[(SG, ids[role]) for role in order])
    step = Step(session, context)
    with step:
        body(step)
    return step.result()


def app_then_db(step: Step) -> None:
    """The issue's lab: the app's group is only asked to be in the VPC; the database's must admit the app's."""
    vpc = step.input("01_01_vpc", ec2.VPC)
    app = step.find("01_02_app_sg", ec2.SECURITY_GROUP, [ec2.in_vpc(vpc)])
    step.find("01_02_db_sg", ec2.SECURITY_GROUP, [ec2.in_vpc(vpc), ec2.ingress_exactly(net.tcp(5432, app))])


def statuses(result: dict[str, Any]) -> dict[str, tuple[str | None, str]]:
    return {e["name"]: (e["id"], e["status"]) for e in result["validated"]}


@pytest.mark.parametrize("order", list(itertools.permutations(("bastion", "app", "db"))))
def test_the_app_group_is_the_one_the_database_admits_in_any_event_order(aws_session, groups_step, order) -> None:
    ids = vpc_with_groups(aws_session)
    result = judge(aws_session, groups_step, ids, order, app_then_db)
    assert result["success"] is True, result["message"]
    assert statuses(result) == {
        "01_01_vpc": (ids["vpc"], "found"),
        "01_02_app_sg": (ids["app"], "found"),
        "01_02_db_sg": (ids["db"], "found"),
    }
    assert held_to_contract(result, groups_step).status == "pass"


def test_a_database_that_admits_the_bastion_fails_naming_the_closest_near_miss(aws_session, groups_step) -> None:
    # The bastion could be "the app group" and the database then fits: the step cannot tell a mistake from a
    # different naming, so it passes with the bastion as the app group, as every requirement holds.
    ids = vpc_with_groups(aws_session, db_admits="bastion")
    result = judge(aws_session, groups_step, ids, ("app", "bastion", "db"), app_then_db)
    assert result["success"] is True
    assert statuses(result)["01_02_app_sg"] == (ids["bastion"], "found")

    # With the app group pinned by what it admits (8080 from the bastion), no assignment holds: the step fails
    # naming the database group's miss, judged against the app group chosen.
    def pinned(step: Step) -> None:
        vpc = step.input("01_01_vpc", ec2.VPC)
        bastion = step.output("01_02_app_sg")
        app = step.find(
            "01_02_app_sg", ec2.SECURITY_GROUP, [ec2.in_vpc(vpc), ec2.ingress_exactly(net.tcp(8080, ids["bastion"]))]
        )
        assert bastion is app
        step.find("01_02_db_sg", ec2.SECURITY_GROUP, [ec2.in_vpc(vpc), ec2.ingress_exactly(net.tcp(5432, app))])

    # Created bastion, app, db: the database group, the learner's last attempt, is the one explained.
    ids = vpc_with_groups(aws_session, db_admits="bastion", app_admits="bastion")
    result = judge(aws_session, groups_step, ids, ("bastion", "app", "db"), pinned)
    assert result["success"] is False
    assert statuses(result)["01_02_app_sg"] == (ids["app"], "found")
    assert statuses(result)["01_02_db_sg"] == (ids["db"], "not_found")
    groups = aws_session.client("ec2").describe_security_groups(GroupIds=[ids[r] for r in ("bastion", "app", "db")])
    named = {g["GroupId"]: f"security group {g['GroupName']} ({g['GroupId']})" for g in groups["SecurityGroups"]}
    assert result["failure_context"]["issue"] == (
        f"S{named[ids['db']][1:]}: it also allows TCP 5432 from {named[ids['bastion']]} and it does not allow "
        f"TCP 5432 from {named[ids['app']]}."
    )


def test_an_output_may_refer_to_one_found_later(aws_session, groups_step) -> None:
    """Groups that admit only each other: each refers to the other, the first one before its find."""
    client = aws_session.client("ec2")
    ids = vpc_with_groups(aws_session)
    client.authorize_security_group_ingress(
        GroupId=ids["app"],
        IpPermissions=[
            {"IpProtocol": "tcp", "FromPort": 8080, "ToPort": 8080, "UserIdGroupPairs": [{"GroupId": ids["db"]}]}
        ],
    )

    def each_other(step: Step) -> None:
        vpc = step.input("01_01_vpc", ec2.VPC)
        db = step.output("01_02_db_sg")
        app = step.find("01_02_app_sg", ec2.SECURITY_GROUP, [ec2.in_vpc(vpc), ec2.ingress_exactly(net.tcp(8080, db))])
        step.find("01_02_db_sg", ec2.SECURITY_GROUP, [ec2.in_vpc(vpc), ec2.ingress_exactly(net.tcp(5432, app))])

    for order in itertools.permutations(("bastion", "app", "db")):
        result = judge(aws_session, groups_step, ids, order, each_other)
        assert result["success"] is True, (order, result["message"])
        assert statuses(result)["01_02_db_sg"] == (ids["db"], "found")


def test_a_requirement_of_your_own_may_read_another_output(aws_session, groups_step) -> None:
    """A hand-written requirement that reads an output when it is evaluated is matched jointly too: the step
    learns which outputs a requirement reads as it reads them."""
    ids = vpc_with_groups(aws_session)

    def own(step: Step) -> None:
        vpc = step.input("01_01_vpc", ec2.VPC)
        app = step.find("01_02_app_sg", ec2.SECURITY_GROUP, [ec2.in_vpc(vpc)])
        admits_app = require(
            "admits the app",
            True,
            lambda group: any(
                pair["GroupId"] == app["GroupId"] for p in group["IpPermissions"] for pair in p["UserIdGroupPairs"]
            ),
        )
        step.find("01_02_db_sg", ec2.SECURITY_GROUP, [ec2.in_vpc(vpc), admits_app])

    result = judge(aws_session, groups_step, ids, ("bastion", "db", "app"), own)
    assert result["success"] is True, result["message"]
    assert statuses(result)["01_02_app_sg"] == (ids["app"], "found")


def test_reading_an_output_chooses_the_outputs_found_so_far(aws_session, groups_step) -> None:
    """Reading an output's attribute in the module chooses at that point, without the requirements found later:
    documented, and the reason to pass outputs whole."""
    ids = vpc_with_groups(aws_session)

    def eager(step: Step) -> None:
        vpc = step.input("01_01_vpc", ec2.VPC)
        app = step.find("01_02_app_sg", ec2.SECURITY_GROUP, [ec2.in_vpc(vpc)])
        step.find("01_02_db_sg", ec2.SECURITY_GROUP, [ec2.ingress_exactly(net.tcp(5432, app["GroupId"]))])

    result = judge(aws_session, groups_step, ids, ("bastion", "app", "db"), eager)
    assert statuses(result)["01_02_app_sg"] == (ids["bastion"], "found")  # the first in event order
    assert result["success"] is False


def test_an_output_read_before_its_find_is_a_clear_error(aws_session, groups_step) -> None:
    ids = vpc_with_groups(aws_session)

    def early(step: Step) -> None:
        step.output("01_02_db_sg")["GroupId"]

    with pytest.raises(ValueError, match=r"step.output\('01_02_db_sg'\) was read before the step found it"):
        judge(aws_session, groups_step, ids, ("app",), early)


def test_an_output_found_twice_is_a_clear_error(aws_session, groups_step) -> None:
    ids = vpc_with_groups(aws_session)

    def twice(step: Step) -> None:
        step.find("01_02_app_sg", ec2.SECURITY_GROUP, [])
        step.find("01_02_app_sg", ec2.SECURITY_GROUP, [])

    with pytest.raises(ValueError, match="the output 01_02_app_sg is found twice"):
        judge(aws_session, groups_step, ids, ("app",), twice)


SUBNETS_SPEC = """\
project: joint
objectives:
  - id: "01"
    steps:
      - id: "01"
        outputs:
          - {name: 01_01_vpc, type: AWS::EC2::VPC}
          - {name: 01_01_subnet_a, type: AWS::EC2::Subnet}
          - {name: 01_01_subnet_b, type: AWS::EC2::Subnet}
"""


@pytest.mark.parametrize("order", [("first", "second"), ("second", "first")])
def test_two_subnets_with_their_zones_swapped_are_told_the_zone(aws_session, tmp_path: Path, order) -> None:
    """Each subnet has the CIDR the other output's zone goes with: either pairing misses one requirement per
    subnet, and the issue names the zone (what the learner got wrong), not a CIDR (what names each subnet)."""
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs" / "joint.yaml").write_text(SUBNETS_SPEC, encoding="utf-8")
    spec = load_lab(tmp_path).steps["01.01"]
    client = aws_session.client("ec2")
    vpc = client.create_vpc(CidrBlock="10.20.0.0/16")["Vpc"]["VpcId"]
    zone = aws_session.region_name
    made = {
        "first": client.create_subnet(VpcId=vpc, CidrBlock="10.20.1.0/24", AvailabilityZone=f"{zone}b"),
        "second": client.create_subnet(VpcId=vpc, CidrBlock="10.20.2.0/24", AvailabilityZone=f"{zone}a"),
    }
    ids = {name: answer["Subnet"]["SubnetId"] for name, answer in made.items()}
    events = [("AWS::EC2::VPC", vpc)] + [("AWS::EC2::Subnet", ids[name]) for name in order]
    step = Step(aws_session, make_context(spec, events=events))
    with step:
        found = step.find("01_01_vpc", ec2.VPC, [ec2.cidr("10.20.0.0/16")])
        step.find("01_01_subnet_a", ec2.SUBNET, [ec2.in_vpc(found), ec2.cidr("10.20.1.0/24"), ec2.zone("a")])
        step.find("01_01_subnet_b", ec2.SUBNET, [ec2.in_vpc(found), ec2.cidr("10.20.2.0/24"), ec2.zone("b")])
    result = step.result()
    assert result["success"] is False
    assert statuses(result)["01_01_subnet_a"] == (ids["first"], "not_found")
    issue = result["failure_context"]["issue"]
    assert "zone" in issue and "CIDR" not in issue, issue
    assert held_to_contract(result, spec).status == "fail"
