"""Answers 8 MiB (every answer is kept: in the idempotency store, in the records)."""


async def run(session, context, logger):
    return {"validated": [{"name": "answer_03", "type": "AWS::S3::Bucket", "id": "x", "status": "found"}],
            "success": True, "message": "x" * (8 * 1024 * 1024)}
