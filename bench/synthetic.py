"""A synthetic lab of any depth for the playthrough benchmark: `python -m bench.synthetic DIR --steps 30`.

Step NN asks for a versioned S3 bucket named `synthetic-NN` (its evaluator judges the bucket named in its events)
and needs the bucket of the step before it. Each step has 8 scenarios: the solve and 7 mistakes (6 that must fail,
1 that must pass), so a lab of N steps plays 9 N evaluations, untouched accounts included.
"""

from __future__ import annotations

import argparse
from pathlib import Path

SCENARIOS_PER_STEP = 8
MODULE = '''"""Step {key}: a versioned bucket named {bucket}; the bucket of the step before still there."""

from botocore.exceptions import ClientError

NAME, TYPE, BUCKET, EARLIER = "{stem}_bucket", "AWS::S3::Bucket", "{bucket}", {earlier!r}


def failed(issue, entry=None):
    entry = entry or {{"name": NAME, "type": TYPE, "id": None, "status": "not_found"}}
    context = {{"step": "{key}", "issue": issue, "hint_context": "bucket"}}
    return {{"validated": [entry], "success": False, "message": issue, "failure_context": context}}


async def run(session, context, logger):
    s3 = session.client("s3")
    if EARLIER:
        try:
            s3.head_bucket(Bucket=EARLIER)
        except ClientError:
            return failed(f"The bucket {{EARLIER}} of the step before is gone.")
    named = [e["id"] for e in context["events"] if e["type"] == TYPE and e["id"] == BUCKET]
    if not named:
        return failed(f"No bucket named {{BUCKET}} was created.")
    try:
        status = s3.get_bucket_versioning(Bucket=BUCKET).get("Status")
    except ClientError:
        return failed(f"No bucket named {{BUCKET}} exists.")
    entry = {{"name": NAME, "type": TYPE, "id": BUCKET, "status": "found"}}
    if status != "Enabled":
        return failed(f"Versioning is not enabled on {{BUCKET}}.", entry)
    return {{"validated": [entry], "success": True, "message": f"{{BUCKET}} is versioned."}}
'''
SCENARIOS = '''"""Step {key}: the solve and 7 mistakes."""

from harness.authoring.scenarios import mistake, solve

BUCKET = "{bucket}"


def _bucket(aws, name, versioning=None):
    s3 = aws.client("s3")
    s3.create_bucket(Bucket=name)
    if versioning:
        s3.put_bucket_versioning(Bucket=name, VersioningConfiguration={{"Status": versioning}})


@solve
def versioned_bucket(aws, handles):
    _bucket(aws, BUCKET, "Enabled")


@mistake(issue=r"(?i)versioning")
def versioning_never_enabled(aws, handles):
    _bucket(aws, BUCKET)


@mistake(issue=r"(?i)versioning")
def versioning_suspended(aws, handles):
    _bucket(aws, BUCKET, "Enabled")
    aws.client("s3").put_bucket_versioning(Bucket=BUCKET, VersioningConfiguration={{"Status": "Suspended"}})


@mistake(after_solve=True, issue=r"(?i)exists")
def deleted_afterwards(aws, handles):
    aws.client("s3").delete_bucket(Bucket=BUCKET)


@mistake(issue=r"(?i)named")
def wrong_name(aws, handles):
    _bucket(aws, BUCKET + "-typo", "Enabled")


@mistake(issue=r"(?i)named")
def nothing_done(aws, handles):
    pass


@mistake(issue=r"(?i)versioning")
def versioning_on_another_bucket(aws, handles):
    _bucket(aws, BUCKET)
    _bucket(aws, BUCKET + "-other", "Enabled")


@mistake(expect="pass")
def scratch_bucket_first(aws, handles):
    _bucket(aws, BUCKET + "-scratch")
    _bucket(aws, BUCKET, "Enabled")
'''


def write_synthetic_lab(root: Path, steps: int) -> Path:
    """A lab of `steps` steps (at most 99) in one objective, with its scenarios, under `root`."""
    if not 1 <= steps <= 99:
        raise ValueError("steps must be between 1 and 99")
    for sub in ("specs", "evaluation/boto3", "scenarios"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    lines = ["project: synthetic", f"title: {steps} synthetic steps", "objectives:", '  - id: "01"', "    steps:"]
    for number in range(1, steps + 1):
        key, stem, bucket = f"01.{number:02d}", f"01_{number:02d}", f"synthetic-{number:02d}"
        earlier = f"synthetic-{number - 1:02d}" if number > 1 else None
        lines.append(f'      - id: "{number:02d}"')
        if number > 1:
            lines.append(f"        inputs: [01_{number - 1:02d}_bucket]")
        lines.append(f"        outputs: [{{name: {stem}_bucket, type: AWS::S3::Bucket}}]")
        module = MODULE.format(key=key, stem=stem, bucket=bucket, earlier=earlier)
        (root / "evaluation" / "boto3" / f"{stem}.py").write_text(module)
        (root / "scenarios" / f"{stem}.py").write_text(SCENARIOS.format(key=key, bucket=bucket))
    (root / "specs" / "synthetic.yaml").write_text("\n".join(lines) + "\n")
    return root


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.synthetic", description=__doc__)
    parser.add_argument("directory", type=Path, help="where to write the lab (created)")
    parser.add_argument("--steps", type=int, default=30, help="how many steps (30)")
    args = parser.parse_args()
    write_synthetic_lab(args.directory, args.steps)
    print(f"wrote a {args.steps}-step lab in {args.directory}: stepeval test --lab {args.directory}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
