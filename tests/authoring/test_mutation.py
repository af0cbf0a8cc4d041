"""`stepeval mutate`: mutants generated from recorded calls, and a planted permissive evaluator they expose."""

from __future__ import annotations

import json
import subprocess
import threading

import botocore.session
import pytest
from botocore.exceptions import ClientError

from harness.authoring.intercept import Interceptor
from harness.authoring.lanes import moto_lanes
from harness.authoring.mutants import Call, Known, mutants, subject
from harness.authoring.playthrough import ScenarioResult, play_lanes
from harness.authoring.scenarios import Scenario
from harness.core.lab import load_lab
from tests.conftest import LABS, STEPEVAL, MotoAccount, wipe

pytestmark = [pytest.mark.process, pytest.mark.moto]

PERMISSIVE = LABS / "permissive"


def call(service: str, operation: str, params: dict, response: dict | None = None, ordinal: int = 1) -> Call:
    shape = botocore.session.get_session().get_service_model(service).operation_model(operation).input_shape
    return Call(service, operation, ordinal, params, response or {}, shape)


def ids(found) -> list[str]:
    return [m.id for m in found]


def test_a_subnet_gets_another_vpc_a_block_over_a_zone_over_and_a_flag_flipped() -> None:
    create = call(
        "ec2",
        "CreateSubnet",
        {"VpcId": "vpc-0123456789", "CidrBlock": "10.0.1.0/24", "AvailabilityZone": "us-east-1a"},
        {"Subnet": {"SubnetId": "subnet-0abcdef12"}},
    )
    modify = call(
        "ec2", "ModifySubnetAttribute", {"SubnetId": "subnet-0abcdef12", "MapPublicIpOnLaunch": {"Value": True}}
    )
    route = call(
        "ec2",
        "CreateRoute",
        {"RouteTableId": "rtb-0123456789", "DestinationCidrBlock": "0.0.0.0/0", "GatewayId": "igw-0123456789"},
        {"Return": True},
    )
    found = mutants([create, modify, route], ["vpc-0123456789", "vpc-0fedcba987"])
    assert ids(found) == [
        "CreateSubnet VpcId=vpc-0fedcba987",
        "CreateSubnet CidrBlock=10.0.2.0/24",
        "CreateSubnet AvailabilityZone=us-east-1b",
        "ModifySubnetAttribute MapPublicIpOnLaunch=false",
        "CreateRoute DestinationCidrBlock=0.0.0.0/1",
        "omit CreateRoute",
    ]
    flipped = found[3]
    assert flipped.params == {"SubnetId": "subnet-0abcdef12", "MapPublicIpOnLaunch": {"Value": False}}
    assert flipped.change == "`MapPublicIpOnLaunch` false"
    assert subject(modify, [create, modify]) == "subnet 10.0.1.0/24"
    assert found[-1].params is None  # omitted: nothing later needs what it returned
    assert "omit CreateSubnet" not in ids(found)  # the subnet id is used by the next call
    assert "omit ModifySubnetAttribute" not in ids(found)  # its one flag, left out, is the flip or the solve


def test_enum_siblings_ports_and_list_members_come_from_the_botocore_model() -> None:
    listener = call(
        "elbv2",
        "CreateListener",
        {
            "LoadBalancerArn": "arn:aws:elasticloadbalancing:us-east-1:1:loadbalancer/app/a/1",
            "Protocol": "HTTP",
            "Port": 80,
            "DefaultActions": [{"Type": "forward", "TargetGroupArn": "arn:tg"}],
        },
    )
    found = {m.id: m for m in mutants([listener])}
    assert found["CreateListener Protocol=HTTPS"].change == "`Protocol` HTTPS instead of HTTP"
    assert found["CreateListener Port=8080"].params["Port"] == 8080
    extra = next(m for i, m in found.items() if i.startswith("CreateListener DefaultActions+"))
    assert len(extra.params["DefaultActions"]) == 2
    rule = call(
        "ec2",
        "AuthorizeSecurityGroupIngress",
        {
            "GroupId": "sg-0123456789",
            "IpPermissions": [
                {"IpProtocol": "tcp", "FromPort": 80, "ToPort": 80, "IpRanges": [{"CidrIp": "0.0.0.0/0"}]}
            ],
        },
    )
    rule_ids = ids(mutants([rule]))
    assert "AuthorizeSecurityGroupIngress IpPermissions[0].ToPort=81" in rule_ids  # the range one wider
    assert not any("FromPort" in i for i in rule_ids)  # its start left alone: it would say the same
    assert "AuthorizeSecurityGroupIngress IpPermissions[0].IpRanges[0].CidrIp=0.0.0.0/1" in rule_ids
    assert "AuthorizeSecurityGroupIngress IpPermissions+[ToPort=81]" in rule_ids  # an extra rule
    assert not any("IpRanges+" in i for i in rule_ids)  # extra members only at the top of a parameter
    two = call("elbv2", "CreateLoadBalancer", {"Name": "lb", "Subnets": ["subnet-0aaaaaaa1", "subnet-0bbbbbbb2"]})
    known = ["subnet-0aaaaaaa1", "subnet-0bbbbbbb2", "subnet-0ccccccc3", "sg-0aaaaaaa1", "sg-0bbbbbbb2"]
    two_ids = ids(mutants([two], known))
    assert {"CreateLoadBalancer Subnets-[0]", "CreateLoadBalancer Subnets-[1]"} <= set(two_ids)
    assert not any("Subnets[" in i for i in two_ids)  # in a longer list, a swap says what a drop says
    grouped = call("elbv2", "CreateLoadBalancer", {"Name": "lb", "SecurityGroups": ["sg-0aaaaaaa1"]})
    assert "CreateLoadBalancer SecurityGroups[0]=sg-0bbbbbbb2" in ids(mutants([grouped], known))


def test_a_policy_is_widened_and_narrowed_statement_by_statement() -> None:
    policy = {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Effect": "Allow",
                "Principal": "*",
                "Action": ["s3:GetObject", "s3:ListBucket"],
                "Resource": "arn:aws:s3:::site/*",
            }
        ],
    }
    put = call("s3", "PutBucketPolicy", {"Bucket": "site", "Policy": json.dumps(policy)})
    found = {m.id: m for m in mutants([put])}
    widened = json.loads(found["PutBucketPolicy Policy.Statement[0].Action=s3:*"].params["Policy"])
    assert widened["Statement"][0]["Action"] == "s3:*"
    narrowed = json.loads(found["PutBucketPolicy Policy.Statement[0].Resource=narrowed"].params["Policy"])
    assert narrowed["Statement"][0]["Resource"] == "arn:aws:s3:::site/private/*"
    dropped = json.loads(found["PutBucketPolicy Policy.Statement[0].Action-s3:ListBucket"].params["Policy"])
    assert dropped["Statement"][0]["Action"] == ["s3:GetObject"]
    assert "PutBucketPolicy Policy.Statement[0].Principal=account" in found
    added = next(i for i in found if ".Action+" in i)
    more = json.loads(found[added].params["Policy"])["Statement"][0]["Action"]
    assert more[:2] == ["s3:GetObject", "s3:ListBucket"] and more[2].startswith("s3:Get")  # one read too many
    assert "PutBucketPolicy Policy.Statement[0].Resource=*" in found
    assert found["PutBucketPolicy Policy.Statement[0].Action=s3:*"].change == (
        "the policy's Statement[0] Action widened to s3:*"
    )


def test_a_least_privilege_role_policy_gets_one_more_action_of_its_service() -> None:
    document = {
        "Version": "2012-10-17",
        "Statement": [{"Effect": "Allow", "Action": ["dynamodb:PutItem", "dynamodb:Get*"], "Resource": "arn:t"}],
    }
    put = call("iam", "PutRolePolicy", {"RoleName": "r", "PolicyName": "p", "PolicyDocument": json.dumps(document)})
    found = {m.id: m for m in mutants([put])}
    extra = next(i for i in found if ".Action+" in i)
    assert extra == "PutRolePolicy PolicyDocument.Statement[0].Action+dynamodb:BatchExecuteStatement"
    assert found[extra].change == ("the policy's Statement[0] Action with dynamodb:BatchExecuteStatement too")


def test_a_tag_key_is_renamed() -> None:
    tags = call("ec2", "CreateTags", {"Resources": ["vpc-0123456789"], "Tags": [{"Key": "Name", "Value": "web"}]})
    assert "CreateTags Tags[0].Key=Name-x" in ids(mutants([tags]))


KEY = "1234abcd-12ab-34cd-56ef-1234567890ab"
OTHER_KEY = "0987dcba-09fe-87dc-65ba-ba0987654321"
KMS = "arn:aws:kms:us-east-1:123456789012"
TASK = "arn:aws:ecs:us-east-1:123456789012:task-definition/api"


def test_a_value_names_a_resource_by_its_parsed_identity_never_a_substring() -> None:
    known = Known(
        {
            "orders": "AWS::DynamoDB::Table",
            "https://sqs.us-east-1.amazonaws.com/123456789012/orders": "AWS::SQS::Queue",
            KEY: "AWS::KMS::Key",
            "/ecs/app": "AWS::Logs::LogGroup",
            "api-role": "AWS::IAM::Role",
        }
    )
    assert known.named("orders", "sqs") is None  # a queue named orders is not the table orders
    assert known.named("orders", "dynamodb") == "orders"
    assert known.named("http://127.0.0.1:5000/123456789012/orders", "sqs").endswith("/orders")  # the emulator's URL
    assert known.named(f"{KMS}:key/{KEY}", "secretsmanager") == KEY  # an ARN names the resource it ends with
    assert known.named("arn:aws:iam::123456789012:role/api-role", "lambda") == "api-role"
    assert known.named(KEY, "ssm") is None and known.named(KEY, "ssm", across=True) == KEY  # a UUID, anywhere
    assert known.named("/ecs/app", "ecs", across=True) == "/ecs/app"
    assert known.named("orders", "sqs", across=True) is None  # a plain name stays in its service
    assert known.named("/ecs/app-old", "ecs", across=True) is None


def test_a_reference_swaps_for_another_resource_of_its_type_in_the_same_form() -> None:
    """A second KMS key (or the service's AWS managed key), an older task definition revision, another log group,
    another security group: each existing when the call is made, written as the solve wrote the reference."""
    existing = {
        KEY: "AWS::KMS::Key",
        OTHER_KEY: "AWS::KMS::Key",
        f"{TASK}:3": "AWS::ECS::TaskDefinition",
        "sg-0aaaaaaa1": "AWS::EC2::SecurityGroup",
        "sg-0bbbbbbb2": "AWS::EC2::SecurityGroup",
    }
    secret = call("secretsmanager", "CreateSecret", {"Name": "db", "SecretString": "x", "KmsKeyId": f"{KMS}:key/{KEY}"})
    found = ids(mutants([secret], list(existing), existing))
    assert f"CreateSecret KmsKeyId={KMS}:key/{OTHER_KEY}" in found
    assert f"CreateSecret KmsKeyId={KMS}:alias/aws/secretsmanager" in found
    unknown = call("ssm", "PutParameter", {"Name": "/t", "Value": "v", "Type": "SecureString", "KeyId": "alias/x"})
    assert "PutParameter KeyId=alias/aws/ssm" in ids(mutants([unknown]))  # a key the solve does not know of
    network = {"awsvpcConfiguration": {"subnets": ["subnet-0ccccccc3"], "securityGroups": ["sg-0aaaaaaa1"]}}
    service = call(
        "ecs", "CreateService", {"serviceName": "api", "taskDefinition": f"{TASK}:3", "networkConfiguration": network}
    )
    found = ids(mutants([service], list(existing), existing))
    assert f"CreateService taskDefinition={TASK}:2" in found  # an older revision
    assert "CreateService networkConfiguration.awsvpcConfiguration.securityGroups[0]=sg-0bbbbbbb2" in found
    group = call("logs", "CreateLogGroup", {"logGroupName": "/ecs/other"})
    options = {"awslogs-group": "/ecs/app", "awslogs-region": "us-east-1"}
    container = {"name": "api", "image": "nginx", "logConfiguration": {"logDriver": "awslogs", "options": options}}
    register = call("ecs", "RegisterTaskDefinition", {"family": "api", "containerDefinitions": [container]})
    made = {"/ecs/app": "AWS::Logs::LogGroup", "/ecs/other": "AWS::Logs::LogGroup"}
    found = ids(mutants([group, register], [], {"/ecs/app": "AWS::Logs::LogGroup"}, made))
    assert "RegisterTaskDefinition containerDefinitions[0].logConfiguration.options.awslogs-group=/ecs/other" in found
    too_early = ids(mutants([register, group], [], {"/ecs/app": "AWS::Logs::LogGroup"}, made))
    assert not any("awslogs-group=" in i for i in too_early)  # /ecs/other does not exist yet when it is made


def test_an_unconstrained_string_gets_a_plausible_other_value() -> None:
    database = call(
        "rds",
        "CreateDBInstance",
        {
            "DBInstanceIdentifier": "orders",
            "Engine": "postgres",
            "EngineVersion": "16.3",
            "DBInstanceClass": "db.t3.micro",
            "AllocatedStorage": 20,
        },
    )
    found = ids(mutants([database]))
    for expected in ("Engine=mysql", "EngineVersion=15.3", "DBInstanceClass=db.t3.small"):
        assert f"CreateDBInstance {expected}" in found
    task = call("ecs", "RegisterTaskDefinition", {"family": "api", "cpu": "256", "memory": "512"})
    assert {"RegisterTaskDefinition cpu=512", "RegisterTaskDefinition memory=1024"} <= set(ids(mutants([task])))
    assert not any(i.startswith("CreateDBInstance DBInstanceIdentifier") for i in found)  # a name is not a setting


WEAK = LABS / "weak_references"


@pytest.fixture(scope="module")
def weak_run() -> dict:
    done = subprocess.run(
        [STEPEVAL, "mutate", "--lab", str(WEAK), "--json"], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 1, done.stderr
    return {(m["step"], m["id"]): m for m in json.loads(done.stdout)["mutants"]}


def test_weak_reference_checks_are_named_by_surviving_swaps(weak_run: dict) -> None:
    """The planted lab checks "some key", "some security group", "the family": each survivor says so."""
    survived = {key for key, m in weak_run.items() if m["outcome"] == "survived"}
    assert {
        ("02.02", "CreateSecret KmsKeyId=arn:aws:kms:us-east-1:123456789012:alias/aws/secretsmanager"),
        ("02.02", "PutParameter KeyId=alias/aws/ssm"),
        ("03.01", "RegisterTaskDefinition#2 containerDefinitions[0].logConfiguration.options.awslogs-group=/ecs/other"),
        ("03.01", "RegisterTaskDefinition#2 cpu=512"),
        ("03.02", "CreateService taskDefinition=arn:aws:ecs:us-east-1:123456789012:task-definition/api:1"),
    } <= survived
    swapped = [m for (step, i), m in weak_run.items() if step == "03.02" and ".securityGroups[0]=sg-" in i]
    assert [m["outcome"] for m in swapped] == ["survived"]
    assert swapped[0]["sentence"].startswith("03.02 passed with `networkConfiguration.awsvpcConfiguration")


def test_a_queue_named_like_a_table_is_judged_on_its_own(weak_run: dict) -> None:
    """01.01 made the table `orders`, 01.02 the queue `orders` (found by existence only): the queue's mutants built
    another queue, so they survive; before, the table was found in the queue's URL and they counted as invalid."""
    queue = {i: m["outcome"] for (step, i), m in weak_run.items() if step == "01.02"}
    assert queue == {
        "CreateQueue Attributes[VisibilityTimeout]->VisibilityTimeout-x": "survived",
        "CreateQueue Attributes.VisibilityTimeout=120": "survived",
        "omit CreateQueue": "killed",
    }


def test_a_resource_that_cannot_be_described_is_not_known_to_be_the_same() -> None:
    """A description that fails before AWS answers (an address that names no host) is None, never the solve's
    undoing: a fingerprint is taken inside the solve's play."""
    from botocore.exceptions import EndpointConnectionError

    from harness.authoring.fingerprint import _describe
    from harness.kit.kinds import Kind

    def unreachable(session, resource_id):
        raise EndpointConnectionError(endpoint_url="http://123456789012.127.0.0.1:1/")

    assert _describe(None, Kind("AWS::S3::Bucket", "bucket", unreachable), "b") is None


def test_the_clock_is_left_out_of_a_fingerprint_by_whole_words() -> None:
    from harness.authoring.fingerprint import _without_clock

    queue = {"VisibilityTimeout": "60", "ReceiveMessageWaitTimeSeconds": "0", "CreatedTimestamp": "17", "x": 1}
    assert _without_clock(queue) == {"VisibilityTimeout": "60", "ReceiveMessageWaitTimeSeconds": "0", "x": 1}
    assert _without_clock({"registeredAt": "t", "LastModifiedDate": "d", "Format": "f"}) == {"Format": "f"}


@pytest.fixture(scope="module")
def permissive_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[int, dict, str]:
    """`stepeval mutate --json --html` on the planted lab, as a real process: exit code, JSON, HTML report."""
    html = tmp_path_factory.mktemp("mutate") / "report.html"
    done = subprocess.run(
        [STEPEVAL, "mutate", "--lab", str(PERMISSIVE), "--json", "--html", str(html)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    return done.returncode, json.loads(done.stdout), html.read_text(encoding="utf-8")


def test_the_permissive_zone_check_is_named_by_a_surviving_mutant(permissive_run: tuple[int, dict, str]) -> None:
    code, report, html = permissive_run
    assert code == 1
    survivors = {m["id"]: m for m in report["mutants"] if m["outcome"] == "survived"}
    zone = survivors["CreateSubnet#2 AvailabilityZone=us-east-1c"]
    assert (
        zone["sentence"]
        == "02.02 passed with `AvailabilityZone` us-east-1c instead of us-east-1b on subnet 10.0.2.0/24"
    )
    assert '"AvailabilityZone": "us-east-1c"' in zone["call"]
    assert "<span class='tag survived'>survived</span>" in html
    assert "02.02 passed with `AvailabilityZone` us-east-1c instead of us-east-1b on subnet 10.0.2.0/24" in html
    assert "CreateSubnet AvailabilityZone=us-east-1b" in survivors
    outcomes = {m["id"]: m["outcome"] for m in report["mutants"]}
    assert outcomes["ModifySubnetAttribute MapPublicIpOnLaunch=false"] == "killed"
    assert outcomes["CreateSubnet#2 CidrBlock=10.0.3.0/24"] == "killed"


def test_a_permissive_least_privilege_check_is_named_by_the_widened_policy(
    permissive_run: tuple[int, dict, str],
) -> None:
    """03.01 checks only that the role may write its logs (`iam.may`): a policy widened to `logs:*`, to one more
    logs action or to `Resource: *` survives, each named; the narrowed ones are killed."""
    _code, report, _html = permissive_run
    outcomes = {m["id"]: m for m in report["mutants"] if m["step"] == "03.01"}
    widened = outcomes["PutRolePolicy PolicyDocument.Statement[0].Action=logs:*"]
    assert widened["outcome"] == "survived"
    assert widened["sentence"] == (
        "03.01 passed with the policy's Statement[0] Action widened to logs:* on role name items-role"
    )
    assert '\\"Action\\": \\"logs:*\\"' in widened["call"]
    anywhere = outcomes["PutRolePolicy PolicyDocument.Statement[0].Resource=*"]
    assert anywhere["outcome"] == "survived"
    assert anywhere["sentence"].endswith("Resource widened to * on role name items-role")
    assert any(i.startswith("PutRolePolicy PolicyDocument.Statement[0].Action+logs:") for i, m in outcomes.items()
               if m["outcome"] == "survived")  # fmt: skip
    assert outcomes["PutRolePolicy PolicyDocument.Statement[0].Action-logs:PutLogEvents"]["outcome"] == "killed"
    omitted = outcomes["omit CreateRole"]  # answered as sent, not decoded twice (AttributeError: 'dict' ... 'split')
    assert omitted["outcome"] == "invalid"
    assert omitted["reason"].startswith("the emulator refused PutRolePolicy: NoSuchEntity")


def test_marks_scores_and_the_scenarios_beside(permissive_run: tuple[int, dict, str]) -> None:
    _code, report, _html = permissive_run
    marked = [m for m in report["mutants"] if m["outcome"] == "equivalent" and m["step"] != "03.01"]
    assert [m["id"] for m in marked] == ["ModifyVpcAttribute EnableDnsSupport=false"]
    assert marked[0]["reason"].startswith("planted")
    assert report["stale_marks"] == ["02.01: @equivalent('NoSuchCall') matches no mutant"]
    invalid = {m["id"]: m["reason"] for m in report["mutants"] if m["outcome"] == "invalid"}
    assert invalid["CreateSubnet CidrBlock=10.0.2.0/24"].startswith(
        "the emulator refused CreateSubnet: InvalidSubnet.Conflict"
    )
    steps = {s["step"]: s for s in report["steps"]}
    assert steps["02.02"]["survived"] >= 2 and 0 < steps["02.02"]["score"] < 1
    lab = report["score"]
    assert lab["killed"] == sum(s["killed"] for s in report["steps"])
    assert ("02.02", "two_public_subnets", True) in [(s["step"], s["scenario"], s["ok"]) for s in report["scenarios"]]


def test_a_lab_that_is_not_there_is_bad_input(tmp_path) -> None:
    done = subprocess.run([STEPEVAL, "mutate", "--lab", str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "stepeval:" in done.stderr


def test_a_mutant_is_the_same_only_when_every_resource_it_touched_was_described_alike() -> None:
    from harness.authoring.fingerprint import same

    solve = {"subnet-1": '{"CidrBlock": "10.0.1.0/24"}', "vpc-1": '{"CidrBlock": "10.0.0.0/16"}'}
    assert same({"subnet-1": '{"CidrBlock": "10.0.1.0/24"}'}, solve)
    assert not same({"subnet-1": '{"CidrBlock": "10.0.2.0/24"}'}, solve)
    assert not same({"subnet-1": None}, solve)  # could not be described: not known to be the same
    assert not same({}, solve)  # nothing to compare


TRUST = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"},
                                                "Action": "sts:AssumeRole"}]}  # fmt: skip
LOGS = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "logs:PutLogEvents", "Resource": "*"}]}


def test_an_omitted_iam_call_answers_what_the_solve_got_and_the_next_call_is_refused(aws: MotoAccount) -> None:
    """botocore's after-call handlers decode IAM's policy documents; an omitted call's answer passes them again,
    so it is the answer as parsed, before them (decoded twice, it raised AttributeError: 'dict' ... 'split')."""

    def solve(session) -> dict:
        iam = session.client("iam")
        role = iam.create_role(RoleName="items-role", AssumeRolePolicyDocument=json.dumps(TRUST))
        iam.put_role_policy(RoleName="items-role", PolicyName="logs", PolicyDocument=json.dumps(LOGS))
        return role

    recording = Interceptor()
    with recording.active():
        solved = solve(recording.session(aws))
    assert [c.name for c in recording.calls] == ["CreateRole", "PutRolePolicy"]
    assert recording.calls[0].response["Role"]["AssumeRolePolicyDocument"] == TRUST  # as boto3 handed it over
    assert recording.created == {"items-role": "AWS::IAM::Role", "logs|items-role": "AWS::IAM::RolePolicy"}
    wipe(aws.endpoint_url)
    omit = next(m for m in mutants(recording.calls) if m.id == "omit CreateRole")
    mutated = Interceptor(omit)
    with pytest.raises(ClientError, match="NoSuchEntity"), mutated.active():
        solve(mutated.session(aws))
    unsent = Interceptor(omit)
    with unsent.active():
        answered = (
            unsent.session(aws)
            .client("iam")
            .create_role(RoleName="items-role", AssumeRolePolicyDocument=json.dumps(TRUST))
        )
    assert answered["Role"] == solved["Role"]
    assert aws.client("iam").list_roles()["Roles"] == []  # it was not sent


def test_extra_mistakes_play_from_the_state_before_their_step_after_all_the_others() -> None:
    """`play_lanes(extra=...)`: what `stepeval mutate` plays its mutants with, in the same playthrough."""
    lab = load_lab(LABS / "scenario_checks")
    asked: list[str] = []

    def fresh_account(aws, handles) -> None:  # the state before 02.01: no VPC of the solve's yet
        ec2 = aws.client("ec2")
        assert not [v for v in ec2.describe_vpcs()["Vpcs"] if v["CidrBlock"] == "10.0.0.0/16"]
        ec2.create_vpc(CidrBlock="10.9.0.0/16")

    def extra(key: str, result: ScenarioResult) -> tuple[Scenario, ...]:
        asked.append(key)
        if key != "02.01":
            return ()
        wrong = Scenario("extra wrong block", fresh_account, "mistake", "fail")
        return wrong, Scenario("extra said to pass", fresh_account, "mistake", "pass")

    with moto_lanes(lab, 2) as lanes:
        plain = play_lanes(lab, lanes)
    reported: list[ScenarioResult] = []
    with moto_lanes(lab, 2) as lanes:
        results = play_lanes(lab, lanes, extra=extra, on_result=reported.append)
    assert reported == results
    assert asked == list(lab.steps)  # once per solve, in step order
    *others, wrong, passing = results
    assert [(r.scenario, r.got) for r in others] == [(r.scenario, r.got) for r in plain]
    assert (wrong.step, wrong.scenario, wrong.got, wrong.ok) == ("02.01", "extra wrong block", "fail", True)
    assert (passing.scenario, passing.got, passing.ok) == ("extra said to pass", "fail", False)


def test_a_second_play_of_a_solve_waits_until_the_first_has_planned_its_mutants(monkeypatch) -> None:
    """A mistake after the solve plays the solve too: whichever play ends first records and plans; the solve's
    own play (whose answer makes its mutants ready) must not answer before that planning is done."""
    from harness.authoring import mutation as mutate

    notes = mutate._Notes()
    entered, release = threading.Event(), threading.Event()

    def slow_fingerprint(aws, types):
        entered.set()
        release.wait(30)
        return {}

    monkeypatch.setattr(mutate, "fingerprint", slow_fingerprint)
    act = mutate._recorder("01.01", Scenario("nothing", lambda aws, handles: None, "solve"), notes, True)
    first = threading.Thread(target=act, args=(object(), {}))
    first.start()
    assert entered.wait(30)
    second = threading.Thread(target=act, args=(object(), {}))
    second.start()
    second.join(0.5)
    assert second.is_alive() and "01.01" not in notes.planned  # waiting for the first play's planning
    release.set()
    first.join(30)
    second.join(30)
    assert not second.is_alive() and notes.planned["01.01"] == [] and notes.prints["01.01"] == {}
