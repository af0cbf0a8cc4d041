"""AWS errors as a validator must read them: a NotFound is the learner's missing resource, nothing else is.

AccessDenied, throttling and every other service error propagate, so the harness answers `error` (kind `aws`)
instead of telling the learner their work is wrong. A resource created moments ago can be briefly invisible
(EC2 is eventually consistent), so a NotFound on an id from this step's events is retried for about two seconds.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

from botocore.exceptions import ClientError

T = TypeVar("T")

NOT_FOUND_CODES = frozenset(
    {
        "404",
        "NotFound",
        "NoSuchBucket",
        "NoSuchBucketPolicy",
        "NoSuchPublicAccessBlockConfiguration",
        "ServerSideEncryptionConfigurationNotFoundError",
        "LoadBalancerNotFound",
        "TargetGroupNotFound",
        "ListenerNotFound",
        "NatGatewayNotFound",
        "ResourceNotFoundException",
        "NotFoundException",
        "QueueDoesNotExist",
        "AWS.SimpleQueueService.NonExistentQueue",
        "RepositoryNotFoundException",
        "TrailNotFoundException",
        "ClusterNotFoundException",
        "ServiceNotFoundException",
        "DBSubnetGroupNotFoundFault",
        "InvalidLaunchTemplateName.NotFoundException",
    }
)
RETRY_DELAYS_S = (0.2, 0.4, 0.6, 0.8)


def error_code(error: ClientError) -> str:
    """The service's error code, e.g. `InvalidVpcID.NotFound`."""
    return str(error.response.get("Error", {}).get("Code", ""))


def is_not_found(error: ClientError) -> bool:
    """NotFound-family codes: `*.NotFound`, `*NotFound`, `NoSuch*`, a malformed id, a bare 404."""
    code = error_code(error)
    return (
        code in NOT_FOUND_CODES
        or code.endswith("NotFound")
        or code.endswith(".NotFound")
        or code.endswith(".Malformed")
        or code.startswith("NoSuch")
    )


def fetch_or_none(fetch: Callable[[], T | None], *, retry: bool = False) -> T | None:
    """`fetch()`, with NotFound (raised, or an empty answer given as None) read as None.

    With `retry`, a NotFound is tried again for about two seconds before it counts.
    """
    for delay in (*(RETRY_DELAYS_S if retry else ()), None):
        try:
            found = fetch()
        except ClientError as error:
            if not is_not_found(error):
                raise
            found = None
        if found is not None or delay is None:
            return found
        time.sleep(delay)
    return None
