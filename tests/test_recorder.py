"""The event recorder against a real moto server: what a session creates becomes `{type, id}` events."""

from __future__ import annotations

import json

import boto3
import pytest
from botocore.exceptions import ClientError

from harness.recorder import RULES, EventRecorder

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
    assert {e["type"] for e in account.recorder.events} == {rule.type for rule in RULES.values()}


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
