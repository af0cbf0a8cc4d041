"""Secrets through allowed reads (issue 25), against a moto server holding planted ones: each read a lab needs
for its settings answers with the secret blanked (JSON and XML protocols alike, at any depth), reads that ask
for secrets or whose whole answer is one are refused before they are sent, and the secret appears neither in
what the module gets nor in what the gateway records."""

from __future__ import annotations

import base64
import io
import json
import time
import uuid
import zipfile
from collections.abc import Iterator

import pytest
from botocore.exceptions import ClientError

from harness.core.account import Account
from harness.core.readonly import WriteRefused
from harness.inside.link import GatewayLink
from harness.inside.session import GatewaySession
from harness.sandbox.gateway import Gateway
from harness.sandbox.redact import MARKER
from harness.store.recording import RecordingTap
from tests.conftest import REGION, MotoAccount

SECRET = f"planted-{uuid.uuid4().hex}"


@pytest.fixture
def recorded(gateway: Gateway, sandbox: Account) -> Iterator[tuple[GatewaySession, RecordingTap]]:
    """A module's session through the gateway, every exchange recorded; the secret in none of them after."""
    tap = RecordingTap()
    token = gateway.open(sandbox, tap)
    link = GatewayLink()
    link.attach(gateway.socket_path, token)
    yield GatewaySession(link, REGION), tap
    log = gateway.finish(token)
    assert SECRET not in json.dumps(tap.exchanges), "a secret was recorded"
    assert SECRET not in json.dumps([op.model_dump() for op in log]), "a secret reached the log"


def test_a_user_pool_clients_settings_without_its_secret(recorded: tuple[GatewaySession, RecordingTap],
                                                         aws: MotoAccount) -> None:  # fmt: skip
    session, _ = recorded
    cognito = aws.client("cognito-idp")
    pool = cognito.create_user_pool(PoolName="learners")["UserPool"]["Id"]
    client = cognito.create_user_pool_client(
        UserPoolId=pool, ClientName="web", GenerateSecret=True, ExplicitAuthFlows=["ALLOW_REFRESH_TOKEN_AUTH"]
    )["UserPoolClient"]
    seen = session.client("cognito-idp").describe_user_pool_client(UserPoolId=pool, ClientId=client["ClientId"])
    settings = seen["UserPoolClient"]
    assert settings["ClientName"] == "web" and settings["ExplicitAuthFlows"] == ["ALLOW_REFRESH_TOKEN_AUTH"]
    assert settings["ClientSecret"] == MARKER != client["ClientSecret"]
    assert client["ClientSecret"] not in json.dumps(seen, default=str)


def test_environment_variables_keep_their_settings_not_their_secrets(recorded: tuple[GatewaySession, RecordingTap],
                                                                 aws: MotoAccount) -> None:  # fmt: skip
    session, _ = recorded
    role = aws.client("iam").create_role(RoleName="fn", AssumeRolePolicyDocument="{}")["Role"]["Arn"]
    code = io.BytesIO()
    with zipfile.ZipFile(code, "w") as archive:
        archive.writestr("index.py", "def handler(event, context): return 1\n")
    aws.client("lambda").create_function(
        FunctionName="fn", Runtime="python3.12", Role=role, Handler="index.handler",
        Code={"ZipFile": code.getvalue()}, Environment={"Variables": {"TABLE": "orders", "DB_PASSWORD": SECRET}},
    )  # fmt: skip
    lambda_ = session.client("lambda")
    function = lambda_.get_function(FunctionName="fn")
    assert function["Code"]["Location"] == MARKER  # a presigned URL: whoever holds it downloads the code
    for variables in (
        function["Configuration"]["Environment"]["Variables"],
        lambda_.get_function_configuration(FunctionName="fn")["Environment"]["Variables"],
        lambda_.list_functions()["Functions"][0]["Environment"]["Variables"],
    ):
        assert variables == {"TABLE": "orders", "DB_PASSWORD": MARKER}  # the setting a lab checks stays

    ecs = aws.client("ecs")
    ecs.register_task_definition(family="web", containerDefinitions=[
        {"name": "app", "image": "app:1", "memory": 128, "environment": [{"name": "DB_PASSWORD", "value": SECRET}]},
    ])  # fmt: skip
    container = session.client("ecs").describe_task_definition(taskDefinition="web")["taskDefinition"]
    assert container["containerDefinitions"][0]["environment"] == [{"name": "DB_PASSWORD", "value": MARKER}]
    assert container["containerDefinitions"][0]["image"] == "app:1"


def test_a_password_in_a_map_in_a_list(recorded: tuple[GatewaySession, RecordingTap], aws: MotoAccount) -> None:
    session, _ = recorded
    properties = {"USERNAME": "admin", "PASSWORD": SECRET, "JDBC_CONNECTION_URL": "jdbc:mysql://db:3306/x"}
    aws.client("glue").create_connection(
        ConnectionInput={"Name": "db", "ConnectionType": "JDBC", "ConnectionProperties": properties}
    )
    glue = session.client("glue")
    listed = glue.get_connections()["ConnectionList"][0]
    assert listed["Name"] == "db"
    assert listed["ConnectionProperties"] == {**properties, "PASSWORD": MARKER}  # the settings stay
    assert glue.get_connection(Name="db")["Connection"]["ConnectionProperties"]["PASSWORD"] == MARKER


def test_xml_answers_lose_their_secrets_too(recorded: tuple[GatewaySession, RecordingTap], aws: MotoAccount) -> None:
    session, tap = recorded
    user_data = base64.b64encode(f"#!/bin/sh\nexport PASSWORD={SECRET}\n".encode()).decode()
    aws.client("ec2").create_launch_template(
        LaunchTemplateName="web", LaunchTemplateData={"InstanceType": "t3.micro", "UserData": user_data}
    )
    version = session.client("ec2").describe_launch_template_versions(LaunchTemplateName="web")
    data = version["LaunchTemplateVersions"][0]["LaunchTemplateData"]
    assert data["InstanceType"] == "t3.micro" and data["UserData"] == MARKER

    aws.client("iam").create_virtual_mfa_device(VirtualMFADeviceName="root-mfa")
    device = session.client("iam").list_virtual_mfa_devices()["VirtualMFADevices"][0]
    assert device["SerialNumber"].endswith("root-mfa")
    assert device["Base32StringSeed"] == device["QRCodePNG"] == MARKER.encode()
    assert [exchange["operation"] for exchange in tap.exchanges] == ["DescribeLaunchTemplateVersions",
                                                                     "ListVirtualMFADevices"]  # fmt: skip


def test_a_vpn_connection_without_its_tunnels_keys(recorded: tuple[GatewaySession, RecordingTap],
                                                   aws: MotoAccount) -> None:  # fmt: skip
    """Found by reading the members botocore marks sensitive that no rule blanked (tests/core/test_readonly_review):
    the customer gateway's configuration, an XML document holding each tunnel's pre-shared key."""
    session, _ = recorded
    ec2 = aws.client("ec2")
    customer = ec2.create_customer_gateway(Type="ipsec.1", PublicIp="198.51.100.7", BgpAsn=65000)
    vpn_gateway = ec2.create_vpn_gateway(Type="ipsec.1")["VpnGateway"]["VpnGatewayId"]
    ec2.create_vpn_connection(
        Type="ipsec.1", CustomerGatewayId=customer["CustomerGateway"]["CustomerGatewayId"], VpnGatewayId=vpn_gateway
    )
    assert "<pre_shared_key>" in ec2.describe_vpn_connections()["VpnConnections"][0]["CustomerGatewayConfiguration"]
    seen = session.client("ec2").describe_vpn_connections()["VpnConnections"][0]
    assert seen["VpnGatewayId"] == vpn_gateway and seen["Type"] == "ipsec.1"  # the settings a lab checks
    assert seen["CustomerGatewayConfiguration"] == MARKER


def test_a_parameter_that_asks_for_secrets_is_refused(recorded: tuple[GatewaySession, RecordingTap],
                                                      aws: MotoAccount) -> None:  # fmt: skip
    session, _ = recorded
    aws.client("ssm").put_parameter(Name="db-host", Value="db.internal", Type="String")
    ssm = session.client("ssm")
    # a parameter's history is every value it held, as GetParameter gives the last: refused with it, asked or not
    for decrypted in (True, False):
        with pytest.raises(WriteRefused, match="ssm:GetParameterHistory"):
            ssm.get_parameter_history(Name="db-host", WithDecryption=decrypted)

    aws.client("apigateway").create_api_key(name="partner", value=SECRET, enabled=True)
    apigateway = session.client("apigateway")
    with pytest.raises(ClientError, match="includeValues asks for secrets"):
        apigateway.get_api_keys(includeValues=True)
    assert apigateway.get_api_keys()["items"][0]["name"] == "partner"


@pytest.mark.parametrize(
    ("service", "call", "reason"),
    [
        ("stepfunctions", lambda c: c.get_activity_task(activityArn="arn:aws:states:us-east-1:1:activity:a"),
         "side-effect list"),
        ("cognito-idp", lambda c: c.list_user_pool_client_secrets(UserPoolId="us-east-1_x", ClientId="c"),
         "named for a credential"),
        ("emr-containers", lambda c: c.get_managed_endpoint_session_credentials(
            endpointIdentifier="e", virtualClusterIdentifier="v", executionRoleArn="arn:aws:iam::1:role/r",
            credentialType="TOKEN"), "named for a credential"),
        ("secretsmanager", lambda c: c.get_secret_value(SecretId="x"), "deny list"),
        ("storagegateway", lambda c: c.describe_chap_credentials(
            TargetARN="arn:aws:storagegateway:us-east-1:111122223333:gateway/sgw-12A3456B/target/iqn.1997-05.com.x"),
         "named for a credential"),
        ("ec2", lambda c: c.get_vpn_connection_device_sample_configuration(
            VpnConnectionId="vpn-1", VpnConnectionDeviceTypeId="d"), "deny list"),
        # issue 31: reads that mint a way in, or write, found by scanning every read's documentation
        ("datazone", lambda c: c.get_iam_portal_login_url(domainIdentifier="dzd_1"), "deny list"),
        ("controltower", lambda c: c.list_landing_zones(), "side-effect list"),
        ("iot", lambda c: c.describe_endpoint(endpointType="iot:Data-ATS"), "side-effect list"),
    ],
)  # fmt: skip
def test_reads_whose_point_is_a_secret_never_leave(
    gateway: Gateway, sandbox: Account, service: str, call: object, reason: str
) -> None:
    token = gateway.open(sandbox)
    link = GatewayLink()
    link.attach(gateway.socket_path, token)
    session = GatewaySession(link, REGION)
    session.events.unregister("before-call", session.guard)  # what a hostile module does first
    client = session.client(service)
    with pytest.raises(ClientError, match="evaluation code may only read") as refused:
        call(client)  # type: ignore[operator]
    log = gateway.finish(token)
    assert reason in str(refused.value)
    assert [(op.allowed, op.status, op.refusal) for op in log] == [(False, 403, "read_only")]


def test_secrets_in_bags_no_rule_names_are_blanked_by_their_keys(recorded: tuple[GatewaySession, RecordingTap],
                                                                  aws: MotoAccount) -> None:  # fmt: skip
    """Issue 31: a stage's variables, a target's headers and query, a container's labels, a cluster's configuration,
    a stack's parameters: each credential-named value blanked, each other setting kept."""
    session, _ = recorded
    api = aws.client("apigatewayv2").create_api(Name="web", ProtocolType="HTTP")["ApiId"]
    aws.client("apigatewayv2").create_stage(
        ApiId=api, StageName="prod", StageVariables={"DB_PASSWORD": SECRET, "TABLE": "orders"}
    )
    stage = session.client("apigatewayv2").get_stage(ApiId=api, StageName="prod")
    assert stage["StageVariables"] == {"DB_PASSWORD": MARKER, "TABLE": "orders"}

    events = aws.client("events")
    events.put_rule(Name="tick", ScheduleExpression="rate(5 minutes)")
    events.put_targets(Rule="tick", Targets=[{
        "Id": "t", "Arn": f"arn:aws:sqs:{REGION}:123456789012:q",
        "HttpParameters": {"HeaderParameters": {"x-api-key": SECRET, "x-team": "red"},
                           "QueryStringParameters": {"token": SECRET, "page": "1"}},
    }])  # fmt: skip
    target = session.client("events").list_targets_by_rule(Rule="tick")["Targets"][0]
    assert target["HttpParameters"]["HeaderParameters"] == {"x-api-key": MARKER, "x-team": "red"}
    assert target["HttpParameters"]["QueryStringParameters"] == {"token": MARKER, "page": "1"}

    aws.client("ecs").register_task_definition(family="web", containerDefinitions=[
        {"name": "app", "image": "app:1", "memory": 128, "dockerLabels": {"password": SECRET, "team": "red"}},
    ])  # fmt: skip
    container = session.client("ecs").describe_task_definition(taskDefinition="web")["taskDefinition"]
    assert container["containerDefinitions"][0]["dockerLabels"] == {"password": MARKER, "team": "red"}

    template = {
        "Parameters": {"DBPassword": {"Type": "String", "NoEcho": True}, "Env": {"Type": "String"}},
        "Resources": {"Topic": {"Type": "AWS::SNS::Topic"}},
    }
    aws.client("cloudformation").create_stack(StackName="app", TemplateBody=json.dumps(template), Parameters=[
        {"ParameterKey": "DBPassword", "ParameterValue": SECRET}, {"ParameterKey": "Env", "ParameterValue": "prod"},
    ])  # fmt: skip
    stack = session.client("cloudformation").describe_stacks(StackName="app")["Stacks"][0]
    assert {p["ParameterKey"]: p["ParameterValue"] for p in stack["Parameters"]} == {"DBPassword": MARKER,
                                                                                     "Env": "prod"}  # fmt: skip


def test_secrets_outside_the_model_are_blanked(recorded: tuple[GatewaySession, RecordingTap],
                                               aws: MotoAccount) -> None:  # fmt: skip
    """Issue 31: the emulator answers a connection's API key and password, which botocore's model does not know."""
    session, _ = recorded
    events = aws.client("events")
    events.create_connection(Name="api", AuthorizationType="API_KEY", AuthParameters={
        "ApiKeyAuthParameters": {"ApiKeyName": "x-api-key", "ApiKeyValue": SECRET}})  # fmt: skip
    events.create_connection(Name="basic", AuthorizationType="BASIC", AuthParameters={
        "BasicAuthParameters": {"Username": "learner", "Password": SECRET}})  # fmt: skip
    gateway_events = session.client("events")
    api = gateway_events.describe_connection(Name="api")
    assert api["AuthParameters"]["ApiKeyAuthParameters"]["ApiKeyName"] == "x-api-key"
    basic = gateway_events.describe_connection(Name="basic")
    assert basic["AuthParameters"]["BasicAuthParameters"]["Username"] == "learner"
    assert SECRET not in json.dumps([api, basic], default=str)


def test_an_objects_metadata_named_for_a_credential_is_blanked(recorded: tuple[GatewaySession, RecordingTap],
                                                               aws: MotoAccount) -> None:  # fmt: skip
    """S3 metadata (`x-amz-meta-*` headers) of GetObject and HeadObject, whose bodies stream as they are: a bag of
    variables, every value blanked but those known to be safe (issue 31: `pgpass` said nothing of a password)."""
    session, _ = recorded
    aws.client("s3").create_bucket(Bucket="meta")
    metadata = {
        "password": SECRET,
        "pgpass": SECRET,
        "team": "red",
        "source-url": "https://example.com/a",
        "parts": "3",
    }
    aws.client("s3").put_object(Bucket="meta", Key="k", Body=b"body", Metadata=metadata)
    s3 = session.client("s3")
    kept = {"password": MARKER, "pgpass": MARKER, "team": MARKER, "source-url": "https://example.com/a", "parts": "3"}
    for answer in (s3.head_object(Bucket="meta", Key="k"), s3.get_object(Bucket="meta", Key="k")):
        assert answer["Metadata"] == kept
    assert s3.get_object(Bucket="meta", Key="k")["Body"].read() == b"body"


def test_a_build_projects_variables_stay_behind(recorded: tuple[GatewaySession, RecordingTap],
                                                aws: MotoAccount) -> None:  # fmt: skip
    """Issue 31, the fourth outside attacker: CodeBuild's `PGPASS` reached the answer (a name in one word)."""
    session, _ = recorded
    variables = [{"name": "PGPASS", "value": SECRET}, {"name": "TABLE_NAME", "value": "t"}]
    environment = {"type": "LINUX_CONTAINER", "image": "img", "computeType": "BUILD_GENERAL1_SMALL"}
    aws.client("codebuild").create_project(
        name="build",
        source={"type": "S3", "location": "bucket/src.zip"},
        artifacts={"type": "NO_ARTIFACTS"},
        serviceRole="arn:aws:iam::123456789012:role/build",
        environment={**environment, "environmentVariables": variables},
    )
    projects = session.client("codebuild").batch_get_projects(names=["build"])["projects"]
    assert [v["value"] for v in projects[0]["environment"]["environmentVariables"]] == [MARKER, "t"]


def test_secrets_by_their_shape_in_items_tags_outputs_logs_and_documents(
    recorded: tuple[GatewaySession, RecordingTap], aws: MotoAccount
) -> None:
    """Issue 31's sixth attacker: names and shapes no rule knew, each blanked where the settings beside it stay."""
    session, _ = recorded
    azure = f"DefaultEndpointsProtocol=https;AccountName=acct;AccountKey={SECRET};EndpointSuffix=core.windows.net"
    dynamodb = aws.client("dynamodb")
    dynamodb.create_table(
        TableName="users",
        KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    dynamodb.put_item(TableName="users", Item={"id": {"S": "u1"}, "passcode": {"S": SECRET}, "passenger": {"S": "3"}})
    item = session.client("dynamodb").scan(TableName="users")["Items"][0]
    assert item == {"id": {"S": "u1"}, "passcode": {"S": MARKER}, "passenger": {"S": "3"}}

    s3 = aws.client("s3")
    s3.create_bucket(Bucket="cfg")
    tags = [
        {"Key": "db-passcode", "Value": SECRET},
        {"Key": "storage", "Value": azure},
        {"Key": "team", "Value": "red"},
    ]
    s3.put_bucket_tagging(Bucket="cfg", Tagging={"TagSet": tags})
    seen = {t["Key"]: t["Value"] for t in session.client("s3").get_bucket_tagging(Bucket="cfg")["TagSet"]}
    assert seen == {"db-passcode": MARKER, "storage": MARKER, "team": "red"}

    template = {"Resources": {"Q": {"Type": "AWS::SQS::Queue"}}, "Outputs": {"Conn": {"Value": azure},
                "Queue": {"Value": "q1"}}}  # fmt: skip
    aws.client("cloudformation").create_stack(StackName="app", TemplateBody=json.dumps(template))
    outputs = session.client("cloudformation").describe_stacks(StackName="app")["Stacks"][0]["Outputs"]
    assert {o["OutputKey"]: o["OutputValue"] for o in outputs} == {"Conn": MARKER, "Queue": "q1"}

    logs = aws.client("logs")
    logs.create_log_group(logGroupName="/app")
    logs.create_log_stream(logGroupName="/app", logStreamName="s")
    lines = [f"connecting with password: {SECRET}", "tokenizer: loaded 512 tokens"]
    logs.put_log_events(
        logGroupName="/app",
        logStreamName="s",
        logEvents=[{"timestamp": int(time.time() * 1000) + i, "message": m} for i, m in enumerate(lines)],
    )
    events = session.client("logs").get_log_events(logGroupName="/app", logStreamName="s")["events"]
    assert [e["message"] for e in events] == [MARKER, "tokenizer: loaded 512 tokens"]

    content = "schemaVersion: '2.2'\nmainSteps:\n- action: aws:runShellScript\n  name: s\n  inputs:\n    runCommand:\n"
    aws.client("ssm").create_document(
        Name="setup",
        DocumentType="Command",
        DocumentFormat="YAML",
        Content=content + f"    - mysql -uadmin -p'{SECRET}' -e 'select 1'\n",
    )
    document = session.client("ssm").get_document(Name="setup")["Content"]  # moto answers it as JSON
    assert MARKER in document and "aws:runShellScript" in document


def test_an_objects_text_loses_its_credentials_lines(recorded: tuple[GatewaySession, RecordingTap],
                                                     aws: MotoAccount) -> None:  # fmt: skip
    """A learner's object read by GetObject (issue 31): text has each line holding a credential blanked, the rest and
    binary objects as they are; the stored checksum, which no longer holds, is not relayed for botocore to fail."""
    session, _ = recorded
    s3 = aws.client("s3")
    s3.create_bucket(Bucket="objects")
    env = f"TABLE_NAME=items\nDB_PASSWORD: {SECRET}\nLOG_LEVEL=info\n"
    s3.put_object(Bucket="objects", Key="app.env", Body=env.encode(), ChecksumAlgorithm="CRC32")
    s3.put_object(Bucket="objects", Key="index.html", Body=b"<h1>Hello, passenger</h1>")
    binary = b"\x89PNG\x00" + SECRET.encode()
    s3.put_object(Bucket="objects", Key="logo.png", Body=binary)
    module = session.client("s3")
    body = module.get_object(Bucket="objects", Key="app.env", ChecksumMode="ENABLED")["Body"].read().decode()
    assert body == f"TABLE_NAME=items\n{MARKER}\nLOG_LEVEL=info\n"
    assert module.get_object(Bucket="objects", Key="index.html")["Body"].read() == b"<h1>Hello, passenger</h1>"
    assert module.get_object(Bucket="objects", Key="logo.png")["Body"].read() == binary


def test_a_stack_sets_template_is_blanked(recorded: tuple[GatewaySession, RecordingTap], aws: MotoAccount) -> None:
    """GetTemplate is refused for a template's literal secrets; DescribeStackSet's TemplateBody holds the same
    (issue 31's attack 06): blanked, the stack set's settings kept."""
    session, _ = recorded
    template = f"Resources:\n  Db:\n    Type: AWS::RDS::DBInstance\n    Properties:\n      Engine: x\n# {SECRET}\n"
    aws.client("cloudformation").create_stack_set(StackSetName="base", TemplateBody=template)
    stack_set = session.client("cloudformation").describe_stack_set(StackSetName="base")["StackSet"]
    assert stack_set["StackSetName"] == "base" and stack_set["TemplateBody"] == MARKER
