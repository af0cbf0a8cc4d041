"""Planted weak reference checks: the task definition's family (any revision), some security group."""

from harness.kit import ec2, ecs
from harness.kit.require import require
from harness.kit.step import Step


async def run(session, context, logger):
    step = Step(session, context, logger)
    with step:
        step.input("03_01_app_group", ec2.SECURITY_GROUP)
        task = step.input("03_01_task_definition", ecs.TASK_DEFINITION)
        family = require("task family", task["family"], lambda s: s["taskDefinition"].rsplit("/", 1)[-1].split(":")[0])
        grouped = require(
            "security group", True, lambda s: bool(s["networkConfiguration"]["awsvpcConfiguration"]["securityGroups"])
        )
        step.find("03_02_service", ecs.SERVICE, [family, grouped])
    return step.result()
