"""Outsider: step 01.01 (the ECR repository)."""

from harness.authoring.scenarios import mistake, solve

from ._lib import all_of, repository


@solve
def immutable_scanned_repository(aws, handles):
    repository(aws)


@mistake(issue=all_of("orders-api", "(immutab|mutab)"))
def tags_left_mutable(aws, handles):
    """Cause: repository orders-api keeps the default MUTABLE tags."""
    repository(aws, mutability="MUTABLE")


@mistake(issue=all_of("orders-api", "scan on push should be enabled, but is disabled"))
def registry_rule_misses_the_repository(aws, handles):
    """Cause: scan on push off on orders-api, and the registry scanning rule the learner wrote filters payments-*,
    which does not cover orders-api."""
    repository(aws, scan=False)
    aws.client("ecr").put_registry_scanning_configuration(
        scanType="BASIC",
        rules=[
            {"scanFrequency": "SCAN_ON_PUSH", "repositoryFilters": [{"filter": "payments-*", "filterType": "WILDCARD"}]}
        ],
    )


@mistake(expect="pass")
def right_repository_beside_a_scratch_one(aws, handles):
    """Decoy: a scratch repository test (mutable, no scan) created first, then the right orders-api. Must pass."""
    repository(aws, "test", mutability="MUTABLE", scan=False)
    repository(aws)


@mistake(expect="pass")
def equivalent_settings_applied_after_creation(aws, handles):
    """Equivalent: created with defaults, then put_image_tag_mutability and put_image_scanning_configuration."""
    ecr = aws.client("ecr")
    repository(aws, mutability="MUTABLE", scan=False)
    ecr.put_image_tag_mutability(repositoryName="orders-api", imageTagMutability="IMMUTABLE")
    ecr.put_image_scanning_configuration(repositoryName="orders-api", imageScanningConfiguration={"scanOnPush": True})
