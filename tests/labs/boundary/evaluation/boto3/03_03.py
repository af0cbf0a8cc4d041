"""Answers 12 MiB: twelve such answers stayed in the service's idempotency store for a day."""

from ._lib import result


async def run(session, context, logger):
    return result("answer_03", "x" * (12 * 1024 * 1024))
