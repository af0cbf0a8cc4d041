"""CloudTrail validators: a trail (logging, multi-region, log file validation, bucket, KMS). Id = its name or ARN."""

from __future__ import annotations

from typing import Any

from harness.kit import kms, refs
from harness.kit.kinds import Kind, LazyResource, Resource, first, register
from harness.kit.later import later
from harness.kit.require import Requirement, attribute, require


def _fetch_trail(session: Any, trail: str) -> Resource | None:
    client = session.client("cloudtrail")
    trails = client.describe_trails(trailNameList=[trail])["trailList"]
    found = first([t for t in trails if trail in (t.get("Name"), t.get("TrailARN"))])  # moto answers every trail
    if found is None:
        return None
    return LazyResource(found, {"IsLogging": lambda: client.get_trail_status(Name=found["TrailARN"])["IsLogging"]})


TRAIL = register(Kind("AWS::CloudTrail::Trail", "trail", _fetch_trail))


def is_logging(enabled: bool = True) -> Requirement:
    """The trail is logging (started)."""
    return attribute("logging", "IsLogging", enabled, hint="Start logging on the trail.")


def multi_region(enabled: bool = True) -> Requirement:
    """The trail records every region."""
    return attribute("multi-region", "IsMultiRegionTrail", enabled)


def log_file_validation(enabled: bool = True) -> Requirement:
    """Log file integrity validation is on."""
    return attribute("log file validation", "LogFileValidationEnabled", enabled)


@later
def to_bucket(bucket: Resource | str | None) -> Requirement:
    """Delivers its logs to the bucket (a described bucket, its name or ARN)."""
    return refs.refers("S3 bucket", refs.BUCKET, bucket, lambda t: t.get("S3BucketName"))


def encrypted() -> Requirement:
    """Log files are encrypted with a KMS key (any key)."""
    return require("KMS key", "set", lambda t: t.get("KmsKeyId"), compare=lambda actual, _: bool(actual))


@later
def encrypted_with(key: Resource | str | None) -> Requirement:
    """Log files are encrypted with the KMS key: a described key, its id or ARN, an alias or alias ARN, whichever
    the trail was given on either side."""
    return refs.refers("KMS key", kms.KEY_REFERENCE, key, lambda t: t.get("KmsKeyId"))
