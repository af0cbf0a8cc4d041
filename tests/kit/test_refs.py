"""Spellings of a reference, read without AWS: what each names, and that another resource is never the same."""

from __future__ import annotations

import pytest

from harness.kit import compute, ecs, kms, refs

ACCOUNT = "123456789012"
KEY = "1234abcd-12ab-34cd-56ef-1234567890ab"
TEMPLATE = "lt-0123456789abcdef0"
ECR = f"{ACCOUNT}.dkr.ecr.us-east-1.amazonaws.com"
SAME = [
    (kms.KEY_REFERENCE, KEY, f"arn:aws:kms:us-east-1:{ACCOUNT}:key/{KEY}"),
    (refs.KMS_ALIAS, "orders", f"arn:aws:kms:us-east-1:{ACCOUNT}:alias/orders"),
    (refs.ROLE, "App", f"arn:aws:iam::{ACCOUNT}:role/service-role/app"),
    (refs.FUNCTION, "api", f"{ACCOUNT}:function:api"),
    (refs.FUNCTION, "api", f"arn:aws:lambda:us-east-1:{ACCOUNT}:function:api:live"),
    (refs.LOG_GROUP, "/ecs/web", f"arn:aws:logs:us-east-1:{ACCOUNT}:log-group:/ecs/web:*"),
    (refs.QUEUE, f"https://sqs.us-east-1.amazonaws.com/{ACCOUNT}/orders", f"arn:aws:sqs:us-east-1:{ACCOUNT}:orders"),
    (refs.QUEUE, f"https://queue.amazonaws.com/{ACCOUNT}/orders", f"arn:aws:sqs:us-east-1:{ACCOUNT}:orders"),
    (refs.QUEUE, f"http://127.0.0.1:5000/{ACCOUNT}/orders", "orders"),
    (refs.TOPIC, "alerts", f"arn:aws:sns:us-east-1:{ACCOUNT}:alerts"),
    (refs.SUBNET, "subnet-0abc", f"arn:aws:ec2:us-east-1:{ACCOUNT}:subnet/subnet-0abc"),
    (refs.SECURITY_GROUP, "sg-0abc", f"arn:aws:ec2:us-east-1:{ACCOUNT}:security-group/sg-0abc"),
    (refs.TARGET_GROUP, "web", f"arn:aws:elasticloadbalancing:us-east-1:{ACCOUNT}:targetgroup/web/6d0ecf831eec9f09"),
    (ecs.TASK_DEFINITION_REFERENCE, "web:3", f"arn:aws:ecs:us-east-1:{ACCOUNT}:task-definition/web:3"),
    (refs.CLUSTER, "apps", f"arn:aws:ecs:us-east-1:{ACCOUNT}:cluster/apps"),
    (refs.SECRET, "prod/db", f"arn:aws:secretsmanager:us-east-1:{ACCOUNT}:secret:prod/db-AbC123"),
    (refs.PARAMETER, "/app/db/url", f"arn:aws:ssm:us-east-1:{ACCOUNT}:parameter/app/db/url"),
    (refs.PARAMETER, "app-db-url", f"arn:aws:ssm:us-east-1:{ACCOUNT}:parameter/app-db-url"),
    (refs.DB_SUBNET_GROUP, "Private", f"arn:aws:rds:us-east-1:{ACCOUNT}:subgrp:private"),
    (refs.BUCKET, "site", "arn:aws:s3:::site"),
    (refs.TABLE, "items", f"arn:aws:dynamodb:us-east-1:{ACCOUNT}:table/items"),
    (refs.HOSTED_ZONE, "Z0123", "/hostedzone/Z0123"),
    (compute.LAUNCH_TEMPLATE_REFERENCE, TEMPLATE, f"arn:aws:ec2:us-east-1:{ACCOUNT}:launch-template/{TEMPLATE}"),
    (ecs.IMAGE_REFERENCE, "nginx", "docker.io/library/nginx:latest"),
    (ecs.IMAGE_REFERENCE, "nginx:1.27", "index.docker.io/library/nginx:1.27"),
    (refs.REPOSITORY, f"{ECR}/app", f"arn:aws:ecr:us-east-1:{ACCOUNT}:repository/app"),
]  # fmt: skip
DIFFERENT = [
    (kms.KEY_REFERENCE, f"arn:aws:kms:us-east-1:{ACCOUNT}:key/a", f"arn:aws:kms:eu-west-1:{ACCOUNT}:key/a"),
    (refs.ROLE, f"arn:aws:iam::{ACCOUNT}:role/app", "arn:aws:iam::210987654321:role/app"),
    (refs.ROLE, "app", f"arn:aws:iam::{ACCOUNT}:user/app"),
    (refs.FUNCTION, "api:live", "api:dev"),
    (refs.QUEUE, f"https://sqs.eu-west-1.amazonaws.com/{ACCOUNT}/orders", f"arn:aws:sqs:us-east-1:{ACCOUNT}:orders"),
    (refs.TARGET_GROUP, f"arn:aws:elasticloadbalancing:us-east-1:{ACCOUNT}:targetgroup/web/1",
     f"arn:aws:elasticloadbalancing:us-east-1:{ACCOUNT}:targetgroup/web/2"),
    (ecs.TASK_DEFINITION_REFERENCE, "web:3", "web:2"),
    (refs.SUBNET, "subnet-0abc", "sg-0abc"),
    (refs.PARAMETER, "/app", "app"),
    (ecs.IMAGE_REFERENCE, "nginx:1.27", "nginx:1.28"),
    (ecs.IMAGE_REFERENCE, "nginx", "bitnami/nginx"),
    (refs.BUCKET, "site", "arn:aws:s3:::site-logs"),
    (refs.MANAGED_POLICY, "arn:aws:iam::aws:policy/ReadOnlyAccess", f"arn:aws:iam::{ACCOUNT}:policy/ReadOnlyAccess"),
]  # fmt: skip


@pytest.mark.parametrize(("space", "a", "b"), SAME)
def test_spellings_of_one_resource_are_the_same(space: refs.Space, a: str, b: str) -> None:
    resolver = refs.Resolver(region="us-east-1")
    assert resolver.same(space, a, b) and resolver.same(space, b, a)


@pytest.mark.parametrize(("space", "a", "b"), DIFFERENT)
def test_another_resource_is_never_the_same(space: refs.Space, a: str, b: str) -> None:
    resolver = refs.Resolver(region="us-east-1")
    assert not resolver.same(space, a, b) and not resolver.same(space, b, a)


def test_nothing_is_the_same_as_nothing() -> None:
    resolver = refs.Resolver()
    assert not resolver.same(refs.ROLE, None, None)
    assert not resolver.same(refs.ROLE, "", "")


def test_a_described_resource_is_read_under_its_space_keys() -> None:
    resolver = refs.Resolver(region="us-east-1")
    key = {"KeyId": "a", "Arn": f"arn:aws:kms:us-east-1:{ACCOUNT}:key/a"}
    assert resolver.same(kms.KEY_REFERENCE, key, "a")
    repository = {"repositoryUri": f"{ECR}/app"}
    image = f"{ECR}/app:1.0.0"
    assert resolver.same(ecs.IMAGE_REFERENCE, image, repository)  # a described repository: any image it holds
    assert not resolver.same(ecs.IMAGE_REFERENCE, image, repository["repositoryUri"])  # a bare URI is its latest tag


def test_an_unresolved_bare_family_names_no_revision_without_aws() -> None:
    """Without a session, a bare family cannot be read as its latest ACTIVE revision: it matches by family alone,
    which only the Resolver of an evaluation (with AWS) narrows."""
    assert refs.Resolver().same(ecs.TASK_DEFINITION_REFERENCE, "web:3", "web")


ARNS = [  # each service module's own reading of its ARNs' resource part
    (f"arn:aws:sqs:us-east-1:{ACCOUNT}:orders", "sqs:queue", "orders", None),
    (f"arn:aws:sns:us-east-1:{ACCOUNT}:alerts:1b2c", "sns:subscription", "alerts:1b2c", None),
    ("arn:aws:s3:::media", "s3:bucket", "media", None),
    (f"arn:aws:lambda:us-east-1:{ACCOUNT}:function:api:live", "lambda:function", "api", "live"),
    (f"arn:aws:logs:us-east-1:{ACCOUNT}:log-group:/ecs/web:log-stream:x", "logs:log-group", "/ecs/web", None),
    (f"arn:aws:iam::{ACCOUNT}:role/service-role/App", "iam:role", "app", None),
    (f"arn:aws:kms:us-east-1:{ACCOUNT}:alias/orders", "kms:alias", "alias/orders", None),
    (f"arn:aws:elasticloadbalancing:us-east-1:{ACCOUNT}:loadbalancer/app/web/50dc6c495c0c9188",
     "elasticloadbalancing:loadbalancer", "web", "50dc6c495c0c9188"),
    (f"arn:aws:ecs:us-east-1:{ACCOUNT}:service/apps/web", "ecs:service", "web", None),
    (f"arn:aws:dynamodb:us-east-1:{ACCOUNT}:table/orders/stream/2026-01-01T00:00:00.000", "dynamodb:stream", "orders",
     "2026-01-01T00:00:00.000"),
    (f"arn:aws:events:us-east-1:{ACCOUNT}:rule/orders-bus/on-order", "events:rule", "on-order", "orders-bus"),
    (f"arn:aws:autoscaling:us-east-1:{ACCOUNT}:autoScalingGroup:1a2b:autoScalingGroupName/web",
     "autoscaling:autoScalingGroup", "web", None),
    (f"arn:aws:rds:us-east-1:{ACCOUNT}:db:Orders", "rds:db", "orders", None),
    (f"arn:aws:cognito-idp:us-east-1:{ACCOUNT}:userpool/us-east-1_AbC", "cognito-idp:userpool", "us-east-1_AbC", None),
    (f"arn:aws:states:us-east-1:{ACCOUNT}:stateMachine:flow", "states:stateMachine", "flow", None),
]  # fmt: skip


@pytest.mark.parametrize(("arn", "type_", "name", "version"), ARNS)
def test_each_service_reads_its_own_arns(arn: str, type_: str, name: str, version: str | None) -> None:
    identity = refs.arn_identity(arn)
    assert identity is not None and (identity.type, identity.name, identity.version) == (type_, name, version)


def test_a_service_declares_its_arns_once_in_the_module_an_arn_of_it_loads() -> None:
    from harness.kit import catalog

    catalog.kinds()  # every kit service module has declared its own
    assert {"sqs", "sns", "s3", "lambda", "iam", "kms", "ecs", "events"} <= set(refs.ARN_READERS)
    for service, reader in refs.ARN_READERS.items():
        assert f"harness.kit.{catalog.module_of_service(service)}" == reader.__module__, service
    with pytest.raises(ValueError, match="sqs ARNs already have a reader"):
        refs.reads_arns("sqs", lambda resource: None)
