"""Register a Fargate task definition (network mode awsvpc, 256 CPU units, 512 MiB) whose container named api runs
an image of that repository (by tag or digest) and sends its logs with the awslogs driver to /ecs/orders-api.
Other containers may log elsewhere."""

from harness.kit import ecr, ecs, logs
from harness.kit.step import Step


async def run(session, context, logger):
    step = Step(session, context, logger)
    with step:
        repository = step.input("01_01_repository", ecr.REPOSITORY)
        group = step.input("04_01_log_group", logs.LOG_GROUP)
        step.find("04_02_task_definition", ecs.TASK_DEFINITION, [
            ecs.compatible_with("FARGATE"),
            ecs.network_mode("awsvpc"),
            ecs.task_size("256", "512"),
            ecs.container_image("api", repository),
            ecs.logs_to(group),
        ])  # fmt: skip
    return step.result()
