"""Answers (and logs) text holding lone surrogates, which JSON escapes carry but no UTF-8 writer takes: the
service once stored the answer, then failed to send it (HTTP 500), and failed every replay of it the same way."""


async def run(session, context, logger):
    logger.info("a log line \ud800 with a lone surrogate")
    return {
        "validated": [{"name": "text_02", "type": "AWS::S3::Bucket", "id": "b\udc00", "status": "not_found"}],
        "success": False,
        "message": "x \ud800 y",
    }
