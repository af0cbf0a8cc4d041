"""Auto Scaling validators: the group (sizes, launch template, subnets, target groups, health check). Id = its name."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from harness.kit import compute, refs
from harness.kit.kinds import Kind, Resource, first, register
from harness.kit.later import later
from harness.kit.require import Requirement, attribute, require


def _fetch_group(session: Any, name: str) -> Resource | None:
    groups = session.client("autoscaling").describe_auto_scaling_groups(AutoScalingGroupNames=[name])
    return first([g for g in groups["AutoScalingGroups"] if g["AutoScalingGroupName"] == name])


AUTO_SCALING_GROUP = register(Kind("AWS::AutoScaling::AutoScalingGroup", "Auto Scaling group", _fetch_group))
"""`describe_auto_scaling_groups`' group: `{"AutoScalingGroupName", "MinSize", "DesiredCapacity", "MaxSize",
"LaunchTemplate": {"LaunchTemplateId", "Version"}, "VPCZoneIdentifier": "subnet-a,subnet-b", "TargetGroupARNs",
"HealthCheckType"}`."""


def sizes(minimum: int, desired: int, maximum: int) -> Requirement:
    """Min, desired and max capacity."""
    return require(
        "capacity (min/desired/max)",
        f"{minimum}/{desired}/{maximum}",
        lambda g: f"{g.get('MinSize')}/{g.get('DesiredCapacity')}/{g.get('MaxSize')}",
    )


@later
def uses_launch_template(template: Resource | str | None) -> Requirement:
    """Launches from the launch template (a described template, its id or its name), directly or through a mixed
    instances policy."""

    def actual(group: Resource) -> str | None:
        spec = group.get("LaunchTemplate") or (group.get("MixedInstancesPolicy") or {}).get("LaunchTemplate", {}).get(
            "LaunchTemplateSpecification"
        )
        return (spec or {}).get("LaunchTemplateId") or (spec or {}).get("LaunchTemplateName")

    return refs.refers("launch template", compute.LAUNCH_TEMPLATE_REFERENCE, template, actual)


@later
def in_subnets_exactly(subnets: Iterable[Resource | str | None]) -> Requirement:
    """Launches into exactly these subnets (described subnets, their ids or ARNs)."""
    return refs.refers_exactly(
        "subnets",
        refs.SUBNET,
        subnets,
        lambda g: sorted(s.strip() for s in (g.get("VPCZoneIdentifier") or "").split(",") if s.strip()),
    )


@later
def registers_with(target_group: Resource | str | None) -> Requirement:
    """Registers its instances with the target group (a described one, its ARN or name)."""
    return refs.refers_among(
        "target groups", refs.TARGET_GROUP, target_group, lambda g: sorted(g.get("TargetGroupARNs", []))
    )


def health_check(kind: str = "ELB") -> Requirement:
    """How the group checks its instances: `ELB` (the load balancer's health checks) or `EC2`."""
    return attribute("health check type", "HealthCheckType", kind)


# --- ARNs --------------------------------------------------------------------------------------------------------


def _group_arn(resource: str) -> refs.ArnPart | None:
    """`autoScalingGroup:UUID:autoScalingGroupName/NAME`: the group's name."""
    if "autoScalingGroupName/" not in resource:
        return None
    return "autoScalingGroup", resource.split("autoScalingGroupName/", 1)[1], None


refs.reads_arns("autoscaling", _group_arn)
