"""Which STS refusals are the platform's to fix (kind `platform`: the learner is never told to try again) and which
may pass (kind `sandbox`)."""

from __future__ import annotations

import pytest
from botocore.exceptions import ClientError, EndpointConnectionError

from harness.core.contract import LEARNER_SAFE_ERROR, PLATFORM_ERROR, Answer
from harness.service.assume import refusal_kind


def refused(code: str) -> ClientError:
    return ClientError({"Error": {"Code": code, "Message": "..."}}, "AssumeRole")


@pytest.mark.parametrize(
    "code", ["AccessDenied", "MalformedPolicyDocument", "RegionDisabledException", "ValidationError"]
)
def test_a_role_that_cannot_be_assumed_is_the_platform_s(code: str) -> None:
    assert refusal_kind(refused(code)) == "platform"


@pytest.mark.parametrize("code", ["Throttling", "ServiceUnavailable", "InternalFailure", "IDPCommunicationError"])
def test_a_busy_sts_may_pass(code: str) -> None:
    assert refusal_kind(refused(code)) == "sandbox"


@pytest.mark.parametrize("code", ["InvalidClientTokenId", "SignatureDoesNotMatch", "ExpiredToken"])
def test_the_service_s_own_credentials_refused_are_the_service_s(code: str) -> None:
    assert refusal_kind(refused(code)) == "service"


def test_an_sts_that_does_not_answer_may_pass() -> None:
    assert refusal_kind(EndpointConnectionError(endpoint_url="https://sts.us-east-1.amazonaws.com")) == "sandbox"


def test_the_learner_is_never_told_to_try_again_when_only_the_platform_can_help() -> None:
    platform = Answer.failed_to_run("01.01", "platform", "AccessDenied")
    assert platform.message == PLATFORM_ERROR and "try again in a moment" not in platform.message
    assert "not a verdict on your work" in platform.message
    assert Answer.failed_to_run("01.01", "sandbox", "Throttling").message == LEARNER_SAFE_ERROR
