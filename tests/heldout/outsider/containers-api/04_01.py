"""Outsider: step 04.01 (the cluster and its log group)."""

from harness.authoring.scenarios import mistake, solve

from ._lib import all_of

GROUP = "/ecs/orders-api"


def _cluster(aws, insights="enabled", name="orders"):
    settings = [{"name": "containerInsights", "value": insights}] if insights else []
    aws.client("ecs").create_cluster(clusterName=name, settings=settings)


def _group(aws, name=GROUP, days=30):
    logs = aws.client("logs")
    logs.create_log_group(logGroupName=name)
    if days:
        logs.put_retention_policy(logGroupName=name, retentionInDays=days)


@solve
def cluster_with_insights_and_group(aws, handles):
    _cluster(aws)
    _group(aws)


@mistake(issue=all_of("orders", "(Container Insights|containerInsights|insights)"))
def insights_left_off(aws, handles):
    """Cause: cluster orders has no Container Insights (the default)."""
    _cluster(aws, insights=None)
    _group(aws)


@mistake(issue=all_of("/ecs/orders-api", "(retention|30|never)"))
def retention_never_set(aws, handles):
    """Cause: /ecs/orders-api never expires its events (no retention), not 30 days."""
    _cluster(aws)
    _group(aws, days=None)


@mistake(issue=all_of("/ecs/orders-api", "(retention|30|31)"))
def retention_one_month_as_31(aws, handles):
    """Cause: retention 31 days (the learner read 'a month' as 31); the step says 30."""
    _cluster(aws)
    _group(aws, days=31)


@mistake(issue=all_of("/ecs/orders-api", "(missing|not found|exist|no log group|log group)"))
def group_named_after_the_cluster(aws, handles):
    """Cause: the log group is /ecs/orders (named after the cluster) with 30 days; /ecs/orders-api does not exist."""
    _cluster(aws)
    _group(aws, name="/ecs/orders")


@mistake(expect="pass")
def equivalent_insights_turned_on_later_beside_a_decoy_cluster(aws, handles):
    """Equivalent: a scratch cluster default (no insights) first; orders created plain, then update_cluster (settings=)
    turns Container Insights on; the group created with retention in the create call's follow-up."""
    _cluster(aws, insights=None, name="default")
    _cluster(aws, insights=None)
    aws.client("ecs").update_cluster(cluster="orders", settings=[{"name": "containerInsights", "value": "enabled"}])
    _group(aws)
