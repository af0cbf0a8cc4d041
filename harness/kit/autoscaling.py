"""Auto Scaling validators: the group (sizes, launch template, subnets, target groups, health check). Id = its name."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from harness.kit.kinds import Kind, Resource, first, id_of, register
from harness.kit.require import Requirement, attribute, includes, require


def _fetch_group(session: Any, name: str) -> Resource | None:
    groups = session.client("autoscaling").describe_auto_scaling_groups(AutoScalingGroupNames=[name])
    return first([g for g in groups["AutoScalingGroups"] if g["AutoScalingGroupName"] == name])


AUTO_SCALING_GROUP = register(Kind("AWS::AutoScaling::AutoScalingGroup", "Auto Scaling group", _fetch_group))


def sizes(minimum: int, desired: int, maximum: int) -> Requirement:
    """Min, desired and max capacity."""
    return require(
        "capacity (min/desired/max)",
        f"{minimum}/{desired}/{maximum}",
        lambda g: f"{g.get('MinSize')}/{g.get('DesiredCapacity')}/{g.get('MaxSize')}",
    )


def uses_launch_template(template: Resource | str | None) -> Requirement:
    """Launches from the launch template (a described template or its id)."""
    template_id = id_of(template, "LaunchTemplateId")

    def actual(group: Resource) -> str | None:
        spec = group.get("LaunchTemplate") or (group.get("MixedInstancesPolicy") or {}).get("LaunchTemplate", {}).get(
            "LaunchTemplateSpecification"
        )
        return (spec or {}).get("LaunchTemplateId")

    return require("launch template", template_id, actual)


def in_subnets_exactly(subnets: Iterable[Resource | str | None]) -> Requirement:
    return require(
        "subnets",
        sorted(str(id_of(s, "SubnetId")) for s in subnets),
        lambda g: sorted(s for s in (g.get("VPCZoneIdentifier") or "").split(",") if s),
    )


def registers_with(target_group: Resource | str | None) -> Requirement:
    arn = id_of(target_group, "TargetGroupArn")
    return includes("target groups", arn, lambda g: sorted(g.get("TargetGroupARNs", [])))


def health_check(kind: str = "ELB") -> Requirement:
    return attribute("health check type", "HealthCheckType", kind)
