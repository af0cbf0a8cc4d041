"""Which AWS operations are reads, and the botocore hook that refuses every other one before it is sent.

A read is an operation named like one (Describe, Get, List, ...) or on the allow list, and none of: on the deny
list (its answer is a credential or a secret), on the list of reads that change state, or named for a credential
and answering one by botocore's model (harness/core/secret_shapes.py). A read whose answer holds secrets beside
the settings labs check (a user pool client's secret, a function's environment variables) stays a read: the
gateway blanks those members in the answer it relays.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from botocore.model import ServiceModel

from harness.core.botocore_models import find_service_model
from harness.core.secret_shapes import secrets_of

READ_PREFIXES = ("Describe", "Get", "List", "Head", "BatchGet", "Lookup")

# Reads by name whose answer is a credential or a secret (minted, or revealed).
DENIED_READS = frozenset(
    {
        "sts:GetSessionToken",
        "sts:GetFederationToken",
        "sts:GetWebIdentityToken",
        "ecr:GetAuthorizationToken",
        "ecr-public:GetAuthorizationToken",
        "codeartifact:GetAuthorizationToken",
        "redshift:GetClusterCredentials",
        "redshift:GetClusterCredentialsWithIAM",
        "redshift-serverless:GetCredentials",
        "cognito-identity:GetId",
        "cognito-identity:GetCredentialsForIdentity",
        "cognito-identity:GetOpenIdToken",
        "cognito-identity:GetOpenIdTokenForDeveloperIdentity",
        "sso:GetRoleCredentials",
        "ec2:GetPasswordData",
        "lightsail:GetInstanceAccessDetails",
        "lightsail:GetRelationalDatabaseMasterUserPassword",
        "kinesisvideo:GetSignalingChannelEndpoint",
        "iot:GetJobDocument",
        "connect:GetFederationToken",
        "emr:GetClusterSessionCredentials",
        "lakeformation:GetTemporaryGlueTableCredentials",
        "lakeformation:GetTemporaryGluePartitionCredentials",
        "gamelift:GetInstanceAccess",
        "gamelift:GetComputeAccess",
        "gamelift:GetComputeAuthToken",
        "s3:CreateSession",
        "secretsmanager:GetSecretValue",
        "secretsmanager:BatchGetSecretValue",
        "ssm:GetParameter",
        "ssm:GetParameters",
        "ssm:GetParametersByPath",
        "ssm:GetParameterHistory",  # every value a parameter held
        "cloudformation:GetTemplate",  # a template's text: literal secrets, NoEcho parameters' defaults
        "cloudformation:GetTemplateSummary",  # NoEcho parameters' default values
        "kms:GetParametersForImport",
        "ec2:GetVpnConnectionDeviceSampleConfiguration",  # a router's configuration with the tunnels' keys
        # a way in or out, minted by the read: a sign-in or dashboard URL, a presigned URL to upload or download
        # (found by the documentation scan of tests/core/test_readonly_review.py, which classifies every hit)
        "datazone:GetIamPortalLoginUrl",  # a portal sign-in URL with its code
        "emr-serverless:GetDashboardForJobRun",
        "emr-serverless:GetResourceDashboard",
        "elbv2:GetTrustStoreCaCertificatesBundle",
        "elbv2:GetTrustStoreRevocationContent",
        "iotdeviceadvisor:GetSuiteRunReport",
        "mturk:GetFileUploadURL",
        "qconnect:GetContent",
        "wisdom:GetContent",
        "socialmessaging:GetWhatsAppFlowPreview",
        "s3control:GetDataAccess",  # temporary credentials from S3 Access Grants
        "quicksight:GetIdentityContext",  # an identity context for identity-enhanced role sessions
    }
)

# Reads by name that change state: a task or a message taken, a code sent, a snapshot made.
SIDE_EFFECT_READS = frozenset(
    {
        "sqs:ReceiveMessage",  # the message becomes invisible to its consumers
        "stepfunctions:GetActivityTask",  # takes the activity's next task
        "cognito-idp:GetUserAttributeVerificationCode",  # sends the user a code
        "ssm:GetDeployablePatchSnapshotForInstance",  # makes the snapshot
        "controltower:ListLandingZones",  # "also creates an ARN for existing accounts that do not yet have" one
        "iot:DescribeEndpoint",  # "returns or creates" the account's endpoint the first time
        "iot:GetRegistrationCode",  # creates the code if there is none
        "socialmessaging:GetWhatsAppMessageMedia",  # stores the media file in a bucket
    }
)

# An operation named for a credential (GetRoleCredentials, GetAccessToken, ListUserPoolClientSecrets): refused when
# its answer, by the model, holds a secret; other reads whose answers hold one are relayed with it blanked.
CREDENTIAL_OPERATION = re.compile(
    r"(?:Credentials?|Tokens?|Passwords?|Secrets?|SecretValues?|AccessDetails|EmbedUrl|SessionURL|SessionUrl)\Z"
)

# Reads whose names do not start with a read prefix: each only reads (tests/core/test_readonly.py decides every one).
ALLOWED_READS = frozenset(
    {
        "dynamodb:Query",
        "dynamodb:Scan",
        "dynamodb:BatchGetItem",
        "dynamodb:TransactGetItems",
        "sts:DecodeAuthorizationMessage",
        "s3:SelectObjectContent",
        "ec2:SearchTransitGatewayRoutes",
        "ec2:SearchLocalGatewayRoutes",
        "resource-groups:SearchResources",
        "logs:FilterLogEvents",
        "cloudsearchdomain:Search",
        "sdb:Select",
        "iam:SimulatePrincipalPolicy",
        "iam:SimulateCustomPolicy",
        "route53:TestDNSAnswer",
        "glue:SearchTables",
    }
)

# Report jobs: AWS's ReadOnlyAccess grants them, but each starts a job whose report then exists (or not) for the
# next evaluation of the account to see: a bit passed between evaluations. A lab reads a report its setup made.
REPORT_JOBS = frozenset(
    {
        "iam:GenerateCredentialReport",
        "iam:GenerateServiceLastAccessedDetails",
        "iam:GenerateOrganizationsAccessReport",
    }
)


def is_read(service: str, operation: str, model: ServiceModel | None = None) -> bool:
    """True when `service:Operation` only reads (see `refusal`). `model`: the service's model, if the caller holds
    one (else the shared one is loaded)."""
    return refusal(service, operation, model) is None


def refusal(service: str, operation: str, model: ServiceModel | None = None) -> str | None:
    """Why `service:Operation` is not a read, in a few words naming the rule or the list; None for a read."""
    name = f"{service}:{operation}"
    if name in DENIED_READS:
        return "deny list: its answer is a credential or a secret"
    if name in SIDE_EFFECT_READS:
        return "side-effect list: it changes state"
    if name in REPORT_JOBS:
        return "report job: it starts a job whose report the next evaluation sees"
    if name not in ALLOWED_READS and not operation.startswith(READ_PREFIXES):
        return "not named as a read"
    if CREDENTIAL_OPERATION.search(operation):
        model = model or find_service_model(service)
        found = secrets_of(model).in_output(operation) if model is not None else []
        if found:
            return f"named for a credential, and its answer holds one ({', '.join(found[:3])})"
    return None


class WriteRefused(Exception):
    """Raised by the guard instead of sending a non-read operation."""

    def __init__(self, operation: str) -> None:
        super().__init__(f"refused {operation}: evaluation code may only read")
        self.operation = operation


@dataclass
class ReadOnlyGuard:
    """A `before-call` hook: refuses non-reads and remembers them, so a swallowed refusal still counts."""

    refused: list[str] = field(default_factory=list)

    def __call__(self, model: Any, **_: Any) -> None:
        service = model.service_model.service_name
        if not is_read(service, model.name, model.service_model):
            operation = f"{service}:{model.name}"
            self.refused.append(operation)
            raise WriteRefused(operation)
