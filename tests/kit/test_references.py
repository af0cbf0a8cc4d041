"""Every kit requirement that compares a reference with a resource, on moto: the same resource passes whichever
way either side spells the reference, and another resource of the same type (one meaningful attribute differs)
fails, whichever way it is spelled. Hypothesis draws the spellings; AWS-side resolution (an alias's key, a
family's latest revision, a tag's digest, a launch template's name) goes through the Resolver on moto."""

from __future__ import annotations

import importlib
import inspect
import io
import json
import pkgutil
import re
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import harness.kit as kit
from harness.kit import (
    apigateway,
    autoscaling,
    awslambda,
    cloudfront,
    cloudtrail,
    cloudwatch,
    cognito,
    compute,
    dynamodb,
    ec2,
    ecr,
    ecs,
    elbv2,
    events,
    iam,
    kms,
    logs,
    net,
    rds,
    refs,
    route53,
    s3,
    secretsmanager,
    sns,
    sqs,
    ssm,
    stepfunctions,
)
from harness.kit.require import Requirement
from tests.kit.conftest import described, unique
from tests.kit.test_apigateway import rest_api

ACCOUNT, REGION = "123456789012", "us-east-1"


@dataclass
class Case:
    """Resources that hold the right reference (each spelt its own way), the requirement for an expected
    reference, the expected reference spelt every accepted way, and another resource's reference spelt so."""

    judged: list[Any]
    requirement: Callable[[Any], Requirement]
    same: list[Any]
    other: list[Any]
    fails_too: list[Any] = field(default_factory=list)
    """Resources that reach another resource, or reach it in a way the requirement does not count: each must fail
    every spelling of the right one."""


def holds(session: Any, requirement: Requirement, resource: Any) -> bool:
    with refs.resolving(refs.Resolver(session)):
        return requirement.evaluate(resource).ok


# --- builders: one per requirement (or family of requirements) ------------------------------------------------


def key_forms(session: Any, key_id: str, alias: str) -> list[Any]:
    """A key in every spelling: described, id, ARN, alias name, alias ARN, described alias."""
    key = described(kms.KEY, session, key_id)
    alias_arn = f"arn:aws:kms:{REGION}:{ACCOUNT}:{alias}"
    return [key, key_id, key["Arn"], alias, alias_arn, described(kms.ALIAS, session, alias)]


def two_keys(session: Any) -> tuple[list[Any], list[Any]]:
    client = session.client("kms")
    forms = []
    for _ in range(2):
        key_id = client.create_key()["KeyMetadata"]["KeyId"]
        alias = f"alias/{unique('key')}"
        client.create_alias(AliasName=alias, TargetKeyId=key_id)
        forms.append(key_forms(session, key_id, alias))
    return forms[0], forms[1]


def secret_key(session: Any) -> Case:
    right, other = two_keys(session)
    client = session.client("secretsmanager")
    spelled = right[1:5]  # what a learner may give CreateSecret: id, ARN, alias, alias ARN
    secrets = [client.create_secret(Name=unique("db"), SecretString="x", KmsKeyId=k)["ARN"] for k in spelled]
    plain = client.create_secret(Name=unique("db"), SecretString="x")["ARN"]
    judged = [described(secretsmanager.SECRET, session, arn) for arn in secrets]
    return Case(
        judged,
        secretsmanager.encrypted_with,
        right,
        [*other, "alias/aws/secretsmanager"],
        [described(secretsmanager.SECRET, session, plain)],
    )


def parameter_key(session: Any) -> Case:
    """A SecureString under the key, its key given PutParameter as id, ARN, alias or alias ARN."""
    right, other = two_keys(session)
    client = session.client("ssm")
    names = [unique("/app/token") for _ in range(5)]
    for name, spelled in zip(names, [*right[1:5], None], strict=True):
        client.put_parameter(Name=name, Value="x", Type="SecureString", **({"KeyId": spelled} if spelled else {}))
    judged = [described(ssm.PARAMETER, session, name) for name in names]
    return Case(judged[:4], ssm.encrypted_with, right, [*other, "alias/aws/ssm"], judged[4:])


def log_group_key(session: Any) -> Case:
    right, other = two_keys(session)
    name = unique("/app")
    session.client("logs").create_log_group(logGroupName=name, kmsKeyId=right[2])
    return Case([described(logs.LOG_GROUP, session, name)], logs.encrypted_with, right, other)


def db_key(session: Any) -> Case:
    right, other = two_keys(session)
    judged = []
    for spelled in right[1:3]:
        identifier = unique("db")
        session.client("rds").create_db_instance(
            DBInstanceIdentifier=identifier,
            Engine="postgres",
            DBInstanceClass="db.t3.micro",
            MasterUsername="app",
            MasterUserPassword="a-long-password",
            AllocatedStorage=20,
            StorageEncrypted=True,
            KmsKeyId=spelled,
        )
        judged.append(described(rds.DB_INSTANCE, session, identifier))
    return Case(judged, rds.encrypted_with, right, other)


def repository_key(session: Any) -> Case:
    right, other = two_keys(session)
    judged = []
    for spelled in right[1:5]:
        name = unique("repo")
        session.client("ecr").create_repository(
            repositoryName=name, encryptionConfiguration={"encryptionType": "KMS", "kmsKey": spelled}
        )
        judged.append(described(ecr.REPOSITORY, session, name))
    return Case(judged, ecr.encrypted_with, right, other)


def queue_key(session: Any) -> Case:
    right, other = two_keys(session)
    client = session.client("sqs")
    urls = [
        client.create_queue(QueueName=unique("q"), Attributes={"KmsMasterKeyId": k})["QueueUrl"] for k in right[1:5]
    ]
    plain = client.create_queue(QueueName=unique("q"), Attributes={"SqsManagedSseEnabled": "true"})["QueueUrl"]
    judged = [described(sqs.QUEUE, session, url) for url in urls]
    return Case(judged, sqs.encrypted_with, right, [*other, "alias/aws/sqs"], [described(sqs.QUEUE, session, plain)])


def topic_key(session: Any) -> Case:
    right, other = two_keys(session)
    client = session.client("sns")
    arns = [client.create_topic(Name=unique("t"), Attributes={"KmsMasterKeyId": k})["TopicArn"] for k in right[1:5]]
    plain = client.create_topic(Name=unique("t"))["TopicArn"]
    judged = [described(sns.TOPIC, session, arn) for arn in arns]
    return Case(judged, sns.encrypted_with, right, [*other, "alias/aws/sns"], [described(sns.TOPIC, session, plain)])


def bucket_key(session: Any) -> Case:
    right, other = two_keys(session)
    client = session.client("s3")
    judged, managed = [], unique("bucket")
    for spelled in [*right[1:5], None]:
        name = unique("bucket") if spelled else managed
        client.create_bucket(Bucket=name)
        rule = {"SSEAlgorithm": "aws:kms", **({"KMSMasterKeyID": spelled} if spelled else {})}
        client.put_bucket_encryption(
            Bucket=name, ServerSideEncryptionConfiguration={"Rules": [{"ApplyServerSideEncryptionByDefault": rule}]}
        )
        judged.append(described(s3.BUCKET, session, name))
    aes = unique("bucket")
    client.create_bucket(Bucket=aes)
    rule = {"ApplyServerSideEncryptionByDefault": {"SSEAlgorithm": "AES256"}}
    client.put_bucket_encryption(Bucket=aes, ServerSideEncryptionConfiguration={"Rules": [rule]})
    *by_key, by_default = judged
    return Case(
        by_key,
        s3.encrypted_with,
        right,
        [*other, "alias/aws/s3"],
        [by_default, described(s3.BUCKET, session, aes)],
    )


def table_key(session: Any) -> Case:
    right, other = two_keys(session)
    judged = []
    for spelled in right[1:5]:
        name = unique("table")
        session.client("dynamodb").create_table(
            TableName=name,
            KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
            BillingMode="PAY_PER_REQUEST",
            SSESpecification={"Enabled": True, "SSEType": "KMS", "KMSMasterKeyId": spelled},
        )
        judged.append(described(dynamodb.TABLE, session, name))
    return Case(judged, dynamodb.encrypted_with, right, other)


def trail_key(session: Any) -> Case:
    right, other = two_keys(session)
    bucket = unique("trail-bucket")
    session.client("s3").create_bucket(Bucket=bucket)
    judged = []
    for spelled in right[1:5]:
        name = unique("trail")
        session.client("cloudtrail").create_trail(Name=name, S3BucketName=bucket, KmsKeyId=spelled)
        judged.append(described(cloudtrail.TRAIL, session, name))
    return Case(judged, cloudtrail.encrypted_with, right, other)


def volume_key(session: Any) -> Case:
    right, other = two_keys(session)
    client = session.client("ec2")
    zone = f"{REGION}a"
    ids = [
        client.create_volume(AvailabilityZone=zone, Size=1, Encrypted=True, KmsKeyId=k)["VolumeId"] for k in right[1:3]
    ]
    plain = client.create_volume(AvailabilityZone=zone, Size=1)["VolumeId"]
    judged = [described(compute.VOLUME, session, i) for i in ids]
    return Case(judged, compute.volume_encrypted_with, right, other, [described(compute.VOLUME, session, plain)])


def alias_target(session: Any) -> Case:
    right, other = two_keys(session)
    return Case([described(kms.ALIAS, session, right[3])], kms.points_to, right, other)


def key_alias(session: Any) -> Case:
    right, other = two_keys(session)
    name = right[3]
    forms = [name, name.removeprefix("alias/"), right[4]]
    return Case([right[0]], kms.has_alias, forms, [other[3], other[3].removeprefix("alias/"), other[4]])


def alias_name(session: Any) -> Case:
    right, other = two_keys(session)
    name = right[3]
    forms = [name, name.removeprefix("alias/"), right[4]]
    return Case([right[5]], kms.alias_named, forms, [other[3], other[3].removeprefix("alias/"), other[4]])


def role(session: Any, path: str = "/") -> dict[str, Any]:
    trust = {
        "Statement": [{"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}]
    }
    client = session.client("iam")
    name = unique("Role")
    client.create_role(RoleName=name, Path=path, AssumeRolePolicyDocument=json.dumps(trust))
    return described(iam.ROLE, session, name)


def role_forms(found: dict[str, Any]) -> list[Any]:
    return [found, found["RoleName"], found["RoleName"].lower(), found["Arn"]]


def zipped() -> bytes:
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as bundle:
        bundle.writestr("app.py", "def handler(event, context):\n    return {}\n")
    return archive.getvalue()


def function(session: Any, role_arn: str) -> dict[str, Any]:
    name = unique("fn")
    session.client("lambda").create_function(
        FunctionName=name, Runtime="python3.12", Handler="app.handler", Role=role_arn, Code={"ZipFile": zipped()}
    )
    return described(awslambda.FUNCTION, session, name)


def function_forms(found: dict[str, Any]) -> list[Any]:
    return [found, found["FunctionName"], found["FunctionArn"], f"{ACCOUNT}:function:{found['FunctionName']}"]


def execution_role(session: Any) -> Case:
    right, other = role(session, path="/service-role/"), role(session)
    return Case([function(session, right["Arn"])], awslambda.execution_role, role_forms(right), role_forms(other))


def queue(session: Any) -> dict[str, Any]:
    url = session.client("sqs").create_queue(QueueName=unique("q"))["QueueUrl"]
    return described(sqs.QUEUE, session, url)


def queue_forms(found: dict[str, Any]) -> list[Any]:
    return [found, found["QueueUrl"], found["QueueArn"]]


def mapping(session: Any) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any], dict[str, Any], dict[str, Any]]:
    runner = role(session)
    target, elsewhere = function(session, runner["Arn"]), function(session, runner["Arn"])
    source, other_queue = queue(session), queue(session)
    uuid = session.client("lambda").create_event_source_mapping(
        EventSourceArn=source["QueueArn"], FunctionName=target["FunctionName"]
    )["UUID"]
    return described(awslambda.EVENT_SOURCE_MAPPING, session, uuid), target, elsewhere, source, other_queue


def mapping_function(session: Any) -> Case:
    found, target, elsewhere, _, _ = mapping(session)
    return Case([found], awslambda.for_function, function_forms(target), function_forms(elsewhere))


def mapping_source(session: Any) -> Case:
    found, _, _, source, other = mapping(session)
    return Case([found], awslambda.source, queue_forms(source), queue_forms(other))


def secret_rotation(session: Any) -> Case:
    runner = role(session)
    rotator, other = function(session, runner["Arn"]), function(session, runner["Arn"])
    client = session.client("secretsmanager")
    arn = client.create_secret(Name=unique("db"), SecretString="x")["ARN"]
    client.rotate_secret(
        SecretId=arn, RotationLambdaARN=rotator["FunctionArn"], RotationRules={"AutomaticallyAfterDays": 30}
    )
    return Case(
        [described(secretsmanager.SECRET, session, arn)],
        secretsmanager.rotated_by,
        function_forms(rotator),
        function_forms(other),
    )


def dead_letter(session: Any) -> Case:
    right, other = queue(session), queue(session)
    name = unique("main")
    policy = json.dumps({"deadLetterTargetArn": right["QueueArn"], "maxReceiveCount": 3})
    url = session.client("sqs").create_queue(QueueName=name, Attributes={"RedrivePolicy": policy})["QueueUrl"]
    names = [right["QueueArn"].rsplit(":", 1)[1]]
    return Case(
        [described(sqs.QUEUE, session, url)], sqs.dead_letter_queue, queue_forms(right) + names, queue_forms(other)
    )


def topic(session: Any) -> dict[str, Any]:
    return described(sns.TOPIC, session, session.client("sns").create_topic(Name=unique("alerts"))["TopicArn"])


def topic_forms(found: dict[str, Any]) -> list[Any]:
    return [found, found["TopicArn"], found["TopicArn"].rsplit(":", 1)[1]]


def alarm_topic(session: Any) -> Case:
    right, other = topic(session), topic(session)
    name = unique("errors")
    session.client("cloudwatch").put_metric_alarm(
        AlarmName=name, Namespace="AWS/Lambda", MetricName="Errors", Statistic="Sum", Period=60,
        EvaluationPeriods=1, Threshold=1, ComparisonOperator="GreaterThanOrEqualToThreshold",
        AlarmActions=[right["TopicArn"]],
    )  # fmt: skip
    return Case(
        [described(cloudwatch.ALARM, session, name)], cloudwatch.notifies, topic_forms(right), topic_forms(other)
    )


def alarm_function(session: Any) -> Case:
    runner = role(session)
    right, other = function(session, runner["Arn"]), function(session, runner["Arn"])
    name = unique("errors")
    session.client("cloudwatch").put_metric_alarm(
        AlarmName=name, Namespace="AWS/Lambda", MetricName="Errors", Statistic="Sum", Period=60,
        EvaluationPeriods=1, Threshold=1, ComparisonOperator="GreaterThanOrEqualToThreshold",
        Dimensions=[{"Name": "FunctionName", "Value": right["FunctionName"]}],
    )  # fmt: skip
    return Case(
        [described(cloudwatch.ALARM, session, name)],
        lambda fn: cloudwatch.watches_function(fn, "Errors")[1],
        function_forms(right)[:3],
        function_forms(other)[:3],
    )


def subscription(session: Any) -> Case:
    right, other = queue(session), queue(session)
    found = topic(session)
    session.client("sns").subscribe(TopicArn=found["TopicArn"], Protocol="sqs", Endpoint=right["QueueArn"])
    found = described(sns.TOPIC, session, found["TopicArn"])
    return Case([found], lambda q: sns.subscribed("sqs", q), queue_forms(right), queue_forms(other))


def subscription_redrive(session: Any) -> Case:
    found, right, other, target = topic(session), queue(session), queue(session), queue(session)
    arn = session.client("sns").subscribe(
        TopicArn=found["TopicArn"], Protocol="sqs", Endpoint=target["QueueArn"], ReturnSubscriptionArn=True,
        Attributes={"RedrivePolicy": json.dumps({"deadLetterTargetArn": right["QueueArn"]})},
    )["SubscriptionArn"]  # fmt: skip
    plain = session.client("sns").subscribe(
        TopicArn=found["TopicArn"], Protocol="sqs", Endpoint=other["QueueArn"], ReturnSubscriptionArn=True
    )["SubscriptionArn"]
    return Case(
        [described(sns.SUBSCRIPTION, session, arn)],
        sns.redrives_to,
        queue_forms(right),
        queue_forms(other),
        fails_too=[described(sns.SUBSCRIPTION, session, plain)],
    )


def rule_target_settings(session: Any) -> Case:
    """A target's role and dead-letter queue, each in any spelling (the role's case too)."""
    found, dlq = topic(session), queue(session)
    right, other = role(session), role(session)
    name = unique("nightly")
    client = session.client("events")
    client.put_rule(Name=name, ScheduleExpression="rate(1 day)")
    client.put_targets(Rule=name, Targets=[{"Id": "t", "Arn": found["TopicArn"], "RoleArn": right["Arn"],
                                            "DeadLetterConfig": {"Arn": dlq["QueueArn"]}}])  # fmt: skip
    return Case(
        [described(events.RULE, session, name)],
        lambda r: events.target_settings(found["TopicArn"], role=r, dead_letter_queue=dlq["QueueUrl"]),
        role_forms(right),
        role_forms(other),
    )


def state_machine(session: Any, runner: dict[str, Any], group_arn: str | None = None) -> dict[str, Any]:
    logging = {"level": "ALL", "destinations": [{"cloudWatchLogsLogGroup": {"logGroupArn": group_arn}}]}
    arn = session.client("stepfunctions").create_state_machine(
        name=unique("flow"),
        definition=json.dumps({"StartAt": "Done", "States": {"Done": {"Type": "Succeed"}}}),
        roleArn=runner["Arn"],
        **({"loggingConfiguration": logging} if group_arn else {}),
    )["stateMachineArn"]
    return described(stepfunctions.STATE_MACHINE, session, arn)


def machine_role(session: Any) -> Case:
    right, other = role(session, path="/service-role/"), role(session)
    return Case([state_machine(session, right)], stepfunctions.execution_role, role_forms(right), role_forms(other))


def machine_logs(session: Any) -> Case:
    client = session.client("logs")
    groups = []
    for _ in range(2):
        name = unique("/aws/states/flow")
        client.create_log_group(logGroupName=name)
        groups.append(described(logs.LOG_GROUP, session, name))
    right, other = groups
    forms = lambda g: [g, g["logGroupName"], g["arn"], g["arn"].removesuffix(":*")]  # noqa: E731
    return Case(
        [state_machine(session, role(session), right["arn"])],
        stepfunctions.logs_to,
        forms(right),
        forms(other),
        fails_too=[state_machine(session, role(session))],
    )


def user_pool(session: Any) -> dict[str, Any]:
    made = session.client("cognito-idp").create_user_pool(PoolName=unique("users"))["UserPool"]
    return described(cognito.USER_POOL, session, made["Id"])


def pool_forms(found: dict[str, Any]) -> list[Any]:
    return [found, found["Id"], found["Arn"]]


def pool_client(session: Any) -> Case:
    right, other = user_pool(session), user_pool(session)
    app = session.client("cognito-idp").create_user_pool_client(UserPoolId=right["Id"], ClientName="web")
    client_id = f"{right['Id']}|{app['UserPoolClient']['ClientId']}"
    return Case(
        [described(cognito.USER_POOL_CLIENT, session, client_id)],
        cognito.client_of,
        pool_forms(right),
        pool_forms(other),
    )


def authorizer_pools(session: Any) -> Case:
    right, other = user_pool(session), user_pool(session)
    client = session.client("apigateway")
    api = client.create_rest_api(name=unique("api"))["id"]
    authorizer = client.create_authorizer(
        restApiId=api, name="users", type="COGNITO_USER_POOLS", providerARNs=[right["Arn"]],
        identitySource="method.request.header.Authorization",
    )["id"]  # fmt: skip
    return Case(
        [described(apigateway.AUTHORIZER, session, f"{api}|{authorizer}")],
        apigateway.user_pools,
        pool_forms(right),
        pool_forms(other),
    )


def subscription_topic(session: Any) -> Case:
    right, other, target = topic(session), topic(session), queue(session)
    arn = session.client("sns").subscribe(TopicArn=right["TopicArn"], Protocol="sqs", Endpoint=target["QueueArn"])[
        "SubscriptionArn"
    ]
    return Case([described(sns.SUBSCRIPTION, session, arn)], sns.on_topic, topic_forms(right), topic_forms(other))


def subscription_endpoint(session: Any) -> Case:
    right, other, found = queue(session), queue(session), topic(session)
    arn = session.client("sns").subscribe(TopicArn=found["TopicArn"], Protocol="sqs", Endpoint=right["QueueArn"])[
        "SubscriptionArn"
    ]
    return Case([described(sns.SUBSCRIPTION, session, arn)], sns.endpoint, queue_forms(right), queue_forms(other))


def rule_target(session: Any) -> Case:
    runner = role(session)
    right, other = function(session, runner["Arn"]), function(session, runner["Arn"])
    name = unique("nightly")
    client = session.client("events")
    client.put_rule(Name=name, ScheduleExpression="rate(1 day)")
    client.put_targets(Rule=name, Targets=[{"Id": "fn", "Arn": right["FunctionArn"]}])
    return Case(
        [described(events.RULE, session, name)], events.targets, function_forms(right)[:3], function_forms(other)[:3]
    )


def network(session: Any) -> dict[str, Any]:
    """A VPC with two subnets and two security groups (one admitting the other on 5432)."""
    client = session.client("ec2")
    vpc = client.create_vpc(CidrBlock="10.0.0.0/16")["Vpc"]["VpcId"]
    subnets = [
        client.create_subnet(VpcId=vpc, CidrBlock=f"10.0.{i}.0/24", AvailabilityZone=f"{REGION}{zone}")["Subnet"]
        for i, zone in ((1, "a"), (2, "b"), (3, "a"))
    ]
    groups = [
        client.create_security_group(GroupName=unique("sg"), Description="g", VpcId=vpc)["GroupId"] for _ in range(2)
    ]
    return {
        "vpc": described(ec2.VPC, session, vpc),
        "other_vpc": described(ec2.VPC, session, client.create_vpc(CidrBlock="10.1.0.0/16")["Vpc"]["VpcId"]),
        "subnets": [described(ec2.SUBNET, session, s["SubnetId"]) for s in subnets],
        "groups": [described(ec2.SECURITY_GROUP, session, g) for g in groups],
    }


def subnet_forms(found: dict[str, Any]) -> list[Any]:
    return [found, found["SubnetId"], found["SubnetArn"]]


def group_forms(found: dict[str, Any]) -> list[Any]:
    arn = f"arn:aws:ec2:{REGION}:{ACCOUNT}:security-group/{found['GroupId']}"
    return [found, found["GroupId"], arn]


def vpc_forms(found: dict[str, Any]) -> list[Any]:
    return [found, found["VpcId"], f"arn:aws:ec2:{REGION}:{ACCOUNT}:vpc/{found['VpcId']}"]


def subnet_in_vpc(session: Any) -> Case:
    found = network(session)
    return Case(found["subnets"][:1], ec2.in_vpc, vpc_forms(found["vpc"]), vpc_forms(found["other_vpc"]))


def gateway_attachment(session: Any) -> Case:
    found = network(session)
    client = session.client("ec2")
    igw = client.create_internet_gateway()["InternetGateway"]["InternetGatewayId"]
    client.attach_internet_gateway(InternetGatewayId=igw, VpcId=found["vpc"]["VpcId"])
    return Case(
        [described(ec2.INTERNET_GATEWAY, session, igw)],
        ec2.attached_to,
        vpc_forms(found["vpc"]),
        vpc_forms(found["other_vpc"]),
    )


def route_table(session: Any) -> Case:
    found = network(session)
    client = session.client("ec2")
    vpc = found["vpc"]["VpcId"]
    table = client.create_route_table(VpcId=vpc)["RouteTable"]["RouteTableId"]
    right, other = found["subnets"][0], found["subnets"][1]
    client.associate_route_table(RouteTableId=table, SubnetId=right["SubnetId"])
    return Case(
        [described(ec2.ROUTE_TABLE, session, table)],
        lambda subnet: ec2.associated_with([subnet]),
        subnet_forms(right),
        subnet_forms(other),
    )


def table_forms(session: Any, table: str) -> list[Any]:
    return [described(ec2.ROUTE_TABLE, session, table), table, f"arn:aws:ec2:{REGION}:{ACCOUNT}:route-table/{table}"]


def subnet_route_table(session: Any) -> Case:
    """A subnet explicitly associated uses that table; one with no association uses its VPC's main table."""
    found = network(session)
    client = session.client("ec2")
    vpc = found["vpc"]["VpcId"]
    table = client.create_route_table(VpcId=vpc)["RouteTable"]["RouteTableId"]
    main = client.describe_route_tables(
        Filters=[{"Name": "vpc-id", "Values": [vpc]}, {"Name": "association.main", "Values": ["true"]}]
    )["RouteTables"][0]["RouteTableId"]
    explicit, implicit = (s["SubnetId"] for s in found["subnets"][:2])
    client.associate_route_table(RouteTableId=table, SubnetId=explicit)
    return Case(
        [described(ec2.SUBNET, session, explicit)],
        ec2.uses_route_table,
        table_forms(session, table),
        table_forms(session, main),
        fails_too=[described(ec2.SUBNET, session, implicit)],
    )


def endpoint_route_tables(session: Any) -> Case:
    found = network(session)
    client = session.client("ec2")
    vpc = found["vpc"]["VpcId"]
    table, other = (client.create_route_table(VpcId=vpc)["RouteTable"]["RouteTableId"] for _ in range(2))
    endpoint = client.create_vpc_endpoint(
        VpcId=vpc, ServiceName=f"com.amazonaws.{REGION}.s3", VpcEndpointType="Gateway", RouteTableIds=[table]
    )["VpcEndpoint"]["VpcEndpointId"]
    return Case(
        [described(ec2.VPC_ENDPOINT, session, endpoint)],
        lambda t: ec2.endpoint_in_route_tables([t]),
        table_forms(session, table),
        table_forms(session, other),
    )


def route_target(session: Any) -> Case:
    found = network(session)
    client = session.client("ec2")
    vpc = found["vpc"]["VpcId"]
    igws = [client.create_internet_gateway()["InternetGateway"]["InternetGatewayId"] for _ in range(2)]
    client.attach_internet_gateway(InternetGatewayId=igws[0], VpcId=vpc)
    table = client.create_route_table(VpcId=vpc)["RouteTable"]["RouteTableId"]
    client.create_route(RouteTableId=table, DestinationCidrBlock="0.0.0.0/0", GatewayId=igws[0])

    def forms(igw: str) -> list[Any]:
        return [
            described(ec2.INTERNET_GATEWAY, session, igw),
            igw,
            f"arn:aws:ec2:{REGION}:{ACCOUNT}:internet-gateway/{igw}",
        ]

    return Case(
        [described(ec2.ROUTE_TABLE, session, table)],
        lambda igw: ec2.route_to("0.0.0.0/0", igw, key="InternetGatewayId"),
        forms(igws[0]),
        forms(igws[1]),
    )


def group_source(session: Any) -> Case:
    found = network(session)
    db, app = found["groups"]
    third = described(
        ec2.SECURITY_GROUP,
        session,
        session.client("ec2").create_security_group(
            GroupName=unique("sg"), Description="g", VpcId=found["vpc"]["VpcId"]
        )["GroupId"],
    )
    session.client("ec2").authorize_security_group_ingress(
        GroupId=db["GroupId"],
        IpPermissions=[
            {"IpProtocol": "tcp", "FromPort": 5432, "ToPort": 5432, "UserIdGroupPairs": [{"GroupId": app["GroupId"]}]}
        ],
    )
    judged = [described(ec2.SECURITY_GROUP, session, db["GroupId"])]
    return Case(
        judged,
        lambda g: ec2.ingress_exactly(net.tcp(5432, g)),
        [*group_forms(app), f"sg:{app['GroupId']}"],
        group_forms(third),
    )


def load_balancing(session: Any) -> dict[str, Any]:
    found = network(session)
    client = session.client("elbv2")
    subnets = [s["SubnetId"] for s in found["subnets"][:2]]
    lbs = [
        client.create_load_balancer(Name=unique("lb"), Subnets=subnets, SecurityGroups=[found["groups"][0]["GroupId"]])[
            "LoadBalancers"
        ][0]
        for _ in range(2)
    ]
    groups = [
        client.create_target_group(Name=unique("tg"), Protocol="HTTP", Port=80, VpcId=found["vpc"]["VpcId"])[
            "TargetGroups"
        ][0]
        for _ in range(2)
    ]
    listener = client.create_listener(
        LoadBalancerArn=lbs[0]["LoadBalancerArn"],
        Protocol="HTTP",
        Port=80,
        DefaultActions=[{"Type": "forward", "TargetGroupArn": groups[0]["TargetGroupArn"]}],
    )["Listeners"][0]["ListenerArn"]
    return {
        **found,
        "lbs": [described(elbv2.LOAD_BALANCER, session, lb["LoadBalancerArn"]) for lb in lbs],
        "tgs": [described(elbv2.TARGET_GROUP, session, g["TargetGroupArn"]) for g in groups],
        "listener": described(elbv2.LISTENER, session, listener),
    }


def tg_forms(found: dict[str, Any]) -> list[Any]:
    return [found, found["TargetGroupArn"], found["TargetGroupName"]]


def lb_forms(found: dict[str, Any]) -> list[Any]:
    return [found, found["LoadBalancerArn"], found["LoadBalancerName"]]


def listener_target(session: Any) -> Case:
    found = load_balancing(session)
    return Case([found["listener"]], elbv2.forwards_to, tg_forms(found["tgs"][0]), tg_forms(found["tgs"][1]))


def listener_balancer(session: Any) -> Case:
    found = load_balancing(session)
    return Case([found["listener"]], elbv2.on_load_balancer, lb_forms(found["lbs"][0]), lb_forms(found["lbs"][1]))


def balancer_group(session: Any) -> Case:
    found = load_balancing(session)
    return Case(
        found["lbs"][:1], elbv2.with_security_group, group_forms(found["groups"][0]), group_forms(found["groups"][1])
    )


def balancer_subnets(session: Any) -> Case:
    found = load_balancing(session)
    a, b, c = found["subnets"]
    return Case(
        found["lbs"][:1],
        lambda pair: elbv2.in_subnets_exactly(pair),
        [*[[x, y] for x in subnet_forms(a) for y in subnet_forms(b)][:5], [b["SubnetArn"], a]],
        [[a, c], [a], [a["SubnetId"], b["SubnetId"], c["SubnetId"]]],
    )


def instance_placement(session: Any) -> Case:
    found = network(session)
    client = session.client("ec2")
    instance = client.run_instances(
        ImageId="ami-12c6146b", MinCount=1, MaxCount=1, SubnetId=found["subnets"][0]["SubnetId"],
        SecurityGroupIds=[found["groups"][0]["GroupId"]],
    )["Instances"][0]["InstanceId"]  # fmt: skip
    return Case(
        [described(compute.INSTANCE, session, instance)],
        compute.in_subnet,
        subnet_forms(found["subnets"][0]),
        subnet_forms(found["subnets"][1]),
    )


def instance_group(session: Any) -> Case:
    found = network(session)
    instance = session.client("ec2").run_instances(
        ImageId="ami-12c6146b", MinCount=1, MaxCount=1, SubnetId=found["subnets"][0]["SubnetId"],
        SecurityGroupIds=[found["groups"][0]["GroupId"]],
    )["Instances"][0]["InstanceId"]  # fmt: skip
    return Case(
        [described(compute.INSTANCE, session, instance)],
        compute.with_security_group,
        group_forms(found["groups"][0]),
        group_forms(found["groups"][1]),
    )


def instance_profile(session: Any) -> Case:
    client = session.client("iam")
    profiles = []
    for _ in range(2):
        name = unique("Profile")
        client.create_instance_profile(InstanceProfileName=name, Path="/apps/")
        profiles.append(described(iam.INSTANCE_PROFILE, session, name))
    instance = session.client("ec2").run_instances(
        ImageId="ami-12c6146b", MinCount=1, MaxCount=1, IamInstanceProfile={"Name": profiles[0]["InstanceProfileName"]}
    )["Instances"][0]["InstanceId"]

    def forms(found: dict[str, Any]) -> list[Any]:
        return [found, found["InstanceProfileName"], found["Arn"], found["InstanceProfileName"].upper()]

    return Case(
        [described(compute.INSTANCE, session, instance)],
        compute.instance_profile,
        forms(profiles[0]),
        forms(profiles[1]),
    )


def volume_attachment(session: Any) -> Case:
    client = session.client("ec2")
    instances = [
        i["InstanceId"] for i in client.run_instances(ImageId="ami-12c6146b", MinCount=2, MaxCount=2)["Instances"]
    ]
    volume = client.create_volume(AvailabilityZone=f"{REGION}a", Size=8)["VolumeId"]
    client.attach_volume(VolumeId=volume, InstanceId=instances[0], Device="/dev/sdf")

    def forms(instance_id: str) -> list[Any]:
        return [
            described(compute.INSTANCE, session, instance_id),
            instance_id,
            f"arn:aws:ec2:{REGION}:{ACCOUNT}:instance/{instance_id}",
        ]

    return Case(
        [described(compute.VOLUME, session, volume)], compute.attached_to, forms(instances[0]), forms(instances[1])
    )


def scaling(session: Any) -> dict[str, Any]:
    found = load_balancing(session)
    client = session.client("ec2")
    templates = [
        client.create_launch_template(
            LaunchTemplateName=unique("lt"), LaunchTemplateData={"ImageId": "ami-12c6146b", "InstanceType": "t3.micro"}
        )["LaunchTemplate"]
        for _ in range(2)
    ]
    name = unique("asg")
    session.client("autoscaling").create_auto_scaling_group(
        AutoScalingGroupName=name, LaunchTemplate={"LaunchTemplateName": templates[0]["LaunchTemplateName"]},
        MinSize=0, MaxSize=1, VPCZoneIdentifier=",".join(s["SubnetId"] for s in found["subnets"][:2]),
        TargetGroupARNs=[found["tgs"][0]["TargetGroupArn"]],
    )  # fmt: skip
    return {**found, "templates": templates, "group": described(autoscaling.AUTO_SCALING_GROUP, session, name)}


def group_template(session: Any) -> Case:
    found = scaling(session)

    def forms(template: dict[str, Any]) -> list[Any]:
        return [template, template["LaunchTemplateId"], template["LaunchTemplateName"]]

    return Case(
        [found["group"]], autoscaling.uses_launch_template, forms(found["templates"][0]), forms(found["templates"][1])
    )


def group_target(session: Any) -> Case:
    found = scaling(session)
    return Case([found["group"]], autoscaling.registers_with, tg_forms(found["tgs"][0]), tg_forms(found["tgs"][1]))


def group_subnets(session: Any) -> Case:
    found = scaling(session)
    a, b, c = found["subnets"]
    return Case(
        [found["group"]], autoscaling.in_subnets_exactly, [[a, b], [b["SubnetArn"], a["SubnetId"]]], [[a, c], [a]]
    )


def database_network(session: Any) -> Case:
    found = network(session)
    client = session.client("rds")
    groups = []
    for subnets in (found["subnets"][:2], [found["subnets"][0], found["subnets"][2]]):
        name = unique("DbSubnets")
        client.create_db_subnet_group(
            DBSubnetGroupName=name, DBSubnetGroupDescription="d", SubnetIds=[s["SubnetId"] for s in subnets]
        )
        groups.append(described(rds.DB_SUBNET_GROUP, session, name))
    identifier = unique("db")
    client.create_db_instance(
        DBInstanceIdentifier=identifier, Engine="postgres", DBInstanceClass="db.t3.micro", MasterUsername="app",
        MasterUserPassword="a-long-password", AllocatedStorage=20, DBSubnetGroupName=groups[0]["DBSubnetGroupName"],
    )  # fmt: skip

    def forms(group: dict[str, Any]) -> list[Any]:
        name = group["DBSubnetGroupName"]
        return [group, name, name.upper(), f"arn:aws:rds:{REGION}:{ACCOUNT}:subgrp:{name}"]

    return Case(
        [described(rds.DB_INSTANCE, session, identifier)], rds.in_subnet_group, forms(groups[0]), forms(groups[1])
    )


def subnet_group_subnets(session: Any) -> Case:
    found = network(session)
    a, b, c = found["subnets"]
    name = unique("DbSubnets")
    session.client("rds").create_db_subnet_group(
        DBSubnetGroupName=name, DBSubnetGroupDescription="d", SubnetIds=[a["SubnetId"], b["SubnetId"]]
    )
    return Case(
        [described(rds.DB_SUBNET_GROUP, session, name)],
        rds.subnets_exactly,
        [[a, b], [b["SubnetArn"], a]],
        [[a, c], [b]],
    )


def database_group(session: Any) -> Case:
    found = network(session)
    identifier = unique("db")
    session.client("rds").create_db_instance(
        DBInstanceIdentifier=identifier, Engine="postgres", DBInstanceClass="db.t3.micro", MasterUsername="app",
        MasterUserPassword="a-long-password", AllocatedStorage=20, VpcSecurityGroupIds=[found["groups"][0]["GroupId"]],
    )  # fmt: skip
    return Case(
        [described(rds.DB_INSTANCE, session, identifier)],
        rds.with_security_group,
        group_forms(found["groups"][0]),
        group_forms(found["groups"][1]),
    )


def exact_groups(
    make: Callable[[dict[str, Any], list[str]], dict[str, Any]], requirement: Callable[..., Requirement], session: Any
) -> Case:
    """A resource `make` puts in the first group of a network alone, and one in both groups: `requirement` is
    exact."""
    found = network(session)
    groups = found["groups"]
    alone, both = make(found, [groups[0]["GroupId"]]), make(found, [g["GroupId"] for g in groups])
    return Case([alone], requirement, group_forms(groups[0]), group_forms(groups[1]), [both])


def database_groups_exactly(session: Any) -> Case:
    def database(_: dict[str, Any], groups: list[str]) -> dict[str, Any]:
        identifier = unique("db")
        session.client("rds").create_db_instance(
            DBInstanceIdentifier=identifier, Engine="postgres", DBInstanceClass="db.t3.micro", MasterUsername="app",
            MasterUserPassword="a-long-password", AllocatedStorage=20, VpcSecurityGroupIds=groups,
        )  # fmt: skip
        return described(rds.DB_INSTANCE, session, identifier)

    return exact_groups(database, rds.security_groups_exactly, session)


def service_groups_exactly(session: Any) -> Case:
    client = session.client("ecs")
    cluster = client.create_cluster(clusterName=unique("apps"))["cluster"]["clusterName"]
    family = unique("web")
    task(session, family, "nginx:1.27")

    def service(found: dict[str, Any], groups: list[str]) -> dict[str, Any]:
        subnets = [found["subnets"][0]["SubnetId"]]
        placed = {"awsvpcConfiguration": {"subnets": subnets, "securityGroups": groups}}
        arn = client.create_service(
            cluster=cluster, serviceName=unique("svc"), taskDefinition=family, networkConfiguration=placed
        )["service"]["serviceArn"]
        return described(ecs.SERVICE, session, arn)

    return exact_groups(service, ecs.security_groups_exactly, session)


def trail_bucket(session: Any) -> Case:
    client = session.client("s3")
    buckets = [unique("trail-logs") for _ in range(2)]
    for bucket in buckets:
        client.create_bucket(Bucket=bucket)
    name = unique("trail")
    session.client("cloudtrail").create_trail(Name=name, S3BucketName=buckets[0])

    def forms(bucket: str) -> list[Any]:
        return [described(s3.BUCKET, session, bucket), bucket, f"arn:aws:s3:::{bucket}"]

    return Case(
        [described(cloudtrail.TRAIL, session, name)], cloudtrail.to_bucket, forms(buckets[0]), forms(buckets[1])
    )


def policy_bucket(session: Any) -> Case:
    """A bucket policy is on its bucket, however the bucket is named, and not on another."""
    client = session.client("s3")
    buckets = [unique("site") for _ in range(2)]
    for bucket in buckets:
        client.create_bucket(Bucket=bucket)
    client.put_bucket_policy(Bucket=buckets[0], Policy=json.dumps({"Version": "2012-10-17", "Statement": []}))

    def forms(bucket: str) -> list[Any]:
        return [described(s3.BUCKET, session, bucket), bucket, f"arn:aws:s3:::{bucket}"]

    return Case([described(s3.BUCKET_POLICY, session, buckets[0])], s3.on_bucket, forms(buckets[0]), forms(buckets[1]))


def private_zone(session: Any) -> Case:
    found = network(session)
    zone = session.client("route53").create_hosted_zone(
        Name=f"{unique('internal')}.example.", CallerReference=unique("ref"),
        HostedZoneConfig={"Comment": "", "PrivateZone": True},
        VPC={"VPCRegion": REGION, "VPCId": found["vpc"]["VpcId"]},
    )["HostedZone"]["Id"]  # fmt: skip
    return Case(
        [described(route53.HOSTED_ZONE, session, zone)],
        route53.private,
        vpc_forms(found["vpc"]),
        vpc_forms(found["other_vpc"]),
    )


def nat_subnet(session: Any) -> Case:
    found = network(session)
    client = session.client("ec2")
    allocation = client.allocate_address(Domain="vpc")["AllocationId"]
    nat = client.create_nat_gateway(SubnetId=found["subnets"][0]["SubnetId"], AllocationId=allocation)
    return Case(
        [described(ec2.NAT_GATEWAY, session, nat["NatGateway"]["NatGatewayId"])],
        ec2.nat_in_subnet,
        subnet_forms(found["subnets"][0]),
        subnet_forms(found["subnets"][1]),
    )


def managed_policy(session: Any, name: str = "ReadOnlyAccess") -> Case:
    """An AWS managed policy by ARN is not a customer policy of the same name (`name` is one); by name alone,
    either is."""
    client = session.client("iam")
    holder = role(session)
    document = json.dumps(
        {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:GetObject", "Resource": "*"}]}
    )
    mine = client.create_policy(PolicyName=name, PolicyDocument=document)["Policy"]["Arn"]
    other = client.create_policy(PolicyName=unique("Other"), PolicyDocument=document)["Policy"]["Arn"]
    client.attach_role_policy(RoleName=holder["RoleName"], PolicyArn=mine)
    found = described(iam.ROLE, session, holder["RoleName"])
    return Case(
        [found],
        iam.has_managed_policy,
        [mine, name, name.lower()],
        [f"arn:aws:iam::aws:policy/{name}", other, other.rsplit("/", 1)[1]],
    )


def managed_policies(session: Any) -> Case:
    """`managed_policies_exactly` with the one policy attached, as `has_managed_policy` reads it."""
    return replace(managed_policy(session, "AmazonS3ReadOnlyAccess"), requirement=iam.managed_policies_exactly)


def user_group(session: Any) -> Case:
    client = session.client("iam")
    groups = []
    for _ in range(2):
        name = unique("Admins")
        client.create_group(GroupName=name)
        groups.append(described(iam.GROUP, session, name))
    user = unique("ana")
    client.create_user(UserName=user)
    client.add_user_to_group(GroupName=groups[0]["GroupName"], UserName=user)

    def forms(group: dict[str, Any]) -> list[Any]:
        return [group, group["GroupName"], group["Arn"], group["GroupName"].lower()]

    return Case([described(iam.USER, session, user)], iam.in_group, forms(groups[0]), forms(groups[1]))


def profile_role(session: Any) -> Case:
    right, other = role(session), role(session)
    name = unique("Profile")
    client = session.client("iam")
    client.create_instance_profile(InstanceProfileName=name)
    client.add_role_to_instance_profile(InstanceProfileName=name, RoleName=right["RoleName"])
    return Case([described(iam.INSTANCE_PROFILE, session, name)], iam.holds_role, role_forms(right), role_forms(other))


def http_api_route(session: Any) -> Case:
    runner = role(session)
    right, other = function(session, runner["Arn"]), function(session, runner["Arn"])
    client = session.client("apigatewayv2")
    api = client.create_api(Name=unique("api"), ProtocolType="HTTP")["ApiId"]
    uri = f"arn:aws:apigateway:{REGION}:lambda:path/2015-03-31/functions/{right['FunctionArn']}/invocations"
    integration = client.create_integration(
        ApiId=api, IntegrationType="AWS_PROXY", IntegrationUri=uri, PayloadFormatVersion="2.0"
    )
    client.create_route(ApiId=api, RouteKey="GET /items", Target=f"integrations/{integration['IntegrationId']}")
    return Case(
        [described(apigateway.HTTP_API, session, api)],
        lambda fn: apigateway.route_to_function("GET /items", fn),
        function_forms(right),
        function_forms(other),
    )


def rest_method(session: Any) -> Case:
    runner = role(session)
    right, other = function(session, runner["Arn"]), function(session, runner["Arn"])
    return Case(
        [described(apigateway.REST_API, session, rest_api(session, right["FunctionName"]))],
        lambda fn: apigateway.method_to_function("/orders", "POST", fn),
        function_forms(right),
        function_forms(other),
    )


def distribution_origin(session: Any) -> Case:
    from tests.kit.test_containers_edge import distribution_config

    bucket = unique("site")
    session.client("s3").create_bucket(Bucket=bucket)
    distribution = session.client("cloudfront").create_distribution(
        DistributionConfig=distribution_config(f"{bucket}.s3.{REGION}.amazonaws.com")
    )["Distribution"]["Id"]
    return Case(
        [described(cloudfront.DISTRIBUTION, session, distribution)],
        cloudfront.origin,
        [f"{bucket}.s3.amazonaws.com", f"{bucket}.s3.{REGION}.amazonaws.com", f"{bucket.upper()}.S3.amazonaws.com.",
         {"Name": bucket}],
        [f"{bucket}-x.s3.amazonaws.com", f"{bucket}.s3-website-{REGION}.amazonaws.com"],
    )  # fmt: skip


def bucket_policy(session: Any) -> Case:
    bucket, other = unique("site"), unique("site")
    client = session.client("s3")
    for name in (bucket, other):
        client.create_bucket(Bucket=name)
    policy = {
        "Statement": [
            {"Effect": "Allow", "Principal": "*", "Action": "s3:GetObject", "Resource": f"arn:aws:s3:::{bucket}/*"}
        ]
    }
    client.put_bucket_policy(Bucket=bucket, Policy=json.dumps(policy))
    return Case(
        [described(s3.BUCKET_POLICY, session, bucket)],
        s3.grants_public_read,
        [bucket, f"arn:aws:s3:::{bucket}", described(s3.BUCKET, session, bucket)],
        [other, f"arn:aws:s3:::{other}"],
    )


# --- ECS: clusters, task definitions by revision, images by tag or digest, log groups -----------------------------


def pushed(session: Any, repository: str, tag: str, layer: str) -> str:
    manifest = {
        "schemaVersion": 2,
        "mediaType": "application/vnd.docker.distribution.manifest.v2+json",
        "config": {
            "digest": f"sha256:{layer * 64}",
            "mediaType": "application/vnd.docker.container.image.v1+json",
            "size": 1,
        },
        "layers": [
            {
                "digest": f"sha256:{layer * 64}",
                "mediaType": "application/vnd.docker.image.rootfs.diff.tar.gzip",
                "size": 1,
            }
        ],
    }
    image = session.client("ecr").put_image(repositoryName=repository, imageManifest=json.dumps(manifest), imageTag=tag)
    return image["image"]["imageId"]["imageDigest"]


def task(
    session: Any,
    family: str,
    image: str,
    *,
    logs_to: tuple[str, str] = ("/ecs/web", "/ecs/sidecar"),
    driver: str = "awslogs",
    lacking: str = "",
) -> dict[str, Any]:
    def logging(group: str) -> dict[str, Any]:
        options = {"awslogs-group": group, "awslogs-region": REGION, "awslogs-stream-prefix": "x"}
        return {"logDriver": driver, "options": {k: v for k, v in options.items() if k != lacking}}

    arn = session.client("ecs").register_task_definition(
        family=family, requiresCompatibilities=["FARGATE"], networkMode="awsvpc", cpu="256", memory="512",
        containerDefinitions=[
            {"name": "web", "image": image, "logConfiguration": logging(logs_to[0])},
            {"name": "sidecar", "image": "public.ecr.aws/aws-observability/aws-otel-collector:latest",
             "essential": False, "logConfiguration": logging(logs_to[1])},
        ],
    )["taskDefinition"]["taskDefinitionArn"]  # fmt: skip
    return described(ecs.TASK_DEFINITION, session, arn)


def container_image(session: Any) -> Case:
    repository = unique("app")
    uri = session.client("ecr").create_repository(repositoryName=repository)["repository"]["repositoryUri"]
    digest = pushed(session, repository, "1.0.0", "a")
    newer = pushed(session, repository, "2.0.0", "b")
    elsewhere = unique("other")
    other_uri = session.client("ecr").create_repository(repositoryName=elsewhere)["repository"]["repositoryUri"]
    pushed(session, elsewhere, "1.0.0", "c")
    judged = [task(session, unique("web"), f"{uri}:1.0.0"), task(session, unique("web"), f"{uri}@{digest}")]
    return Case(
        judged,
        lambda image: ecs.container_image("web", image),
        [f"{uri}:1.0.0", f"{uri}@{digest}", described(ecr.REPOSITORY, session, repository)],
        [
            f"{uri}:2.0.0",
            f"{uri}@{newer}",
            f"{uri}",
            f"{other_uri}:1.0.0",
            described(ecr.REPOSITORY, session, elsewhere),
        ],
    )


def service_revision(session: Any) -> Case:
    """A service on web:2 runs web:2 (however named) and not web:1; a bare family is its latest ACTIVE revision."""
    client = session.client("ecs")
    cluster = unique("apps")
    client.create_cluster(clusterName=cluster)
    family = unique("web")
    revisions = [task(session, family, "nginx:1.27") for _ in range(3)]
    client.deregister_task_definition(taskDefinition=revisions[2]["taskDefinitionArn"])
    service = client.create_service(
        cluster=cluster, serviceName=unique("svc"), taskDefinition=f"{family}:2", desiredCount=1
    )
    found = described(ecs.SERVICE, session, service["service"]["serviceArn"])
    right, older = revisions[1], revisions[0]
    return Case(
        [found],
        ecs.runs,
        [right, right["taskDefinitionArn"], f"{family}:2", family],
        [older, older["taskDefinitionArn"], f"{family}:1", unique("web")],
    )


def service_cluster(session: Any) -> Case:
    client = session.client("ecs")
    clusters = [client.create_cluster(clusterName=unique("apps"))["cluster"] for _ in range(2)]
    family = unique("web")
    task(session, family, "nginx:1.27")
    arn = client.create_service(cluster=clusters[0]["clusterName"], serviceName=unique("svc"), taskDefinition=family)[
        "service"
    ]["serviceArn"]

    def forms(found: dict[str, Any]) -> list[Any]:
        return [found, found["clusterName"], found["clusterArn"]]

    return Case([described(ecs.SERVICE, session, arn)], ecs.in_cluster, forms(clusters[0]), forms(clusters[1]))


def task_logs(session: Any) -> Case:
    client = session.client("logs")
    groups = {}
    for name in ("web", "sidecar", "other"):
        group = unique(f"/ecs/{name}")
        client.create_log_group(logGroupName=group)
        groups[name] = described(logs.LOG_GROUP, session, group)
    web, sidecar = groups["web"]["logGroupName"], groups["sidecar"]["logGroupName"]
    right = task(session, unique("web"), "nginx:1.27", logs_to=(web, sidecar))
    splunk = task(session, unique("web"), "nginx:1.27", logs_to=(web, sidecar), driver="splunk")
    # a route a Fargate task cannot start with reaches no group
    unstarted = [
        task(session, unique("web"), "nginx:1.27", logs_to=(web, sidecar), lacking=option)
        for option in ("awslogs-region", "awslogs-stream-prefix")
    ]

    def forms(found: dict[str, Any]) -> list[Any]:
        return [found, found["logGroupName"], found["arn"], found["arn"].removesuffix(":*")]

    return Case(
        [right],
        lambda group: ecs.logs_to(group, container="web"),
        forms(groups["web"]),
        forms(groups["sidecar"]) + forms(groups["other"]),
        fails_too=[splunk, *unstarted],
    )


CASES: dict[str, Callable[[Any], Case]] = {
    "secretsmanager.encrypted_with": secret_key,
    "ssm.encrypted_with": parameter_key,
    "logs.encrypted_with": log_group_key,
    "rds.encrypted_with": db_key,
    "ecr.encrypted_with": repository_key,
    "sqs.encrypted_with": queue_key,
    "sns.encrypted_with": topic_key,
    "s3.encrypted_with": bucket_key,
    "s3.on_bucket": policy_bucket,
    "dynamodb.encrypted_with": table_key,
    "cloudtrail.encrypted_with": trail_key,
    "compute.volume_encrypted_with": volume_key,
    "kms.points_to": alias_target,
    "kms.has_alias": key_alias,
    "kms.alias_named": alias_name,
    "awslambda.execution_role": execution_role,
    "awslambda.for_function": mapping_function,
    "awslambda.source": mapping_source,
    "secretsmanager.rotated_by": secret_rotation,
    "sqs.dead_letter_queue": dead_letter,
    "cloudwatch.notifies": alarm_topic,
    "cloudwatch.watches_function": alarm_function,
    "sns.subscribed": subscription,
    "sns.on_topic": subscription_topic,
    "sns.endpoint": subscription_endpoint,
    "events.targets": rule_target,
    "ec2.in_vpc": subnet_in_vpc,
    "ec2.attached_to": gateway_attachment,
    "ec2.nat_in_subnet": nat_subnet,
    "ec2.associated_with": route_table,
    "ec2.uses_route_table": subnet_route_table,
    "ec2.endpoint_in_route_tables": endpoint_route_tables,
    "sns.redrives_to": subscription_redrive,
    "events.target_settings": rule_target_settings,
    "stepfunctions.execution_role": machine_role,
    "stepfunctions.logs_to": machine_logs,
    "cognito.client_of": pool_client,
    "apigateway.user_pools": authorizer_pools,
    "ec2.route_to": route_target,
    "ec2.ingress_exactly (a group source)": group_source,
    "elbv2.forwards_to": listener_target,
    "elbv2.on_load_balancer": listener_balancer,
    "elbv2.with_security_group": balancer_group,
    "elbv2.in_subnets_exactly": balancer_subnets,
    "compute.in_subnet": instance_placement,
    "compute.with_security_group": instance_group,
    "compute.instance_profile": instance_profile,
    "compute.attached_to": volume_attachment,
    "autoscaling.uses_launch_template": group_template,
    "autoscaling.registers_with": group_target,
    "autoscaling.in_subnets_exactly": group_subnets,
    "rds.in_subnet_group": database_network,
    "rds.subnets_exactly": subnet_group_subnets,
    "rds.with_security_group": database_group,
    "rds.security_groups_exactly": database_groups_exactly,
    "cloudtrail.to_bucket": trail_bucket,
    "route53.private": private_zone,
    "iam.has_managed_policy": managed_policy,
    "iam.managed_policies_exactly": managed_policies,
    "iam.in_group": user_group,
    "iam.holds_role": profile_role,
    "apigateway.route_to_function": http_api_route,
    "apigateway.method_to_function": rest_method,
    "cloudfront.origin": distribution_origin,
    "s3.grants_public_read": bucket_policy,
    "ecs.container_image": container_image,
    "ecs.runs": service_revision,
    "ecs.in_cluster": service_cluster,
    "ecs.logs_to": task_logs,
    "ecs.security_groups_exactly": service_groups_exactly,
}


SPAWNS = {"secretsmanager.rotated_by"}  # moto runs the rotation function: it probes for docker in a shell


@pytest.mark.parametrize(
    "name", [pytest.param(name, marks=[pytest.mark.process] if name in SPAWNS else []) for name in CASES]
)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_the_same_resource_passes_in_every_spelling_and_another_fails(aws_session, cases, name: str, data) -> None:
    case = cases(name)
    resource = data.draw(st.sampled_from(case.judged), label="the resource, as the learner spelt its reference")
    right = data.draw(st.sampled_from(case.same), label="the expected reference, spelt")
    assert holds(aws_session, case.requirement(right), resource), f"{name} should accept {right!r}"
    wrong = data.draw(st.sampled_from(case.other), label="another resource's reference, spelt")
    assert not holds(aws_session, case.requirement(wrong), resource), f"{name} should refuse {wrong!r}"
    for elsewhere in case.fails_too:
        assert not holds(aws_session, case.requirement(right), elsewhere), f"{name} should refuse {elsewhere!r}"


def reference_requirements() -> set[str]:
    """The kit's public requirements that read a reference through harness.kit.refs (its spaces, refers...)."""
    found = set()
    for module in pkgutil.iter_modules(kit.__path__):
        namespace = importlib.import_module(f"harness.kit.{module.name}")
        for name, function in vars(namespace).items():
            if name.startswith("_") or not inspect.isfunction(function) or function.__module__ != namespace.__name__:
                continue
            function = inspect.unwrap(function)
            if function.__annotations__.get("return") != "Requirement":
                continue
            if re.search(r"\brefs\.|_REFERENCE\b", inspect.getsource(function)):
                found.add(f"{module.name}.{name}")
    return found


def test_every_requirement_that_reads_a_reference_has_a_case() -> None:
    cased = {name.split(" ")[0] for name in CASES}
    assert reference_requirements() - cased == set()
    assert {"kms.points_to", "ecs.runs", "ecs.logs_to", "ec2.nat_in_subnet"} <= reference_requirements()


@pytest.fixture
def cases(aws_session) -> Callable[[str], Case]:
    """Each case built once per test (Hypothesis draws spellings, the resources stay)."""
    built: dict[str, Case] = {}

    def case(name: str) -> Case:
        if name not in built:
            built[name] = CASES[name](aws_session)
        return built[name]

    return case
