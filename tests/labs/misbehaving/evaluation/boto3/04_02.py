"""A syntax error."""


async def run(session, context, logger)
    return {}
