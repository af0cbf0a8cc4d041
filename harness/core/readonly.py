"""Which AWS operations are reads, and the botocore hook that refuses every other one before it is sent."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from typing import Any

from botocore.model import ServiceModel

from harness.core.botocore_models import service_model

READ_PREFIXES = ("Describe", "Get", "List", "Head", "BatchGet", "Lookup")

# Reads by name that mint credentials, reveal tokens, or change state (a received SQS message becomes invisible).
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
        "sqs:ReceiveMessage",
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
        "kms:GetParametersForImport",
    }
)

# Output members that carry a credential or a secret: a read whose answer has one near its top is refused.
SECRET_MEMBERS = frozenset(
    {
        "secretaccesskey",
        "sessiontoken",
        "accesstoken",
        "refreshtoken",
        "idtoken",
        "authorizationtoken",
        "password",
        "secret",
        "secretkey",
        "secretstring",
        "secretbinary",
        "clientsecret",
        "privatekey",
    }
)
SECRET_DEPTH = 3  # deeper, or inside lists, such names are settings (an OIDC listener's masked ClientSecret)

# Reads whose names do not start with a read prefix.
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
    }
)


def is_read(service: str, operation: str, model: ServiceModel | None = None) -> bool:
    """True when `service:Operation` only reads: prefix rule, minus the deny list and reads that reveal secrets,
    plus the allow list. `model`: the service's model, if the caller holds one (else the shared one is loaded)."""
    name = f"{service}:{operation}"
    if name in DENIED_READS:
        return False
    if name not in ALLOWED_READS and not operation.startswith(READ_PREFIXES):
        return False
    return not reveals_secret(service, operation, model)


@cache
def reveals_secret(service: str, operation: str, model: ServiceModel | None = None) -> bool:
    """Whether the operation's answer, by its botocore model, carries a credential or secret near its top."""
    model = model or service_model(service)
    if model is None or operation not in model.operation_names:
        return False
    return _has_secret(model.operation_model(operation).output_shape, SECRET_DEPTH)


def _has_secret(shape: Any, depth: int) -> bool:
    if shape is None or depth == 0 or shape.type_name != "structure":
        return False
    return any(
        name.lower() in SECRET_MEMBERS or _has_secret(member, depth - 1) for name, member in shape.members.items()
    )


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
