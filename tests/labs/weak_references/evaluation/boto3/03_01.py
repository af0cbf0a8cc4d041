"""The app group (by name) and the task definition's second revision."""

from harness.kit import ec2, ecs
from harness.kit.require import attribute
from harness.kit.step import Step


async def run(session, context, logger):
    step = Step(session, context, logger)
    with step:
        step.find("03_01_app_group", ec2.SECURITY_GROUP, [attribute("name", "GroupName", "app")])
        step.find("03_01_task_definition", ecs.TASK_DEFINITION, [attribute("revision", "revision", 2)])
    return step.result()
