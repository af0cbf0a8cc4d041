"""Elastic Load Balancing v2 validators: load balancer, target group, listener (ids are ARNs)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from harness.kit import refs
from harness.kit.kinds import Kind, Resource, first, register, state_in
from harness.kit.later import later
from harness.kit.require import Requirement, attribute, require


def _fetch_load_balancer(session: Any, arn: str) -> Resource | None:
    return first(session.client("elbv2").describe_load_balancers(LoadBalancerArns=[arn])["LoadBalancers"])


def _fetch_target_group(session: Any, arn: str) -> Resource | None:
    return first(session.client("elbv2").describe_target_groups(TargetGroupArns=[arn])["TargetGroups"])


def _fetch_listener(session: Any, arn: str) -> Resource | None:
    return first(session.client("elbv2").describe_listeners(ListenerArns=[arn])["Listeners"])


LOAD_BALANCER = register(
    Kind(
        "AWS::ElasticLoadBalancingV2::LoadBalancer",
        "load balancer",
        _fetch_load_balancer,
        settling=state_in("State.Code", {"provisioning"}),
        retry_after_s=30,
    )
)
"""`describe_load_balancers`' load balancer: `{"LoadBalancerArn", "LoadBalancerName", "DNSName", "Scheme", "Type",
"State": {"Code"}, "VpcId", "AvailabilityZones": [{"SubnetId"}], "SecurityGroups"}`."""
TARGET_GROUP = register(Kind("AWS::ElasticLoadBalancingV2::TargetGroup", "target group", _fetch_target_group))
"""`describe_target_groups`' target group: `{"TargetGroupArn", "TargetGroupName", "Protocol", "Port", "VpcId",
"TargetType", "HealthCheckPath", "LoadBalancerArns"}`."""
LISTENER = register(Kind("AWS::ElasticLoadBalancingV2::Listener", "listener", _fetch_listener))
"""`describe_listeners`' listener: `{"ListenerArn", "LoadBalancerArn", "Protocol", "Port", "Certificates",
"SslPolicy", "DefaultActions": [{"Type": "forward", "TargetGroupArn"}]}`."""


def _caseless(check: str, key: str, value: str, *, hint: str | None = None) -> Requirement:
    """`resource[key]` is `value` in any case (AWS names these in one case, authors in either)."""
    return require(
        check, value, lambda r: r.get(key), compare=lambda actual, e: str(actual).lower() == e.lower(), hint=hint
    )


def lb_type(kind: str = "application") -> Requirement:
    """The load balancer's type: `application`, `network` or `gateway` (in any case)."""
    return _caseless("type", "Type", kind)


def scheme(value: str = "internet-facing") -> Requirement:
    """The load balancer's scheme: `internet-facing` or `internal` (in any case)."""
    return _caseless("scheme", "Scheme", value, hint="The scheme is chosen at creation: internet-facing or internal.")


@later
def in_subnets_exactly(subnets: Iterable[Resource | str | None]) -> Requirement:
    """Placed in exactly these subnets (described subnets, their ids or ARNs; so in their availability zones), no
    more, no fewer."""
    return refs.refers_exactly(
        "subnets",
        refs.SUBNET,
        subnets,
        lambda lb: sorted(z["SubnetId"] for z in lb.get("AvailabilityZones", []) if z.get("SubnetId")),
        hint="An Application Load Balancer needs the two public subnets, one per availability zone.",
    )


@later
def with_security_group(group: Resource | str | None) -> Requirement:
    """The load balancer's security groups include the group (a described group, its id or ARN)."""
    return refs.refers_among(
        "security groups", refs.SECURITY_GROUP, group, lambda lb: sorted(lb.get("SecurityGroups", []))
    )


def protocol(value: str) -> Requirement:
    """A listener's or target group's protocol, e.g. `HTTP`, `HTTPS` (in any case)."""
    return _caseless("protocol", "Protocol", value)


def port(value: int) -> Requirement:
    """A listener's or target group's port."""
    return attribute("port", "Port", value)


@later
def on_load_balancer(lb: Resource | str | None) -> Requirement:
    """The listener belongs to the load balancer (a described one, its ARN or name)."""
    return refs.refers("load balancer", refs.LOAD_BALANCER, lb, lambda listener: listener.get("LoadBalancerArn"))


@later
def forwards_to(target_group: Resource | str | None) -> Requirement:
    """The default actions forward all traffic to the target group (a described one, its ARN or name), and do
    nothing else first (no authentication, no fixed response): one forward action."""
    arn = refs.shown(refs.TARGET_GROUP, target_group)
    return require(
        "default action",
        f"forward to {arn}",
        _default_actions,
        compare=lambda actual, _: _forwards_only(actual, target_group),
        explain=lambda actual: _explain_actions(actual, arn),
    )


def _forwards_only(actions: list[str], target_group: Any) -> bool:
    """One forward action, to the target group alone."""
    if len(actions) != 1 or not actions[0].startswith("forward to "):
        return False
    targets = actions[0].removeprefix("forward to ").split(", ")
    return len(targets) == 1 and refs.current().same(refs.TARGET_GROUP, targets[0], target_group)


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


# --- ARNs --------------------------------------------------------------------------------------------------------


def _elb_arn(resource: str) -> refs.ArnPart | None:
    """`targetgroup/NAME/ID`, `loadbalancer/app/NAME/ID`: the name, the id as the version."""
    kind, _, rest = refs.split_resource(resource)
    if kind not in ("targetgroup", "loadbalancer"):
        return None
    parts = rest.split("/")
    return (kind, parts[-2], parts[-1]) if len(parts) >= 2 else (kind, rest, None)


refs.reads_arns("elasticloadbalancing", _elb_arn)
