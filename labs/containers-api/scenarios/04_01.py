"""Step 04.01: a cluster with Container Insights, and the log group /ecs/orders-api keeping events 30 days."""

from harness.authoring.scenarios import mistake, solve

GROUP = "/ecs/orders-api"


def _cluster(aws, insights="enabled"):
    settings = [{"name": "containerInsights", "value": insights}] if insights else []
    aws.client("ecs").create_cluster(clusterName="orders", settings=settings)


def _group(aws, name=GROUP, days=30):
    logs = aws.client("logs")
    logs.create_log_group(logGroupName=name)
    if days:
        logs.put_retention_policy(logGroupName=name, retentionInDays=days)


@solve
def cluster_with_insights_and_a_month_of_logs(aws, handles):
    _cluster(aws)
    _group(aws)


@mistake(expect="pass")
def enhanced_insights(aws, handles):
    _cluster(aws, insights="enhanced")
    _group(aws)


@mistake(issue=r"(?i)container insights")
def insights_off(aws, handles):
    _cluster(aws, insights=None)
    _group(aws)


@mistake(issue=r"(?i)forever")
def logs_kept_forever(aws, handles):
    _cluster(aws)
    _group(aws, days=None)


@mistake(issue=r"(?i)retention|7 days")
def logs_kept_a_week(aws, handles):
    _cluster(aws)
    _group(aws, days=7)


@mistake(issue=r"(?i)name")
def group_misnamed(aws, handles):
    _cluster(aws)
    _group(aws, name="/ecs/orders")
