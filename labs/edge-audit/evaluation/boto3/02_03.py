"""A public hosted zone for edge-audit.example.com with an alias A record www.edge-audit.example.com to the
distribution."""

from harness.kit import cloudfront, route53
from harness.kit.step import Step


async def run(session, context, logger):
    step = Step(session, context, logger)
    with step:
        distribution = step.input("02_01_distribution", cloudfront.DISTRIBUTION)
        step.find("02_03_zone", route53.HOSTED_ZONE, [
            route53.domain("edge-audit.example.com"),
            route53.public(),
        ])  # fmt: skip
        step.find("02_03_record", route53.RECORD_SET, [
            route53.named("www.edge-audit.example.com"),
            route53.record_type("A"),
            route53.alias_to(distribution),
        ])  # fmt: skip
    return step.result()
