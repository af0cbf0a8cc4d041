"""Which AWS operations are reads, and the botocore hook that refuses every other one before it is sent."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

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
    }
)

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


def is_read(service: str, operation: str) -> bool:
    """True when `service:Operation` only reads: prefix rule, minus the deny list, plus the allow list."""
    name = f"{service}:{operation}"
    if name in DENIED_READS:
        return False
    return name in ALLOWED_READS or operation.startswith(READ_PREFIXES)


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
        if not is_read(service, model.name):
            operation = f"{service}:{model.name}"
            self.refused.append(operation)
            raise WriteRefused(operation)
