"""ECR validators: a repository (scan on push, tag immutability, encryption, lifecycle policy). Id = its name."""

from __future__ import annotations

from typing import Any

from botocore.exceptions import ClientError

from harness.kit.aws import is_not_found
from harness.kit.kinds import Kind, LazyResource, Resource, first, register
from harness.kit.require import Requirement, require


def _fetch_repository(session: Any, name: str) -> Resource | None:
    client = session.client("ecr")
    repository = first(client.describe_repositories(repositoryNames=[name])["repositories"])
    if repository is None:
        return None

    def lifecycle() -> str | None:
        try:
            return client.get_lifecycle_policy(repositoryName=name)["lifecyclePolicyText"]
        except ClientError as error:
            if is_not_found(error) or "LifecyclePolicyNotFound" in str(error):
                return None
            raise

    return LazyResource(repository, {"LifecyclePolicy": lifecycle})


REPOSITORY = register(Kind("AWS::ECR::Repository", "ECR repository", _fetch_repository))


def scan_on_push(enabled: bool = True) -> Requirement:
    return require("scan on push", enabled, lambda r: (r.get("imageScanningConfiguration") or {}).get("scanOnPush"))


def immutable_tags(enabled: bool = True) -> Requirement:
    return require("tag immutability", "IMMUTABLE" if enabled else "MUTABLE", lambda r: r.get("imageTagMutability"))


def encryption(kind: str = "KMS") -> Requirement:
    """AES256 (the default) or KMS."""
    return require("encryption", kind, lambda r: (r.get("encryptionConfiguration") or {}).get("encryptionType"))


def has_lifecycle_policy() -> Requirement:
    return require("lifecycle policy", "set", lambda r: "set" if r["LifecyclePolicy"] else None)
