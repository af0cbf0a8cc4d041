"""The CloudFormation type registry, read from cfn-lint's schema files (a layout this test pins)."""

from __future__ import annotations

import json
import re

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


def test_the_index_is_read_lazily() -> None:
    """Asking about one type reads the index and that type's schema, not all ~1,850 schemas."""
    cfn_types.info.cache_clear()
    cfn_types.info("AWS::SNS::Topic")
    assert cfn_types.info.cache_info().currsize == 1


def test_the_creating_call_of_a_type_is_the_one_that_makes_it() -> None:
    """What `stepeval new` names as the call to make: the type's own creating call, never one that associates it
    with something else (the DB instance's create handler lists rds:AddRoleToDBInstance first)."""
    expected = {
        "AWS::RDS::DBInstance": "rds:CreateDBInstance",
        "AWS::RDS::DBCluster": "rds:CreateDBCluster",
        "AWS::Neptune::DBCluster": "rds:CreateDBCluster",
        "AWS::IAM::InstanceProfile": "iam:CreateInstanceProfile",
        "AWS::ElasticLoadBalancing::LoadBalancer": "elasticloadbalancing:CreateLoadBalancer",
        "AWS::SSO::PermissionSet": "sso:CreatePermissionSet",
        "AWS::SES::Template": "ses:CreateTemplate",
        "AWS::CertificateManager::Certificate": "acm:RequestCertificate",
        "AWS::CloudWatch::Alarm": "cloudwatch:PutMetricAlarm",
        "AWS::IAM::ManagedPolicy": "iam:CreatePolicy",
        "AWS::EC2::Instance": "ec2:RunInstances",
        "AWS::EC2::EIP": "ec2:AllocateAddress",
        "AWS::ECS::TaskDefinition": "ecs:RegisterTaskDefinition",
        "AWS::SSM::Parameter": "ssm:PutParameter",
        "AWS::Lambda::Url": "lambda:CreateFunctionUrlConfig",
        "AWS::NetworkManager::SiteToSiteVpnAttachment": "networkmanager:CreateSiteToSiteVpnAttachment",
    }
    for resource_type, call in expected.items():
        found = cfn_types.info(resource_type)
        assert found is not None and found.creating_calls[:1] == (call,), (resource_type, found)


def test_every_type_with_a_create_call_of_its_name_gets_that_one_first() -> None:
    """Over every type of the index: when the create handler lists `<service>:Create<Name>`, that is the first
    creating call; and no creating call of any type relates two resources (`...To...`) unless that is its name."""
    exact = 0
    for resource_type in cfn_types.types_in({t.split("::")[1] for t in cfn_types._index()}):
        found = cfn_types.info(resource_type)
        assert found is not None
        name = resource_type.split("::")[2]
        calls = [c.split(":", 1)[1] for c in found.creating_calls]
        if any(p.split(":", 1)[1] == f"create{name.lower()}" for p in found.create_permissions if ":" in p):
            exact += 1
            assert calls and calls[0].lower() == f"create{name.lower()}", (resource_type, calls)
        for call in calls:
            related = re.search(r"[a-z0-9](To|For|From|With|On)[A-Z]", call.removeprefix("Create"))
            assert related is None or name in call, (resource_type, call)
    assert exact > 1000


def test_an_association_call_creates_nothing_of_the_type_it_names() -> None:
    rds = frozenset({"rds"})
    assert cfn_types.created_by(rds, rds, "AddRoleToDBInstance") is None
    created = cfn_types.created_by(rds, rds, "CreateDBInstance")
    assert created is not None and created.type == "AWS::RDS::DBInstance"
