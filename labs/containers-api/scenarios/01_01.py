"""Step 01.01: an ECR repository with immutable tags whose images are scanned on push."""

from harness.authoring.scenarios import mistake, solve

REPOSITORY = "orders-api"


def _repository(aws, *, scan=True, immutable=True):
    aws.client("ecr").create_repository(
        repositoryName=REPOSITORY,
        imageTagMutability="IMMUTABLE" if immutable else "MUTABLE",
        imageScanningConfiguration={"scanOnPush": scan},
    )


def _registry_rule(aws, pattern):
    """Registry-level scanning, as AWS now recommends: every repository matching `pattern` is scanned on push."""
    rule = {"scanFrequency": "SCAN_ON_PUSH", "repositoryFilters": [{"filter": pattern, "filterType": "WILDCARD"}]}
    aws.client("ecr").put_registry_scanning_configuration(scanType="BASIC", rules=[rule])


@solve
def scanned_immutable_repository(aws, handles):
    _repository(aws)


@mistake(expect="pass")
def scanned_by_a_registry_rule(aws, handles):
    _registry_rule(aws, "orders-*")
    _repository(aws, scan=False)


@mistake(issue=r"(?i)scan on push")
def not_scanned(aws, handles):
    _repository(aws, scan=False)


@mistake(issue=r"(?i)scan on push")
def a_registry_rule_for_other_repositories(aws, handles):
    _registry_rule(aws, "payments-*")
    _repository(aws, scan=False)


@mistake(issue=r"(?i)tag immutability")
def mutable_tags(aws, handles):
    _repository(aws, immutable=False)
