"""Held-out mistakes of containers-api step 04.01, with decoys (see tests/heldout/README.md)."""

from harness.authoring.scenarios import mistake


def _heldout_log_group(aws, name, days):
    logs = aws.client("logs")
    logs.create_log_group(logGroupName=name)
    logs.put_retention_policy(logGroupName=name, retentionInDays=days)


def _heldout_cluster(aws, name="heldout-orders"):
    aws.client("ecs").create_cluster(clusterName=name, settings=[{"name": "containerInsights", "value": "enabled"}])


@mistake(issue=r"(?i)/ecs/orders-api.*(retention|14)")
def heldout_two_weeks_after_a_scratch_group_kept_a_month(aws, handles):
    _heldout_cluster(aws)
    _heldout_log_group(aws, "/ecs/heldout-scratch", 30)  # older, kept right, but not the API's
    _heldout_log_group(aws, "/ecs/orders-api", 14)
