"""CloudWatch Logs (log group, retention, metric filters) and CloudWatch alarms on moto."""

from __future__ import annotations

from harness.kit import cloudwatch, logs
from harness.kit.aws import fetch_or_none
from tests.kit.conftest import described, miss, passes, unique


def test_a_missing_log_group_is_not_found(aws_session) -> None:
    aws_session.client("logs").create_log_group(logGroupName="/aws/lambda/prefix-of-another")
    assert fetch_or_none(lambda: logs.LOG_GROUP.fetch(aws_session, "/aws/lambda/prefix")) is None


def test_retention(aws_session) -> None:
    name = unique("/aws/lambda/api")
    aws_session.client("logs").create_log_group(logGroupName=name)
    assert miss(logs.retention(14), logs.LOG_GROUP, name, described(logs.LOG_GROUP, aws_session, name)) == (
        f"Log group {name}: it keeps events forever, not 14 days."
    )
    aws_session.client("logs").put_retention_policy(logGroupName=name, retentionInDays=7)
    assert miss(logs.retention(14), logs.LOG_GROUP, name, described(logs.LOG_GROUP, aws_session, name)) == (
        f"Log group {name}: it keeps events 7 days, not 14 days."
    )
    assert passes(logs.retention(7), described(logs.LOG_GROUP, aws_session, name))


def test_metric_filter(aws_session) -> None:
    name = unique("/app")
    client = aws_session.client("logs")
    client.create_log_group(logGroupName=name)
    client.put_metric_filter(
        logGroupName=name,
        filterName="errors",
        filterPattern="ERROR",
        metricTransformations=[{"metricName": "AppErrors", "metricNamespace": "Lab", "metricValue": "1"}],
    )
    group = described(logs.LOG_GROUP, aws_session, name)
    assert passes(logs.metric_filter("AppErrors", "Lab", pattern="ERROR"), group)
    assert miss(logs.metric_filter("AppErrors", "Lab", pattern="WARN"), logs.LOG_GROUP, name, group) == (
        f"Log group {name}: its metric filters with pattern 'WARN' publish nothing, not Lab/AppErrors."
    )


def test_a_functions_log_group_and_its_streams(aws_session) -> None:
    function = {
        "FunctionName": "orders-api",
        "FunctionArn": "arn:aws:lambda:eu-west-1:111122223333:function:orders-api",
    }
    assert logs.function_log_group(function) == logs.function_log_group("orders-api") == "/aws/lambda/orders-api"
    assert logs.streams_arn(function) == (
        "arn:aws:logs:eu-west-1:111122223333:log-group:/aws/lambda/orders-api:log-stream:*"
    )
    name = unique("/aws/lambda/other")
    aws_session.client("logs").create_log_group(logGroupName=name)
    group = described(logs.LOG_GROUP, aws_session, name)
    assert passes(logs.named(name), group)
    assert miss(logs.named("/aws/lambda/orders-api"), logs.LOG_GROUP, name, group) == (
        f"Log group {name}: name should be /aws/lambda/orders-api, but is {name}."
    )


def make_alarm(aws_session, **settings) -> str:
    name = unique("errors")
    params = {
        "Namespace": "AWS/Lambda",
        "MetricName": "Errors",
        "Dimensions": [{"Name": "FunctionName", "Value": "orders-api"}],
        "Statistic": "Sum",
        "Period": 60,
        "EvaluationPeriods": 1,
        "Threshold": 1.0,
        "ComparisonOperator": "GreaterThanOrEqualToThreshold",
        **settings,
    }
    aws_session.client("cloudwatch").put_metric_alarm(AlarmName=name, **params)
    return name


def test_a_missing_alarm_is_not_found(aws_session) -> None:
    assert fetch_or_none(lambda: cloudwatch.ALARM.fetch(aws_session, "no-such-alarm")) is None


def test_the_alarm_watches_the_function_errors(aws_session) -> None:
    topic = aws_session.client("sns").create_topic(Name=unique("alerts"))["TopicArn"]
    name = make_alarm(aws_session, AlarmActions=[topic])
    alarm = described(cloudwatch.ALARM, aws_session, name)
    for requirement in (
        *cloudwatch.watches_function("orders-api"),
        cloudwatch.statistic("Sum"),
        cloudwatch.period(60),
        cloudwatch.evaluation_periods(1),
        cloudwatch.threshold(1),
        cloudwatch.notifies(topic),
    ):
        assert passes(requirement, alarm), requirement.check


def test_an_alarm_on_another_function_names_it(aws_session) -> None:
    name = make_alarm(aws_session)
    alarm = described(cloudwatch.ALARM, aws_session, name)
    dimension = cloudwatch.watches_function("payments")[1]
    assert miss(dimension, cloudwatch.ALARM, name, alarm) == (
        f"Alarm {name}: dimension FunctionName should be payments, but is orders-api."
    )
    assert miss(cloudwatch.threshold(5, "GreaterThanThreshold"), cloudwatch.ALARM, name, alarm) == (
        f"Alarm {name}: threshold should be GreaterThanThreshold 5, but is GreaterThanOrEqualToThreshold 1."
    )
    assert miss(cloudwatch.metric("AWS/Lambda", "Throttles"), cloudwatch.ALARM, name, alarm) == (
        f"Alarm {name}: metric should be AWS/Lambda/Throttles, but is AWS/Lambda/Errors."
    )


def test_log_group_kms_key(aws_session) -> None:
    key = aws_session.client("kms").create_key()["KeyMetadata"]["Arn"]
    name = unique("/secure")
    aws_session.client("logs").create_log_group(logGroupName=name, kmsKeyId=key)
    group = described(logs.LOG_GROUP, aws_session, name)
    assert passes(logs.encrypted_with(key), group)
    assert miss(logs.encrypted_with(key + "x"), logs.LOG_GROUP, name, group) == (
        f"Log group {name}: KMS key should be {key}x, but is {key}."
    )


def test_alarm_actions_disabled(aws_session) -> None:
    name = make_alarm(aws_session, ActionsEnabled=False)
    assert miss(
        cloudwatch.actions_enabled(), cloudwatch.ALARM, name, described(cloudwatch.ALARM, aws_session, name)
    ) == (f"Alarm {name}: actions enabled should be enabled, but is disabled.")


def test_on_a_whole_number_statistic_equivalent_comparisons_are_one_threshold(aws_session) -> None:
    """Sum of Lambda Errors is a whole number: `> 0` fires exactly when `>= 1` does, `< 1` when `<= 0`."""
    above_zero = described(
        cloudwatch.ALARM, aws_session, make_alarm(aws_session, Threshold=0.0, ComparisonOperator="GreaterThanThreshold")
    )
    assert cloudwatch.integral(above_zero)
    assert passes(cloudwatch.threshold(1, "GreaterThanOrEqualToThreshold"), above_zero)
    assert passes(cloudwatch.threshold(0.5, "GreaterThanThreshold"), above_zero)
    assert not passes(cloudwatch.threshold(2, "GreaterThanOrEqualToThreshold"), above_zero)
    assert not passes(cloudwatch.threshold(1, "LessThanThreshold"), above_zero)
    below_one = described(
        cloudwatch.ALARM, aws_session, make_alarm(aws_session, Threshold=1.0, ComparisonOperator="LessThanThreshold")
    )
    assert passes(cloudwatch.threshold(0, "LessThanOrEqualToThreshold"), below_one)
    name = make_alarm(aws_session, Threshold=1.0, ComparisonOperator="GreaterThanThreshold")
    assert miss(cloudwatch.threshold(1), cloudwatch.ALARM, name, described(cloudwatch.ALARM, aws_session, name)) == (
        f"Alarm {name}: threshold should be GreaterThanOrEqualToThreshold 1, but is GreaterThanThreshold 1."
    )


def test_on_a_fractional_statistic_the_comparison_is_as_written(aws_session) -> None:
    """An average (or an unknown metric's sum) can be 0.5: `> 0` is not `>= 1` there."""
    for settings in ({"Statistic": "Average"}, {"Namespace": "Lab", "MetricName": "Latency"}):
        alarm = described(
            cloudwatch.ALARM,
            aws_session,
            make_alarm(aws_session, Threshold=0.0, ComparisonOperator="GreaterThanThreshold", **settings),
        )
        assert not cloudwatch.integral(alarm)
        assert not passes(cloudwatch.threshold(1), alarm)
        assert passes(cloudwatch.threshold(0, "GreaterThanThreshold"), alarm)
    counted = described(
        cloudwatch.ALARM,
        aws_session,
        make_alarm(aws_session, Namespace="Lab", MetricName="Latency", Statistic="SampleCount"),
    )
    assert cloudwatch.integral(counted)
