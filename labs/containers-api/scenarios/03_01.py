"""Step 03.01: the API's group admits nothing; the database's group admits only PostgreSQL from the API's group."""

from harness.authoring.scenarios import mistake, solve


def _vpc(aws):
    return aws.client("ec2").describe_vpcs(Filters=[{"Name": "isDefault", "Values": ["true"]}])["Vpcs"][0]


def _group(aws, name):
    return aws.client("ec2").create_security_group(GroupName=name, Description=name, VpcId=_vpc(aws)["VpcId"])[
        "GroupId"
    ]


def _admit(aws, group, *, port=5432, protocol="tcp", source=None, cidr=None):
    permission = {"IpProtocol": protocol, "FromPort": port, "ToPort": port}
    if protocol == "-1":
        permission = {"IpProtocol": "-1"}
    if cidr:
        permission["IpRanges"] = [{"CidrIp": cidr}]
    else:
        permission["UserIdGroupPairs"] = [{"GroupId": source}]
    aws.client("ec2").authorize_security_group_ingress(GroupId=group, IpPermissions=[permission])


def _groups(aws, **admitted):
    app, database = _group(aws, "orders-app"), _group(aws, "orders-db")
    _admit(aws, database, **({"source": app} | admitted))
    return app, database


@solve
def app_and_database_groups(aws, handles):
    _groups(aws)


@mistake(expect="pass")
def with_more_groups_that_admit_nothing(aws, handles):
    """Several candidates fit the API group's own requirement (no inbound rule): the database's rule says which."""
    _group(aws, "orders-batch")
    _group(aws, "orders-jobs")
    _groups(aws)
    _group(aws, "orders-cron")


@mistake(issue=r"also allows TCP 5432 from 0\.0\.0\.0/0")
def database_open_to_the_world(aws, handles):
    _groups(aws, cidr="0.0.0.0/0")


@mistake(issue=r"also allows TCP 5432 from 172\.31\.0\.0/16")
def database_admits_the_whole_vpc(aws, handles):
    _groups(aws, cidr=_vpc(aws)["CidrBlock"])


@mistake(issue=r"also allows all traffic from security group orders-app \(sg-")
def database_admits_all_traffic_from_the_api(aws, handles):
    app, database = _group(aws, "orders-app"), _group(aws, "orders-db")
    _admit(aws, database, protocol="-1", source=app)


@mistake(issue=r"also allows TCP 3306")
def database_admits_mysql(aws, handles):
    _groups(aws, port=3306)


@mistake(issue=r"(?i)also allows TCP 22")
def api_open_for_ssh(aws, handles):
    app, _ = _groups(aws)
    _admit(aws, app, port=22, cidr="0.0.0.0/0")
