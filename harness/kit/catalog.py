"""Every Kind the kit knows, by CloudFormation type, and where a step module imports it from."""

from __future__ import annotations

import importlib
from functools import cache

from harness.kit.kinds import KINDS, Kind

SERVICE_MODULES = (
    "apigateway",
    "autoscaling",
    "cloudfront",
    "cloudtrail",
    "cloudwatch",
    "compute",
    "dynamodb",
    "ec2",
    "ecr",
    "ecs",
    "elbv2",
    "events",
    "iam",
    "kms",
    "awslambda",
    "logs",
    "rds",
    "route53",
    "s3",
    "secretsmanager",
    "sns",
    "sqs",
    "ssm",
    "stepfunctions",
    "cognito",
)


ARN_SERVICES = {
    "lambda": "awslambda",
    "elasticloadbalancing": "elbv2",
    "cognito-idp": "cognito",
    "states": "stepfunctions",
}
"""ARN service names whose kit module is named otherwise (any other: the module of its own name, if the kit has one)."""


def module_of_service(service: str) -> str | None:
    """The kit module that knows the ARNs of `service` (as ARNs name it: `lambda` -> `awslambda`), or None."""
    module = ARN_SERVICES.get(service, service)
    return module if module in SERVICE_MODULES else None


@cache
def kinds() -> dict[str, Kind]:
    """Every kit Kind by CloudFormation type (imports every service module once)."""
    for module in SERVICE_MODULES:
        importlib.import_module(f"harness.kit.{module}")
    return dict(KINDS)


def kind_for(type_name: str) -> Kind | None:
    """The kit's Kind for a CloudFormation type, e.g. `AWS::DynamoDB::Table`, or None."""
    return kinds().get(type_name)


@cache
def reference(type_name: str) -> tuple[str, str] | None:
    """(module, attribute) a step module writes for the type: `("dynamodb", "TABLE")` -> `dynamodb.TABLE`."""
    kind = kind_for(type_name)
    if kind is None:
        return None
    for module in SERVICE_MODULES:
        namespace = vars(importlib.import_module(f"harness.kit.{module}"))
        attribute = next((name for name, value in namespace.items() if value is kind and name.isupper()), None)
        if attribute is not None:
            return module, attribute
    return None
