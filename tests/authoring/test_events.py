"""The event recorder against a real moto server: what a session creates becomes `{type, id}` events."""

from __future__ import annotations

import json
from types import SimpleNamespace

import boto3
import botocore.session
import pytest
from botocore.exceptions import ClientError

from harness.authoring.events import RULES, EventRecorder, aws_form, rule_for

REGION = "us-east-1"
POLICY = json.dumps(
    {
        "Version": "2012-10-17",
        "Statement": [{"Effect": "Allow", "Principal": "*", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::b/*"}],
    }
)


class Account:
    """A recorded session on the moto server and its clients."""

    def __init__(self, moto_url: str) -> None:
        self.session = boto3.Session(region_name=REGION)
        self.recorder = EventRecorder(self.session)
        self.s3 = self.session.client("s3", endpoint_url=moto_url)
        self.ec2 = self.session.client("ec2", endpoint_url=moto_url)
        self.elbv2 = self.session.client("elbv2", endpoint_url=moto_url)


@pytest.fixture
def account(moto_url: str) -> Account:
    return Account(moto_url)


def test_every_creating_operation_becomes_one_event(account: Account) -> None:
    s3, ec2, elbv2 = account.s3, account.ec2, account.elbv2
    s3.create_bucket(Bucket="site-bucket")
    s3.put_bucket_policy(Bucket="site-bucket", Policy=POLICY)
    vpc = ec2.create_vpc(CidrBlock="10.0.0.0/16")["Vpc"]["VpcId"]
    zones = [z["ZoneName"] for z in ec2.describe_availability_zones()["AvailabilityZones"]]
    subnet_a = ec2.create_subnet(VpcId=vpc, CidrBlock="10.0.1.0/24", AvailabilityZone=zones[0])["Subnet"]["SubnetId"]
    subnet_b = ec2.create_subnet(VpcId=vpc, CidrBlock="10.0.2.0/24", AvailabilityZone=zones[1])["Subnet"]["SubnetId"]
    igw = ec2.create_internet_gateway()["InternetGateway"]["InternetGatewayId"]
    route_table = ec2.create_route_table(VpcId=vpc)["RouteTable"]["RouteTableId"]
    group = ec2.create_security_group(GroupName="alb", Description="alb", VpcId=vpc)["GroupId"]
    allocation = ec2.allocate_address(Domain="vpc")["AllocationId"]
    nat = ec2.create_nat_gateway(SubnetId=subnet_a, AllocationId=allocation)["NatGateway"]["NatGatewayId"]
    alb = elbv2.create_load_balancer(Name="web", Subnets=[subnet_a, subnet_b], SecurityGroups=[group])
    alb_arn = alb["LoadBalancers"][0]["LoadBalancerArn"]
    target_group = elbv2.create_target_group(Name="web", Protocol="HTTP", Port=80, VpcId=vpc)
    tg_arn = target_group["TargetGroups"][0]["TargetGroupArn"]
    forward = [{"Type": "forward", "TargetGroupArn": tg_arn}]
    listener = elbv2.create_listener(LoadBalancerArn=alb_arn, Protocol="HTTP", Port=80, DefaultActions=forward)
    listener_arn = listener["Listeners"][0]["ListenerArn"]

    assert account.recorder.events == [
        {"type": "AWS::S3::Bucket", "id": "site-bucket"},
        {"type": "AWS::S3::BucketPolicy", "id": "site-bucket"},
        {"type": "AWS::EC2::VPC", "id": vpc},
        {"type": "AWS::EC2::Subnet", "id": subnet_a},
        {"type": "AWS::EC2::Subnet", "id": subnet_b},
        {"type": "AWS::EC2::InternetGateway", "id": igw},
        {"type": "AWS::EC2::RouteTable", "id": route_table},
        {"type": "AWS::EC2::SecurityGroup", "id": group},
        {"type": "AWS::EC2::EIP", "id": allocation},
        {"type": "AWS::EC2::NatGateway", "id": nat},
        {"type": "AWS::ElasticLoadBalancingV2::LoadBalancer", "id": alb_arn},
        {"type": "AWS::ElasticLoadBalancingV2::TargetGroup", "id": tg_arn},
        {"type": "AWS::ElasticLoadBalancingV2::Listener", "id": listener_arn},
    ]
    web_tier_rules = {rule.type for key, rule in RULES.items() if key[0] in ("s3", "ec2", "elbv2")}
    assert {e["type"] for e in account.recorder.events} == web_tier_rules


def test_failed_calls_and_reads_record_nothing(account: Account) -> None:
    with pytest.raises(ClientError) as error:
        account.ec2.create_subnet(VpcId="vpc-00000000000000000", CidrBlock="10.0.1.0/24")
    assert error.value.response["Error"]["Code"] == "InvalidVpcID.NotFound"
    with pytest.raises(ClientError) as error:
        account.s3.put_bucket_policy(Bucket="never-created", Policy=POLICY)
    assert error.value.response["Error"]["Code"] == "NoSuchBucket"
    account.ec2.describe_vpcs()
    account.s3.list_buckets()
    assert account.recorder.events == []


def test_a_resource_touched_twice_is_recorded_once(account: Account) -> None:
    account.s3.create_bucket(Bucket="site-bucket")
    account.s3.put_bucket_policy(Bucket="site-bucket", Policy=POLICY)
    account.s3.put_bucket_policy(Bucket="site-bucket", Policy=POLICY)
    assert account.recorder.events == [
        {"type": "AWS::S3::Bucket", "id": "site-bucket"},
        {"type": "AWS::S3::BucketPolicy", "id": "site-bucket"},
    ]


def test_start_clears_and_stop_pauses(account: Account) -> None:
    account.s3.create_bucket(Bucket="first-bucket")
    account.recorder.start()
    assert account.recorder.events == []
    account.s3.create_bucket(Bucket="second-bucket")
    account.recorder.stop()
    account.s3.create_bucket(Bucket="third-bucket")
    assert account.recorder.events == [{"type": "AWS::S3::Bucket", "id": "second-bucket"}]
    account.recorder.start()
    account.s3.create_bucket(Bucket="first-bucket")
    assert account.recorder.events == [{"type": "AWS::S3::Bucket", "id": "first-bucket"}]


def test_another_sessions_calls_are_not_recorded(account: Account, aws) -> None:
    aws.client("s3").create_bucket(Bucket="someone-elses")
    assert account.recorder.events == []


def test_any_creating_call_becomes_an_event_with_its_primary_identifier(moto_url: str) -> None:
    """No rule for these: the CloudFormation schemas say which type each call creates and what its id is."""
    session = boto3.Session(region_name=REGION)
    recorder = EventRecorder(session)
    client = lambda service: session.client(service, endpoint_url=moto_url)  # noqa: E731
    queue_url = client("sqs").create_queue(QueueName="orders")["QueueUrl"]
    client("dynamodb").create_table(
        TableName="items",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    client("iam").create_role(RoleName="api-role", AssumeRolePolicyDocument=POLICY)
    client("iam").put_role_policy(RoleName="api-role", PolicyName="inline", PolicyDocument=POLICY)
    topic_arn = client("sns").create_topic(Name="alerts")["TopicArn"]
    client("logs").create_log_group(logGroupName="/aws/lambda/api")
    client("logs").put_retention_policy(logGroupName="/aws/lambda/api", retentionInDays=14)
    client("cloudwatch").put_metric_alarm(
        AlarmName="errors", MetricName="Errors", Namespace="AWS/Lambda", Statistic="Sum",
        Period=60, EvaluationPeriods=1, Threshold=1, ComparisonOperator="GreaterThanOrEqualToThreshold",
    )  # fmt: skip
    api_id = client("apigatewayv2").create_api(Name="api", ProtocolType="HTTP")["ApiId"]
    route_id = client("apigatewayv2").create_route(ApiId=api_id, RouteKey="GET /items")["RouteId"]

    assert queue_url.startswith("http://127.0.0.1:")
    assert recorder.events == [
        {"type": "AWS::SQS::Queue", "id": "https://sqs.us-east-1.amazonaws.com/123456789012/orders"},
        {"type": "AWS::DynamoDB::Table", "id": "items"},
        {"type": "AWS::IAM::Role", "id": "api-role"},
        {"type": "AWS::IAM::RolePolicy", "id": "inline|api-role"},
        {"type": "AWS::SNS::Topic", "id": topic_arn},
        {"type": "AWS::Logs::LogGroup", "id": "/aws/lambda/api"},
        {"type": "AWS::CloudWatch::Alarm", "id": "errors"},
        {"type": "AWS::ApiGatewayV2::Api", "id": api_id},
        {"type": "AWS::ApiGatewayV2::Route", "id": f"{api_id}|{route_id}"},
    ]


def test_a_resource_in_another_region_carries_it(moto_url: str) -> None:
    session = boto3.Session(region_name=REGION)
    recorder = EventRecorder(session)
    session.client("sqs", endpoint_url=moto_url).create_queue(QueueName="here")
    session.client("sqs", endpoint_url=moto_url, region_name="eu-west-1").create_queue(QueueName="there")
    assert recorder.events == [
        {"type": "AWS::SQS::Queue", "id": "https://sqs.us-east-1.amazonaws.com/123456789012/here"},
        {
            "type": "AWS::SQS::Queue",
            "id": "https://sqs.eu-west-1.amazonaws.com/123456789012/there",
            "region": "eu-west-1",
        },
    ]


def test_ids_do_not_depend_on_the_emulators_address() -> None:
    assert aws_form("http://127.0.0.1:5123/123456789012/q", "sqs", "us-east-1") == (
        "https://sqs.us-east-1.amazonaws.com/123456789012/q"
    )
    assert aws_form("http://localhost:4566/000000000000/q", "sqs", "eu-west-1") == (
        "https://sqs.eu-west-1.amazonaws.com/000000000000/q"
    )
    real = "https://sqs.us-east-2.amazonaws.com/123456789012/q"
    assert aws_form(real, "sqs", "us-east-1") == real
    assert aws_form("vpc-0abc", "ec2", "us-east-1") == "vpc-0abc"


def test_overrides_where_the_schema_identifier_is_not_what_the_kit_reads(moto_url: str) -> None:
    session = boto3.Session(region_name=REGION)
    recorder = EventRecorder(session)
    ecs = session.client("ecs", endpoint_url=moto_url)
    ecs.create_cluster(clusterName="web")
    family = ecs.register_task_definition(
        family="app", containerDefinitions=[{"name": "app", "image": "nginx", "memory": 128}]
    )
    arn = family["taskDefinition"]["taskDefinitionArn"]
    service = ecs.create_service(cluster="web", serviceName="api", taskDefinition=arn)["service"]["serviceArn"]
    zone = session.client("route53", endpoint_url=moto_url).create_hosted_zone(Name="example.com", CallerReference="1")
    assert recorder.events == [
        {"type": "AWS::ECS::Cluster", "id": "web"},
        {"type": "AWS::ECS::TaskDefinition", "id": arn},
        {"type": "AWS::ECS::Service", "id": service},
        {"type": "AWS::Route53::HostedZone", "id": zone["HostedZone"]["Id"].removeprefix("/hostedzone/")},
    ]


def test_every_type_the_kit_validates_is_recorded_by_some_call() -> None:
    """A lab on the kit's services needs no rule: each kind's type is what one of its service's calls records."""
    from harness.kit import catalog
    from harness.kit.aws import service_for_type

    botocore_session = botocore.session.get_session()
    recorded: dict[str, set[str]] = {}
    for resource_type in catalog.kinds():
        service = botocore_session.get_service_model(service_for_type(resource_type))
        for operation in service.operation_names:
            rule = rule_for(SimpleNamespace(service_model=service, name=operation))
            if rule is not None:
                recorded.setdefault(rule.type, set()).add(operation)
    missing = [t for t in catalog.kinds() if t not in recorded]
    assert missing == []
    assert "CreateTable" in recorded["AWS::DynamoDB::Table"] and "CreateApi" in recorded["AWS::ApiGatewayV2::Api"]
