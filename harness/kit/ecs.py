"""ECS validators: cluster (id = name), service (id = ARN), task definition (id = ARN or family:revision)."""

from __future__ import annotations

from typing import Any

from botocore.exceptions import ClientError

from harness.kit.aws import error_code
from harness.kit.kinds import Kind, Resource, first, id_of, register
from harness.kit.require import Requirement, attribute, includes, require


def _fetch_cluster(session: Any, name: str) -> Resource | None:
    clusters = session.client("ecs").describe_clusters(clusters=[name], include=["SETTINGS"])["clusters"]
    return first([c for c in clusters if c.get("status") == "ACTIVE" and name in (c["clusterName"], c["clusterArn"])])


def _fetch_service(session: Any, arn: str) -> Resource | None:
    """A service ARN is `arn:aws:ecs:REGION:ACCOUNT:service/CLUSTER/NAME` (the long format)."""
    cluster = arn.split(":service/", 1)[1].split("/")[0] if ":service/" in arn and arn.count("/") >= 2 else "default"
    services = session.client("ecs").describe_services(cluster=cluster, services=[arn])["services"]
    return first([s for s in services if s.get("status") == "ACTIVE"])


def _fetch_task_definition(session: Any, task_definition: str) -> Resource | None:
    try:
        found = session.client("ecs").describe_task_definition(taskDefinition=task_definition)["taskDefinition"]
    except ClientError as error:  # ECS answers an unknown task definition with a generic ClientException
        if error_code(error) == "ClientException" and "Unable to describe task definition" in str(error):
            return None
        raise
    return found if found.get("status") == "ACTIVE" else None


CLUSTER = register(Kind("AWS::ECS::Cluster", "ECS cluster", _fetch_cluster))
SERVICE = register(Kind("AWS::ECS::Service", "ECS service", _fetch_service))
TASK_DEFINITION = register(Kind("AWS::ECS::TaskDefinition", "task definition", _fetch_task_definition))


def container_insights(enabled: bool = True) -> Requirement:
    return require(
        "Container Insights",
        enabled,
        lambda c: any(s["name"] == "containerInsights" and s["value"] == "enabled" for s in c.get("settings", [])),
    )


def in_cluster(cluster: Resource | str | None) -> Requirement:
    name = str(id_of(cluster, "clusterName"))
    return require("cluster", name, lambda s: str(s.get("clusterArn", "")).rsplit("/", 1)[-1])


def desired_count(count: int) -> Requirement:
    return attribute("desired count", "desiredCount", count)


def launch_type(value: str = "FARGATE") -> Requirement:
    return attribute("launch type", "launchType", value)


def runs(task_definition: Resource | str | None) -> Requirement:
    """The service runs the task definition (its family, or family:revision)."""
    wanted = str(id_of(task_definition, "family"))
    return require(
        "task definition",
        wanted,
        lambda s: str(s.get("taskDefinition", "")).rsplit("/", 1)[-1],
        compare=lambda actual, expected: actual == expected or actual.split(":")[0] == expected,
    )


def compatible_with(value: str = "FARGATE") -> Requirement:
    return includes("requires compatibilities", value, lambda t: t.get("requiresCompatibilities", []))


def task_size(cpu: str, memory: str) -> Requirement:
    """Task-level CPU units and memory (MiB), as strings: ("256", "512")."""
    return require("CPU/memory", f"{cpu}/{memory}", lambda t: f"{t.get('cpu')}/{t.get('memory')}")


def network_mode(value: str = "awsvpc") -> Requirement:
    return attribute("network mode", "networkMode", value)


def container_image(container: str, image: str) -> Requirement:
    """The container named `container` runs `image`."""
    return require(
        f"container {container} image",
        image,
        lambda t: next((c.get("image") for c in t.get("containerDefinitions", []) if c.get("name") == container), None),
    )


def logs_to(group: Resource | str | None) -> Requirement:
    """Every container logs to the CloudWatch log group (awslogs driver)."""
    name = id_of(group, "logGroupName")
    return require(
        "log groups",
        [name],
        lambda t: sorted(
            {
                str(((c.get("logConfiguration") or {}).get("options") or {}).get("awslogs-group"))
                for c in t.get("containerDefinitions", [])
            }
        ),
    )
