"""Creates a bucket from a child process, with the credentials and endpoint the session holds."""

import subprocess
import sys


async def run(session, context, logger):
    frozen = session.get_credentials().get_frozen_credentials()
    endpoint = session.client("s3").meta.endpoint_url
    code = (
        "import boto3; boto3.client('s3', region_name='us-east-1', endpoint_url=%r, aws_access_key_id=%r, "
        "aws_secret_access_key=%r).create_bucket(Bucket='written-from-a-child')"
    ) % (endpoint, frozen.access_key, frozen.secret_key)
    subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=15, check=False)
    return {"validated": [{"name": "01_04_bucket", "type": "AWS::S3::Bucket", "id": "b", "status": "found"}],
            "success": True, "message": "wrote from a child"}
