"""Requirements on resource policies (harness.kit.grants and the functions built on it): "P may do A (from S)",
"only P may", "nobody else may", on buckets, queues and topics made with boto3 on moto, and the bugs they fix."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.kit import grants, s3, sns, sqs
from harness.kit.kinds import short_name
from tests.kit.conftest import described, miss, passes, unique

ACCOUNT = "123456789012"
DISTRIBUTION = f"arn:aws:cloudfront::{ACCOUNT}:distribution/E1A2B3C4D5"
OAI_ID = "E2QWRUHAPOMQZL"
OAI = f"arn:aws:iam::cloudfront:user/CloudFront Origin Access Identity {OAI_ID}"
OTHER_ACCOUNT = "210987654321"


def document(*statements: dict[str, Any]) -> str:
    return json.dumps({"Version": "2012-10-17", "Statement": list(statements)})


def bucket_with(aws_session, *statements: dict[str, Any]) -> tuple[str, Any]:
    name = unique("site")
    client = aws_session.client("s3")
    client.create_bucket(Bucket=name)
    if statements:
        client.put_bucket_policy(Bucket=name, Policy=document(*statements))
    return name, described(s3.BUCKET_POLICY, aws_session, name) if statements else {"Bucket": name, "Policy": None}


def oac(bucket: str, distribution: str = DISTRIBUTION, **extra: Any) -> dict[str, Any]:
    return {
        "Sid": "AllowCloudFrontServicePrincipal",
        "Effect": "Allow",
        "Principal": {"Service": "cloudfront.amazonaws.com"},
        "Action": "s3:GetObject",
        "Resource": f"arn:aws:s3:::{bucket}/*",
        **({"Condition": {"StringEquals": {"AWS:SourceArn": distribution}}} if distribution else {}),
        **extra,
    }


def test_only_the_distribution_reads_the_bucket_by_origin_access_control(aws_session) -> None:
    _, found = bucket_with(aws_session, oac("any") | {"Resource": "arn:aws:s3:::*/*"})
    assert passes(s3.readable_only_by(DISTRIBUTION), found)
    assert passes(grants.only_may("cloudfront.amazonaws.com", "s3:GetObject", source=DISTRIBUTION), found)
    assert not passes(grants.may("cloudfront.amazonaws.com", "s3:GetObject", source=DISTRIBUTION + "X"), found)


def test_a_public_statement_beside_the_grant_is_named(aws_session) -> None:
    name = unique("site")
    client = aws_session.client("s3")
    client.create_bucket(Bucket=name)
    public = {
        "Sid": "PublicRead",
        "Effect": "Allow",
        "Principal": "*",
        "Action": "s3:GetObject",
        "Resource": f"arn:aws:s3:::{name}/public/*",
    }
    client.put_bucket_policy(Bucket=name, Policy=document(oac(name), public))
    found = described(s3.BUCKET_POLICY, aws_session, name)
    assert miss(s3.readable_only_by(DISTRIBUTION), s3.BUCKET_POLICY, name, found) == (
        f'Bucket policy on {name}: its policy\'s statement "PublicRead" also lets everyone s3:GetObject on '
        f"arn:aws:s3:::{name}/public/ (only cloudfront.amazonaws.com from {DISTRIBUTION} should)."
    )


def test_a_grant_to_cloudfront_without_a_source_lets_every_distribution_in(aws_session) -> None:
    name = unique("site")
    client = aws_session.client("s3")
    client.create_bucket(Bucket=name)
    client.put_bucket_policy(Bucket=name, Policy=document(oac(name, distribution="")))
    found = described(s3.BUCKET_POLICY, aws_session, name)
    assert passes(grants.may("cloudfront.amazonaws.com", "s3:GetObject", source=DISTRIBUTION), found)
    assert miss(s3.readable_only_by(DISTRIBUTION), s3.BUCKET_POLICY, name, found) == (
        f'Bucket policy on {name}: its policy\'s statement "AllowCloudFrontServicePrincipal" also lets '
        f"cloudfront.amazonaws.com from arn:aws:cloudfront::999999999999:distribution/E1A2B3C4D5 s3:GetObject "
        f"(only cloudfront.amazonaws.com from {DISTRIBUTION} should)."
    )


def test_only_the_distribution_reads_the_bucket_by_origin_access_identity(aws_session) -> None:
    name = unique("site")
    client = aws_session.client("s3")
    client.create_bucket(Bucket=name)
    grant = {
        "Effect": "Allow",
        "Principal": {"AWS": OAI},
        "Action": "s3:GetObject",
        "Resource": f"arn:aws:s3:::{name}/*",
    }
    client.put_bucket_policy(Bucket=name, Policy=document(grant))
    found = described(s3.BUCKET_POLICY, aws_session, name)
    distribution = {
        "ARN": DISTRIBUTION,
        "Config": {
            "Origins": {
                "Items": [{"S3OriginConfig": {"OriginAccessIdentity": f"origin-access-identity/cloudfront/{OAI_ID}"}}]
            }
        },
    }
    assert passes(s3.readable_only_by(distribution), found)
    assert passes(s3.readable_only_by(DISTRIBUTION, identity=OAI_ID), found)
    assert not passes(s3.readable_only_by(DISTRIBUTION), found)  # neither OAC nor a known identity


def test_cloudtrail_may_write_to_the_bucket(aws_session) -> None:
    name = unique("trail-logs")
    trail = f"arn:aws:cloudtrail:us-east-1:{ACCOUNT}:trail/audit"
    acl = {
        "Sid": "AWSCloudTrailAclCheck",
        "Effect": "Allow",
        "Principal": {"Service": "cloudtrail.amazonaws.com"},
        "Action": "s3:GetBucketAcl",
        "Resource": f"arn:aws:s3:::{name}",
        "Condition": {"StringEquals": {"aws:SourceArn": trail}},
    }
    write = {
        "Sid": "AWSCloudTrailWrite",
        "Effect": "Allow",
        "Principal": {"Service": "cloudtrail.amazonaws.com"},
        "Action": "s3:PutObject",
        "Resource": f"arn:aws:s3:::{name}/AWSLogs/{ACCOUNT}/*",
        "Condition": {"StringEquals": {"s3:x-amz-acl": "bucket-owner-full-control", "aws:SourceArn": trail}},
    }
    client = aws_session.client("s3")
    client.create_bucket(Bucket=name)
    client.put_bucket_policy(Bucket=name, Policy=document(acl, write))
    found = described(s3.BUCKET_POLICY, aws_session, name)
    assert passes(s3.cloudtrail_may_write(trail), found)
    assert passes(s3.cloudtrail_may_write(account=ACCOUNT), found)
    client.put_bucket_policy(Bucket=name, Policy=document(acl, write | {"Resource": f"arn:aws:s3:::{name}/logs/*"}))
    narrowed = described(s3.BUCKET_POLICY, aws_session, name)
    assert miss(s3.cloudtrail_may_write(trail), s3.BUCKET_POLICY, name, narrowed) == (
        f"Bucket policy on {name}: its policy does not let cloudtrail.amazonaws.com s3:PutObject from {trail}: "
        f'statement "AWSCloudTrailWrite" allows s3:PutObject but does not cover '
        f"arn:aws:s3:::{name}/AWSLogs/{ACCOUNT}/x."
    )


def test_cloudtrail_may_write_only_with_the_acl_when_the_lab_says_so(aws_session) -> None:
    """`acl_required=True`: a policy whose PutObject grant has no s3:x-amz-acl condition lets writes in without the
    ACL bucket-owner-full-control, which AWS's documented policy refuses; by default it still passes."""
    name = unique("trail-logs")
    trail = f"arn:aws:cloudtrail:us-east-1:{ACCOUNT}:trail/audit"
    service = {"Service": "cloudtrail.amazonaws.com"}
    acl = {"Sid": "Check", "Effect": "Allow", "Principal": service, "Action": "s3:GetBucketAcl",
           "Resource": f"arn:aws:s3:::{name}"}  # fmt: skip
    loose = {"Sid": "Write", "Effect": "Allow", "Principal": service, "Action": "s3:PutObject",
             "Resource": f"arn:aws:s3:::{name}/AWSLogs/{ACCOUNT}/*"}  # fmt: skip
    client = aws_session.client("s3")
    client.create_bucket(Bucket=name)
    client.put_bucket_policy(Bucket=name, Policy=document(acl, loose))
    found = described(s3.BUCKET_POLICY, aws_session, name)
    assert passes(s3.cloudtrail_may_write(trail), found)
    assert miss(s3.cloudtrail_may_write(trail, acl_required=True), s3.BUCKET_POLICY, name, found) == (
        f'Bucket policy on {name}: its policy\'s statement "Write" lets cloudtrail.amazonaws.com s3:PutObject from '
        f"{trail} without the ACL header: it should insist on the ACL bucket-owner-full-control (a Condition "
        "s3:x-amz-acl = bucket-owner-full-control)."
    )
    for condition, holds in (
        ({"StringEquals": {"s3:x-amz-acl": "bucket-owner-full-control"}}, True),
        ({"StringEqualsIfExists": {"s3:x-amz-acl": "bucket-owner-full-control"}}, False),  # no header: allowed
        ({"Null": {"s3:x-amz-acl": "false"}}, False),  # any ACL
    ):
        client.put_bucket_policy(Bucket=name, Policy=document(acl, loose | {"Condition": condition}))
        judged = described(s3.BUCKET_POLICY, aws_session, name)
        assert passes(s3.cloudtrail_may_write(trail, acl_required=True), judged) is holds, condition
        assert passes(s3.cloudtrail_may_write(trail), judged)


def test_a_topic_policy_for_the_service_without_a_condition_admits_the_rule(aws_session) -> None:
    """The bug of #30: `accepts_from(service, rule_arn)` failed a topic policy allowing the service unconditionally."""
    client = aws_session.client("sns")
    topic = client.create_topic(Name=unique("t"))["TopicArn"]
    statement = {
        "Effect": "Allow",
        "Principal": {"Service": "events.amazonaws.com"},
        "Action": "sns:Publish",
        "Resource": topic,
    }
    client.set_topic_attributes(TopicArn=topic, AttributeName="Policy", AttributeValue=document(statement))
    found = described(sns.TOPIC, aws_session, topic)
    rule = f"arn:aws:events:us-east-1:{ACCOUNT}:rule/every-5-minutes"
    assert passes(sns.accepts_from("events.amazonaws.com", rule), found)
    assert passes(grants.may("events.amazonaws.com", "sns:Publish", source={"Arn": rule}), found)
    assert not passes(grants.only_may("events.amazonaws.com", "sns:Publish", source=rule), found)


def test_a_refusal_names_the_learners_statement_not_the_default_one(aws_session) -> None:
    """SNS's default statement (everyone, within its account's owner) misses a service's request by as much as the
    learner's own statement for it: the finding names the learner's, the one written for the service."""
    client = aws_session.client("sns")
    topic = client.create_topic(Name=unique("t"))["TopicArn"]
    default = json.loads(client.get_topic_attributes(TopicArn=topic)["Attributes"]["Policy"])["Statement"]
    assert default[0]["Sid"] == "__default_statement_ID"
    rule = f"arn:aws:events:us-east-1:{ACCOUNT}:rule/every-5-minutes"
    other = f"arn:aws:events:us-east-1:{ACCOUNT}:rule/nightly"
    mine = {"Sid": "Events", "Effect": "Allow", "Action": "sns:Publish", "Resource": topic}
    for principal, condition, lacks in (
        ("scheduler.amazonaws.com", None, "is not for events.amazonaws.com"),
        ("events.amazonaws.com", {"ArnEquals": {"aws:SourceArn": other}}, "has a Condition (ArnEquals aws:SourceArn)"),
    ):
        statement = mine | {"Principal": {"Service": principal}} | ({"Condition": condition} if condition else {})
        policy = {"Version": "2012-10-17", "Statement": [*default, statement]}
        client.set_topic_attributes(TopicArn=topic, AttributeName="Policy", AttributeValue=json.dumps(policy))
        found = described(sns.TOPIC, aws_session, topic)
        said = miss(sns.accepts_from("events.amazonaws.com", rule), sns.TOPIC, topic, found)
        assert 'statement "Events"' in said and lacks in said and "__default_statement_ID" not in said, said


def test_a_queue_policy_must_cover_the_queue(aws_session) -> None:
    """The bug of #30: a statement whose Resource names another queue passed `accepts_from`."""
    client = aws_session.client("sqs")
    url = client.create_queue(QueueName=unique("q"))["QueueUrl"]
    topic = f"arn:aws:sns:us-east-1:{ACCOUNT}:orders"
    statement = {
        "Sid": "FromOrders",
        "Effect": "Allow",
        "Principal": {"Service": "sns.amazonaws.com"},
        "Action": "sqs:SendMessage",
        "Resource": f"arn:aws:sqs:us-east-1:{ACCOUNT}:other-queue",
        "Condition": {"ArnEquals": {"aws:SourceArn": topic}},
    }
    client.set_queue_attributes(QueueUrl=url, Attributes={"Policy": document(statement)})
    found = described(sqs.QUEUE, aws_session, url)
    arn = found["QueueArn"]
    assert miss(
        sqs.accepts_from("sns.amazonaws.com", {"TopicArn": topic, "Attributes": {"Owner": ACCOUNT}}),
        sqs.QUEUE,
        url,
        found,
    ) == (
        f"SQS queue {short_name(url)}: its policy does not let sns.amazonaws.com sqs:SendMessage "
        f'from {topic}: statement "FromOrders" '
        f"allows sqs:SendMessage but does not cover {arn}."
    )
    client.set_queue_attributes(QueueUrl=url, Attributes={"Policy": document(statement | {"Resource": arn})})
    found = described(sqs.QUEUE, aws_session, url)
    assert passes(sqs.accepts_from("sns.amazonaws.com", topic), found)
    assert passes(grants.only_may("sns.amazonaws.com", "sqs:SendMessage", source=topic), found)


def test_a_deny_names_itself() -> None:
    queue = {
        "QueueArn": f"arn:aws:sqs:us-east-1:{ACCOUNT}:q",
        "Policy": document(
            {"Effect": "Allow", "Principal": "*", "Action": "sqs:*", "Resource": "*"},
            {"Sid": "NoSend", "Effect": "Deny", "Principal": "*", "Action": "sqs:Send*", "Resource": "*"},
        ),
    }
    outcome = grants.may("sns.amazonaws.com", "sqs:SendMessage").evaluate(queue)
    assert not outcome.ok
    assert outcome.issue("queue q") == (
        'Queue q: its policy does not let sns.amazonaws.com sqs:SendMessage: statement "NoSend" denies '
        "sqs:SendMessage to sns.amazonaws.com."
    )
    assert grants.nobody_else_may("sns.amazonaws.com", "sqs:SendMessage").evaluate(queue).ok
    assert not grants.nobody_else_may("sns.amazonaws.com", "sqs:ReceiveMessage").evaluate(queue).ok


def test_an_account_named_whole_is_not_somebody_else() -> None:
    key = {
        "Arn": f"arn:aws:kms:us-east-1:{ACCOUNT}:key/k",
        "KeyPolicy": document(
            {
                "Effect": "Allow",
                "Principal": {"AWS": f"arn:aws:iam::{ACCOUNT}:root"},
                "Action": "kms:*",
                "Resource": "*",
            }
        ),
    }
    assert grants.only_may(ACCOUNT, "kms:Decrypt").evaluate(key).ok
    outcome = grants.nobody_else_may("cloudtrail.amazonaws.com", "kms:Decrypt").evaluate(key)
    assert outcome.issue("KMS key k") == (
        f"KMS key k: its policy's statement 1 also lets a role in account {ACCOUNT} kms:Decrypt (only "
        "cloudtrail.amazonaws.com should)."
    )


def test_no_policy_lets_nobody_in() -> None:
    assert grants.nobody_else_may("sns.amazonaws.com", "sqs:SendMessage").evaluate({"Policy": None}).ok
    outcome = grants.may("sns.amazonaws.com", "sqs:SendMessage").evaluate({"QueueArn": "arn:aws:sqs:us-east-1:1:q"})
    assert outcome.issue("queue q") == (
        "Queue q: it has no resource policy, so sns.amazonaws.com may not sqs:SendMessage."
    )


def test_a_key_policy_a_secret_policy_and_a_repository_policy_are_read(aws_session) -> None:
    from harness.kit import ecr, kms, secretsmanager

    root = {
        "Sid": "Enable IAM User Permissions",
        "Effect": "Allow",
        "Principal": {"AWS": f"arn:aws:iam::{ACCOUNT}:root"},
        "Action": "kms:*",
        "Resource": "*",
    }
    logs = {
        "Sid": "CloudTrailEncrypt",
        "Effect": "Allow",
        "Principal": {"Service": "cloudtrail.amazonaws.com"},
        "Action": "kms:GenerateDataKey*",
        "Resource": "*",
    }
    key_id = aws_session.client("kms").create_key(Policy=document(root, logs))["KeyMetadata"]["KeyId"]
    key = described(kms.KEY, aws_session, key_id)
    assert passes(grants.may("cloudtrail.amazonaws.com", "kms:GenerateDataKey"), key)
    assert miss(grants.nobody_else_may(ACCOUNT, "kms:GenerateDataKey"), kms.KEY, key_id, key).endswith(
        'its policy\'s statement "CloudTrailEncrypt" also lets cloudtrail.amazonaws.com kms:GenerateDataKey (only '
        "account 123456789012 should)."
    )

    secrets = aws_session.client("secretsmanager")
    arn = secrets.create_secret(Name=unique("db"), SecretString="x")["ARN"]
    reader = f"arn:aws:iam::{ACCOUNT}:role/app"
    grant = {
        "Effect": "Allow",
        "Principal": {"AWS": reader},
        "Action": "secretsmanager:GetSecretValue",
        "Resource": "*",
    }
    secrets.put_resource_policy(SecretId=arn, ResourcePolicy=document(grant))
    secret = described(secretsmanager.SECRET, aws_session, arn)
    assert passes(grants.may(reader, "secretsmanager:GetSecretValue"), secret)
    assert not passes(grants.may(f"arn:aws:iam::{ACCOUNT}:role/other", "secretsmanager:GetSecretValue"), secret)

    client = aws_session.client("ecr")
    name = unique("repo")
    client.create_repository(repositoryName=name)
    assert miss(
        grants.may(OTHER_ACCOUNT, "ecr:BatchGetImage"),
        ecr.REPOSITORY,
        name,
        described(ecr.REPOSITORY, aws_session, name),
    ) == (f"ECR repository {name}: it has no resource policy, so account {OTHER_ACCOUNT} may not ecr:BatchGetImage.")
    pull = {
        "Sid": "Pull",
        "Effect": "Allow",
        "Principal": {"AWS": OTHER_ACCOUNT},
        "Action": ["ecr:BatchGetImage", "ecr:GetDownloadUrlForLayer"],
    }
    client.set_repository_policy(
        repositoryName=name, policyText=json.dumps({"Version": "2012-10-17", "Statement": [pull]})
    )
    repository = described(ecr.REPOSITORY, aws_session, name)
    assert passes(grants.only_may(OTHER_ACCOUNT, "ecr:BatchGetImage"), repository)


def test_a_rest_api_policy_with_escaped_quotes_is_read() -> None:
    api = {
        "id": "a1",
        "policy": document(
            {
                "Effect": "Allow",
                "Principal": "*",
                "Action": "execute-api:Invoke",
                "Resource": "execute-api:/*",
                "Condition": {"IpAddress": {"aws:SourceIp": "203.0.113.0/24"}},
            }
        ).replace('"', '\\"'),
    }
    on = "arn:aws:execute-api:us-east-1:123456789012:a1/prod/GET/orders"
    assert not passes(grants.may("*", "execute-api:Invoke", on=on), api)  # from anywhere: no
    assert passes(
        grants.may("*", "execute-api:Invoke", on="execute-api:/prod", context={"aws:SourceIp": "203.0.113.9"}), api
    )


def test_allowed_principals_counts_an_allow_without_a_condition_from_any_source() -> None:
    """#30: with a source, `policy.allowed_principals` returned nothing for an Allow without a Condition."""
    from harness.kit.policy import allowed_principals, parse_policy

    topic = f"arn:aws:sns:us-east-1:{ACCOUNT}:orders"
    unconditional = {
        "Effect": "Allow",
        "Principal": {"Service": "events.amazonaws.com"},
        "Action": "sns:Publish",
        "Resource": topic,
    }
    scoped = {
        "Effect": "Allow",
        "Principal": {"Service": "s3.amazonaws.com"},
        "Action": "sns:Publish",
        "Resource": topic,
        "Condition": {"ArnLike": {"aws:SourceArn": "arn:aws:s3:::uploads"}},
    }
    policy = parse_policy(document(unconditional, scoped))
    rule = f"arn:aws:events:us-east-1:{ACCOUNT}:rule/r"
    assert allowed_principals(policy, "sns:Publish", rule) == ["events.amazonaws.com"]
    assert allowed_principals(policy, "sns:Publish", "arn:aws:s3:::uploads") == [
        "events.amazonaws.com",
        "s3.amazonaws.com",
    ]
    assert allowed_principals(policy, "sns:Publish") == ["events.amazonaws.com", "s3.amazonaws.com"]
    assert allowed_principals(policy, "sns:Subscribe") == []


TOPIC_ARN = f"arn:aws:sns:us-east-1:{ACCOUNT}:orders"
QUEUE_ARN = f"arn:aws:sqs:us-east-1:{ACCOUNT}:orders"
service_forms = st.sampled_from(
    [{"Service": "sns.amazonaws.com"}, {"Service": ["sns.amazonaws.com"]}, "*", {"AWS": "*"}, {"AWS": ["*"]}]
)
action_forms = st.sampled_from(["sqs:SendMessage", "SQS:sendmessage", "sqs:Send*", "sqs:*", ["sqs:SendMessage"], "*"])
resource_forms = st.sampled_from([QUEUE_ARN, "*", f"arn:aws:sqs:*:{ACCOUNT}:*", "arn:aws:sqs:us-east-1:*:orde?s"])
source_forms = st.sampled_from(
    [
        {"ArnEquals": {"aws:SourceArn": TOPIC_ARN}},
        {"ArnLike": {"aws:SourceArn": f"arn:aws:sns:*:{ACCOUNT}:ord*"}},
        {"StringEquals": {"AWS:SOURCEARN": TOPIC_ARN}},
        {"StringLike": {"aws:SourceArn": [TOPIC_ARN, "arn:aws:sns:*:*:other"]}},
        {"StringEquals": {"aws:SourceAccount": ACCOUNT}, "ArnLike": {"aws:SourceArn": TOPIC_ARN}},
    ]
)


@given(service_forms, action_forms, resource_forms, source_forms)
def test_every_way_of_letting_the_topic_send_is_accepted(principal, action, resource, condition) -> None:
    """The forms a queue policy for "the topic may send" takes in AWS's docs and in learners' hands: each passes
    `may` and `accepts_from`, and `only_may` exactly when the statement admits no one else (a Principal `*` scoped
    to the topic's ARN admits only the topic's sends; a pattern such as `ord*` admits the other topics it matches); a
    public statement beside it is named."""
    statement = {
        "Sid": "FromTopic",
        "Effect": "Allow",
        "Principal": principal,
        "Action": action,
        "Resource": resource,
        "Condition": condition,
    }
    queue = {"QueueArn": QUEUE_ARN, "Policy": document(statement)}
    assert grants.may("sns.amazonaws.com", "sqs:SendMessage", source=TOPIC_ARN).evaluate(queue).ok
    assert sqs.accepts_from("sns.amazonaws.com", TOPIC_ARN).evaluate(queue).ok
    assert (
        not grants.may("sns.amazonaws.com", "sqs:SendMessage", source=TOPIC_ARN.replace("orders", "elsewhere"))
        .evaluate(queue)
        .ok
    )
    only = grants.only_may("sns.amazonaws.com", "sqs:SendMessage", source=TOPIC_ARN).evaluate(queue)
    assert only.ok == ("*" not in json.dumps(condition))  # a pattern admits the topics it also matches
    public = {"Sid": "Open", "Effect": "Allow", "Principal": "*", "Action": "sqs:SendMessage", "Resource": QUEUE_ARN}
    opened = {"QueueArn": QUEUE_ARN, "Policy": document(statement, public)}
    outcome = grants.only_may("sns.amazonaws.com", "sqs:SendMessage", source=TOPIC_ARN).evaluate(opened)
    assert not outcome.ok and 'statement "Open"' in outcome.issue("queue orders")


def test_a_bucket_notifying_a_queue_is_from_the_queue_s_account() -> None:
    """AWS's example queue policy for S3 event notifications scopes by the bucket's ARN and the account: a bucket's
    ARN names no account, so the call is taken to come from the queue's."""
    statement = {
        "Effect": "Allow",
        "Principal": {"Service": "s3.amazonaws.com"},
        "Action": "SQS:SendMessage",
        "Resource": QUEUE_ARN,
        "Condition": {
            "ArnLike": {"aws:SourceArn": "arn:aws:s3:*:*:uploads"},
            "StringEquals": {"aws:SourceAccount": ACCOUNT},
        },
    }
    queue = {"QueueArn": QUEUE_ARN, "Policy": document(statement)}
    assert sqs.accepts_from("s3.amazonaws.com", "arn:aws:s3:::uploads").evaluate(queue).ok
    assert grants.only_may("s3.amazonaws.com", "sqs:SendMessage", source="arn:aws:s3:::uploads").evaluate(queue).ok
    by_name = {**statement, "Condition": {"ArnLike": {"aws:SourceArn": "arn:aws:s3:*:*:uploads"}}}
    queue = {"QueueArn": QUEUE_ARN, "Policy": document(by_name)}  # a bucket's name is global: no account needed
    assert grants.only_may("s3.amazonaws.com", "sqs:SendMessage", source="arn:aws:s3:::uploads").evaluate(queue).ok


def test_a_policy_aws_would_refuse_is_a_miss_that_says_so() -> None:
    bad = {
        "Effect": "Allow",
        "Principal": "*",
        "Action": "sqs:SendMessage",
        "Resource": QUEUE_ARN,
        "Condition": {"ArnMaybe": {"aws:SourceArn": TOPIC_ARN}},
    }
    outcome = sqs.accepts_from("sns.amazonaws.com", TOPIC_ARN).evaluate(
        {"QueueArn": QUEUE_ARN, "Policy": document(bad)}
    )
    assert outcome.issue("queue orders") == (
        "Queue orders: its resource policy is not valid: statement 1: unknown condition operator 'ArnMaybe', so "
        f"sns.amazonaws.com may not sqs:SendMessage from {TOPIC_ARN}."
    )


def test_a_trust_policy_is_read_by_the_engine() -> None:
    from harness.kit import iam

    scoped = {
        "Effect": "Allow",
        "Principal": {"Service": "scheduler.amazonaws.com"},
        "Action": "sts:AssumeRole",
        "Condition": {"StringEquals": {"aws:SourceAccount": ACCOUNT}},
    }
    lambda_ = {"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}
    role = {"AssumeRolePolicyDocument": {"Version": "2012-10-17", "Statement": [scoped, lambda_]}}
    assert iam.trusts("scheduler.amazonaws.com").evaluate(role).ok  # a source's condition counts
    assert iam.trusted_only_by("lambda.amazonaws.com", "scheduler.amazonaws.com").evaluate(role).ok
    denied = {"Effect": "Deny", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:*"}
    role["AssumeRolePolicyDocument"]["Statement"].append(denied)
    outcome = iam.trusts("lambda.amazonaws.com").evaluate(role)
    assert outcome.issue("IAM role app") == (
        "IAM role app: its trust policy lets scheduler.amazonaws.com assume it, not lambda.amazonaws.com."
    )


def test_a_resource_without_an_arn_is_named_in_words() -> None:
    narrowed = {"Effect": "Allow", "Principal": "*", "Action": "sqs:SendMessage", "Resource": QUEUE_ARN}
    outcome = grants.may("sns.amazonaws.com", "sqs:SendMessage").evaluate({"Policy": document(narrowed)})
    assert outcome.issue("queue orders") == (
        "Queue orders: its policy does not let sns.amazonaws.com sqs:SendMessage: statement 1 allows sqs:SendMessage "
        "but does not cover the resource."
    )


def test_another_distribution_s_grant_beside_the_identity_is_named() -> None:
    other = f"arn:aws:cloudfront::{ACCOUNT}:distribution/EOTHER"
    bucket = {
        "Bucket": "site",
        "Policy": document(
            oac("site", distribution=other),
            {"Effect": "Allow", "Principal": {"AWS": OAI}, "Action": "s3:GetObject", "Resource": "arn:aws:s3:::site/*"},
        ),
    }
    outcome = s3.readable_only_by(DISTRIBUTION, identity=OAI_ID).evaluate(bucket)
    assert outcome.issue("bucket policy on site") == (
        'Bucket policy on site: its policy\'s statement "AllowCloudFrontServicePrincipal" also lets '
        f"cloudfront.amazonaws.com from {other} s3:GetObject (only {OAI} should)."
    )


def test_a_distribution_that_may_read_may_not_write(aws_session) -> None:
    name, found = bucket_with(aws_session, oac("any") | {"Resource": "arn:aws:s3:::*/*"})
    writes = grants.may_not("cloudfront.amazonaws.com", "s3:PutObject", source=DISTRIBUTION)
    assert passes(writes, found)
    name, found = bucket_with(aws_session, oac("any") | {"Sid": "Everything", "Action": "s3:*", "Resource": "*"})
    assert passes(s3.readable_only_by(DISTRIBUTION), found)  # only it reads: it may also write, which this allows
    assert miss(writes, s3.BUCKET_POLICY, name, found) == (
        f'Bucket policy on {name}: its policy\'s statement "Everything" lets cloudfront.amazonaws.com s3:PutObject '
        f"from {DISTRIBUTION}."
    )


def test_the_old_name_of_a_policy_finding_still_answers_with_a_warning_naming_the_new_one() -> None:
    with pytest.warns(DeprecationWarning, match=r"harness\.kit\.grants\.PolicyFinding"):
        assert grants.Finding is grants.PolicyFinding
    with pytest.raises(AttributeError):
        _ = grants.Nothing  # type: ignore[attr-defined]
