"""AWS errors as the kit reads them: only NotFound is the learner's missing resource; retries are bounded."""

from __future__ import annotations

import time

import pytest
from botocore.exceptions import ClientError

from harness.kit import aws
from harness.kit.aws import error_code, fetch_or_none, is_not_found
from tests.kit.conftest import client_error

NOT_FOUND = [
    "InvalidVpcID.NotFound",
    "InvalidSubnetID.NotFound",
    "InvalidSubnetID.Malformed",
    "InvalidGroup.NotFound",
    "NoSuchBucket",
    "NoSuchBucketPolicy",
    "NoSuchPublicAccessBlockConfiguration",
    "404",
    "LoadBalancerNotFound",
    "TargetGroupNotFound",
    "ListenerNotFound",
    "NatGatewayNotFound",
    "NoSuchEntity",  # IAM
    "ResourceNotFoundException",  # DynamoDB, Lambda, Logs, Secrets Manager, EventBridge
    "NotFoundException",  # API Gateway, KMS
    "DBInstanceNotFound",  # RDS
    "DBSubnetGroupNotFoundFault",
    "ClusterNotFoundException",  # ECS
    "RepositoryNotFoundException",  # ECR
    "TrailNotFoundException",  # CloudTrail
    "NoSuchHostedZone",  # Route 53
    "NoSuchDistribution",  # CloudFront
]
NOT_A_MISSING_RESOURCE = [
    "AccessDenied",
    "AccessDeniedException",
    "UnauthorizedOperation",
    "Throttling",
    "ThrottlingException",
    "RequestLimitExceeded",
    "SlowDown",
    "InternalError",
    "ServiceUnavailable",
    "403",
    "InvalidParameterValue",
    "",
]


@pytest.mark.parametrize("code", NOT_FOUND)
def test_not_found_codes(code: str) -> None:
    assert is_not_found(client_error(code)) is True


@pytest.mark.parametrize("code", NOT_A_MISSING_RESOURCE)
def test_other_codes_are_not_not_found(code: str) -> None:
    assert is_not_found(client_error(code)) is False


@pytest.mark.parametrize("code", ["AWS.SimpleQueueService.NonExistentQueue", "QueueDoesNotExist"])
def test_sqs_not_found_codes(code: str) -> None:
    assert is_not_found(client_error(code)) is True


def test_service_names_for_clients_and_types() -> None:
    assert aws.service_for_type("AWS::SQS::Queue") == "sqs"
    assert aws.service_for_type("AWS::ElasticLoadBalancingV2::LoadBalancer") == "elbv2"
    assert aws.service_for_type("AWS::ApiGatewayV2::Api") == "apigatewayv2"
    assert aws.service_for_type("AWS::CloudWatch::Alarm") == "cloudwatch"


@pytest.mark.parametrize("service", ["lambda", "sns", "logs", "cloudwatch", "apigatewayv2", "kms"])
def test_a_service_consistent_at_once_is_asked_once(service: str, tiny_delays) -> None:
    fetch = Answers(client_error("ResourceNotFoundException"), {"found": True})
    assert fetch_or_none(fetch, retry=True, service=service) is None
    assert fetch.calls == 1


@pytest.mark.parametrize("service", ["ec2", "iam", "dynamodb", "sqs", None])
def test_an_eventually_consistent_service_is_asked_again(service: str | None, tiny_delays) -> None:
    fetch = Answers(client_error("NoSuchEntity"), {"found": True})
    assert fetch_or_none(fetch, retry=True, service=service) == {"found": True}
    assert fetch.calls == 2


def test_error_code_reads_the_service_code() -> None:
    assert error_code(client_error("InvalidVpcID.NotFound")) == "InvalidVpcID.NotFound"
    assert error_code(ClientError({}, "DescribeVpcs")) == ""


@pytest.fixture
def tiny_delays(monkeypatch: pytest.MonkeyPatch) -> tuple[float, ...]:
    delays = (0.001, 0.001, 0.001, 0.001)
    monkeypatch.setattr(aws, "RETRY_DELAYS_S", delays)
    return delays


class Answers:
    """A fetch that gives the scripted answers in turn (raising the exceptions), counting calls."""

    def __init__(self, *answers) -> None:
        self.answers = list(answers)
        self.calls = 0

    def __call__(self):
        answer = self.answers[min(self.calls, len(self.answers) - 1)]
        self.calls += 1
        if isinstance(answer, Exception):
            raise answer
        return answer


def test_a_found_resource_is_returned_at_once(tiny_delays) -> None:
    fetch = Answers({"VpcId": "vpc-1"})
    assert fetch_or_none(fetch, retry=True) == {"VpcId": "vpc-1"}
    assert fetch.calls == 1


@pytest.mark.parametrize("answer", [client_error("InvalidVpcID.NotFound"), None], ids=["not-found", "empty"])
def test_not_found_is_none_without_retry(answer, tiny_delays) -> None:
    fetch = Answers(answer)
    assert fetch_or_none(fetch) is None
    assert fetch.calls == 1


@pytest.mark.parametrize("code", ["AccessDenied", "RequestLimitExceeded", "InternalError"])
@pytest.mark.parametrize("retry", [False, True], ids=["once", "retrying"])
def test_other_client_errors_propagate_at_once(code: str, retry: bool, tiny_delays) -> None:
    fetch = Answers(client_error(code))
    with pytest.raises(ClientError) as raised:
        fetch_or_none(fetch, retry=retry)
    assert error_code(raised.value) == code
    assert fetch.calls == 1


@pytest.mark.parametrize(
    "early",
    [client_error("InvalidVpcID.NotFound"), None],
    ids=["not-found-twice", "empty-twice"],
)
def test_retry_returns_a_resource_that_appears_on_the_third_try(early, tiny_delays) -> None:
    fetch = Answers(early, early, {"VpcId": "vpc-1"})
    assert fetch_or_none(fetch, retry=True) == {"VpcId": "vpc-1"}
    assert fetch.calls == 3


def test_retry_gives_up_after_one_try_per_delay(tiny_delays) -> None:
    fetch = Answers(client_error("InvalidVpcID.NotFound"))
    assert fetch_or_none(fetch, retry=True) is None
    assert fetch.calls == len(tiny_delays) + 1


def test_an_error_after_a_retry_still_propagates(tiny_delays) -> None:
    fetch = Answers(client_error("InvalidVpcID.NotFound"), client_error("Throttling"))
    with pytest.raises(ClientError, match="Throttling"):
        fetch_or_none(fetch, retry=True)
    assert fetch.calls == 2


def test_the_default_retry_window_is_about_two_seconds() -> None:
    assert 1.5 <= sum(aws.RETRY_DELAYS_S) <= 3.0


def test_retry_sleeps_the_configured_delays(monkeypatch: pytest.MonkeyPatch) -> None:
    slept: list[float] = []
    monkeypatch.setattr(aws, "RETRY_DELAYS_S", (0.2, 0.4))
    monkeypatch.setattr(time, "sleep", slept.append)
    assert fetch_or_none(Answers(None), retry=True) is None
    assert slept == [0.2, 0.4]


def test_an_emulator_s_reads_are_asked_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """moto reads what it just made: a NotFound there is final at once, without the two-second retry window."""
    slept: list[float] = []
    monkeypatch.setattr(time, "sleep", slept.append)
    monkeypatch.setattr(aws, "_consistent_reads", False)
    aws.reads_are_consistent(True)
    fetch = Answers(None, None, {"VpcId": "vpc-1"})
    assert fetch_or_none(fetch, retry=True, service="ec2") is None
    assert (fetch.calls, slept) == (1, [])
