"""ECR validators: a repository (scan on push, tag immutability, encryption, lifecycle policy). Id = its name."""

from __future__ import annotations

import re
from typing import Any

from botocore.exceptions import ClientError

from harness.kit import kms, refs
from harness.kit.aws import is_not_found
from harness.kit.kinds import Kind, LazyResource, Resource, first, register
from harness.kit.later import later
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

    def repository_policy() -> str | None:
        try:
            return client.get_repository_policy(repositoryName=name)["policyText"]
        except ClientError as error:
            if is_not_found(error) or "RepositoryPolicyNotFound" in str(error):
                return None
            raise

    def registry_scanning() -> dict[str, Any]:
        return client.get_registry_scanning_configuration().get("scanningConfiguration") or {}

    return LazyResource(
        repository,
        {"LifecyclePolicy": lifecycle, "RegistryScanning": registry_scanning, "Policy": repository_policy},
    )


REPOSITORY = register(Kind("AWS::ECR::Repository", "ECR repository", _fetch_repository))
"""`describe_repositories`' repository (`repositoryName`, `repositoryArn`, `repositoryUri`, `imageTagMutability`,
`imageScanningConfiguration`, `encryptionConfiguration`) plus `LifecyclePolicy` and `Policy` (JSON text or None) and
`RegistryScanning`, each read when first used."""


PUSH_FREQUENCIES = {"BASIC": ("SCAN_ON_PUSH",), "ENHANCED": ("SCAN_ON_PUSH", "CONTINUOUS_SCAN")}
"""Registry rule frequencies that scan an image when it is pushed, per registry scan type."""


def _covers(rule: dict[str, Any], repository: str) -> bool:
    """A registry scanning rule's wildcard filters (`*` any characters) cover the repository's name."""
    return any(
        re.fullmatch(".*".join(map(re.escape, f.get("filter", "").split("*"))), repository)
        for f in rule.get("repositoryFilters", [])
    )


def _push_scanning(repository: Resource) -> str:
    """How an image pushed to the repository is scanned: by the repository's own scan-on-push setting (basic
    scanning only: enhanced scanning ignores it), by a registry rule that covers it, or not at all."""
    registry = repository["RegistryScanning"]
    scan_type = registry.get("scanType", "BASIC")
    for rule in registry.get("rules", []):
        if rule.get("scanFrequency") in PUSH_FREQUENCIES.get(scan_type, ()) and _covers(
            rule, repository["repositoryName"]
        ):
            filters = ", ".join(f.get("filter", "") for f in rule.get("repositoryFilters", []))
            return f"enabled (registry {scan_type.lower()} scanning rule {filters}, {rule['scanFrequency']})"
    if scan_type == "BASIC" and (repository.get("imageScanningConfiguration") or {}).get("scanOnPush"):
        return "enabled (the repository's setting)"
    return "disabled"


def scan_on_push(enabled: bool = True) -> Requirement:
    """Images are scanned when pushed: the repository's scan-on-push setting, or a registry scanning rule that
    covers the repository (the way AWS recommends; with enhanced scanning, continuous scanning scans on push too
    and the repository's own setting no longer applies)."""
    return require(
        "scan on push",
        "enabled" if enabled else "disabled",
        _push_scanning,
        compare=lambda actual, _: actual.startswith("enabled") == enabled,
        hint="Turn on scan on push for the repository, or add a registry scanning rule that covers it.",
    )


def immutable_tags(enabled: bool = True) -> Requirement:
    """Image tags cannot be overwritten (`IMMUTABLE`), or can (`enabled=False`)."""
    return require("tag immutability", "IMMUTABLE" if enabled else "MUTABLE", lambda r: r.get("imageTagMutability"))


def encryption(kind: str = "KMS") -> Requirement:
    """AES256 (the default) or KMS; KMS_DSSE (two layers of KMS encryption) counts as KMS."""
    return require(
        "encryption",
        kind,
        lambda r: (r.get("encryptionConfiguration") or {}).get("encryptionType"),
        compare=lambda actual, expected: actual == expected or (expected == "KMS" and actual == "KMS_DSSE"),
    )


DEFAULT_KEY = "alias/aws/ecr"
"""The AWS managed key of a repository encrypted with KMS when no key is chosen."""


@later
def encrypted_with(key: Resource | str | None) -> Requirement:
    """Encrypted with the KMS key: a described key, its id or ARN, an alias or alias ARN (`alias/aws/ecr` is the
    AWS managed key a KMS-encrypted repository gets when none is chosen)."""

    def actual(repository: Resource) -> str | None:
        configuration = repository.get("encryptionConfiguration") or {}
        if not str(configuration.get("encryptionType", "")).startswith("KMS"):
            return None
        return configuration.get("kmsKey") or DEFAULT_KEY

    return refs.refers("KMS key", kms.KEY_REFERENCE, key, actual)


def has_lifecycle_policy() -> Requirement:
    """The repository has a lifecycle policy (any)."""
    return require("lifecycle policy", "set", lambda r: "set" if r["LifecyclePolicy"] else None)
