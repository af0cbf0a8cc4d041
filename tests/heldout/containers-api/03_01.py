"""Held-out mistakes of containers-api step 03.01, with decoys (see tests/heldout/README.md)."""

from harness.authoring.scenarios import mistake


def _heldout_group(aws, name, *rules):
    ec2 = aws.client("ec2")
    vpc = ec2.describe_vpcs(Filters=[{"Name": "isDefault", "Values": ["true"]}])["Vpcs"][0]["VpcId"]
    group = ec2.create_security_group(GroupName=name, Description=name, VpcId=vpc)["GroupId"]
    for port, source in rules:
        pair = (
            {"UserIdGroupPairs": [{"GroupId": source}]}
            if source.startswith("sg-")
            else {"IpRanges": [{"CidrIp": source}]}
        )
        ec2.authorize_security_group_ingress(
            GroupId=group, IpPermissions=[{"IpProtocol": "tcp", "FromPort": port, "ToPort": port, **pair}]
        )
    return group


@mistake(issue=r"(?i)TCP 5432 from 0\.0\.0\.0/0")
def heldout_database_open_to_the_world_after_a_bastion(aws, handles):
    _heldout_group(aws, "heldout-bastion", (22, "203.0.113.0/24"))
    _heldout_group(aws, "heldout-api")
    _heldout_group(aws, "heldout-db", (5432, "0.0.0.0/0"))


@mistake(issue=r"(?i)TCP 3306")
def heldout_database_on_mysql_after_a_bastion(aws, handles):
    _heldout_group(aws, "heldout-bastion", (22, "203.0.113.0/24"))
    api = _heldout_group(aws, "heldout-api")
    _heldout_group(aws, "heldout-db", (3306, api))


@mistake(issue=r"(?i)TCP 5432 from 10\.0\.0\.0/8")
def heldout_database_admits_a_range_beside_an_older_database_group(aws, handles):
    api = _heldout_group(aws, "heldout-api")
    _heldout_group(aws, "heldout-old-db", (5432, "172.16.0.0/12"))
    _heldout_group(aws, "heldout-db", (5432, api), (5432, "10.0.0.0/8"))
