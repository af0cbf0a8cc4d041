"""Which security groups a DB instance and an ECS service are in, exactly, and whether a service's tasks get public
addresses: each group named by a described group, its id or its ARN."""

from __future__ import annotations

from typing import Any

import pytest

from harness.kit import ec2, ecs, net, rds, refs
from harness.kit.kinds import short_name
from tests.kit.conftest import described, miss, passes, unique


@pytest.fixture(scope="module")
def groups(aws_session) -> dict[str, Any]:
    client = aws_session.client("ec2")
    vpc = client.create_vpc(CidrBlock="10.7.0.0/16")["Vpc"]["VpcId"]
    subnet = client.create_subnet(VpcId=vpc, CidrBlock="10.7.1.0/24")["Subnet"]["SubnetId"]
    made = {name: client.create_security_group(GroupName=unique(name), Description=name, VpcId=vpc)["GroupId"]
            for name in ("app", "db")}  # fmt: skip
    return {"subnet": subnet, **made}


def _forms(aws_session, group_id: str) -> list[Any]:
    group = described(ec2.SECURITY_GROUP, aws_session, group_id)
    return [group, group_id, f"arn:aws:ec2:us-east-1:123456789012:security-group/{group_id}"]


def test_a_db_instance_is_in_exactly_its_groups(aws_session, groups) -> None:
    identifier = unique("db")
    aws_session.client("rds").create_db_instance(
        DBInstanceIdentifier=identifier, Engine="postgres", DBInstanceClass="db.t3.micro", AllocatedStorage=20,
        MasterUsername="admin1", MasterUserPassword="password123", VpcSecurityGroupIds=[groups["db"], groups["app"]],
    )  # fmt: skip
    db = described(rds.DB_INSTANCE, aws_session, identifier)
    for app in _forms(aws_session, groups["app"]):
        for database in _forms(aws_session, groups["db"]):
            assert passes(rds.security_groups_exactly(database, app), db)
            assert passes(rds.security_groups_exactly(app, database), db)  # in any order
    assert not passes(rds.security_groups_exactly(groups["db"]), db)  # one more than asked
    assert not passes(rds.security_groups_exactly(groups["db"], groups["app"], groups["app"]), db)
    assert miss(rds.security_groups_exactly(groups["db"]), rds.DB_INSTANCE, identifier, db) == (
        f"DB instance {identifier}: security groups should be {groups['db']}, "
        f"but is {', '.join(sorted([groups['db'], groups['app']]))}."
    )


def test_a_services_tasks_are_in_exactly_its_groups_without_public_addresses(aws_session, groups) -> None:
    client = aws_session.client("ecs")
    cluster = unique("cluster")
    client.create_cluster(clusterName=cluster)
    family = unique("api")
    client.register_task_definition(
        family=family, requiresCompatibilities=["FARGATE"], networkMode="awsvpc", cpu="256", memory="512",
        containerDefinitions=[{"name": "api", "image": "nginx:1.27"}],
    )  # fmt: skip

    def service(public: str | None, *members: str) -> Any:
        network = {"subnets": [groups["subnet"]], "securityGroups": list(members)}
        if public:
            network["assignPublicIp"] = public
        arn = client.create_service(
            cluster=cluster, serviceName=unique("svc"), taskDefinition=family, desiredCount=1, launchType="FARGATE",
            networkConfiguration={"awsvpcConfiguration": network},
        )["service"]["serviceArn"]  # fmt: skip
        return arn, described(ecs.SERVICE, aws_session, arn)

    _, private = service("DISABLED", groups["app"])
    with refs.resolving(refs.Resolver(aws_session)):
        for app in _forms(aws_session, groups["app"]):
            assert passes(ecs.security_groups_exactly(app), private)
        assert not passes(ecs.security_groups_exactly(groups["db"]), private)
    assert passes(ecs.assigns_public_ip(False), private)
    _, unsaid = service(None, groups["app"], groups["db"])  # AWS's default: DISABLED
    assert passes(ecs.assigns_public_ip(False), unsaid)
    assert not passes(ecs.security_groups_exactly(groups["app"]), unsaid)
    assert passes(ecs.security_groups_exactly(groups["db"], groups["app"]), unsaid)
    arn, public = service("ENABLED", groups["app"])
    assert miss(ecs.assigns_public_ip(False), ecs.SERVICE, arn, public) == (
        f"ECS service {short_name(arn)}: public IP should be DISABLED, but is ENABLED."
    )


def test_a_group_is_named_by_its_name_and_so_is_a_rule_source(aws_session, groups) -> None:
    """`security group db-3 (sg-...)`, never the bare id, where the group has a name: as subject and as source."""
    client = aws_session.client("ec2")
    client.authorize_security_group_ingress(
        GroupId=groups["db"],
        IpPermissions=[{"IpProtocol": "tcp", "FromPort": 3306, "ToPort": 3306,
                        "UserIdGroupPairs": [{"GroupId": groups["app"]}]}],
    )  # fmt: skip
    db = described(ec2.SECURITY_GROUP, aws_session, groups["db"])
    app_name = described(ec2.SECURITY_GROUP, aws_session, groups["app"])["GroupName"]
    assert ec2.SECURITY_GROUP.describe(groups["db"], db) == f"security group {db['GroupName']} ({groups['db']})"
    assert ec2.SECURITY_GROUP.describe(groups["db"]) == f"security group {groups['db']}"  # undescribed: its id
    source = f"security group {app_name} ({groups['app']})"
    with refs.resolving(refs.Resolver(aws_session)):
        issue = miss(ec2.ingress_exactly(net.tcp(5432, groups["app"])), ec2.SECURITY_GROUP, groups["db"], db)
    assert issue == (
        f"Security group {groups['db']}: it also allows TCP 3306 from {source} and it does not allow TCP 5432 "
        f"from {source}."
    )
