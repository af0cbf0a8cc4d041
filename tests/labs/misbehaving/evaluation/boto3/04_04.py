"""run with another signature."""


async def run(session, ctx):
    return {}
