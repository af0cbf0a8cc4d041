"""An origin access control for S3 that always signs (SigV4), and an enabled distribution on the site bucket's REST
endpoint through it, serving index.html at the root, never over plain HTTP (redirect-to-https or https-only)."""

from harness.kit import cloudfront, s3
from harness.kit.step import Step


async def run(session, context, logger):
    step = Step(session, context, logger)
    with step:
        bucket = step.input("01_01_bucket", s3.BUCKET)
        control = step.find("02_01_origin_access_control", cloudfront.ORIGIN_ACCESS_CONTROL, [
            cloudfront.signs_requests("always", origin_type="s3"),
        ])  # fmt: skip
        step.find("02_01_distribution", cloudfront.DISTRIBUTION, [
            cloudfront.enabled(),
            cloudfront.origin(bucket),
            cloudfront.reads_origin_through(control, bucket),
            cloudfront.default_root_object("index.html"),
            cloudfront.viewer_protocol(cloudfront.HTTPS_REQUIRED),
        ])  # fmt: skip
    return step.result()
