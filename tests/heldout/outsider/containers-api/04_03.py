"""Outsider: step 04.03 (the service)."""

from harness.authoring.scenarios import mistake, solve

from ._lib import all_of, service, task_definition, vpc_of


@solve
def two_private_tasks(aws, handles):
    service(aws, handles)


@mistake(issue=all_of("orders-api", "(public IP|assignPublicIp|public)"))
def public_ips_on(aws, handles):
    """Cause: the service assigns public IP addresses (ENABLED)."""
    service(aws, handles, public="ENABLED")


@mistake(issue=all_of("orders-api", "(desired|count|two|2)"))
def one_task(aws, handles):
    """Cause: desired count 1, not 2."""
    service(aws, handles, count=1)


@mistake(issue=all_of("orders-api", "(security group|sg-|orders-app)"))
def default_security_group(aws, handles):
    """Mis-wired: the service runs in the VPC's default security group, not the API's group."""
    ec2 = aws.client("ec2")
    vpc = vpc_of(aws, handles["03_01_app_group"])
    default = ec2.describe_security_groups(
        Filters=[{"Name": "vpc-id", "Values": [vpc]}, {"Name": "group-name", "Values": ["default"]}]
    )
    service(aws, handles, groups_=[default["SecurityGroups"][0]["GroupId"]])


@mistake(issue=all_of("orders-api", "(revision|task definition|:2|:1)"))
def runs_a_newer_unvalidated_revision(aws, handles):
    """Cause: the learner registered revision 2 (image from Docker Hub) and runs that, not the validated revision."""
    newer = task_definition(aws, handles, image="nginx:latest")
    service(aws, handles, task=newer)


@mistake(expect="pass")
def equivalent_family_name_and_scratch_service_first(aws, handles):
    """Equivalent: task definition named by family:revision; a scratch service test (1 task) made first beside it."""
    td = handles["04_02_task_definition"].split("/")[-1]
    service(aws, handles, name="test", count=1)
    service(aws, handles, task=td)
