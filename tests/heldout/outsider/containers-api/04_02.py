"""Outsider: step 04.02 (the task definition)."""

from harness.authoring.scenarios import mistake, solve

from ._lib import all_of, repository, task_definition


@solve
def fargate_task_logging_to_the_group(aws, handles):
    task_definition(aws, handles)


@mistake(issue=all_of("orders-api", "container api sends its logs to /ecs/orders, not to /ecs/orders-api"))
def logs_to_the_cluster_named_group(aws, handles):
    """Mis-wired: awslogs-group is /ecs/orders (a group the learner typed), not /ecs/orders-api."""
    task_definition(aws, handles, group="/ecs/orders")


@mistake(issue=all_of("(orders-api|task definition)", "(image|repository)"))
def image_from_docker_hub(aws, handles):
    """Cause: the api container runs nginx:latest from Docker Hub, not an image of the orders-api repository."""
    task_definition(aws, handles, image="nginx:latest")


@mistake(issue=all_of("(orders-api|task definition)", "(image|repository)", "orders-api"))
def image_from_the_scratch_repository(aws, handles):
    """Mis-wired: the image comes from the scratch repository orders-api-test the learner made, not orders-api."""
    scratch = repository(aws, "orders-api-test")
    task_definition(aws, handles, image=f"{scratch['repositoryUri']}:1.0.0")


@mistake(issue=all_of("(orders-api|task definition)", "(cpu|256|512)"))
def half_a_vcpu(aws, handles):
    """Cause: the task asks 512 CPU units, not 256."""
    task_definition(aws, handles, cpu="512", memory="1024")


@mistake(expect="pass")
def equivalent_sidecar_logging_elsewhere_and_digest(aws, handles):
    """Equivalent: the api image by digest, and a sidecar xray container logging to /ecs/xray (allowed)."""
    repo = aws.client("ecr").describe_repositories(repositoryNames=[handles["01_01_repository"]])["repositories"][0]
    sidecar = {
        "name": "xray",
        "image": "public.ecr.aws/xray/aws-xray-daemon:3.3.7",
        "essential": False,
        "logConfiguration": {
            "logDriver": "awslogs",
            "options": {
                "awslogs-group": "/ecs/xray",
                "awslogs-region": aws.region_name,
                "awslogs-stream-prefix": "xray",
            },
        },
    }
    task_definition(aws, handles, image=f"{repo['repositoryUri']}@sha256:{'ab' * 32}", extra=[sidecar])
