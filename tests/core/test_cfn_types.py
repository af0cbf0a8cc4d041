"""The CloudFormation type registry, read from cfn-lint's schema files (a layout this test pins)."""

from __future__ import annotations

import json

from harness.core import cfn_types


def test_the_schema_layout_it_reads_is_there() -> None:
    """Fails when cfn-lint moves its files: providers/<region>.json maps type -> hash, resources/<hash>.json."""
    root = cfn_types.schema_dir()
    index = json.loads((root / "providers" / "us-east-1.json").read_text())
    assert len(index) > 1500
    schema = json.loads((root / "resources" / f"{index['AWS::SQS::Queue']}.json").read_text())
    assert schema["typeName"] == "AWS::SQS::Queue"
    assert schema["primaryIdentifier"] == ["/properties/QueueUrl"]
    assert "sqs:CreateQueue" in schema["handlers"]["create"]["permissions"]


def test_primary_identifiers_are_what_ref_returns() -> None:
    expected = {
        "AWS::EC2::VPC": ("VpcId",),
        "AWS::S3::Bucket": ("BucketName",),
        "AWS::SQS::Queue": ("QueueUrl",),
        "AWS::DynamoDB::Table": ("TableName",),
        "AWS::IAM::Role": ("RoleName",),
        "AWS::Lambda::Function": ("FunctionName",),
        "AWS::SNS::Topic": ("TopicArn",),
    }
    for resource_type, identifier in expected.items():
        found = cfn_types.info(resource_type)
        assert found is not None and found.primary_identifier == identifier, resource_type


def test_an_unknown_type_does_not_exist_and_gets_a_did_you_mean() -> None:
    assert cfn_types.exists("AWS::EC2::VPC")
    assert not cfn_types.exists("AWS::EC2::Vpc")
    assert cfn_types.suggest("AWS::EC2::Vpc") == "AWS::EC2::VPC"
    assert cfn_types.suggest("AWS::DynamoDB::Tabel") == "AWS::DynamoDB::Table"
    assert cfn_types.suggest("AWS::Nothing::LikeThis") is None
    assert cfn_types.info("AWS::EC2::Vpc") is None


def test_which_type_a_call_creates() -> None:
    def created(names: set[str], operation: str) -> str | None:
        found = cfn_types.created_by(frozenset(names), frozenset(names), operation)
        return found.type if found else None

    assert created({"sqs"}, "CreateQueue") == "AWS::SQS::Queue"
    assert created({"cloudwatch", "monitoring"}, "PutMetricAlarm") == "AWS::CloudWatch::Alarm"
    assert created({"ec2"}, "RunInstances") == "AWS::EC2::Instance"
    assert created({"iam"}, "PutRolePolicy") == "AWS::IAM::RolePolicy"
    assert created({"iam"}, "CreatePolicy") == "AWS::IAM::ManagedPolicy"
    assert created({"apigatewayv2", "apigateway"}, "CreateRoute") == "AWS::ApiGatewayV2::Route"
    for operation in ("CreateTags", "AttachRolePolicy", "DescribeVpcs", "PutItem", "PutRetentionPolicy"):
        assert created({"ec2", "iam", "dynamodb", "logs"}, operation) is None, operation


def test_the_call_that_makes_a_type_comes_first() -> None:
    """The schema lists permissions in no useful order: a DB instance's lists AddRoleToDBInstance first."""
    first = {
        "AWS::RDS::DBInstance": "rds:CreateDBInstance",
        "AWS::IAM::InstanceProfile": "iam:CreateInstanceProfile",
        "AWS::S3::Bucket": "s3:CreateBucket",
        "AWS::DynamoDB::Table": "dynamodb:CreateTable",
        "AWS::EC2::Instance": "ec2:RunInstances",
        "AWS::ECS::TaskDefinition": "ecs:RegisterTaskDefinition",
        "AWS::CloudWatch::Alarm": "cloudwatch:PutMetricAlarm",
        "AWS::EC2::EIP": "ec2:AllocateAddress",  # names an address, not an EIP
        "AWS::SNS::Subscription": "sns:Subscribe",  # a verb alone
    }
    for resource_type, call in first.items():
        found = cfn_types.info(resource_type)
        assert found is not None and found.creating_calls[0] == call, (resource_type, found)
    rds = cfn_types.info("AWS::RDS::DBInstance")
    assert rds is not None and rds.creating_calls.index("rds:AddRoleToDBInstance") > 0
    kinesis = cfn_types.info("AWS::Kinesis::Stream")
    assert kinesis is not None and kinesis.creating_calls == ("kinesis:CreateStream",)  # AddTagsToStream makes nothing
    api = cfn_types.info("AWS::ApiGateway::RestApi")
    assert api is not None and api.creating_calls == ()  # its schema lists HTTP verbs


def test_the_index_is_read_lazily() -> None:
    """Asking about one type reads the index and that type's schema, not all ~1,850 schemas."""
    cfn_types.info.cache_clear()
    cfn_types.info("AWS::SNS::Topic")
    assert cfn_types.info.cache_info().currsize == 1
