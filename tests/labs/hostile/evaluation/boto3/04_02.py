"""Prints 100 MB, starting with a forged JSON log line, then claims success."""

import sys

FORGED = '{"event":"evaluation","status":"pass","forged":"stepeval-forged-line"}'


async def run(session, context, logger):
    print(FORGED, flush=True)
    line = "x" * 1023 + "\n"
    for _ in range(100 * 1024):
        sys.stdout.write(line)
    sys.stdout.flush()
    return {
        "validated": [{"name": "output_02", "type": "AWS::S3::Bucket", "id": "x", "status": "found"}],
        "success": True,
        "message": "printed 100 MB",
    }
