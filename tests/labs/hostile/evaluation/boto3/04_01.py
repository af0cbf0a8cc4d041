"""Holds 1.5 GiB (touched, so it is real)."""


async def run(session, context, logger):
    hoard = bytearray(1536 * 1024 * 1024)
    for i in range(0, len(hoard), 4096):
        hoard[i] = 1
    return {
        "validated": [{"name": "memory_01", "type": "AWS::S3::Bucket", "id": "x", "status": "found"}],
        "success": True,
        "message": "held 1.5 GiB",
    }
