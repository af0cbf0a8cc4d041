"""Opens files until it cannot: every descriptor is kernel memory (a pipe's buffer, a socket's)."""


async def run(session, context, logger):
    held = [open("/dev/null", "rb") for _ in range(100_000)]
    return {"validated": [{"name": "files_02", "type": "AWS::S3::Bucket", "id": "x", "status": "found"}],
            "success": True, "message": f"{len(held)} open"}
