"""EC2 compute validators: instances (id = InstanceId), launch templates (id = LaunchTemplateId; the default
version is read) and EBS volumes (id = VolumeId)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from harness.kit import kms, refs
from harness.kit.bounds import Bound
from harness.kit.kinds import Kind, LazyResource, Resource, first, register, state_in
from harness.kit.later import later
from harness.kit.require import Requirement, attribute, require


def _fetch_instance(session: Any, instance_id: str) -> Resource | None:
    reservations = session.client("ec2").describe_instances(InstanceIds=[instance_id])["Reservations"]
    instances = [
        i for r in reservations for i in r["Instances"] if i["State"]["Name"] not in ("terminated", "shutting-down")
    ]
    return first(instances)


def _fetch_launch_template(session: Any, template_id: str) -> Resource | None:
    ec2 = session.client("ec2")
    template = first(ec2.describe_launch_templates(LaunchTemplateIds=[template_id])["LaunchTemplates"])
    if template is None:
        return None

    def data() -> dict[str, Any]:
        versions = ec2.describe_launch_template_versions(LaunchTemplateId=template_id, Versions=["$Default"])
        return versions["LaunchTemplateVersions"][0]["LaunchTemplateData"]

    return LazyResource(template, {"LaunchTemplateData": data})


def _fetch_volume(session: Any, volume_id: str) -> Resource | None:
    return first(session.client("ec2").describe_volumes(VolumeIds=[volume_id])["Volumes"])


def _template_id(session: Any, identity: refs.Identity, _spelled: str) -> refs.Identity:
    """A launch template's name read as its id."""
    if identity.type != "ec2:launch-template-name":
        return identity
    found = refs.asked(
        lambda: session.client("ec2").describe_launch_templates(LaunchTemplateNames=[identity.name])["LaunchTemplates"],
        also_missing=("InvalidLaunchTemplateName.NotFoundException",),
    )
    return replace(identity, type="ec2:launch-template", name=found[0]["LaunchTemplateId"]) if found else identity


LAUNCH_TEMPLATE_REFERENCE = refs.Space(
    "ec2:launch-template",
    "launch template",
    ("LaunchTemplateId", "LaunchTemplateName"),
    refs.launch_template_identity,
    _template_id,
)
"""A launch template by its id or its name (read as its id), or a described one."""

INSTANCE = register(
    Kind(
        "AWS::EC2::Instance",
        "instance",
        _fetch_instance,
        settling=state_in("State.Name", {"pending"}),
        retry_after_s=15,
    )
)
"""`describe_instances`' instance: `{"InstanceId", "InstanceType", "State": {"Name"}, "SubnetId", "VpcId",
"SecurityGroups": [{"GroupId"}], "IamInstanceProfile": {"Arn"}, "MetadataOptions": {"HttpTokens"}, "ImageId"}`."""
LAUNCH_TEMPLATE = register(Kind("AWS::EC2::LaunchTemplate", "launch template", _fetch_launch_template))
"""`describe_launch_templates`' template (`LaunchTemplateId`, `LaunchTemplateName`, `DefaultVersionNumber`) plus
`LaunchTemplateData`, its default version's data (`InstanceType`, `ImageId`, `IamInstanceProfile`,
`NetworkInterfaces`, `MetadataOptions`), read when first used."""
VOLUME = register(
    Kind("AWS::EC2::Volume", "EBS volume", _fetch_volume, settling=state_in("State", {"creating"}), retry_after_s=10)
)
"""`describe_volumes`' volume: `{"VolumeId", "Size", "VolumeType", "Encrypted", "KmsKeyId", "Attachments":
[{"InstanceId", "State"}]}`."""


def _settings(resource: Resource) -> Resource:
    """An instance's own attributes, or a launch template's default version's data (same key names)."""
    return resource["LaunchTemplateData"] if "LaunchTemplateId" in resource else resource


def instance_type(value: str) -> Requirement:
    """The instance type (an instance's, or a launch template's default version's)."""
    return require("instance type", value, lambda r: _settings(r).get("InstanceType"))


def image(image_id: str) -> Requirement:
    """The AMI id (an instance's, or a launch template's default version's)."""
    return require("AMI", image_id, lambda r: _settings(r).get("ImageId"))


@later
def in_subnet(subnet: Resource | str | None) -> Requirement:
    """The instance is in the subnet (a described subnet, its id or ARN)."""
    return refs.refers("subnet", refs.SUBNET, subnet, lambda r: r.get("SubnetId"))


@later
def with_security_group(group: Resource | str | None) -> Requirement:
    """An instance's (or launch template's) security groups include the group (a described group, its id or
    ARN)."""

    def groups(resource: Resource) -> list[str]:
        settings = _settings(resource)
        found = [g["GroupId"] for g in settings.get("SecurityGroups", []) if isinstance(g, dict)]
        found += settings.get("SecurityGroupIds", [])
        found += [g for n in settings.get("NetworkInterfaces", []) for g in n.get("Groups", []) if isinstance(g, str)]
        return sorted(set(found))

    return refs.refers_among("security groups", refs.SECURITY_GROUP, group, groups)


@later
def instance_profile(profile: Resource | str | None) -> Requirement:
    """Runs with the instance profile (a described profile, its name or ARN)."""

    def actual(resource: Resource) -> str | None:
        held = _settings(resource).get("IamInstanceProfile") or {}
        return held.get("Arn") or held.get("Name")

    return refs.refers("instance profile", refs.INSTANCE_PROFILE, profile, actual)


def imdsv2_required() -> Requirement:
    """Instance metadata requires session tokens (IMDSv2)."""
    return require("IMDSv2", "required", lambda r: (_settings(r).get("MetadataOptions") or {}).get("HttpTokens"))


def running() -> Requirement:
    """The instance is running (while it is `pending`, the step answers pending, not fail)."""
    return require("state", "running", lambda i: i["State"]["Name"], waits=True)


def volume_type(value: str = "gp3") -> Requirement:
    """The EBS volume type, e.g. `gp3`."""
    return attribute("volume type", "VolumeType", value)


def volume_size(gib: int | Bound) -> Requirement:
    """The EBS volume size, in GiB."""
    return attribute("size (GiB)", "Size", gib)


def volume_encrypted(enabled: bool = True) -> Requirement:
    """The EBS volume is encrypted."""
    return attribute("encryption", "Encrypted", enabled)


@later
def volume_encrypted_with(key: Resource | str | None) -> Requirement:
    """The EBS volume is encrypted with the KMS key: a described key, its id or ARN, an alias or alias ARN, whichever
    the volume was given (EC2 answers the key's ARN; `alias/aws/ebs` is the AWS managed key)."""
    return refs.refers("KMS key", kms.KEY_REFERENCE, key, lambda v: v.get("KmsKeyId") if v.get("Encrypted") else None)


@later
def attached_to(instance: Resource | str | None) -> Requirement:
    """The volume is attached to the instance (a described instance, its id or ARN)."""
    return refs.refers_among(
        "attached to", refs.INSTANCE, instance, lambda v: sorted(a["InstanceId"] for a in v.get("Attachments", []))
    )
