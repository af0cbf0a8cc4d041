"""ECS validators: cluster (id = name), service (id = ARN), task definition (id = ARN or family:revision)."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from botocore.exceptions import ClientError

from harness.kit import refs
from harness.kit.aws import error_code
from harness.kit.bounds import Bound
from harness.kit.kinds import Kind, Resource, first, register, state_in
from harness.kit.later import later
from harness.kit.require import Requirement, attribute, includes, require


def _fetch_cluster(session: Any, name: str) -> Resource | None:
    clusters = session.client("ecs").describe_clusters(clusters=[name], include=["SETTINGS"])["clusters"]
    live = ("ACTIVE", "PROVISIONING")  # PROVISIONING: still being created (pending); the others are going or gone
    return first([c for c in clusters if c.get("status") in live and name in (c["clusterName"], c["clusterArn"])])


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


NO_ACTIVE_REVISION = "no ACTIVE revision"
"""The revision a bare task definition family reads as when it has no ACTIVE one: it names nothing."""


def _latest_revision(session: Any, identity: refs.Identity, _spelled: str) -> refs.Identity:
    """A bare family means its latest ACTIVE revision."""
    if identity.version is not None:
        return identity
    client = session.client("ecs")
    described = refs.asked(
        lambda: client.describe_task_definition(taskDefinition=identity.name)["taskDefinition"],
        also_missing=("ClientException",),
    )
    if described is not None and described.get("status") == "ACTIVE":
        return replace(identity, version=str(described["revision"]))
    # AWS describes the latest ACTIVE revision; an emulator may describe the latest of any status: list them
    pages = client.get_paginator("list_task_definitions").paginate(familyPrefix=identity.name, status="ACTIVE")
    listed = [refs.arn_identity(arn) for page in pages for arn in page["taskDefinitionArns"]]
    revisions = [int(v) for i in listed if i and i.name == identity.name and (v := i.version or "").isdigit()]
    return replace(identity, version=str(max(revisions)) if revisions else NO_ACTIVE_REVISION)


def _digest(session: Any, identity: refs.Identity, _spelled: str) -> refs.Identity:
    """An ECR image's tag read as its digest (DescribeImages); other registries are not asked."""
    tag = (identity.version or "").removeprefix("tag:")
    if tag == (identity.version or "") or identity.account is None:
        return identity
    repository = identity.name.split("/", 1)[1]
    described = refs.asked(
        lambda: session.client("ecr").describe_images(
            registryId=identity.account, repositoryName=repository, imageIds=[{"imageTag": tag}]
        )["imageDetails"]
    )
    return replace(identity, version=described[0]["imageDigest"]) if described else identity


TASK_DEFINITION_REFERENCE = refs.Space(
    "ecs:task-definition", "task definition", ("taskDefinitionArn",), refs.task_definition_identity, _latest_revision
)
"""A task definition by `family:revision` or ARN (that revision), or a bare `family` (its latest ACTIVE revision)."""
IMAGE_REFERENCE = refs.Space(
    "image", "container image", ("imageUri", "repositoryUri"), refs.image_identity, _digest, refs.repository_images
)
"""A container image: `REPOSITORY_URI:TAG`, `REPOSITORY_URI@sha256:DIGEST` (an ECR tag is read as its digest), or
a described ECR repository (any image it holds)."""

CLUSTER = register(
    Kind(
        "AWS::ECS::Cluster",
        "ECS cluster",
        _fetch_cluster,
        settling=state_in("status", {"PROVISIONING"}, label="status"),
        retry_after_s=10,
    )
)
"""`describe_clusters`' cluster: `{"clusterName", "clusterArn", "status", "settings": [{"name": "containerInsights",
"value"}], "capacityProviders"}`."""
SERVICE = register(Kind("AWS::ECS::Service", "ECS service", _fetch_service, naming="{noun} {name}", retry_after_s=30))
"""`describe_services`' service: `{"serviceName", "serviceArn", "clusterArn", "taskDefinition", "desiredCount",
"launchType", "capacityProviderStrategy", "networkConfiguration": {"awsvpcConfiguration": {"subnets",
"securityGroups", "assignPublicIp"}}, "loadBalancers", "deployments"}`."""
TASK_DEFINITION = register(Kind("AWS::ECS::TaskDefinition", "task definition", _fetch_task_definition))
"""`describe_task_definition`'s task definition: `{"taskDefinitionArn", "family", "revision", "status",
"requiresCompatibilities", "networkMode", "cpu", "memory", "executionRoleArn", "taskRoleArn",
"containerDefinitions": [{"name", "image", "portMappings", "logConfiguration", "secrets"}]}`."""


INSIGHTS_ON = ("enabled", "enhanced")
"""Container Insights values that turn it on: `enabled`, and `enhanced` (with enhanced observability)."""


def container_insights(enabled: bool = True) -> Requirement:
    """Container Insights is on (`enabled` or `enhanced`), or off when `enabled` is False."""
    return require(
        "Container Insights",
        "enabled or enhanced" if enabled else "disabled",
        lambda c: next((s["value"] for s in c.get("settings", []) if s["name"] == "containerInsights"), "disabled"),
        compare=lambda actual, _: (actual in INSIGHTS_ON) == enabled,
    )


@later
def in_cluster(cluster: Resource | str | None) -> Requirement:
    """The service runs in the cluster (a described cluster, its name or ARN)."""
    return refs.refers("cluster", refs.CLUSTER, cluster, lambda s: s.get("clusterArn"))


def _rollout(service: Resource) -> str:
    """The service's primary deployment's rollout state (`COMPLETED`, `IN_PROGRESS`, `FAILED`)."""
    primary = next((d for d in service.get("deployments", []) if d.get("status") == "PRIMARY"), None)
    return str((primary or {}).get("rolloutState") or "no deployment")


def steady() -> Requirement:
    """The service's deployment has completed: its tasks run as asked. While a deployment is in progress the step
    answers pending, not fail (a deployment that failed is a fail). On moto, a service's deployment completes only
    with MOTO_ECS_SERVICE_RUNNING set to at least its desired count."""
    return require(
        "deployment",
        "COMPLETED",
        _rollout,
        waits=lambda service: _rollout(service) == "IN_PROGRESS",
        hint="Look at the service's deployments and events: its tasks must start and stay running.",
    )


def desired_count(count: int | Bound) -> Requirement:
    """The service runs this many tasks."""
    return attribute("desired count", "desiredCount", count)


FARGATE_PROVIDERS = ("FARGATE", "FARGATE_SPOT")


def _launch(service: Resource) -> str | None:
    """How the service's tasks are placed: its launch type, or what its capacity provider strategy amounts to
    (FARGATE and FARGATE_SPOT are Fargate; any other provider is an Auto Scaling group's EC2 instances)."""
    if service.get("launchType"):
        return str(service["launchType"])
    providers = [s.get("capacityProvider") for s in service.get("capacityProviderStrategy") or []]
    kinds = sorted({"FARGATE" if p in FARGATE_PROVIDERS else "EC2" for p in providers})
    return ", ".join(kinds) or None


def launch_type(value: str = "FARGATE") -> Requirement:
    """Tasks run on `value` (FARGATE, EC2, EXTERNAL): the service's launch type, or a capacity provider strategy
    to the same effect (FARGATE/FARGATE_SPOT for Fargate, Auto Scaling group providers for EC2)."""
    return require("launch type", value, _launch)


@later
def runs(task_definition: Resource | str | None) -> Requirement:
    """The service runs the task definition: a described one or `family:revision` or its ARN (that revision),
    or a bare `family` (its latest ACTIVE revision)."""

    def explain(actual: str | None) -> str:
        wanted = refs.current().identity(TASK_DEFINITION_REFERENCE, task_definition)
        running = refs.current().identity(TASK_DEFINITION_REFERENCE, actual)
        shown = f"{running.name}:{running.version}" if running else "no task definition"
        if wanted is None:
            return f"it runs {shown}, but the task definition it should run is not known."
        if isinstance(task_definition, str) and ":" not in task_definition:
            latest = "none is ACTIVE" if wanted.version == NO_ACTIVE_REVISION else f"{wanted.name}:{wanted.version}"
            return f"it runs {shown}, not the latest ACTIVE revision of {wanted.name} ({latest})."
        return f"it runs {shown}, not {wanted.name}:{wanted.version}."

    return refs.refers(
        "task definition",
        TASK_DEFINITION_REFERENCE,
        task_definition,
        lambda s: s.get("taskDefinition"),
        explain=explain,
        hint="Update the service to the task definition revision the step names.",
    )


def _awsvpc(service: Resource) -> Resource:
    return (service.get("networkConfiguration") or {}).get("awsvpcConfiguration") or {}


@later
def security_groups_exactly(*groups: Resource | str | None) -> Requirement:
    """The service's tasks (network mode awsvpc) are in exactly these security groups (described groups, their ids
    or ARNs)."""
    return refs.refers_exactly(
        "security groups", refs.SECURITY_GROUP, groups, lambda s: sorted(_awsvpc(s).get("securityGroups", []))
    )


def assigns_public_ip(enabled: bool = True) -> Requirement:
    """The service's tasks get a public IP address (awsvpc `assignPublicIp` ENABLED; DISABLED by default)."""
    return require(
        "public IP",
        "ENABLED" if enabled else "DISABLED",
        lambda s: _awsvpc(s).get("assignPublicIp", "DISABLED"),
        hint="Set the service's network configuration to assign public IP addresses"
        + ("." if enabled else " DISABLED (its tasks sit behind the API's security group, not on the internet)."),
    )


def compatible_with(value: str = "FARGATE") -> Requirement:
    """The task definition can run on `value`: AWS validated it for that launch type (`compatibilities`), or it
    asked for it (`requiresCompatibilities`)."""
    return includes("requires compatibilities", value, _compatibilities)


def _compatibilities(task: Resource) -> list[str]:
    return sorted({*task.get("requiresCompatibilities", []), *task.get("compatibilities", [])})


def _cpu_units(value: Any) -> int | None:
    """CPU as units: `256`, `"256"`, `"0.25 vCPU"` (1 vCPU = 1024 units)."""
    match = re.fullmatch(r"\s*([\d.]+)\s*(vcpu)?\s*", str(value), re.IGNORECASE) if value is not None else None
    if match is None:
        return None
    return round(float(match[1]) * (1024 if match[2] else 1))


def _memory_mib(value: Any) -> int | None:
    """Memory in MiB: `512`, `"512"`, `"0.5 GB"`, `"1GB"` (1 GB = 1024 MiB, as ECS reads it)."""
    match = re.fullmatch(r"\s*([\d.]+)\s*(gb|mb|mib|gib)?\s*", str(value), re.IGNORECASE) if value is not None else None
    if match is None:
        return None
    return round(float(match[1]) * (1024 if (match[2] or "").lower() in ("gb", "gib") else 1))


def task_size(cpu: str | int, memory: str | int) -> Requirement:
    """Task-level CPU and memory, in any of the forms ECS accepts: (256, 512), ("256", "512"),
    ("0.25 vCPU", "0.5 GB")."""
    wanted = (_cpu_units(cpu), _memory_mib(memory))
    return require(
        "CPU/memory",
        f"{wanted[0]}/{wanted[1]}",
        lambda t: f"{t.get('cpu')}/{t.get('memory')}",
        compare=lambda actual, _: _size(actual) == wanted,
    )


def _size(shown: str) -> tuple[int | None, int | None]:
    cpu, _, memory = shown.partition("/")
    return _cpu_units(cpu), _memory_mib(memory)


def network_mode(value: str = "awsvpc") -> Requirement:
    """The task definition's network mode, e.g. `awsvpc` (what Fargate needs)."""
    return attribute("network mode", "networkMode", value)


def _container(task: Resource, name: str) -> Resource | None:
    return next((c for c in task.get("containerDefinitions", []) if c.get("name") == name), None)


@later
def container_image(container: str, image: Resource | str | None) -> Requirement:
    """The container named `container` runs `image`: `REPOSITORY_URI:TAG` or `REPOSITORY_URI@sha256:DIGEST` (an
    ECR image by either, its tag read as its digest), or any image of a described ECR repository."""
    return refs.refers(
        f"container {container} image",
        IMAGE_REFERENCE,
        image,
        lambda t: (_container(t, container) or {}).get("image"),
    )


def _log_routes(task: Resource, container: str | None) -> list[dict[str, Any]]:
    """Where each container's logs go: its name, log driver, for awslogs the group and region, and the awslogs
    options it lacks to start (awslogs-region always, awslogs-stream-prefix on a task that can run on Fargate)."""
    needed = ["awslogs-region"] + (["awslogs-stream-prefix"] if "FARGATE" in _compatibilities(task) else [])
    routes = []
    for c in task.get("containerDefinitions", []):
        if container is not None and c.get("name") != container:
            continue
        configuration = c.get("logConfiguration") or {}
        options = configuration.get("options") or {}
        routes.append(
            {
                "container": c.get("name"),
                "driver": configuration.get("logDriver"),
                "group": options.get("awslogs-group"),
                "region": options.get("awslogs-region"),
                "lacks": [option for option in needed if not options.get(option)],
            }
        )
    return routes


def _to_group(route: dict[str, Any], group: Any) -> bool:
    if route["driver"] != "awslogs" or not route["group"] or route["lacks"]:
        return False
    sent = refs.Identity(refs.LOG_GROUP.type, route["group"], route["region"])
    return refs.current().same(refs.LOG_GROUP, sent, group)


def _group_name(group: str | None) -> str | None:
    """A log group as a learner names it: `/ecs/orders`, not `arn:aws:logs:...:log-group:/ecs/orders:*`."""
    match = re.fullmatch(r"arn:[^:]+:logs:[^:]*:[^:]*:log-group:(.+?)(?::\*)?", group or "")
    return match.group(1) if match else group


def _show_route(route: dict[str, Any], wanted: str | None) -> str:
    """Where one container's logs go, said against where they should go."""
    if route["driver"] != "awslogs":
        return f"container {route['container']} uses the {route['driver'] or 'no'} log driver, not awslogs to {wanted}"
    if not route["group"]:
        return f"container {route['container']} uses the awslogs driver without awslogs-group, not to {wanted}"
    if route["lacks"]:
        return (
            f"container {route['container']} sends its logs to {route['group']} without "
            f"{' or '.join(route['lacks'])} (awslogs driver), so the task cannot start"
        )
    return f"container {route['container']} sends its logs to {route['group']}, not to {wanted} (awslogs driver)"


@later
def logs_to(group: Resource | str | None, container: str | None = None) -> Requirement:
    """Logs reach the CloudWatch log group (a described group, its name or ARN) through the awslogs driver: the
    logs of the container named `container`, or without one, of at least one container (a sidecar may log
    elsewhere). Another driver (splunk, awsfirelens, none) does not count, nor a route the task cannot start
    with: without awslogs-region, or without awslogs-stream-prefix on a task that can run on Fargate."""
    wanted = _group_name(refs.shown(refs.LOG_GROUP, group))
    whose = f"container {container}" if container else "a container"
    return require(
        "log groups",
        f"{whose} to {wanted} (awslogs)",
        lambda t: _log_routes(t, container),
        compare=lambda routes, _: any(_to_group(r, group) for r in routes),
        explain=lambda routes: (
            "; ".join(_show_route(route, wanted) for route in routes) + "."
            if routes
            else f"it has no {whose}, so no container sends its logs to {wanted}."
        ),
        hint=f"Set the container's log configuration to the awslogs driver with awslogs-group {wanted}, "
        "awslogs-region and awslogs-stream-prefix.",
    )


# --- ARNs --------------------------------------------------------------------------------------------------------


def _ecs_arn(resource: str) -> refs.ArnPart | None:
    """`task-definition/FAMILY:REVISION` (the revision as the version); `service/CLUSTER/NAME` (the name)."""
    kind, _, rest = refs.split_resource(resource)
    if kind == "task-definition":
        family, _, revision = rest.partition(":")
        return kind, family, revision or None
    if kind == "service":
        return kind, rest.rsplit("/", 1)[-1], None
    return None


refs.reads_arns("ecs", _ecs_arn)
