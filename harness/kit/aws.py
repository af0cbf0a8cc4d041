"""AWS errors as a validator must read them: a NotFound is the learner's missing resource, nothing else is.

AccessDenied, throttling and every other service error propagate, so the harness answers `error` (kind `aws`)
instead of telling the learner their work is wrong. A resource created moments ago can be briefly invisible where
the service is eventually consistent (EC2, IAM, ...), so there a NotFound on an id from this step's events is
retried for about two seconds; a service that reads what it just created (Lambda, SNS, ...) is asked once, and so
is an emulator (moto reads what it just made): the harness says so per evaluation (`reads_are_consistent`).

Public and stable for kit modules: `is_not_found(error)`, `fetch_or_none(fetch, retry=, service=)`,
`service_of(client)`, `service_for_type(resource_type)`, `error_code(error)`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, TypeVar

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
        "NoSuchEntity",
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
"""Codes that mean "no such resource" in any service (beside the patterns `is_not_found` reads)."""

EVENTUALLY_CONSISTENT = frozenset(
    {"ec2", "iam", "elbv2", "autoscaling", "s3", "route53", "cloudfront", "dynamodb", "sqs", "sts"}
)
"""Services whose reads may miss a resource created moments ago (AWS documents a short window for each: for
DynamoDB, DescribeTable right after CreateTable; for SQS, about a second after CreateQueue)."""

RETRY_DELAYS_S = (0.2, 0.4, 0.6, 0.8)

_consistent_reads = False  # one evaluation per process: set for it by the harness, from where its account is


def reads_are_consistent(consistent: bool) -> None:
    """Whether the account reads what was just made (an emulator endpoint): then a NotFound is final at once, not
    asked again for two seconds. The evaluation process sets it from its job, before the module runs."""
    global _consistent_reads
    _consistent_reads = consistent


_SERVICE_BY_NAMESPACE = {"elasticloadbalancingv2": "elbv2", "elasticloadbalancing": "elb", "cognito": "cognito-idp"}


def error_code(error: ClientError) -> str:
    """The service's error code, e.g. `InvalidVpcID.NotFound`."""
    return str(error.response.get("Error", {}).get("Code", ""))


def is_not_found(error: ClientError) -> bool:
    """Whether `error` means the resource does not exist, in any service: `*.NotFound`, `*NotFound(Exception|Fault)`,
    `NoSuch*`, `NonExistent*`, `*DoesNotExist*`, a malformed id, a bare 404, or one of NOT_FOUND_CODES."""
    code = error_code(error)
    return (
        code in NOT_FOUND_CODES
        or code.endswith(("NotFound", ".NotFound", "NotFoundException", "NotFoundFault", ".Malformed"))
        or code.startswith(("NoSuch", "NonExistent"))
        or "DoesNotExist" in code
    )


def service_of(client: Any) -> str:
    """botocore's name for a client's service ("sqs", "apigatewayv2")."""
    return str(client.meta.service_model.service_name)


def service_for_type(resource_type: str) -> str:
    """botocore's service name for a CloudFormation type: `AWS::SQS::Queue` -> "sqs", `AWS::ElasticLoadBalancingV2::
    LoadBalancer` -> "elbv2" (most are the type's service part in lower case)."""
    namespace = resource_type.split("::")[1].lower() if resource_type.count("::") == 2 else ""
    return _SERVICE_BY_NAMESPACE.get(namespace, namespace)


def retries_not_found(service: str | None) -> bool:
    """Whether a NotFound from `service` is worth asking again (None: not known, so yes, as before)."""
    return service is None or service in EVENTUALLY_CONSISTENT


def fetch_or_none(fetch: Callable[[], T | None], *, retry: bool = False, service: str | None = None) -> T | None:
    """`fetch()`, with NotFound (raised, or an empty answer given as None) read as None.

    With `retry`, a NotFound is tried again for about two seconds before it counts, if `service` (botocore's name,
    e.g. `service_of(client)` or `kind.service_name`) is eventually consistent or not given, and the account is
    not an emulator.
    """
    delays = RETRY_DELAYS_S if retry and not _consistent_reads and retries_not_found(service) else ()
    for delay in (*delays, None):
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
