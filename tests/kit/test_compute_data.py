"""EC2 instances, launch templates, volumes, Auto Scaling groups and RDS kinds on moto."""

from __future__ import annotations

from typing import Any

import pytest

from harness.kit import autoscaling, compute, rds
from harness.kit.aws import fetch_or_none
from tests.kit.conftest import described, miss, passes, unique


@pytest.fixture(scope="module")
def network(aws_session) -> dict[str, Any]:
    ec2 = aws_session.client("ec2")
    vpc = ec2.create_vpc(CidrBlock="10.9.0.0/16")["Vpc"]["VpcId"]
    subnets = [
        ec2.create_subnet(VpcId=vpc, CidrBlock=f"10.9.{n}.0/24", AvailabilityZone=f"us-east-1{z}")["Subnet"]["SubnetId"]
        for n, z in ((1, "a"), (2, "b"))
    ]
    group = ec2.create_security_group(GroupName=unique("sg"), Description="web", VpcId=vpc)["GroupId"]
    image = ec2.describe_images(Owners=["amazon"])["Images"][0]["ImageId"]
    return {"vpc": vpc, "subnets": subnets, "group": group, "image": image}


def make_db(aws_session: Any, **settings: Any) -> str:
    """A small DB instance made as a learner would; `settings` add to or override the defaults."""
    identifier = unique("db")
    params = {"Engine": "postgres", "DBInstanceClass": "db.t3.micro", "AllocatedStorage": 20, **settings}
    aws_session.client("rds").create_db_instance(
        DBInstanceIdentifier=identifier, MasterUsername="admin1", MasterUserPassword="password123", **params
    )
    return identifier


def test_instance_settings(aws_session, network) -> None:
    ec2 = aws_session.client("ec2")
    instance_id = ec2.run_instances(
        ImageId=network["image"],
        InstanceType="t3.micro",
        MinCount=1,
        MaxCount=1,
        SubnetId=network["subnets"][0],
        SecurityGroupIds=[network["group"]],
        MetadataOptions={"HttpTokens": "required"},
    )["Instances"][0]["InstanceId"]
    instance = described(compute.INSTANCE, aws_session, instance_id)
    for requirement in (
        compute.instance_type("t3.micro"),
        compute.image(network["image"]),
        compute.in_subnet(network["subnets"][0]),
        compute.with_security_group(network["group"]),
        compute.imdsv2_required(),
        compute.running(),
    ):
        assert passes(requirement, instance), requirement.check
    assert miss(compute.instance_type("t3.small"), compute.INSTANCE, instance_id, instance) == (
        f"Instance {instance_id}: instance type should be t3.small, but is t3.micro."
    )


def test_a_terminated_instance_is_gone(aws_session, network) -> None:
    ec2 = aws_session.client("ec2")
    instance_id = ec2.run_instances(ImageId=network["image"], MinCount=1, MaxCount=1)["Instances"][0]["InstanceId"]
    ec2.terminate_instances(InstanceIds=[instance_id])
    assert fetch_or_none(lambda: compute.INSTANCE.fetch(aws_session, instance_id)) is None


def test_launch_template_default_version(aws_session, network) -> None:
    data = {
        "ImageId": network["image"],
        "InstanceType": "t3.micro",
        "SecurityGroupIds": [network["group"]],
        "IamInstanceProfile": {"Name": "web-profile"},
    }
    template_id = aws_session.client("ec2").create_launch_template(
        LaunchTemplateName=unique("lt"), LaunchTemplateData=data
    )["LaunchTemplate"]["LaunchTemplateId"]
    template = described(compute.LAUNCH_TEMPLATE, aws_session, template_id)
    for requirement in (
        compute.instance_type("t3.micro"),
        compute.with_security_group(network["group"]),
        compute.instance_profile("web-profile"),
    ):
        assert passes(requirement, template), requirement.check
    assert miss(compute.imdsv2_required(), compute.LAUNCH_TEMPLATE, template_id, template) == (
        f"Launch template {template_id}: IMDSv2 should be required, but is none."
    )


def test_volume(aws_session, network) -> None:
    ec2 = aws_session.client("ec2")
    volume_id = ec2.create_volume(AvailabilityZone="us-east-1a", Size=20, VolumeType="gp3", Encrypted=True)["VolumeId"]
    volume = described(compute.VOLUME, aws_session, volume_id)
    for requirement in (compute.volume_type("gp3"), compute.volume_size(20), compute.volume_encrypted()):
        assert passes(requirement, volume), requirement.check
    assert miss(compute.volume_size(30), compute.VOLUME, volume_id, volume) == (
        f"EBS volume {volume_id}: size (GiB) should be 30, but is 20."
    )


def test_auto_scaling_group(aws_session, network) -> None:
    template_id = aws_session.client("ec2").create_launch_template(
        LaunchTemplateName=unique("lt"), LaunchTemplateData={"ImageId": network["image"], "InstanceType": "t3.micro"}
    )["LaunchTemplate"]["LaunchTemplateId"]
    name = unique("asg")
    aws_session.client("autoscaling").create_auto_scaling_group(
        AutoScalingGroupName=name,
        LaunchTemplate={"LaunchTemplateId": template_id, "Version": "$Default"},
        MinSize=2,
        MaxSize=4,
        DesiredCapacity=2,
        VPCZoneIdentifier=",".join(network["subnets"]),
    )
    group = described(autoscaling.AUTO_SCALING_GROUP, aws_session, name)
    for requirement in (
        autoscaling.sizes(2, 2, 4),
        autoscaling.uses_launch_template(template_id),
        autoscaling.in_subnets_exactly(network["subnets"]),
    ):
        assert passes(requirement, group), requirement.check
    assert miss(autoscaling.sizes(2, 3, 6), autoscaling.AUTO_SCALING_GROUP, name, group) == (
        f"Auto Scaling group {name}: capacity (min/desired/max) should be 2/3/6, but is 2/2/4."
    )


def test_db_instance(aws_session, network) -> None:
    client = aws_session.client("rds")
    group = unique("db-subnets")
    client.create_db_subnet_group(DBSubnetGroupName=group, DBSubnetGroupDescription="db", SubnetIds=network["subnets"])
    identifier = make_db(
        aws_session,
        EngineVersion="16.3",
        DBSubnetGroupName=group,
        MultiAZ=True,
        StorageEncrypted=True,
        PubliclyAccessible=False,
    )
    db = described(rds.DB_INSTANCE, aws_session, identifier)
    for requirement in (
        rds.engine("postgres", "16"),
        rds.instance_class("db.t3.micro"),
        rds.multi_az(),
        rds.encrypted(),
        rds.publicly_accessible(False),
        rds.in_subnet_group(group),
    ):
        assert passes(requirement, db), requirement.check
    assert passes(rds.subnets_exactly(network["subnets"]), described(rds.DB_SUBNET_GROUP, aws_session, group))
    assert miss(rds.engine("mysql"), rds.DB_INSTANCE, identifier, db) == (
        f"DB instance {identifier}: engine should be mysql, but is postgres."
    )


def test_a_public_single_az_db_is_named(aws_session, network) -> None:
    identifier = make_db(aws_session, Engine="mysql", PubliclyAccessible=True)
    db = described(rds.DB_INSTANCE, aws_session, identifier)
    assert miss(rds.publicly_accessible(False), rds.DB_INSTANCE, identifier, db) == (
        f"DB instance {identifier}: public access should be disabled, but is enabled."
    )
    assert miss(rds.multi_az(), rds.DB_INSTANCE, identifier, db) == (
        f"DB instance {identifier}: Multi-AZ should be enabled, but is disabled."
    )


def test_auto_scaling_group_behind_a_target_group(aws_session, network) -> None:
    template_id = aws_session.client("ec2").create_launch_template(
        LaunchTemplateName=unique("lt"), LaunchTemplateData={"ImageId": network["image"]}
    )["LaunchTemplate"]["LaunchTemplateId"]
    target_group = aws_session.client("elbv2").create_target_group(
        Name=unique("tg"), Protocol="HTTP", Port=80, VpcId=network["vpc"]
    )["TargetGroups"][0]["TargetGroupArn"]
    name = unique("asg")
    aws_session.client("autoscaling").create_auto_scaling_group(
        AutoScalingGroupName=name,
        LaunchTemplate={"LaunchTemplateId": template_id},
        MinSize=1,
        MaxSize=1,
        VPCZoneIdentifier=network["subnets"][0],
        TargetGroupARNs=[target_group],
    )
    group = described(autoscaling.AUTO_SCALING_GROUP, aws_session, name)
    assert passes(autoscaling.registers_with(target_group), group)
    assert miss(autoscaling.health_check("ELB"), autoscaling.AUTO_SCALING_GROUP, name, group) == (
        f"Auto Scaling group {name}: health check type should be ELB, but is EC2."
    )


def test_a_volume_attached_to_an_instance(aws_session, network) -> None:
    ec2 = aws_session.client("ec2")
    instance_id = ec2.run_instances(
        ImageId=network["image"], MinCount=1, MaxCount=1, Placement={"AvailabilityZone": "us-east-1a"}
    )["Instances"][0]["InstanceId"]
    volume_id = ec2.create_volume(AvailabilityZone="us-east-1a", Size=8)["VolumeId"]
    assert miss(
        compute.attached_to(instance_id), compute.VOLUME, volume_id, described(compute.VOLUME, aws_session, volume_id)
    ) == (f"EBS volume {volume_id}: attached to should be {instance_id}, but is none.")
    ec2.attach_volume(VolumeId=volume_id, InstanceId=instance_id, Device="/dev/sdf")
    assert passes(compute.attached_to(instance_id), described(compute.VOLUME, aws_session, volume_id))


def test_db_backup_retention(aws_session) -> None:
    identifier = make_db(aws_session, BackupRetentionPeriod=7)
    db = described(rds.DB_INSTANCE, aws_session, identifier)
    assert passes(rds.backup_retention(7), db)
    assert miss(rds.backup_retention(14), rds.DB_INSTANCE, identifier, db) == (
        f"DB instance {identifier}: backup retention (days) should be 14, but is 7."
    )
