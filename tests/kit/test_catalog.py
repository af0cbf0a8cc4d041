"""The kit's Kind registry: every kind under its CloudFormation type, importable by the scaffold, and each one
reading a resource that does not exist as 'not found' (a fail for the learner), never as an AWS error."""

from __future__ import annotations

import pytest

from harness.kit import catalog
from harness.kit.aws import fetch_or_none
from harness.kit.kinds import Kind, register
from tests.kit.conftest import kit_writes

ACCOUNT = "123456789012"
ELB = f"arn:aws:elasticloadbalancing:us-east-1:{ACCOUNT}"
# An id of the right shape for each type, naming nothing that exists.
MISSING_IDS = {
    "AWS::ApiGateway::Authorizer": "abc123|nosuch",
    "AWS::ApiGateway::Method": "abc123|nosuch|GET",
    "AWS::ApiGateway::RestApi": "abc123",
    "AWS::ApiGateway::Stage": "abc123|prod",
    "AWS::ApiGatewayV2::Api": "abc123",
    "AWS::AutoScaling::AutoScalingGroup": "no-such-group",
    "AWS::CloudFront::Distribution": "E2EXAMPLE",
    "AWS::CloudFront::OriginAccessControl": "E2NOSUCHCONTROL",
    "AWS::CloudTrail::Trail": "no-such-trail",
    "AWS::CloudWatch::Alarm": "no-such-alarm",
    "AWS::Cognito::UserPool": "us-east-1_NoSuchPool",
    "AWS::Cognito::UserPoolClient": "us-east-1_NoSuchPool|1example23456789",
    "AWS::DynamoDB::Table": "no-such-table",
    "AWS::EC2::EIP": "eipalloc-0123456789abcdef0",
    "AWS::EC2::Instance": "i-0123456789abcdef0",
    "AWS::EC2::InternetGateway": "igw-0123456789abcdef0",
    "AWS::EC2::LaunchTemplate": "lt-0123456789abcdef0",
    "AWS::EC2::NatGateway": "nat-0123456789abcdef0",
    "AWS::EC2::RouteTable": "rtb-0123456789abcdef0",
    "AWS::EC2::SecurityGroup": "sg-0123456789abcdef0",
    "AWS::EC2::Subnet": "subnet-0123456789abcdef0",
    "AWS::EC2::VPC": "vpc-0123456789abcdef0",
    "AWS::EC2::VPCEndpoint": "vpce-0123456789abcdef0",
    "AWS::EC2::Volume": "vol-0123456789abcdef0",
    "AWS::ECR::Repository": "no-such-repository",
    "AWS::ECS::Cluster": "no-such-cluster",
    "AWS::ECS::Service": f"arn:aws:ecs:us-east-1:{ACCOUNT}:service/no-cluster/no-service",
    "AWS::ECS::TaskDefinition": "no-such-family:1",
    "AWS::ElasticLoadBalancingV2::Listener": f"{ELB}:listener/app/x/1/2",
    "AWS::ElasticLoadBalancingV2::LoadBalancer": f"{ELB}:loadbalancer/app/x/1",
    "AWS::ElasticLoadBalancingV2::TargetGroup": f"{ELB}:targetgroup/x/1",
    "AWS::Events::EventBus": "no-such-bus",
    "AWS::Events::Rule": "no-such-rule",
    "AWS::IAM::Group": "no-such-group",
    "AWS::IAM::InstanceProfile": "no-such-profile",
    "AWS::IAM::ManagedPolicy": f"arn:aws:iam::{ACCOUNT}:policy/no-such-policy",
    "AWS::IAM::Role": "no-such-role",
    "AWS::IAM::User": "no-such-user",
    "AWS::KMS::Alias": "alias/no-such-alias",
    "AWS::KMS::Key": "11111111-2222-3333-4444-555555555555",
    "AWS::Lambda::EventSourceMapping": "11111111-2222-3333-4444-555555555555",
    "AWS::Lambda::Function": "no-such-function",
    "AWS::Logs::LogGroup": "/no/such/group",
    "AWS::RDS::DBInstance": "no-such-db",
    "AWS::RDS::DBSubnetGroup": "no-such-subnet-group",
    "AWS::Route53::HostedZone": "Z0123456789NOSUCH",
    "AWS::Route53::RecordSet": "www.no-such-zone.example.com",
    "AWS::S3::Bucket": "no-such-bucket-kit",
    "AWS::S3::BucketPolicy": "no-such-bucket-kit",
    "AWS::SNS::Subscription": f"arn:aws:sns:us-east-1:{ACCOUNT}:no-topic:11111111-2222-3333-4444-555555555555",
    "AWS::SNS::Topic": f"arn:aws:sns:us-east-1:{ACCOUNT}:no-such-topic",
    "AWS::SQS::Queue": f"https://sqs.us-east-1.amazonaws.com/{ACCOUNT}/no-such-queue",
    "AWS::SSM::Parameter": "/no/such/parameter",
    "AWS::StepFunctions::StateMachine": f"arn:aws:states:us-east-1:{ACCOUNT}:stateMachine:no-such-machine",
    "AWS::SecretsManager::Secret": f"arn:aws:secretsmanager:us-east-1:{ACCOUNT}:secret:no-such-AbCdEf",
}


def test_every_kind_is_registered_under_a_cloudformation_type() -> None:
    kinds = catalog.kinds()
    assert sorted(kinds) == sorted(MISSING_IDS)
    assert all(kind.type == type_name for type_name, kind in kinds.items())


@pytest.mark.parametrize("type_name", sorted(MISSING_IDS))
def test_the_scaffold_can_name_each_kind(type_name: str) -> None:
    module, attribute = catalog.reference(type_name)  # type: ignore[misc]
    assert getattr(__import__(f"harness.kit.{module}", fromlist=[attribute]), attribute) is catalog.kind_for(type_name)


def test_an_unknown_type_has_no_kind() -> None:
    assert catalog.kind_for("AWS::Nothing::Here") is None
    assert catalog.reference("AWS::Nothing::Here") is None


def test_a_type_takes_one_kind() -> None:
    table = catalog.kind_for("AWS::DynamoDB::Table")
    with pytest.raises(ValueError, match="AWS::DynamoDB::Table already has a Kind"):
        register(Kind("AWS::DynamoDB::Table", "other table", table.fetch))  # type: ignore[union-attr]


@pytest.mark.parametrize("type_name", sorted(MISSING_IDS))
def test_a_missing_resource_is_not_found(aws_session, type_name: str) -> None:
    kind = catalog.kind_for(type_name)
    assert kind is not None
    assert fetch_or_none(lambda: kind.fetch(aws_session, MISSING_IDS[type_name])) is None


def test_a_write_from_kit_code_would_be_noticed(aws_session) -> None:
    """The guard check on every kit test is not vacuous: a write made under a kit frame is noted."""
    fetch_or_none(lambda: aws_session.client("sqs").create_queue(QueueName="made-under-the-kit"))
    assert kit_writes == ["sqs:CreateQueue"]
    del kit_writes[:]
