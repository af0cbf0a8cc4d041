"""Run that task definition (the revision validated in the last step) as a Fargate service of two tasks in the
cluster, in the API's security group only, without public IP addresses."""

from harness.kit import ec2, ecs
from harness.kit.step import Step


async def run(session, context, logger):
    step = Step(session, context, logger)
    with step:
        cluster = step.input("04_01_cluster", ecs.CLUSTER)
        task = step.input("04_02_task_definition", ecs.TASK_DEFINITION)
        app_group = step.input("03_01_app_group", ec2.SECURITY_GROUP)
        step.find("04_03_service", ecs.SERVICE, [
            ecs.in_cluster(cluster),
            ecs.runs(task),
            ecs.launch_type("FARGATE"),
            ecs.desired_count(2),
            ecs.security_groups_exactly(app_group),
            ecs.assigns_public_ip(False),
        ])  # fmt: skip
    return step.result()
