"""Planted weak reference checks: "some key is named", not "the lab's key"."""

from harness.kit import secretsmanager, ssm
from harness.kit.require import require
from harness.kit.step import Step


async def run(session, context, logger):
    step = Step(session, context, logger)
    with step:
        named = require("KMS key named", True, lambda r: bool(r.get("KmsKeyId") or r.get("KeyId")))
        step.find("02_02_secret", secretsmanager.SECRET, [named])
        step.find("02_02_parameter", ssm.PARAMETER, [ssm.secure_string(), named])
    return step.result()
