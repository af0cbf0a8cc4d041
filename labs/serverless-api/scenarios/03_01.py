"""Step 03.01: the mistakes learners make with the errors alarm (solution/boto3/03_01.py solves it)."""

from harness.authoring.scenarios import mistake


def _alarm(aws, handles, *, metric="Errors", statistic="Sum", threshold=1, function=None):
    aws.client("cloudwatch").put_metric_alarm(
        AlarmName="items-api-errors", Namespace="AWS/Lambda", MetricName=metric,
        Dimensions=[{"Name": "FunctionName", "Value": function or handles["02_01_function"]}],
        Statistic=statistic, Period=60, EvaluationPeriods=1, Threshold=threshold,
        ComparisonOperator="GreaterThanOrEqualToThreshold",
    )  # fmt: skip


@mistake(issue=r"(?i)metric")
def watches_throttles(aws, handles):
    _alarm(aws, handles, metric="Throttles")


@mistake(issue=r"(?i)statistic")
def average_of_errors(aws, handles):
    _alarm(aws, handles, statistic="Average")


@mistake(issue=r"(?i)threshold")
def fires_at_five_errors(aws, handles):
    _alarm(aws, handles, threshold=5)


@mistake(issue=r"(?i)dimension FunctionName")
def watches_another_function(aws, handles):
    _alarm(aws, handles, function="orders-api")


@mistake(after_solve=True, issue=r"no longer exists")
def function_deleted(aws, handles):
    aws.client("lambda").delete_function(FunctionName=handles["02_01_function"])
