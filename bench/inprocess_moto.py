"""Preload for the benchmark: in-process moto, so AWS calls cost the same in the evaluation and the baseline.

The template imports it: moto's EC2 backend is built here once (~50 ms: its AMIs), not in every evaluation.
"""

import boto3
from moto import mock_aws

mock_aws().start()
boto3.client("ec2", region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="x").describe_vpcs()
