"""Helpers the outsider's containers scenarios share (plain boto3)."""


def all_of(*words):
    """A pattern the issue matches only when it names every word (any order, any case)."""
    return "(?is)^" + "".join(f"(?=.*{w})" for w in words)


def repository(aws, name="orders-api", *, mutability="IMMUTABLE", scan=True):
    return aws.client("ecr").create_repository(
        repositoryName=name, imageTagMutability=mutability, imageScanningConfiguration={"scanOnPush": scan}
    )["repository"]


def key(aws, *, rotate=True, description="orders lab key"):
    kms = aws.client("kms")
    key_id = kms.create_key(Description=description, KeySpec="SYMMETRIC_DEFAULT", KeyUsage="ENCRYPT_DECRYPT")[
        "KeyMetadata"
    ]["KeyId"]
    if rotate:
        kms.enable_key_rotation(KeyId=key_id)
    return key_id


def vpc_of(aws, group_id):
    return aws.client("ec2").describe_security_groups(GroupIds=[group_id])["SecurityGroups"][0]["VpcId"]


def subnets_of(aws, vpc_id):
    found = aws.client("ec2").describe_subnets(Filters=[{"Name": "vpc-id", "Values": [vpc_id]}])["Subnets"]
    return sorted(s["SubnetId"] for s in found)


def groups(aws, *, db_source=None, port=5432, app_inbound=None, cidr="10.20.0.0/16"):
    """A VPC, the app group and the db group admitting `port` from the app group (or from `db_source`)."""
    ec2 = aws.client("ec2")
    vpc = ec2.create_vpc(CidrBlock=cidr)["Vpc"]["VpcId"]
    app = ec2.create_security_group(GroupName="orders-app", Description="orders api", VpcId=vpc)["GroupId"]
    db = ec2.create_security_group(GroupName="orders-db", Description="orders db", VpcId=vpc)["GroupId"]
    source = db_source or {"UserIdGroupPairs": [{"GroupId": app}]}
    ec2.authorize_security_group_ingress(
        GroupId=db, IpPermissions=[{"IpProtocol": "tcp", "FromPort": port, "ToPort": port, **source}]
    )
    if app_inbound:
        ec2.authorize_security_group_ingress(GroupId=app, IpPermissions=[app_inbound])
    return vpc, app, db


def subnets(aws, vpc_id, cidr_prefix="10.20"):
    ec2 = aws.client("ec2")
    zones = [z["ZoneName"] for z in ec2.describe_availability_zones()["AvailabilityZones"]][:2]
    return [
        ec2.create_subnet(VpcId=vpc_id, CidrBlock=f"{cidr_prefix}.{i}.0/24", AvailabilityZone=z)["Subnet"]["SubnetId"]
        for i, z in enumerate(zones, start=1)
    ]


def database(aws, handles, *, name="orders-db", subnet_group="orders-db-subnets", **changes):
    args = dict(
        DBInstanceIdentifier=name,
        Engine="postgres",
        EngineVersion="16.3",
        DBInstanceClass="db.t3.micro",
        AllocatedStorage=20,
        MasterUsername="orders",
        MasterUserPassword="not-a-real-password-1",
        DBSubnetGroupName=subnet_group,
        VpcSecurityGroupIds=[handles["03_01_db_group"]],
        StorageEncrypted=True,
        KmsKeyId=handles["01_02_key"],
        PubliclyAccessible=False,
    )
    args.update(changes)
    return aws.client("rds").create_db_instance(**args)["DBInstance"]


def task_definition(
    aws, handles, *, family="orders-api", image=None, group="/ecs/orders-api", cpu="256", memory="512", extra=()
):
    repo = aws.client("ecr").describe_repositories(repositoryNames=[handles["01_01_repository"]])["repositories"][0]
    container = {
        "name": "api",
        "image": image or f"{repo['repositoryUri']}:1.0.0",
        "essential": True,
        "portMappings": [{"containerPort": 8080, "protocol": "tcp"}],
        "logConfiguration": {
            "logDriver": "awslogs",
            "options": {"awslogs-group": group, "awslogs-region": aws.region_name, "awslogs-stream-prefix": "api"},
        },
    }
    return aws.client("ecs").register_task_definition(
        family=family,
        requiresCompatibilities=["FARGATE"],
        networkMode="awsvpc",
        cpu=cpu,
        memory=memory,
        containerDefinitions=[container, *extra],
    )["taskDefinition"]["taskDefinitionArn"]


def service(aws, handles, *, name="orders-api", task=None, count=2, groups_=None, public="DISABLED"):
    vpc = vpc_of(aws, handles["03_01_app_group"])
    return aws.client("ecs").create_service(
        cluster=handles["04_01_cluster"],
        serviceName=name,
        taskDefinition=task or handles["04_02_task_definition"],
        desiredCount=count,
        launchType="FARGATE",
        networkConfiguration={
            "awsvpcConfiguration": {
                "subnets": subnets_of(aws, vpc),
                "securityGroups": groups_ or [handles["03_01_app_group"]],
                "assignPublicIp": public,
            }
        },
    )["service"]["serviceArn"]
