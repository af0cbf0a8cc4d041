"""The event recorder against a real moto server: what a session creates becomes `{type, id}` events."""

from __future__ import annotations

import json
from types import SimpleNamespace

import boto3
import botocore.session
import pytest
from botocore.exceptions import ClientError

from harness.authoring.events import ALSO, RULES, EventRecorder, aws_form, rule_for

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
    for (_, operation), made in ALSO.items():  # what a call makes besides its own resource (a change batch's records)
        for rule in made:
            recorded.setdefault(rule.type, set()).add(operation)
    missing = [t for t in catalog.kinds() if t not in recorded]
    assert missing == []
    assert "CreateTable" in recorded["AWS::DynamoDB::Table"] and "CreateApi" in recorded["AWS::ApiGatewayV2::Api"]


def test_cognito_api_gateway_and_what_else_a_call_makes_are_recorded(moto_url: str) -> None:
    """Types whose service and schema names differ (cognito-idp makes AWS::Cognito::*), ids API Gateway answers as
    `id`, and the resources a call makes besides its own: a deployment's stage, a change batch's records, a route
    table association."""
    session = boto3.Session(region_name=REGION)
    recorder = EventRecorder(session)
    client = lambda service: session.client(service, endpoint_url=moto_url)  # noqa: E731
    cognito, apigateway, ec2 = client("cognito-idp"), client("apigateway"), client("ec2")
    pool = cognito.create_user_pool(PoolName="users")["UserPool"]["Id"]
    app = cognito.create_user_pool_client(UserPoolId=pool, ClientName="web")["UserPoolClient"]["ClientId"]
    api = apigateway.create_rest_api(name="orders")["id"]
    root = apigateway.get_resources(restApiId=api)["items"][0]["id"]
    resource = apigateway.create_resource(restApiId=api, parentId=root, pathPart="order")["id"]
    apigateway.put_method(restApiId=api, resourceId=resource, httpMethod="GET", authorizationType="NONE")
    apigateway.put_integration(restApiId=api, resourceId=resource, httpMethod="GET", type="MOCK")
    deployment = apigateway.create_deployment(restApiId=api, stageName="prod")["id"]
    zone = client("route53").create_hosted_zone(Name="example.com", CallerReference="z")["HostedZone"]["Id"]
    zone_id = zone.removeprefix("/hostedzone/")
    record = {"Name": "www.example.com.", "Type": "A", "TTL": 60, "ResourceRecords": [{"Value": "192.0.2.1"}]}
    client("route53").change_resource_record_sets(
        HostedZoneId=zone, ChangeBatch={"Changes": [{"Action": "CREATE", "ResourceRecordSet": record}]}
    )
    vpc = ec2.create_vpc(CidrBlock="10.0.0.0/16")["Vpc"]["VpcId"]
    subnet = ec2.create_subnet(VpcId=vpc, CidrBlock="10.0.1.0/24")["Subnet"]["SubnetId"]
    table = ec2.create_route_table(VpcId=vpc)["RouteTable"]["RouteTableId"]
    association = ec2.associate_route_table(RouteTableId=table, SubnetId=subnet)["AssociationId"]
    endpoint = ec2.create_vpc_endpoint(
        VpcId=vpc, ServiceName="com.amazonaws.us-east-1.s3", VpcEndpointType="Gateway", RouteTableIds=[table]
    )["VpcEndpoint"]["VpcEndpointId"]

    assert recorder.events == [
        {"type": "AWS::Cognito::UserPool", "id": pool},
        {"type": "AWS::Cognito::UserPoolClient", "id": f"{pool}|{app}"},
        {"type": "AWS::ApiGateway::RestApi", "id": api},
        {"type": "AWS::ApiGateway::Resource", "id": f"{api}|{resource}"},
        {"type": "AWS::ApiGateway::Method", "id": f"{api}|{resource}|GET"},
        {"type": "AWS::ApiGateway::Deployment", "id": f"{deployment}|{api}"},
        {"type": "AWS::ApiGateway::Stage", "id": f"{api}|prod"},
        {"type": "AWS::Route53::HostedZone", "id": zone_id},
        {"type": "AWS::Route53::RecordSet", "id": f"www.example.com|{zone_id}|A"},
        {"type": "AWS::EC2::VPC", "id": vpc},
        {"type": "AWS::EC2::Subnet", "id": subnet},
        {"type": "AWS::EC2::RouteTable", "id": table},
        {"type": "AWS::EC2::SubnetRouteTableAssociation", "id": association},
        {"type": "AWS::EC2::VPCEndpoint", "id": endpoint},
    ]


RECORDED_WITHOUT_AN_ID = frozenset({
    "AWS::AutoScaling::ScheduledAction",
    "AWS::CloudFront::FieldLevelEncryptionConfig",
    "AWS::CloudFront::FieldLevelEncryptionProfile",
    "AWS::CloudWatch::AlarmMuteRule",
    "AWS::CloudWatch::InsightRule",
    "AWS::DynamoDB::GlobalTable",
    "AWS::EC2::ApplicationStatusCheck",
    "AWS::EC2::ClientVpnRoute",
    "AWS::EC2::FlowLog",
    "AWS::EC2::FpgaImage",
    "AWS::EC2::Host",
    "AWS::EC2::IPAMAllocation",
    "AWS::EC2::IPv4Pool",
    "AWS::EC2::InstanceEventWindow",
    "AWS::EC2::NetworkAclEntry",
    "AWS::EC2::Route",
    "AWS::EC2::TransitGatewayAttachment",
    "AWS::EC2::TransitGatewayMulticastGroupMember",
    "AWS::EC2::TransitGatewayMulticastGroupSource",
    "AWS::EC2::TransitGatewayVpcAttachment",
    "AWS::EC2::VPCCidrBlock",
    "AWS::EC2::VPCEndpointConnectionNotification",
    "AWS::EC2::VPCEndpointService",
    "AWS::ECR::RegistryScanningConfiguration",
    "AWS::ECR::SigningConfiguration",
    "AWS::ECS::ClusterCapacityProviderAssociations",
    "AWS::ElasticLoadBalancing::LoadBalancer",
    "AWS::ElasticLoadBalancingV2::TrustStoreRevocation",
    "AWS::Events::EventBusPolicy",
    "AWS::IAM::OIDCProvider",
    "AWS::IAM::Policy",
    "AWS::KMS::ReplicaKey",
    "AWS::Lambda::Permission",
    "AWS::Lambda::Url",
    "AWS::Lambda::Version",
    "AWS::Logs::StorageTierPolicy",
    "AWS::RDS::DBProxyTargetGroup",
    "AWS::RDS::Deployment",
    "AWS::Route53::DelegationSet",
    "AWS::Route53::QueryLoggingConfig",
    "AWS::Route53::TrafficPolicy",
    "AWS::Route53::TrafficPolicyInstance",
    "AWS::SecretsManager::ResourcePolicy",
    "AWS::SecretsManager::SecretTargetAttachment",
    "AWS::SSM::CloudConnector",
    "AWS::SSM::MaintenanceWindowTarget",
    "AWS::SSM::MaintenanceWindowTask",
})  # fmt: skip
"""Types of the kit's services whose creating call (as the schema names it) answers with no identifier the schema
names, or first makes another type (`CreateTable` a table before a global table): the schema's id is one Cloud
Control composes. None of them is a type a lab's step reads today; each is listed so that a change shows."""


def _recorded(model, operation_name: str) -> list[dict]:
    """What a call records, given a request and an answer of the shapes botocore's model gives (each string its
    member's name)."""
    from botocore.utils import ArgumentGenerator

    from harness.authoring.events import events_for

    generate = ArgumentGenerator(use_member_names=True).generate_skeleton
    operation = model.operation_model(operation_name)
    params = generate(operation.input_shape) if operation.input_shape else {}
    answer = generate(operation.output_shape) if operation.output_shape else {}
    return events_for(operation, params, answer, REGION)


def test_each_creating_call_the_schemas_name_records_its_type_and_id() -> None:
    """For every type of every service the kit covers, the call its schema says creates it records that type and
    an id with every part found."""
    from harness.core import cfn_types
    from harness.kit import catalog

    botocore_session = botocore.session.get_session()
    checked, missed = 0, set()
    for service_name in sorted({kind.service_name for kind in catalog.kinds().values()}):
        model = botocore_session.get_service_model(service_name)
        prefixes = {service_name, model.endpoint_prefix, model.metadata.get("signingName", model.endpoint_prefix)}
        names = prefixes | {model.service_id.hyphenize()}
        for resource_type in cfn_types.types_in(names | {name.split("-")[0] for name in names}):
            calls = [c.partition(":") for c in cfn_types.info(resource_type).creating_calls]
            calls = [op for prefix, _, op in calls if prefix in prefixes and op in model.operation_names]
            if not calls:
                continue
            made = _recorded(model, calls[0])
            if not made or made[0]["type"] != resource_type:
                missed.add(resource_type)
                continue
            checked += 1
            assert all(part for part in made[0]["id"].split("|")), (resource_type, made)
    assert missed == RECORDED_WITHOUT_AN_ID
    assert checked >= 150


@pytest.mark.parametrize(
    ("operation", "resource_type", "resource_id"),
    [
        ("CreateRestApi", "AWS::ApiGateway::RestApi", "id"),
        ("CreateResource", "AWS::ApiGateway::Resource", "restApiId|id"),
        ("PutMethod", "AWS::ApiGateway::Method", "restApiId|resourceId|httpMethod"),
        ("CreateAuthorizer", "AWS::ApiGateway::Authorizer", "restApiId|id"),
        ("CreateDeployment", "AWS::ApiGateway::Deployment", "id|restApiId"),
        ("CreateStage", "AWS::ApiGateway::Stage", "restApiId|stageName"),
        ("CreateApiKey", "AWS::ApiGateway::ApiKey", "id"),
        ("CreateUsagePlan", "AWS::ApiGateway::UsagePlan", "id"),
    ],
)
def test_api_gateway_calls_record_their_types(operation: str, resource_type: str, resource_id: str) -> None:
    """API Gateway's schemas name HTTP verbs, not calls: each call's noun names its type, and its id is found."""
    model = botocore.session.get_session().get_service_model("apigateway")
    assert _recorded(model, operation)[0] == {"type": resource_type, "id": resource_id}
