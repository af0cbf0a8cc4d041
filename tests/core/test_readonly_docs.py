"""Reads whose documentation says they mint a way in (a sign-in, dashboard, portal or presigned URL, a token) or
write (`also creates`, `returns or creates`), found by scanning the documentation of every read of every botocore
model: each hit is refused, relayed with what it mints blanked, or reviewed below as none of these with why. A
botocore upgrade that documents a new one fails here until it is classified (issue 31: `datazone:GetIamPortalLoginUrl`
relayed a sign-in URL; `controltower:ListLandingZones` and `iot:DescribeEndpoint` create what they return).
"""

from __future__ import annotations

import re

import botocore.loaders
import pytest
from botocore.model import ServiceModel, Shape

from harness.core.readonly import ALLOWED_READS, READ_PREFIXES, refusal
from harness.core.secret_shapes import children, secrets_of

MINTS_OR_WRITES = re.compile(
    r"\b(?:also|or|and|will|automatically) creates?\b"
    r"|\bcreates?\b[^.]{0,80}\b(?:first time|(?:does|do) not (?:already )?exist|doesn't exist|not yet)"
    r"|pre-?signed|generates? an? [^.]{0,40}\b(?:url|link)\b"
    r"|\b(?:sign-?in|login|embed|session|portal|download|upload) (?:url|link)s?\b"
    r"|\b(?:returns?|issues?|generates?|provides?|gets?|obtains?|retrieves?) (?:a |an |the |new )?"
    r"(?:temporary |short-lived )?(?:access |auth\w* |bearer |session |federation |security )?"
    r"(?:tokens?|credentials?)\b",
    re.IGNORECASE,
)
TAG = re.compile(r"<[^>]+>")
# Hits that neither mint nor write, each with why: the words are about something else.
REVIEWED: dict[str, str] = {
    "account-access-runtime:ListRoles": "the roles one may ask credentials for (GetRoleCredentials, refused)",
    "cloudwatch:GetMetricWidgetImage": "the reader may create a dashboard of the images",
    "connect:DescribeContactFlow": "flows may also be created in the flow language",
    "connect:ListContactFlows": "flows may also be created in the flow language",
    "ec2:GetIpamPrefixListResolverVersions": "IPAM creates versions when CIDRs change, not the read",
    "emr-containers:DescribeSecurityConfiguration": "a security configuration may also be created",
    "emr-containers:ListSecurityConfigurations": "a security configuration may also be created",
    "iam:GetCredentialReport": "a report about the account's credentials, none of them (labs read it)",
    "managedblockchain-query:BatchGetTokenBalance": "a blockchain token's balance, no credential",
    "mgn:ListNetworkMigrationMappings": "the service's analysis creates them, not the read",
    "s3:GetBucketMetadataTableConfiguration": "advice to re-create a configuration",
    "s3:GetObject": "how to obtain a session token (CreateSession, refused) to call it",
    "s3:GetObjectAttributes": "how to obtain a session token (CreateSession, refused) to call it",
    "s3:HeadObject": "how to obtain a session token (CreateSession, refused) to call it",
    "s3:ListMultipartUploads": "how to obtain a session token (CreateSession, refused) to call it",
    "s3:ListObjectsV2": "how to obtain a session token (CreateSession, refused) to call it",
    "s3:ListParts": "how to obtain a session token (CreateSession, refused) to call it",
    "support:DescribeAttachment": "the attachment's own data; the presigned link is another read's",
    "workdocs:DescribeRootFolders": "it needs an authentication token, it returns none",
    "workdocs:GetCurrentUser": "it needs an authentication token, it returns none",
}


def documented_hits() -> dict[str, str]:
    """Every read whose documentation matches MINTS_OR_WRITES, with how the rules treat it: `refused: ...`,
    `blanked: ...` or `relayed`."""
    loader, found = botocore.loaders.create_loader(), {}
    for service in loader.list_available_services("service-2"):
        raw, model = loader.load_service_model(service, "service-2"), None
        for operation, spec in raw["operations"].items():
            if not (operation.startswith(READ_PREFIXES) or f"{service}:{operation}" in ALLOWED_READS):
                continue
            if not MINTS_OR_WRITES.search(TAG.sub(" ", spec.get("documentation", ""))):
                continue
            model = model or ServiceModel(raw, service)
            why, blanked = refusal(service, operation, model), secrets_of(model).in_output(operation)
            found[f"{service}:{operation}"] = (
                f"refused: {why}" if why else f"blanked: {', '.join(blanked)}" if blanked else "relayed"
            )
    return found


@pytest.mark.timeout(900)  # reads every model's documentation
def test_every_read_documented_as_minting_or_writing_is_classified() -> None:
    hits = documented_hits()
    relayed = sorted(name for name, how in hits.items() if how == "relayed" and name not in REVIEWED)
    assert not relayed, f"reads documented as minting or writing, neither refused, blanked nor reviewed: {relayed}"
    # the attacker's, each refused
    for name in (
        "datazone:GetIamPortalLoginUrl",
        "controltower:ListLandingZones",
        "iot:DescribeEndpoint",
        "s3control:GetDataAccess",
    ):
        assert hits[name].startswith("refused"), (name, hits[name])
    assert hits["ecr:GetDownloadUrlForLayer"] == "blanked: downloadUrl"  # a presigned URL beside nothing else
    stale = sorted(name for name in REVIEWED if hits.get(name) != "relayed")
    assert not stale, f"reviewed reads no longer found relayed by the scan: {stale}"


def test_a_stack_sets_template_is_blanked_as_get_template_is_refused() -> None:
    """DescribeStackSet's TemplateBody holds what GetTemplate is refused for (issue 31's attack 06): every read of
    CloudFormation's model whose answer holds a template's body, at any depth, blanks it."""
    model = ServiceModel(botocore.loaders.create_loader().load_service_model("cloudformation", "service-2"))
    assert refusal("cloudformation", "GetTemplate", model) is not None
    secrets, answering = secrets_of(model), []
    for operation in model.operation_names:
        if not operation.startswith(READ_PREFIXES) or refusal("cloudformation", operation, model) is not None:
            continue
        if _holds_member(model.operation_model(operation).output_shape, "TemplateBody"):
            answering.append(operation)
            assert any(path.endswith("TemplateBody") for path in secrets.in_output(operation)), operation
    assert {"DescribeStackSet", "GetGeneratedTemplate"} <= set(answering)


def _holds_member(shape: Shape | None, name: str) -> bool:
    """Whether a value of `shape` has a member called `name` at any depth."""
    seen, pending = set(), [shape] if shape is not None else []
    while pending:
        current = pending.pop()
        if current.type_name == "structure" and name in current.members:
            return True
        for child in children(current):
            if child.name not in seen:
                seen.add(child.name)
                pending.append(child)
    return False
