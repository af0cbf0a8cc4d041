"""Step 01.01 as 0.1.0's docs taught it: harness.scenarios' decorators, harness.recorder's rules for a stale event."""

from harness.recorder import RULES, Rule, from_params, from_response
from harness.scenarios import mistake, solve

BUCKET_RULE: Rule = RULES[("s3", "CreateBucket")]
GONE = Rule(BUCKET_RULE.type, from_params("Bucket"))
QUEUE = Rule("AWS::SQS::Queue", from_response("QueueUrl"))


def _bucket(aws, name, *, versioned):
    s3 = aws.client("s3")
    s3.create_bucket(Bucket=name)
    if versioned:
        s3.put_bucket_versioning(Bucket=name, VersioningConfiguration={"Status": "Enabled"})


@solve
def versioned_bucket(aws, handles):
    _bucket(aws, "last-release-site", versioned=True)


@mistake(issue=r"(?i)versioning")
def versioning_off(aws, handles):
    _bucket(aws, "last-release-site", versioned=False)


def _stale_first(events):
    """A bucket deleted since, then an unrelated queue, before what was recorded."""
    stale = {"type": GONE.type, "id": GONE.id_of({"Bucket": "last-release-gone"}, {})}
    queue = {"type": QUEUE.type, "id": QUEUE.id_of({}, {"QueueUrl": "https://sqs.us-east-1.amazonaws.com/1/q"})}
    return [stale, queue, *events]


@mistake(expect="pass", events=_stale_first)
def stale_events_first(aws, handles):
    _bucket(aws, "last-release-site", versioned=True)
