"""Where AWS offers two ways to one effect, a requirement accepts each; shown here on described resources shaped
as AWS answers them, for what moto does not model (a service's capacity provider strategy: moto records a launch
type instead; enhanced scanning), and beside the meaningful difference each must still see."""

from __future__ import annotations

import json
from typing import Any

import pytest

from harness.kit import ecr, ecs
from harness.kit.kinds import LazyResource


def service(**placement: Any) -> dict[str, Any]:
    """A service as DescribeServices answers it: a launch type, or a capacity provider strategy and none."""
    return {"serviceName": "web", "desiredCount": 2, **placement}


@pytest.mark.parametrize(
    ("placement", "fargate"),
    [
        ({"launchType": "FARGATE"}, True),
        ({"capacityProviderStrategy": [{"capacityProvider": "FARGATE", "weight": 1}]}, True),
        ({"capacityProviderStrategy": [{"capacityProvider": "FARGATE_SPOT", "weight": 3, "base": 0},
                                       {"capacityProvider": "FARGATE", "weight": 1, "base": 1}]}, True),
        ({"launchType": "EC2"}, False),
        ({"capacityProviderStrategy": [{"capacityProvider": "web-asg", "weight": 1}]}, False),
        ({}, False),
    ],
)  # fmt: skip
def test_fargate_by_launch_type_or_capacity_provider_strategy(placement: dict[str, Any], fargate: bool) -> None:
    assert ecs.launch_type("FARGATE").evaluate(service(**placement)).ok is fargate
    ec2 = placement.get("launchType") == "EC2" or "web-asg" in str(placement)
    assert ecs.launch_type("EC2").evaluate(service(**placement)).ok is ec2


def repository(scan_on_push: bool, scan_type: str, rules: list[dict[str, Any]]) -> LazyResource:
    described = {"repositoryName": "app", "imageScanningConfiguration": {"scanOnPush": scan_on_push}}
    return LazyResource(described, {"RegistryScanning": lambda: {"scanType": scan_type, "rules": rules}})


def rule(frequency: str, pattern: str) -> dict[str, Any]:
    return {"scanFrequency": frequency, "repositoryFilters": [{"filter": pattern, "filterType": "WILDCARD"}]}


@pytest.mark.parametrize(
    ("own", "scan_type", "rules", "scanned"),
    [
        (True, "BASIC", [], True),
        (False, "BASIC", [rule("SCAN_ON_PUSH", "app")], True),
        (False, "BASIC", [rule("SCAN_ON_PUSH", "ap*")], True),
        (False, "BASIC", [rule("SCAN_ON_PUSH", "web*")], False),
        (False, "ENHANCED", [rule("CONTINUOUS_SCAN", "*")], True),
        (False, "ENHANCED", [rule("SCAN_ON_PUSH", "a*p")], True),
        (True, "ENHANCED", [rule("CONTINUOUS_SCAN", "web*")], False),  # enhanced ignores the repository setting
        (False, "BASIC", [rule("MANUAL", "*")], False),
    ],
)  # fmt: skip
def test_scan_on_push_by_the_repository_or_a_registry_rule(own, scan_type, rules, scanned) -> None:
    assert ecr.scan_on_push().evaluate(repository(own, scan_type, rules)).ok is scanned
    assert ecr.scan_on_push(False).evaluate(repository(own, scan_type, rules)).ok is not scanned


@pytest.mark.parametrize(("value", "on"), [("enabled", True), ("enhanced", True), ("disabled", False)])
def test_container_insights_enabled_or_enhanced(value: str, on: bool) -> None:
    cluster = {"clusterName": "apps", "settings": [{"name": "containerInsights", "value": value}]}
    assert ecs.container_insights().evaluate(cluster).ok is on
    assert ecs.container_insights(False).evaluate(cluster).ok is not on


@pytest.mark.parametrize(
    ("cpu", "memory"), [("256", "512"), (256, 512), ("0.25 vCPU", "0.5 GB"), ("0.25 vcpu", "512 MiB")]
)
def test_a_task_size_in_any_form_ecs_accepts(cpu: Any, memory: Any) -> None:
    task = {"cpu": "256", "memory": "512"}
    assert ecs.task_size(cpu, memory).evaluate(task).ok
    assert not ecs.task_size(cpu, "1024").evaluate(task).ok


def test_a_rule_enabled_for_cloudtrail_management_events_is_enabled() -> None:
    from harness.kit import events

    for state, enabled in (
        ("ENABLED", True),
        ("ENABLED_WITH_ALL_CLOUDTRAIL_MANAGEMENT_EVENTS", True),
        ("DISABLED", False),
    ):
        assert events.enabled().evaluate({"State": state}).ok is enabled
        assert events.enabled(False).evaluate({"State": state}).ok is not enabled


def test_dual_layer_kms_is_its_own_default_encryption_not_sse_kms() -> None:
    from harness.kit import s3

    assert not s3.encrypted("aws:kms").evaluate({"Encryption": ["aws:kms:dsse"]}).ok
    assert s3.encrypted("aws:kms:dsse").evaluate({"Encryption": ["aws:kms:dsse"]}).ok
    assert s3.encrypted("aws:kms").evaluate({"Encryption": ["aws:kms"]}).ok
    assert s3.encrypted().evaluate({"Encryption": ["aws:kms:dsse"]}).ok
    assert not s3.encrypted("aws:kms").evaluate({"Encryption": ["AES256"]}).ok


def test_an_account_is_its_id_or_its_root_arn_in_a_resource_policy() -> None:
    from harness.kit import sqs

    policy = {"Statement": [{"Effect": "Allow", "Principal": {"AWS": "arn:aws:iam::111122223333:root"},
                             "Action": "sqs:SendMessage", "Resource": "*"}]}  # fmt: skip
    queue = {"Policy": json.dumps(policy)}
    assert sqs.accepts_from("111122223333").evaluate(queue).ok
    assert sqs.accepts_from("arn:aws:iam::111122223333:root").evaluate(queue).ok
    assert not sqs.accepts_from("444455556666").evaluate(queue).ok
