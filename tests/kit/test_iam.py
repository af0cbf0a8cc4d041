"""IAM kinds and requirements on moto: roles, trust, inline and managed policies, least privilege, users, groups."""

from __future__ import annotations

import json
import re
from typing import Any

import boto3
import pytest
from moto import mock_aws

from harness.core.contract import check_result
from harness.core.lab import load_lab
from harness.kit import dynamodb, iam
from harness.kit.aws import fetch_or_none
from harness.kit.step import Step
from tests.kit.conftest import TABLE_AND_ROLE_SPEC, described, miss, passes, unique

pytestmark = pytest.mark.moto

ACCOUNT = "123456789012"
LAMBDA_TRUST = {
    "Version": "2012-10-17",
    "Statement": [{"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}],
}


def document(*statements: dict[str, Any]) -> str:
    return json.dumps({"Version": "2012-10-17", "Statement": list(statements)})


def table(name: str = "orders") -> str:
    return f"arn:aws:dynamodb:us-east-1:{ACCOUNT}:table/{name}"


def make_role(aws_session: Any, trust: dict[str, Any] = LAMBDA_TRUST, **inline: str) -> str:
    client = aws_session.client("iam")
    name = unique("role")
    client.create_role(RoleName=name, AssumeRolePolicyDocument=json.dumps(trust))
    for policy_name, policy in inline.items():
        client.put_role_policy(RoleName=name, PolicyName=policy_name, PolicyDocument=policy)
    return name


def test_a_missing_role_is_not_found(aws_session) -> None:
    assert fetch_or_none(lambda: iam.ROLE.fetch(aws_session, "no-such-role")) is None


def test_the_role_trusts_lambda(aws_session) -> None:
    name = make_role(aws_session)
    role = described(iam.ROLE, aws_session, name)
    assert passes(iam.trusts("lambda.amazonaws.com"), role)
    assert passes(iam.trusted_only_by("lambda.amazonaws.com"), role)
    assert miss(iam.trusts("ec2.amazonaws.com"), iam.ROLE, name, role) == (
        f"IAM role {name}: its trust policy lets lambda.amazonaws.com assume it, not ec2.amazonaws.com."
    )


def test_trust_in_more_principals_than_asked_fails(aws_session) -> None:
    trust = json.loads(json.dumps(LAMBDA_TRUST))
    trust["Statement"].append({"Effect": "Allow", "Principal": {"AWS": ACCOUNT}, "Action": "sts:AssumeRole"})
    name = make_role(aws_session, trust)
    role = described(iam.ROLE, aws_session, name)
    assert passes(iam.trusts(f"arn:aws:iam::{ACCOUNT}:root"), role)  # an account id is its root ARN
    assert miss(iam.trusted_only_by("lambda.amazonaws.com"), iam.ROLE, name, role) == (
        f"IAM role {name}: its trust policy lets arn:aws:iam::{ACCOUNT}:root, lambda.amazonaws.com assume it; "
        "only lambda.amazonaws.com should."
    )


def test_inline_policy_grants_and_withholds(aws_session) -> None:
    name = make_role(aws_session, app=document({"Effect": "Allow", "Action": "dynamodb:PutItem", "Resource": table()}))
    role = described(iam.ROLE, aws_session, name)
    assert passes(iam.may("dynamodb:PutItem", table()), role)
    assert passes(iam.may_not("dynamodb:DeleteTable", table()), role)
    assert miss(iam.may("dynamodb:GetItem", table()), iam.ROLE, name, role) == (
        f"IAM role {name}: no policy allows dynamodb:GetItem on {table()}."
    )
    assert miss(iam.may_not("dynamodb:PutItem", table()), iam.ROLE, name, role) == (
        f'IAM role {name}: inline policy "app" allows dynamodb:PutItem on {table()}, but it should not.'
    )


def test_least_privilege_passes_on_exactly_the_asked_permissions(aws_session) -> None:
    write = {"Effect": "Allow", "Action": ["dynamodb:PutItem", "dynamodb:Query"], "Resource": table()}
    role = described(iam.ROLE, aws_session, make_role(aws_session, app=document(write)))
    outcome = iam.may_only(["dynamodb:PutItem", "dynamodb:Query"], [table()]).evaluate(role)
    assert outcome.ok, outcome.actual


def test_least_privilege_names_the_extra_action(aws_session) -> None:
    write = {
        "Effect": "Allow",
        "Action": ["dynamodb:PutItem", "dynamodb:Query", "dynamodb:GetItem"],
        "Resource": table(),
    }
    name = make_role(aws_session, app=document(write))
    role = described(iam.ROLE, aws_session, name)
    requirement = iam.may_only(["dynamodb:PutItem", "dynamodb:Query"], [table()])
    assert requirement.check == "permissions"
    assert requirement.expected == f"only dynamodb:PutItem, dynamodb:Query on {table()}"
    assert miss(requirement, iam.ROLE, name, role) == (
        f'IAM role {name}: it may also dynamodb:GetItem (inline policy "app" allows it).'
    )
    outcome = requirement.evaluate(role)
    assert outcome.actual["extra"] == ["dynamodb:GetItem"]
    assert outcome.hint == 'Remove dynamodb:GetItem from inline policy "app".'


def test_least_privilege_names_a_resource_wider_than_asked(aws_session) -> None:
    name = make_role(aws_session, app=document({"Effect": "Allow", "Action": "dynamodb:PutItem", "Resource": "*"}))
    role = described(iam.ROLE, aws_session, name)
    requirement = iam.may_only(["dynamodb:PutItem"], [table()])
    assert miss(requirement, iam.ROLE, name, role) == (
        f'IAM role {name}: it may also dynamodb:PutItem on * (inline policy "app" allows it beyond {table()}).'
    )
    assert requirement.evaluate(role).hint == f'Narrow the Resource * in inline policy "app" to {table()}.'


def test_least_privilege_names_a_missing_permission(aws_session) -> None:
    name = make_role(aws_session, app=document({"Effect": "Allow", "Action": "dynamodb:PutItem", "Resource": table()}))
    role = described(iam.ROLE, aws_session, name)
    assert miss(iam.may_only(["dynamodb:PutItem", "dynamodb:Query"], [table()]), iam.ROLE, name, role) == (
        f"IAM role {name}: no policy allows dynamodb:Query on {table()}."
    )


STREAMS = f"arn:aws:logs:us-east-1:{ACCOUNT}:log-group:/aws/lambda/orders:log-stream:*"


def test_least_privilege_over_several_grants(aws_session) -> None:
    """Table actions on the table, log actions on the log streams: each action judged on its own grant."""
    table_grant = {"Effect": "Allow", "Action": ["dynamodb:PutItem"], "Resource": table()}
    logs_grant = {"Effect": "Allow", "Action": ["logs:CreateLogStream", "logs:PutLogEvents"], "Resource": STREAMS}
    name = make_role(aws_session, app=document(table_grant, logs_grant))
    role = described(iam.ROLE, aws_session, name)
    requirement = iam.may_exactly(
        iam.grant(["dynamodb:PutItem"], [table()]), iam.grant(["logs:PutLogEvents", "logs:CreateLogStream"], [STREAMS])
    )
    assert requirement.expected == (
        f"only dynamodb:PutItem on {table()}; logs:CreateLogStream, logs:PutLogEvents on {STREAMS}"
    )
    assert passes(requirement, role)
    assert miss(iam.may_exactly(iam.grant(["dynamodb:PutItem"], [table()])), iam.ROLE, name, role) == (
        f'IAM role {name}: it may also logs:CreateLogStream, logs:PutLogEvents (inline policy "app" allows them).'
    )


def test_least_privilege_reads_customer_managed_policies(aws_session) -> None:
    client = aws_session.client("iam")
    arn = client.create_policy(
        PolicyName=unique("writer"),
        PolicyDocument=document({"Effect": "Allow", "Action": "dynamodb:*", "Resource": table()}),
    )["Policy"]["Arn"]
    name = make_role(aws_session)
    client.attach_role_policy(RoleName=name, PolicyArn=arn)
    role = described(iam.ROLE, aws_session, name)
    assert passes(iam.has_managed_policy(arn), role)
    outcome = iam.may_only(["dynamodb:PutItem"], [table()]).evaluate(role)
    assert not outcome.ok
    assert "dynamodb:DeleteTable" in outcome.actual["extra"]
    assert "and " in miss(iam.may_only(["dynamodb:PutItem"], [table()]), iam.ROLE, name, role)  # "... and N more."


def managed_role(aws_session: Any, account: str, policy_arn: str) -> tuple[str, Any]:
    """A role given `policy_arn` in a fresh `account`, whose IAM is built with the AWS managed policies loaded (call
    it inside `mock_aws(config={"iam": {"load_aws_managed_policies": True}})`): its name and its description."""
    keys = aws_session.client("sts").assume_role(RoleArn=f"arn:aws:iam::{account}:role/lab", RoleSessionName="test")
    session = boto3.Session(
        aws_access_key_id=keys["Credentials"]["AccessKeyId"],
        aws_secret_access_key=keys["Credentials"]["SecretAccessKey"],
        aws_session_token=keys["Credentials"]["SessionToken"],
        region_name="us-east-1",
    )
    name = make_role(session)
    session.client("iam").attach_role_policy(RoleName=name, PolicyArn=policy_arn)
    return name, described(iam.ROLE, session, name)


def test_aws_managed_policies_count(aws_session) -> None:
    with mock_aws(config={"iam": {"load_aws_managed_policies": True}}):
        basic = "arn:aws:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole"
        _, role = managed_role(aws_session, "111111111111", basic)
        assert passes(iam.managed_policies_exactly("AWSLambdaBasicExecutionRole"), role)
        log_streams = "arn:aws:logs:us-east-1:111111111111:log-group:/aws/lambda/f:*"
        assert passes(iam.may("logs:PutLogEvents", log_streams), role)
        assert passes(iam.may_only(["logs:CreateLogGroup", "logs:CreateLogStream", "logs:PutLogEvents"]), role)


def test_an_aws_managed_policy_that_spells_out_dozens_of_actions_is_named_briefly(aws_session) -> None:
    """AmazonDynamoDBFullAccess names ~60 actions one by one: the issue shows a few and counts the rest, and the
    fix is to detach it (an AWS managed policy cannot be edited), never to remove actions from it."""
    with mock_aws(config={"iam": {"load_aws_managed_policies": True}}):
        name, role = managed_role(aws_session, "222222222222", "arn:aws:iam::aws:policy/AmazonDynamoDBFullAccess")
        only = iam.may_only(["dynamodb:PutItem"])
        outcome = only.evaluate(role)
        assert not outcome.ok
        issue = miss(only, iam.ROLE, name, role)
        named = re.search(r"it may also ((?:[\w-]+:\w+, ){7}[\w-]+:\w+) and (\d+) more \(AWS managed policy", issue)
        assert named is not None and int(named[2]) > 20, issue
        assert outcome.actual["fix"].startswith("Detach the AWS managed policy AmazonDynamoDBFullAccess")
        assert "Remove" not in outcome.actual["fix"]


def test_an_invalid_stored_policy_is_named_not_guessed(aws_session) -> None:
    name = make_role(
        aws_session, odd=document({"Effect": "Allow", "Action": "s3:*", "Resource": "*", "Principal": "*"})
    )
    role = described(iam.ROLE, aws_session, name)
    assert miss(iam.may("s3:GetObject"), iam.ROLE, name, role).startswith(
        f'IAM role {name}: inline policy "odd" is not a valid policy (statement 1: an identity policy has no '
    )


def test_a_user_holds_its_groups_policies(aws_session) -> None:
    client = aws_session.client("iam")
    group, user = unique("group"), unique("user")
    client.create_group(GroupName=group)
    client.put_group_policy(
        GroupName=group,
        PolicyName="read",
        PolicyDocument=document({"Effect": "Allow", "Action": "s3:Get*", "Resource": "*"}),
    )
    client.create_user(UserName=user)
    client.add_user_to_group(GroupName=group, UserName=user)
    described_user = described(iam.USER, aws_session, user)
    assert passes(iam.in_group(group), described_user)
    assert passes(iam.may("s3:GetObject", "arn:aws:s3:::b/k"), described_user)
    assert miss(iam.may("s3:PutObject", "arn:aws:s3:::b/k"), iam.USER, user, described_user) == (
        f"IAM user {user}: no policy allows s3:PutObject on arn:aws:s3:::b/k."
    )
    assert passes(iam.may("s3:GetObject"), described(iam.GROUP, aws_session, group))


def test_an_instance_profile_holds_the_role(aws_session) -> None:
    client = aws_session.client("iam")
    role, other, profile = make_role(aws_session), make_role(aws_session), unique("profile")
    client.create_instance_profile(InstanceProfileName=profile)
    client.add_role_to_instance_profile(InstanceProfileName=profile, RoleName=role)
    described_profile = described(iam.INSTANCE_PROFILE, aws_session, profile)
    assert passes(iam.holds_role(role), described_profile)
    assert miss(iam.holds_role(other), iam.INSTANCE_PROFILE, profile, described_profile) == (
        f"Instance profile {profile}: role should be {other}, but is {role}."
    )


@pytest.mark.parametrize("kind", [iam.USER, iam.GROUP, iam.INSTANCE_PROFILE])
def test_missing_identities_are_not_found(aws_session, kind) -> None:
    assert fetch_or_none(lambda: kind.fetch(aws_session, "nothing-by-that-name")) is None


def test_least_privilege_through_a_step(aws_session, tmp_path) -> None:
    """A step module's three lines: the failed check names the field, the expected and the extra action."""
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs" / "lab.yaml").write_text(TABLE_AND_ROLE_SPEC, encoding="utf-8")
    spec = load_lab(tmp_path).steps["01.02"]
    table_name = unique("orders")
    aws_session.client("dynamodb").create_table(
        TableName=table_name,
        KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    grant = {"Effect": "Allow", "Action": ["dynamodb:PutItem", "dynamodb:GetItem"], "Resource": table(table_name)}
    role_name = make_role(aws_session, app=document(grant))
    context = {
        "resolved": [{"name": "01_01_table", "type": "AWS::DynamoDB::Table", "id": table_name}],
        "events": [{"type": "AWS::IAM::Role", "id": role_name}],
        "spec": spec.slice(),
    }
    step = Step(aws_session, context)
    with step:
        found = step.input("01_01_table", dynamodb.TABLE)
        step.find(
            "01_02_role",
            iam.ROLE,
            [iam.trusts("lambda.amazonaws.com"), iam.may_only(["dynamodb:PutItem"], [found], key="TableArn")],
        )
    answer = check_result(step.result(), spec, 1.0)
    assert answer.status == "fail"
    assert answer.failure_context.issue == (
        f'IAM role {role_name}: it may also dynamodb:GetItem (inline policy "app" allows it).'
    )
    assert answer.failure_context.hint_context == 'Remove dynamodb:GetItem from inline policy "app".'
    failed = [c for c in answer.checks if not c.ok]
    assert [(c.handle, c.check, c.expected, c.actual) for c in failed] == [
        (
            "01_02_role",
            "permissions",
            f"only dynamodb:PutItem on {table(table_name)}",
            {
                "missing": [],
                "extra": ["dynamodb:GetItem"],
                "over": ['it may also dynamodb:GetItem (inline policy "app" allows it)'],
                "fix": 'Remove dynamodb:GetItem from inline policy "app".',
            },
        )
    ]


GROUP_STREAMS = f"arn:aws:logs:us-east-1:{ACCOUNT}:log-group:/aws/lambda/orders:*"
LOG_WRITE = ["logs:CreateLogStream", "logs:PutLogEvents"]


@pytest.mark.parametrize(
    ("action", "resource", "issue", "hint"),
    [
        (
            "logs:*",
            GROUP_STREAMS,
            r"it may also logs:AssociateKmsKey, .* and \d+ more \(inline policy \"logs\" allows logs:\*\)\.$",
            'Replace logs:* in inline policy "logs" with only logs:CreateLogStream, logs:PutLogEvents.',
        ),
        (
            [*LOG_WRITE, "logs:GetDataProtectionPolicy"],
            GROUP_STREAMS,
            r"it may also logs:GetDataProtectionPolicy \(inline policy \"logs\" allows it\)\.$",
            'Remove logs:GetDataProtectionPolicy from inline policy "logs".',
        ),
        (
            LOG_WRITE,
            "*",
            r"it may also logs:CreateLogStream, logs:PutLogEvents on \* \(inline policy \"logs\" allows them beyond "
            + re.escape(STREAMS),
            f'Narrow the Resource * in inline policy "logs" to {STREAMS}.',
        ),
        (
            LOG_WRITE,
            f"arn:aws:logs:us-east-1:{ACCOUNT}:log-group:/aws/lambda/*",
            r"on arn:aws:logs:us-east-1:123456789012:log-group:/aws/lambda/\* \(inline policy",
            f'Narrow the Resource arn:aws:logs:us-east-1:{ACCOUNT}:log-group:/aws/lambda/* in inline policy "logs" '
            f"to {STREAMS}.",
        ),
    ],
)
def test_least_privilege_on_a_log_groups_streams_names_what_reaches_too_far(
    aws_session, action, resource, issue, hint
) -> None:
    """The conventional `log-group:NAME:*` grant is exactly NAME's log streams for the two write actions; a wider
    Action or Resource is named in the issue and the hint says which to change."""
    requirement = iam.may_exactly(iam.grant(LOG_WRITE, [STREAMS]))
    exact = make_role(aws_session, logs=document({"Effect": "Allow", "Action": LOG_WRITE, "Resource": GROUP_STREAMS}))
    assert passes(requirement, described(iam.ROLE, aws_session, exact))
    name = make_role(aws_session, logs=document({"Effect": "Allow", "Action": action, "Resource": resource}))
    role = described(iam.ROLE, aws_session, name)
    assert re.search(issue, miss(requirement, iam.ROLE, name, role))
    assert requirement.evaluate(role).hint == hint
