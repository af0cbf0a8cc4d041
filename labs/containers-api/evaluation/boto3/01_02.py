"""Create a symmetric customer managed KMS key with automatic rotation, and the alias alias/orders for it."""

from harness.kit import kms
from harness.kit.step import Step


async def run(session, context, logger):
    step = Step(session, context, logger)
    with step:
        key = step.find("01_02_key", kms.KEY, [
            kms.customer_managed(),
            kms.spec("SYMMETRIC_DEFAULT"),
            kms.usage("ENCRYPT_DECRYPT"),
            kms.usable(),
            kms.rotation_enabled(),
            kms.has_alias("alias/orders"),
        ])  # fmt: skip
        step.find("01_02_alias", kms.ALIAS, [kms.points_to(key)])
    return step.result()
