"""Step 04.03: the validated revision as a Fargate service of two tasks, in the API's group only, no public IP."""

from harness.authoring.scenarios import equivalent, mistake, solve


def _subnets(aws, handles):
    ec2 = aws.client("ec2")
    vpc = ec2.describe_security_groups(GroupIds=[handles["03_01_app_group"]])["SecurityGroups"][0]["VpcId"]
    subnets = ec2.describe_subnets(Filters=[{"Name": "vpc-id", "Values": [vpc]}])["Subnets"]
    return sorted(s["SubnetId"] for s in subnets)[:2]


def _service(aws, handles, *, task=None, groups=None, count=2, public="DISABLED", launch="FARGATE"):
    network = {"subnets": _subnets(aws, handles), "securityGroups": groups or [handles["03_01_app_group"]],
               "assignPublicIp": public}  # fmt: skip
    aws.client("ecs").create_service(
        cluster=handles["04_01_cluster"], serviceName="orders-api",
        taskDefinition=task or handles["04_02_task_definition"], desiredCount=count, launchType=launch,
        networkConfiguration={"awsvpcConfiguration": network},
    )  # fmt: skip


def _revision(arn, revision):
    return f"{arn.rsplit(':', 1)[0]}:{revision}"


@equivalent("awsvpcConfiguration.subnets-", reason="the instruction names no subnets: one subnet of the VPC serves too")
@solve
def two_fargate_tasks_in_the_api_group(aws, handles):
    _service(aws, handles)


@mistake(expect="pass")
def by_family_and_revision(aws, handles):
    _service(aws, handles, task=handles["04_02_task_definition"].rsplit("/", 1)[1])


@mistake(issue=r"runs orders-api:1, not orders-api:2")
def the_first_draft(aws, handles):
    _service(aws, handles, task=_revision(handles["04_02_task_definition"], 1))


@mistake(issue=r"(?i)security groups")
def in_the_database_group(aws, handles):
    _service(aws, handles, groups=[handles["03_01_db_group"]])


@mistake(issue=r"(?i)security groups")
def in_both_groups(aws, handles):
    _service(aws, handles, groups=[handles["03_01_app_group"], handles["03_01_db_group"]])


@mistake(issue=r"(?i)public IP")
def with_public_addresses(aws, handles):
    _service(aws, handles, public="ENABLED")


@mistake(issue=r"(?i)desired count")
def one_task(aws, handles):
    _service(aws, handles, count=1)


@mistake(issue=r"(?i)launch type")
def on_ec2(aws, handles):
    _service(aws, handles, launch="EC2")
