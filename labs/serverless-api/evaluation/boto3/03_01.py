"""Create a CloudWatch alarm on the function's Errors metric (AWS/Lambda, Sum over 60 seconds, one evaluation
period) that fires when there is at least one error."""

from harness.kit import awslambda, cloudwatch
from harness.kit.step import Step


async def run(session, context, logger):
    step = Step(session, context, logger)
    with step:
        function = step.input("02_01_function", awslambda.FUNCTION)
        step.find("03_01_alarm", cloudwatch.ALARM, [
            *cloudwatch.watches_function(function, "Errors"),
            cloudwatch.statistic("Sum"),
            cloudwatch.period(60),
            cloudwatch.evaluation_periods(1),
            cloudwatch.threshold(1, "GreaterThanOrEqualToThreshold"),
        ])  # fmt: skip
    return step.result()
