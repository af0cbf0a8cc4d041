"""Create an ECS cluster with Container Insights on (enabled or enhanced), and the log group /ecs/orders-api keeping
its events 30 days."""

from harness.kit import ecs, logs
from harness.kit.step import Step


async def run(session, context, logger):
    step = Step(session, context, logger)
    with step:
        step.find("04_01_cluster", ecs.CLUSTER, [ecs.container_insights()])
        step.find("04_01_log_group", logs.LOG_GROUP, [logs.named("/ecs/orders-api"), logs.retention(30)])
    return step.result()
