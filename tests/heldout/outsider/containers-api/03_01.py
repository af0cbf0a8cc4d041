"""Outsider: step 03.01 (the two security groups)."""

from harness.authoring.scenarios import mistake, solve

from ._lib import all_of, groups


@solve
def groups_admitting_each_other(aws, handles):
    groups(aws)


@mistake(issue=all_of("security group orders-db \\(sg-", "10\\.20\\.0\\.0/16", "5432 from security group orders-app"))
def db_open_to_the_vpc_cidr(aws, handles):
    """Cause: the db group admits 5432 from the VPC's CIDR 10.20.0.0/16, not from the API's group."""
    groups(aws, db_source={"IpRanges": [{"CidrIp": "10.20.0.0/16"}]})


@mistake(issue=all_of("security group orders-db \\(sg-", "3306", "5432 from security group orders-app"))
def db_admits_mysql_port(aws, handles):
    """Cause: the db group admits TCP 3306 (MySQL) from the API's group, not 5432."""
    groups(aws, port=3306)


@mistake(issue=all_of("security group orders-app \\(sg-", "(inbound|ingress|80|0\\.0\\.0\\.0/0)"))
def app_group_open_to_the_world(aws, handles):
    """Cause: the API's group admits HTTP 80 from 0.0.0.0/0; it must admit no inbound traffic."""
    groups(aws, app_inbound={"IpProtocol": "tcp", "FromPort": 80, "ToPort": 80, "IpRanges": [{"CidrIp": "0.0.0.0/0"}]})


@mistake(issue=all_of("security group orders-db \\(sg-", "all traffic from security group orders-app"))
def db_admits_all_traffic_from_app(aws, handles):
    """Cause: the db group admits all traffic (-1) from the API's group, not only TCP 5432."""
    ec2 = aws.client("ec2")
    vpc = ec2.create_vpc(CidrBlock="10.20.0.0/16")["Vpc"]["VpcId"]
    app = ec2.create_security_group(GroupName="orders-app", Description="orders api", VpcId=vpc)["GroupId"]
    db = ec2.create_security_group(GroupName="orders-db", Description="orders db", VpcId=vpc)["GroupId"]
    ec2.authorize_security_group_ingress(
        GroupId=db, IpPermissions=[{"IpProtocol": "-1", "UserIdGroupPairs": [{"GroupId": app}]}]
    )


@mistake(expect="pass")
def equivalent_tight_egress_and_description(aws, handles):
    """Equivalent: default egress revoked on the app group, which may only reach the db group on 5432; the db rule
    carries a description. Plus a scratch group in the default VPC made earlier."""
    ec2 = aws.client("ec2")
    default_vpc = ec2.describe_vpcs(Filters=[{"Name": "isDefault", "Values": ["true"]}])["Vpcs"]
    if default_vpc:
        ec2.create_security_group(GroupName="launch-wizard-1", Description="scratch", VpcId=default_vpc[0]["VpcId"])
    vpc = ec2.create_vpc(CidrBlock="10.20.0.0/16")["Vpc"]["VpcId"]
    app = ec2.create_security_group(GroupName="orders-app", Description="orders api", VpcId=vpc)["GroupId"]
    db = ec2.create_security_group(GroupName="orders-db", Description="orders db", VpcId=vpc)["GroupId"]
    ec2.authorize_security_group_ingress(
        GroupId=db,
        IpPermissions=[
            {
                "IpProtocol": "tcp",
                "FromPort": 5432,
                "ToPort": 5432,
                "UserIdGroupPairs": [{"GroupId": app, "Description": "orders api to postgres"}],
            }
        ],
    )
    ec2.revoke_security_group_egress(
        GroupId=app, IpPermissions=[{"IpProtocol": "-1", "IpRanges": [{"CidrIp": "0.0.0.0/0"}]}]
    )
    ec2.authorize_security_group_egress(
        GroupId=app,
        IpPermissions=[{"IpProtocol": "tcp", "FromPort": 5432, "ToPort": 5432, "UserIdGroupPairs": [{"GroupId": db}]}],
    )


@mistake(expect="pass")
def right_groups_then_an_open_scratch_group_after(aws, handles):
    """Decoy after: the right pair, then a scratch group debug in the same VPC open on 22 and 5432 to the world
    (the learner's test). Must pass on orders-app/orders-db."""
    vpc, _app, _db = groups(aws)
    ec2 = aws.client("ec2")
    debug = ec2.create_security_group(GroupName="debug", Description="scratch", VpcId=vpc)["GroupId"]
    ec2.authorize_security_group_ingress(
        GroupId=debug,
        IpPermissions=[
            {"IpProtocol": "tcp", "FromPort": 22, "ToPort": 22, "IpRanges": [{"CidrIp": "0.0.0.0/0"}]},
            {"IpProtocol": "tcp", "FromPort": 5432, "ToPort": 5432, "IpRanges": [{"CidrIp": "0.0.0.0/0"}]},
        ],
    )
