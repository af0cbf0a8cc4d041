"""Record the resources a boto3 Session creates as platform-style events `{type, id}`.

The platform reports a learner's resources to a step as CloudFormation type names and physical ids; the
recorder produces the same from the calls a scenario makes, so a playthrough hands an evaluator what the
platform would. Only successful calls count, and each resource is recorded once.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import boto3

IdGetter = Callable[[Mapping[str, Any], Mapping[str, Any]], str | None]
PARAMS_KEY = "stepeval_recorder_params"


def from_params(name: str) -> IdGetter:
    """The id is the request parameter `name` (e.g. a bucket name the caller chose)."""
    return lambda params, _parsed: params.get(name)


def from_response(*path: str | int) -> IdGetter:
    """The id is found in the parsed response at `path` (keys and list indices)."""

    def get(_params: Mapping[str, Any], parsed: Mapping[str, Any]) -> str | None:
        value: Any = parsed
        for part in path:
            try:
                value = value[part]
            except (KeyError, IndexError, TypeError):
                return None
        return value if isinstance(value, str) else None

    return get


@dataclass(frozen=True)
class Rule:
    """How one creating operation becomes an event: the resource type and where its id comes from."""

    type: str
    id_of: IdGetter


ELBV2 = "AWS::ElasticLoadBalancingV2"

# (botocore service name, operation) -> rule
RULES: dict[tuple[str, str], Rule] = {
    ("s3", "CreateBucket"): Rule("AWS::S3::Bucket", from_params("Bucket")),
    ("s3", "PutBucketPolicy"): Rule("AWS::S3::BucketPolicy", from_params("Bucket")),
    ("ec2", "CreateVpc"): Rule("AWS::EC2::VPC", from_response("Vpc", "VpcId")),
    ("ec2", "CreateSubnet"): Rule("AWS::EC2::Subnet", from_response("Subnet", "SubnetId")),
    ("ec2", "CreateInternetGateway"): Rule(
        "AWS::EC2::InternetGateway", from_response("InternetGateway", "InternetGatewayId")
    ),
    ("ec2", "CreateRouteTable"): Rule("AWS::EC2::RouteTable", from_response("RouteTable", "RouteTableId")),
    ("ec2", "CreateSecurityGroup"): Rule("AWS::EC2::SecurityGroup", from_response("GroupId")),
    ("ec2", "AllocateAddress"): Rule("AWS::EC2::EIP", from_response("AllocationId")),
    ("ec2", "CreateNatGateway"): Rule("AWS::EC2::NatGateway", from_response("NatGateway", "NatGatewayId")),
    ("elbv2", "CreateLoadBalancer"): Rule(
        f"{ELBV2}::LoadBalancer", from_response("LoadBalancers", 0, "LoadBalancerArn")
    ),
    ("elbv2", "CreateTargetGroup"): Rule(f"{ELBV2}::TargetGroup", from_response("TargetGroups", 0, "TargetGroupArn")),
    ("elbv2", "CreateListener"): Rule(f"{ELBV2}::Listener", from_response("Listeners", 0, "ListenerArn")),
}


class EventRecorder:
    """Watches every client made from `session` after this is built; `events` lists what was created.

    Attach it before making clients: botocore copies a session's handlers into each client as it is built.
    Recording starts at once; `start()` clears and records again, `stop()` pauses.
    """

    def __init__(self, session: boto3.Session) -> None:
        self._events: list[dict[str, str]] = []
        self._seen: set[tuple[str, str]] = set()
        self._recording = True
        self._lock = threading.Lock()
        session.events.register("before-parameter-build", self._remember_params)
        session.events.register("after-call", self._record)

    @property
    def events(self) -> list[dict[str, str]]:
        """The resources created since the last `start()`, in creation order, each once."""
        with self._lock:
            return [dict(event) for event in self._events]

    def start(self) -> None:
        """Forget what was recorded and record from now on."""
        with self._lock:
            self._events.clear()
            self._seen.clear()
            self._recording = True

    def stop(self) -> None:
        """Stop recording; what was recorded stays."""
        with self._lock:
            self._recording = False

    def _remember_params(self, params: Mapping[str, Any], model: Any, context: dict[str, Any], **_: Any) -> None:
        if _rule_for(model) is not None:
            context[PARAMS_KEY] = dict(params)

    def _record(
        self, http_response: Any, parsed: Mapping[str, Any], model: Any, context: Mapping[str, Any], **_: Any
    ) -> None:
        rule = _rule_for(model)
        if rule is None or http_response.status_code >= 300:
            return
        resource_id = rule.id_of(context.get(PARAMS_KEY, {}), parsed)
        if not resource_id:
            return
        with self._lock:
            if self._recording and (rule.type, resource_id) not in self._seen:
                self._seen.add((rule.type, resource_id))
                self._events.append({"type": rule.type, "id": resource_id})


def _rule_for(model: Any) -> Rule | None:
    return RULES.get((model.service_model.service_name, model.name))
