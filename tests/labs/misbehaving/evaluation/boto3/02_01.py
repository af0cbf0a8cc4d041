"""Looks for credentials other than the session's: environment, default chain, a client of its own."""

import os

import boto3


async def run(session, context, logger):
    leaked = sorted(key for key in os.environ if key.startswith("AWS_") and "KEY" in key or key == "AWS_PROFILE")
    default_credentials = boto3.Session().get_credentials()
    findings = {"env": leaked, "default_chain": default_credentials is not None}
    return {
        "validated": [{"name": "02_01_bucket", "type": "AWS::S3::Bucket", "id": None, "status": "not_found"}],
        "success": False,
        "message": repr(findings),
        "failure_context": {"step": "02.01", "issue": repr(findings), "hint_context": ""},
    }
