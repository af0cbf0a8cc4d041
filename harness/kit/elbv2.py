"""Elastic Load Balancing v2 validators: load balancer, target group, listener (ids are ARNs)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from harness.kit.kinds import Kind, Resource, first, id_of, register
from harness.kit.require import Requirement, attribute, includes, require


def _fetch_load_balancer(session: Any, arn: str) -> Resource | None:
    return first(session.client("elbv2").describe_load_balancers(LoadBalancerArns=[arn])["LoadBalancers"])


def _fetch_target_group(session: Any, arn: str) -> Resource | None:
    return first(session.client("elbv2").describe_target_groups(TargetGroupArns=[arn])["TargetGroups"])


def _fetch_listener(session: Any, arn: str) -> Resource | None:
    return first(session.client("elbv2").describe_listeners(ListenerArns=[arn])["Listeners"])


LOAD_BALANCER = register(Kind("AWS::ElasticLoadBalancingV2::LoadBalancer", "load balancer", _fetch_load_balancer))
TARGET_GROUP = register(Kind("AWS::ElasticLoadBalancingV2::TargetGroup", "target group", _fetch_target_group))
LISTENER = register(Kind("AWS::ElasticLoadBalancingV2::Listener", "listener", _fetch_listener))


def lb_type(kind: str = "application") -> Requirement:
    return attribute("type", "Type", kind)


def scheme(value: str = "internet-facing") -> Requirement:
    return attribute("scheme", "Scheme", value, hint="The scheme is chosen at creation: internet-facing or internal.")


def in_subnets_exactly(subnets: Iterable[Resource | str | None]) -> Requirement:
    """Placed in exactly these subnets (so in their availability zones), no more, no fewer."""
    wanted = sorted(str(id_of(s, "SubnetId")) for s in subnets)
    return require(
        "subnets",
        wanted,
        lambda lb: sorted(z["SubnetId"] for z in lb.get("AvailabilityZones", []) if z.get("SubnetId")),
        hint="An Application Load Balancer needs the two public subnets, one per availability zone.",
    )


def with_security_group(group: Resource | str | None) -> Requirement:
    group_id = id_of(group, "GroupId")
    return includes(
        "security groups",
        group_id,
        lambda lb: sorted(lb.get("SecurityGroups", [])),
    )


def protocol(value: str) -> Requirement:
    return attribute("protocol", "Protocol", value)


def port(value: int) -> Requirement:
    return attribute("port", "Port", value)


def on_load_balancer(lb: Resource | str | None) -> Requirement:
    return attribute("load balancer", "LoadBalancerArn", id_of(lb, "LoadBalancerArn"))


def forwards_to(target_group: Resource | str | None) -> Requirement:
    """The default actions forward all traffic to the target group, and do nothing else first (no authentication,
    no fixed response): one forward action."""
    arn = id_of(target_group, "TargetGroupArn")
    expected = f"forward to {arn}"
    return require(
        "default action",
        expected,
        _default_actions,
        compare=lambda actual, _: actual == [expected],
        explain=lambda actual: _explain_actions(actual, arn),
    )


def _default_actions(listener: Resource) -> list[str]:
    """Each default action, in order: `forward to ARN[, ARN]` or its type (`authenticate-oidc`, `redirect`...)."""
    shown: list[str] = []
    for action in sorted(listener.get("DefaultActions", []), key=lambda a: a.get("Order", 0)):
        if action.get("Type") != "forward":
            shown.append(str(action.get("Type")))
            continue
        groups = action.get("ForwardConfig", {}).get("TargetGroups") or [
            {"TargetGroupArn": action.get("TargetGroupArn")}
        ]
        targets = sorted({g["TargetGroupArn"] for g in groups if g.get("TargetGroupArn")})
        shown.append(f"forward to {', '.join(targets)}")
    return shown


def _explain_actions(actual: list[str], arn: str | None) -> str:
    forwards = [a.removeprefix("forward to ") for a in actual if a.startswith("forward to ")]
    others = [a for a in actual if not a.startswith("forward to ")]
    if not forwards:
        return "its default action does not forward to a target group."
    if others:
        return f"its default actions also {', '.join(others)}: it should only forward to {arn}."
    return f"its default action forwards to {', '.join(forwards)}, not to {arn}."
