"""Outsider: step 03.01 (the alarm)."""

from harness.authoring.scenarios import mistake

from ._lib import all_of, function


def _alarm(aws, handles, name="items-api-errors", **changes):
    args = dict(
        AlarmName=name,
        Namespace="AWS/Lambda",
        MetricName="Errors",
        Dimensions=[{"Name": "FunctionName", "Value": handles["02_01_function"]}],
        Statistic="Sum",
        Period=60,
        EvaluationPeriods=1,
        Threshold=1,
        ComparisonOperator="GreaterThanOrEqualToThreshold",
    )
    args.update(changes)
    aws.client("cloudwatch").put_metric_alarm(**args)


@mistake(issue=all_of("items-api-errors", "(threshold|GreaterThan|at least one|comparison|>)"))
def greater_than_one(aws, handles):
    """Cause: GreaterThanThreshold 1 fires only at two errors, not at one."""
    _alarm(aws, handles, ComparisonOperator="GreaterThanThreshold")


@mistake(issue=all_of("items-api-errors", "(statistic|Sum|Average)"))
def average_statistic(aws, handles):
    """Cause: the alarm watches the Average of Errors, not the Sum."""
    _alarm(aws, handles, Statistic="Average")


@mistake(issue=all_of("items-api-errors", "(FunctionName|dimension|items-api\\b(?!-))"))
def watches_the_scratch_function(aws, handles):
    """Mis-wired: the alarm's FunctionName dimension is hello-test (a scratch function), not items-api."""
    role = aws.client("lambda").get_function(FunctionName=handles["02_01_function"])["Configuration"]["Role"]
    function(aws, "hello-test", role, "items")
    _alarm(aws, handles, Dimensions=[{"Name": "FunctionName", "Value": "hello-test"}])


@mistake(issue=all_of("items-api-errors", "(period|60|300)"))
def five_minute_period(aws, handles):
    """Cause: period 300 s (the console's default), not 60."""
    _alarm(aws, handles, Period=300)


@mistake(expect="pass")
def equivalent_greater_than_zero(aws, handles):
    """Equivalent: Sum > 0 fires at the first error, as Sum >= 1 does (errors are counted in whole numbers);
    plus a decoy alarm on Throttles created first."""
    _alarm(aws, handles, name="items-api-throttles", MetricName="Throttles")
    _alarm(
        aws,
        handles,
        name="items-api-errors",
        ComparisonOperator="GreaterThanThreshold",
        Threshold=0,
        TreatMissingData="notBreaching",
    )
