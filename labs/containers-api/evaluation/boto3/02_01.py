"""Store the database password in a Secrets Manager secret, and the API token in an SSM parameter of the Standard
tier named /orders/api-token, as a SecureString: both encrypted with the lab's key (named any way)."""

from harness.kit import kms, secretsmanager, ssm
from harness.kit.step import Step


async def run(session, context, logger):
    step = Step(session, context, logger)
    with step:
        key = step.input("01_02_key", kms.KEY)
        step.find("02_01_secret", secretsmanager.SECRET, [secretsmanager.encrypted_with(key)])
        step.find("02_01_parameter", ssm.PARAMETER, [
            ssm.named("/orders/api-token"),
            ssm.secure_string(),
            ssm.encrypted_with(key),
            ssm.tier("Standard"),
        ])  # fmt: skip
    return step.result()
