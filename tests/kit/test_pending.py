"""`pending`: a resource AWS is still creating or changing is "not yet", never "wrong", and never a pass.

Where moto models the transitional state (a CloudFront distribution InProgress, an ECS deployment in progress),
on moto; where it does not (moto makes NAT gateways, DB instances, tables... ready at once), on recorded describe
answers: botocore's Stubber on real clients, answering the kit's own describe calls, through the real Step."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.stub import Stubber
from moto.moto_api import state_manager

from harness.core.contract import Answer
from harness.core.lab import StepSpec, load_lab
from harness.kit import awslambda, catalog, cloudfront, compute, dynamodb, ec2, ecs, elbv2, kms, rds
from harness.kit.kinds import Kind
from harness.kit.require import Requirement
from harness.kit.step import Step
from tests.kit.conftest import held_to_contract, make_context, unique
from tests.kit.test_containers_edge import distribution_config

_labs = itertools.count()


def one_output(root: Path, *types: str) -> StepSpec:
    """A one-step lab whose step has one output per type (`out0`, `out1`...)."""
    lab = root / f"lab{next(_labs)}"
    (lab / "specs").mkdir(parents=True)
    outputs = "".join(f"\n          - {{name: out{i}, type: {t}}}" for i, t in enumerate(types))
    spec = f'project: pending\nobjectives:\n  - id: "01"\n    steps:\n      - id: "01"\n        outputs:{outputs}\n'
    (lab / "specs" / "pending.yaml").write_text(spec, encoding="utf-8")
    return load_lab(lab).steps["01.01"]


class Recorded:
    """A session whose clients answer the kit's describe calls from recorded answers (Stubber on real clients)."""

    region_name = "us-east-1"

    def __init__(self) -> None:
        self._clients: dict[str, Any] = {}
        self.stubbers: list[Stubber] = []

    def answer(self, service: str, operation: str, response: dict[str, Any]) -> None:
        if service not in self._clients:
            client = boto3.client(
                service, region_name=self.region_name, aws_access_key_id="x", aws_secret_access_key="x"
            )
            stubber = Stubber(client)
            stubber.activate()
            self._clients[service] = client
            self.stubbers.append(stubber)
        stubber = next(s for s in self.stubbers if s.client is self._clients[service])
        stubber.add_response(operation, response)

    def client(self, service: str, region_name: str | None = None, **_: Any) -> Any:
        return self._clients[service]


LB_ARN = "arn:aws:elasticloadbalancing:us-east-1:123456789012:loadbalancer/app/web/50dc6c495c0c9188"
CLUSTER_ARN = "arn:aws:ecs:us-east-1:123456789012:cluster/apps"

UUID = "6d9bce8e-836b-461a-b1af-1f9d2a4a0d94"


def transitional(
    kind: Kind, resource_id: str, call: str, answer: dict[str, Any], state: str, *also: tuple[str, dict[str, Any]]
) -> Any:
    """A kind, its id, the kit's describe call (`service.operation`) and its recorded answer, the state it names;
    `also`, the further calls (and answers) naming the resource takes (a key's aliases)."""
    calls = [(*each.split("."), answered) for each, answered in ((call, answer), *also)]
    return pytest.param(kind, resource_id, calls, state, id=f"{kind.noun}: {state}")


TRANSITIONAL = [
    transitional(ec2.NAT_GATEWAY, "nat-1", "ec2.describe_nat_gateways",
                 {"NatGateways": [{"NatGatewayId": "nat-1", "State": "pending"}]}, "state pending"),
    transitional(rds.DB_INSTANCE, "db", "rds.describe_db_instances",
                 {"DBInstances": [{"DBInstanceIdentifier": "db", "DBInstanceStatus": "creating"}]}, "status creating"),
    transitional(rds.DB_INSTANCE, "db", "rds.describe_db_instances",
                 {"DBInstances": [{"DBInstanceIdentifier": "db", "DBInstanceStatus": "modifying"}]},
                 "status modifying"),
    transitional(awslambda.FUNCTION, "api", "lambda.get_function_configuration",
                 {"FunctionName": "api", "State": "Pending"}, "state Pending"),
    transitional(awslambda.FUNCTION, "api", "lambda.get_function_configuration",
                 {"FunctionName": "api", "State": "Active", "LastUpdateStatus": "InProgress"}, "an update InProgress"),
    transitional(awslambda.EVENT_SOURCE_MAPPING, UUID, "lambda.get_event_source_mapping",
                 {"UUID": UUID, "State": "Creating"}, "state Creating"),
    transitional(dynamodb.TABLE, "items", "dynamodb.describe_table",
                 {"Table": {"TableName": "items", "TableStatus": "CREATING"}}, "status CREATING"),
    transitional(compute.INSTANCE, "i-1", "ec2.describe_instances",
                 {"Reservations": [{"Instances": [{"InstanceId": "i-1", "State": {"Name": "pending", "Code": 0}}]}]},
                 "state pending"),
    transitional(compute.VOLUME, "vol-1", "ec2.describe_volumes",
                 {"Volumes": [{"VolumeId": "vol-1", "State": "creating"}]}, "state creating"),
    transitional(ec2.VPC, "vpc-1", "ec2.describe_vpcs", {"Vpcs": [{"VpcId": "vpc-1", "State": "pending"}]},
                 "state pending"),
    transitional(ec2.SUBNET, "subnet-1", "ec2.describe_subnets",
                 {"Subnets": [{"SubnetId": "subnet-1", "State": "pending"}]}, "state pending"),
    transitional(ec2.INTERNET_GATEWAY, "igw-1", "ec2.describe_internet_gateways",
                 {"InternetGateways": [{"InternetGatewayId": "igw-1",
                                        "Attachments": [{"VpcId": "vpc-1", "State": "attaching"}]}]},
                 "attachment attaching"),
    transitional(elbv2.LOAD_BALANCER, LB_ARN, "elbv2.describe_load_balancers",
                 {"LoadBalancers": [{"LoadBalancerArn": LB_ARN, "State": {"Code": "provisioning"}}]},
                 "state provisioning"),
    transitional(kms.KEY, "k-1", "kms.describe_key", {"KeyMetadata": {"KeyId": "k-1", "KeyState": "Creating"}},
                 "state Creating", ("kms.list_aliases", {"Aliases": []})),
    transitional(ec2.VPC_ENDPOINT, "vpce-1", "ec2.describe_vpc_endpoints",
                 {"VpcEndpoints": [{"VpcEndpointId": "vpce-1", "State": "Pending"}]}, "state Pending"),
    transitional(ecs.CLUSTER, "apps", "ecs.describe_clusters",
                 {"clusters": [{"clusterName": "apps", "clusterArn": CLUSTER_ARN, "status": "PROVISIONING"}]},
                 "status PROVISIONING"),
]  # fmt: skip


def judged(session: Any, spec: StepSpec, kind: Kind, resource_id: str, requirements: list[Requirement]) -> Answer:
    step = Step(session, make_context(spec, events=[(kind.type, resource_id)]))
    with step:
        step.find("out0", kind, requirements)
    return held_to_contract(step.result(), spec)


@pytest.mark.parametrize(("kind", "resource_id", "call", "state"), TRANSITIONAL)
def test_every_kind_with_a_transitional_state_answers_pending(tmp_path, kind, resource_id, call, state) -> None:
    """Found in its transitional state, with nothing else wrong: pending, with the kind's retry_after_s; the seed
    keys as a platform that knows nothing of pending reads them: success false, the output not_found."""
    session = Recorded()
    for each in call:
        session.answer(*each)
    answer = judged(session, one_output(tmp_path, kind.type), kind, resource_id, [])
    assert answer.status == "pending"
    assert answer.retry_after_s == kind.retry_after_s
    assert answer.success is False
    assert [(e.name, e.id, e.status) for e in answer.validated] == [("out0", resource_id, "not_found")]
    assert answer.resolved == []
    subject = kind.describe(resource_id)
    assert answer.failure_context is not None
    assert answer.failure_context.issue == (
        f"{subject[:1].upper()}{subject[1:]} is not ready yet ({state}): AWS is still working on it."
    )
    assert answer.failure_context.hint_context == (
        f"Nothing is wrong so far: check again in about {kind.retry_after_s} seconds."
    )
    assert answer.message.endswith(f"Not yet: {answer.failure_context.issue}")
    assert answer.checks[-1].model_dump() == {
        "handle": "out0", "check": "settled", "ok": False, "expected": "settled", "actual": state,
    }  # fmt: skip
    for stubber in session.stubbers:
        stubber.assert_no_pending_responses()


def test_every_kind_with_a_transitional_state_is_tested() -> None:
    """Here on recorded answers, or below on moto (a CloudFront distribution InProgress)."""
    tested = {param.values[0].type for param in TRANSITIONAL} | {cloudfront.DISTRIBUTION.type}
    assert {kind.type for kind in catalog.kinds().values() if kind.settling is not None} == tested


def test_the_retry_is_as_the_kind_declares() -> None:
    retries = {param.values[0].noun: param.values[0].retry_after_s for param in TRANSITIONAL}
    assert retries["NAT gateway"] == 30
    assert retries["DB instance"] == 60
    assert cloudfront.DISTRIBUTION.retry_after_s == 60


def nat(state: str, subnet: str = "subnet-1") -> tuple[str, str, dict[str, Any]]:
    return (
        "ec2",
        "describe_nat_gateways",
        {"NatGateways": [{"NatGatewayId": "nat-1", "State": state, "SubnetId": subnet}]},
    )


def test_a_readiness_requirement_waits_while_the_resource_settles(tmp_path) -> None:
    spec = one_output(tmp_path, ec2.NAT_GATEWAY.type)
    for state, status in (("pending", "pending"), ("available", "pass"), ("failed", "fail")):
        session = Recorded()
        session.answer(*nat(state))
        answer = judged(session, spec, ec2.NAT_GATEWAY, "nat-1", [ec2.nat_in_subnet("subnet-1"), ec2.nat_available()])
        assert answer.status == status, state
    assert answer.failure_context is not None
    assert answer.failure_context.issue == "NAT gateway nat-1: state should be available, but is failed."


def test_what_is_wrong_already_is_a_fail_not_pending(tmp_path) -> None:
    """A pending NAT gateway in the wrong subnet is wrong now: the learner hears it at once."""
    session = Recorded()
    session.answer(*nat("pending", subnet="subnet-2"))
    spec = one_output(tmp_path, ec2.NAT_GATEWAY.type)
    answer = judged(session, spec, ec2.NAT_GATEWAY, "nat-1", [ec2.nat_in_subnet("subnet-1"), ec2.nat_available()])
    assert answer.status == "fail"
    assert answer.retry_after_s is None
    assert answer.failure_context is not None
    assert answer.failure_context.issue == "NAT gateway nat-1: subnet should be subnet-1, but is subnet-2."


def test_a_step_is_pending_only_when_nothing_else_is_wrong(tmp_path) -> None:
    spec = one_output(tmp_path, ec2.NAT_GATEWAY.type, ec2.SUBNET.type)
    session = Recorded()
    session.answer(*nat("pending"))
    session.answer("ec2", "describe_subnets", {"Subnets": [{"SubnetId": "subnet-1", "CidrBlock": "10.0.9.0/24"}]})
    context = make_context(spec, events=[(ec2.NAT_GATEWAY.type, "nat-1"), (ec2.SUBNET.type, "subnet-1")])
    step = Step(session, context)
    with step:
        step.find("out0", ec2.NAT_GATEWAY, [ec2.nat_available()])
        step.find("out1", ec2.SUBNET, [ec2.cidr("10.0.1.0/24")])
    answer = held_to_contract(step.result(), spec)
    assert answer.status == "fail"
    assert answer.failure_context is not None
    assert answer.failure_context.issue == "Subnet subnet-1: CIDR block should be 10.0.1.0/24, but is 10.0.9.0/24."


def test_a_failed_check_of_your_own_on_a_pending_output_makes_it_a_fail(tmp_path) -> None:
    spec = one_output(tmp_path, ec2.NAT_GATEWAY.type)
    session = Recorded()
    session.answer(*nat("pending"))
    step = Step(session, make_context(spec, events=[(ec2.NAT_GATEWAY.type, "nat-1")]))
    with step:
        step.find("out0", ec2.NAT_GATEWAY, [])
        step.check("out0", "tagged", False, expected="team=web", actual=None)
    assert held_to_contract(step.result(), spec).status == "fail"


# --- on moto, where it models the state ---------------------------------------------------------------------------


@pytest.fixture
def distributions_in_progress() -> Iterator[None]:
    """moto keeps a distribution InProgress for its first 1000 reads (its default makes it Deployed at once)."""
    state_manager.set_transition("cloudfront::distribution", {"progression": "manual", "times": 1000})
    yield
    state_manager.unset_transition("cloudfront::distribution")


@pytest.mark.usefixtures("distributions_in_progress")
def test_a_cloudfront_distribution_in_progress_on_moto(aws_session, tmp_path) -> None:
    client = aws_session.client("cloudfront")
    distribution = client.create_distribution(DistributionConfig=distribution_config("b.s3.amazonaws.com"))
    distribution_id = distribution["Distribution"]["Id"]
    assert client.get_distribution(Id=distribution_id)["Distribution"]["Status"] == "InProgress"
    spec = one_output(tmp_path, cloudfront.DISTRIBUTION.type)
    answer = judged(aws_session, spec, cloudfront.DISTRIBUTION, distribution_id, [cloudfront.enabled()])
    assert answer.status == "pending"
    assert answer.retry_after_s == 60
    wrong = judged(
        aws_session, spec, cloudfront.DISTRIBUTION, distribution_id, [cloudfront.price_class("PriceClass_100")]
    )
    assert wrong.status == "fail"  # the price class is wrong now, deployed or not


def test_a_cloudfront_distribution_deployed_on_moto_passes(aws_session, tmp_path) -> None:
    client = aws_session.client("cloudfront")
    distribution_id = client.create_distribution(DistributionConfig=distribution_config("b.s3.amazonaws.com"))[
        "Distribution"
    ]["Id"]
    spec = one_output(tmp_path, cloudfront.DISTRIBUTION.type)
    assert judged(aws_session, spec, cloudfront.DISTRIBUTION, distribution_id, [cloudfront.enabled()]).status == "pass"


def ecs_service(session: Any, desired: int) -> str:
    client = session.client("ecs")
    cluster = unique("apps")
    client.create_cluster(clusterName=cluster)
    family = unique("web")
    client.register_task_definition(
        family=family, containerDefinitions=[{"name": "web", "image": "nginx", "memory": 512}]
    )
    return client.create_service(
        cluster=cluster, serviceName=unique("web"), taskDefinition=family, desiredCount=desired
    )["service"]["serviceArn"]


def test_an_ecs_deployment_in_progress_on_moto(aws_session, tmp_path, monkeypatch) -> None:
    """moto's deployment is in progress until MOTO_ECS_SERVICE_RUNNING tasks run (none by default)."""
    spec = one_output(tmp_path, ecs.SERVICE.type)
    monkeypatch.delenv("MOTO_ECS_SERVICE_RUNNING", raising=False)
    deploying = ecs_service(aws_session, desired=2)
    answer = judged(aws_session, spec, ecs.SERVICE, deploying, [ecs.desired_count(2), ecs.steady()])
    assert answer.status == "pending"
    assert answer.retry_after_s == 30
    assert answer.failure_context is not None
    assert "deployment is IN_PROGRESS" in answer.failure_context.issue
    assert judged(aws_session, spec, ecs.SERVICE, deploying, [ecs.desired_count(3), ecs.steady()]).status == "fail"
    monkeypatch.setenv("MOTO_ECS_SERVICE_RUNNING", "2")
    settled = ecs_service(aws_session, desired=2)
    assert judged(aws_session, spec, ecs.SERVICE, settled, [ecs.desired_count(2), ecs.steady()]).status == "pass"
