"""Held-out mistakes of containers-api step 01.01, with decoys (see tests/heldout/README.md)."""

from harness.authoring.scenarios import mistake


def _heldout_repository(aws, name, *, immutable=True, scan=True):
    aws.client("ecr").create_repository(
        repositoryName=name,
        imageTagMutability="IMMUTABLE" if immutable else "MUTABLE",
        imageScanningConfiguration={"scanOnPush": scan},
    )


@mistake(issue=r"(?i)heldout-orders-api.*immutab")
def heldout_mutable_tags_after_a_scratch_repository(aws, handles):
    _heldout_repository(aws, "heldout-scratch", immutable=False, scan=False)  # older, wrong twice
    _heldout_repository(aws, "heldout-orders-api", immutable=False)


@mistake(issue=r"(?i)heldout-orders-api.*scan")
def heldout_no_scan_beside_an_older_mutable_repository(aws, handles):
    _heldout_repository(aws, "heldout-old", immutable=False)
    _heldout_repository(aws, "heldout-orders-api", scan=False)
