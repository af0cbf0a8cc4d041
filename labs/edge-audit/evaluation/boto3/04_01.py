"""A log bucket, not the site's, whose policy lets CloudTrail write, and a multi-Region trail with log file
validation delivering to it, recording all management events, and logging."""

from harness.kit import cloudtrail, s3
from harness.kit.step import Step


async def run(session, context, logger):
    step = Step(session, context, logger)
    with step:
        step.input("01_01_bucket", s3.BUCKET)  # held by 01_01_bucket: no candidate for the audit bucket
        bucket = step.find(
            "04_01_bucket", s3.BUCKET, [s3.cloudtrail_may_write(step.output("04_01_trail"), acl_required=True)]
        )
        step.find("04_01_trail", cloudtrail.TRAIL, [
            cloudtrail.to_bucket(bucket),
            cloudtrail.multi_region(),
            cloudtrail.log_file_validation(),
            cloudtrail.records_management_events("All"),
            cloudtrail.is_logging(),
        ])  # fmt: skip
    return step.result()
