"""What a request names of an account, however it spells it (harness/sandbox/owner.py, issue 31)."""

from __future__ import annotations

import pytest

from harness.sandbox.owner import named_accounts
from harness.sandbox.tap import RawRequest

JSON = {"content-type": "application/x-amz-json-1.0"}


@pytest.mark.parametrize(
    ("request_", "named"),
    [
        (RawRequest("POST", "/", "", JSON, b'{"TopicArn": "arn:aws:sns:us-east-1:111111111111:t"}'), {"111111111111"}),
        (RawRequest("POST", "/", "", JSON, b'{"TopicArn": "arn\\u003aaws\\u003asns:us-east-1:222222222222:t"}'),
         {"222222222222"}),  # escaped as the endpoint's JSON parser reads it
        (RawRequest("POST", "/", "", {}, b"Action=GetTopicAttributes&TopicArn=arn%3Aaws%3Asns%3Aus-east-1%3A"
                    b"333333333333%3At"), {"333333333333"}),
        (RawRequest("GET", "/2015-03-31/functions/arn%3Aaws%3Alambda%3Aus-east-1%3A444444444444%3Afunction%3Af",
                    "", {}, b""), {"444444444444"}),
        (RawRequest("POST", "/", "", {}, b"Action=GetQueueAttributes&QueueUrl=http%3A%2F%2Flocalhost%3A5000%2F"
                    b"555555555555%2Forders"), {"555555555555"}),
        (RawRequest("GET", "/b", "", {"x-amz-expected-bucket-owner": "666666666666"}, b""), {"666666666666"}),
        (RawRequest("POST", "/", "", JSON, b'{"registryId": "777777777777"}'), {"777777777777"}),
        # a partial ARN names its account too (the fourth outside attacker's: Lambda reads it as that account's)
        (RawRequest("GET", "/2015-03-31/functions/111111111111%3Afunction%3AfnA/configuration", "", {}, b""),
         {"111111111111"}),
        (RawRequest("GET", "/2015-03-31/functions/888888888888:fnA/policy", "", {}, b""), {"888888888888"}),
        (RawRequest("POST", "/", "", JSON, b'{"FunctionName": "999999999999:function:fnA:$LATEST"}'),
         {"999999999999"}),
        # ...with its region before the account, and no `arn:` (the fifth outside attacker's)
        (RawRequest("GET", "/2015-03-31/functions/us-east-1%3A111111111111%3Afunction%3AfnA/configuration", "", {},
                    b""), {"111111111111"}),
        (RawRequest("POST", "/", "", JSON, b'{"name": "eu-central-2:222222222222:stateMachine:sm"}'),
         {"222222222222"}),
        (RawRequest("POST", "/", "", JSON, b'{"Started": "2026-11-28T23:41:50", "Count": 123456789012}'), set()),
        # AWS's own: anyone's to read
        (RawRequest("POST", "/", "", {}, b"Action=GetPolicy&PolicyArn=arn%3Aaws%3Aiam%3A%3Aaws%3Apolicy%2FReadOnly"),
         set()),
        (RawRequest("POST", "/", "", JSON, b'{"TableName": "orders"}'), set()),
    ],
)  # fmt: skip
def test_the_accounts_a_request_names(request_: RawRequest, named: set[str]) -> None:
    assert named_accounts(request_) == named


def test_a_queue_url_after_many_names_of_one_is_read() -> None:
    """A body of `queueurl=` (each once made the pattern read to the end of the body: quadratic) still has its queue
    URL's account read, wherever it is."""
    body = b"queueurl=" * 5000 + b"&QueueUrl=https://sqs.us-east-1.amazonaws.com/333333333333/q"
    assert named_accounts(RawRequest("POST", "/", "", {}, body)) == {"333333333333"}
