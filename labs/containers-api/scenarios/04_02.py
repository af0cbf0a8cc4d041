"""Step 04.02: a Fargate task definition whose api container runs the repository's image and logs to the group."""

import json

from harness.authoring.scenarios import equivalent, mistake, solve

PUBLIC_IMAGE = "public.ecr.aws/nginx/nginx:1.27"


def _image(aws, handles, *, digest=False):
    """Push an image (its manifest) to the lab's repository: its URI with the tag, or with the digest."""
    ecr = aws.client("ecr")
    repository = ecr.describe_repositories(repositoryNames=[handles["01_01_repository"]])["repositories"][0]
    config = {
        "mediaType": "application/vnd.docker.container.image.v1+json",
        "size": 7023,
        "digest": "sha256:" + "c" * 64,
    }
    manifest = {"schemaVersion": 2, "mediaType": "application/vnd.docker.distribution.manifest.v2+json",
                "config": config, "layers": []}  # fmt: skip
    pushed = ecr.put_image(
        repositoryName=repository["repositoryName"], imageManifest=json.dumps(manifest), imageTag="1.0.0"
    )
    uri = repository["repositoryUri"]
    return f"{uri}@{pushed['image']['imageId']['imageDigest']}" if digest else f"{uri}:1.0.0"


def _container(aws, name, image, group, driver="awslogs"):
    region = aws.client("ecs").meta.region_name  # the lab's, whichever it is played in
    options = {"awslogs-group": group, "awslogs-region": region, "awslogs-stream-prefix": name}
    return {"name": name, "image": image, "essential": name == "api",
            "logConfiguration": {"logDriver": driver, "options": options}}  # fmt: skip


def _register(aws, *containers, cpu="256", memory="512", compatibility="FARGATE"):
    return aws.client("ecs").register_task_definition(
        family="orders-api", requiresCompatibilities=[compatibility], networkMode="awsvpc", cpu=cpu, memory=memory,
        containerDefinitions=list(containers),
    )["taskDefinition"]["taskDefinitionArn"]  # fmt: skip


def _task(aws, handles, *, image=None, group=None, cpu="256", memory="512", compatibility="FARGATE", sidecar=None):
    containers = [_container(aws, "api", image or _image(aws, handles), group or handles["04_01_log_group"])]
    if sidecar:
        aws.client("logs").create_log_group(logGroupName=sidecar)
        containers.append(_container(aws, "proxy", "public.ecr.aws/envoyproxy/envoy:v1.31", sidecar))
    return _register(aws, *containers, cpu=cpu, memory=memory, compatibility=compatibility)


@equivalent("RegisterTaskDefinition *", reason="the first draft (revision 1), which never fits: revision 2 is judged")
@equivalent("omit RegisterTaskDefinition", reason="without the first draft, the right one is revision 1 and is judged")
@equivalent(
    "requiresCompatibilities[0]=EXTERNAL",
    reason="ECS validated it for Fargate all the same (its compatibilities list FARGATE), so it runs on Fargate",
)
@equivalent("containerDefinitions+[", reason="other containers may be in the task: the api container is judged")
@equivalent(
    "containerDefinitions[0].essential=false",
    reason="AWS refuses a task definition without an essential container (moto takes it)",
)
@solve
def a_first_draft_then_the_api_image(aws, handles):
    """The latest revision is the right one: a learner's first draft ran a public image."""
    _task(aws, handles, image=PUBLIC_IMAGE)
    _task(aws, handles)


@mistake(expect="pass")
def registered_once(aws, handles):
    _task(aws, handles)


@mistake(expect="pass")
def image_by_digest(aws, handles):
    _task(aws, handles, image=_image(aws, handles, digest=True))


@mistake(expect="pass")
def a_sidecar_logging_to_its_own_group(aws, handles):
    _task(aws, handles, sidecar="/ecs/orders-proxy")


@mistake(issue=r"(?i)image")
def a_public_image(aws, handles):
    _task(aws, handles, image=PUBLIC_IMAGE)


@mistake(issue=r"(?i)CPU/memory")
def twice_the_size(aws, handles):
    _task(aws, handles, cpu="512", memory="1024")


@mistake(issue=r"(?i)compatibilities")
def for_ec2(aws, handles):
    _task(aws, handles, compatibility="EC2")


@mistake(issue=r"(?i)log")
def logs_to_another_group(aws, handles):
    aws.client("logs").create_log_group(logGroupName="/ecs/default")
    _task(aws, handles, group="/ecs/default")


@mistake(issue=r"without awslogs-region")
def logs_without_a_region(aws, handles):
    """On Fargate the awslogs driver needs awslogs-region: without it the task does not start."""
    container = _container(aws, "api", _image(aws, handles), handles["04_01_log_group"])
    del container["logConfiguration"]["options"]["awslogs-region"]
    _register(aws, container)


@mistake(issue=r"without awslogs-stream-prefix")
def logs_without_a_stream_prefix(aws, handles):
    """On Fargate the awslogs driver needs awslogs-stream-prefix: without it the task does not start."""
    container = _container(aws, "api", _image(aws, handles), handles["04_01_log_group"])
    del container["logConfiguration"]["options"]["awslogs-stream-prefix"]
    _register(aws, container)


@mistake(issue=r"(?i)log")
def logs_through_another_driver(aws, handles):
    _register(aws, _container(aws, "api", _image(aws, handles), handles["04_01_log_group"], driver="fluentd"))
