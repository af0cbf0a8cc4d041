"""Step 03.01: an alarm on the function's Errors (Sum, 60 s, one period) firing at one error."""

from botocore.exceptions import ClientError

ALARM = "items-api-errors"


async def run(session, context, logger):
    function = next(h["id"] for h in context["resolved"] if h["name"] == "02_01_function")
    try:
        session.client("cloudwatch").put_metric_alarm(
            AlarmName=ALARM,
            Namespace="AWS/Lambda",
            MetricName="Errors",
            Dimensions=[{"Name": "FunctionName", "Value": function}],
            Statistic="Sum",
            Period=60,
            EvaluationPeriods=1,
            Threshold=1,
            ComparisonOperator="GreaterThanOrEqualToThreshold",
        )
        return {"success": True, "resources": [{"name": "03_01_alarm", "type": "AWS::CloudWatch::Alarm", "id": ALARM}]}
    except ClientError as e:
        return {"error": str(e), "code": e.response["Error"]["Code"]}
