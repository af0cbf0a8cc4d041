"""Returns a list instead of the result dict."""


async def run(session, context, logger):
    return [{"name": "02_07_bucket", "status": "found"}]
