"""Held-out mistakes of serverless-api step 03.01, with decoys (see tests/heldout/README.md)."""

from harness.authoring.scenarios import mistake


def _heldout_alarm(aws, handles, name, *, metric="Errors", period=60, threshold=1, function=None):
    aws.client("cloudwatch").put_metric_alarm(
        AlarmName=name,
        Namespace="AWS/Lambda",
        MetricName=metric,
        Dimensions=[{"Name": "FunctionName", "Value": function or handles["02_01_function"]}],
        Statistic="Sum",
        Period=period,
        EvaluationPeriods=1,
        Threshold=threshold,
        ComparisonOperator="GreaterThanOrEqualToThreshold",
    )


@mistake(issue=r"(?i)heldout-items-errors.*period")
def heldout_five_minute_period_after_a_throttles_alarm(aws, handles):
    _heldout_alarm(aws, handles, "heldout-old-throttles", metric="Throttles")
    _heldout_alarm(aws, handles, "heldout-items-errors", period=300)


@mistake(issue=r"(?i)heldout-items-errors.*threshold")
def heldout_threshold_five_after_an_alarm_on_another_function(aws, handles):
    _heldout_alarm(aws, handles, "heldout-scratch-errors", function="some-other-function")
    _heldout_alarm(aws, handles, "heldout-items-errors", threshold=5)
