"""Reads kept to the sandbox account (issue 31): what a request names of an account (an ARN's account id, an
account-id parameter) must be the sandbox's own, and an S3 bucket it names must be one the sandbox account owns.

The emulator ignores `x-amz-expected-bucket-owner` and serves any account's bucket by name, and on AWS only the
role's permissions stop a module of account B reading account A's bucket policy, object or topic by name. The
gateway learns the account's id (`GetCallerIdentity`) and its buckets (`ListBuckets`) with the evaluation's own
credentials, once per evaluation and only when a request names one (the bucket list again when a bucket is not in
it and the list is older than RELIST_S: a bucket the learner has just made).
"""

from __future__ import annotations

import contextlib
import json
import re
import threading
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from urllib.parse import unquote

from botocore.model import OperationModel

from harness.sandbox.tap import RawRequest

# An ARN's account field: 12 digits (`arn:aws:sns:us-east-1:111111111111:topic`); AWS-owned ARNs carry `aws` or
# nothing there (`arn:aws:iam::aws:policy/...`, public SSM parameters) and are anyone's to read.
ARN_ACCOUNT = re.compile(r"arn:aws[a-z-]*:[a-z0-9-]*:[a-z0-9-]*:(\d{12}):", re.IGNORECASE)
# A parameter naming an account: `AccountId`, `ExpectedBucketOwner`, `RegistryId`, in JSON, a form or a header.
ACCOUNT_PARAMETER = re.compile(
    r"(?:account-?id|expected-?bucket-?owner|registry-?id)[\"']?\s*[=:]\s*[\"']?(\d{12})", re.IGNORECASE
)
# An SQS queue's URL names its account in its path (`https://sqs.../111111111111/orders`): the URL is read whole and
# its path searched after, so that each character is read once (a lazy pattern reaching for the account from each
# `queue-url=` of a text of them took quadratic time).
QUEUE_URL = re.compile(r"queue-?url[\"']?\s*[=:]\s*[\"']?([^\"'&\s]*)", re.IGNORECASE)
ACCOUNT_IN_PATH = re.compile(r"/(\d{12})(?=/)")
# A partial ARN: an account id and a colon where a name may be one (Lambda's `111111111111:function:fnA`, as a
# FunctionName in the path or the body), not the account field of a whole ARN (ARN_ACCOUNT reads those).
PARTIAL_ARN = re.compile(r"(?<![0-9A-Za-z:])(\d{12}):[A-Za-z$]")
# ...and one with its region before the account (`us-east-1:111111111111:function:fnA`, an ARN without `arn:...:`).
REGION_PARTIAL_ARN = re.compile(r"(?<![0-9A-Za-z-])[a-z]{2}(?:-[a-z]+){1,3}-\d{1,2}:(\d{12}):[A-Za-z$]")
RELIST_S = 1.0
MAX_SCANNED_CHARS = 1024 * 1024


class NotTheSandboxs(Exception):
    """A request naming what the sandbox account does not own: `bucket` set when it is an S3 bucket."""

    def __init__(self, reason: str, bucket: str | None = None) -> None:
        super().__init__(reason)
        self.bucket = bucket


def named_accounts(request: RawRequest) -> set[str]:
    """The account ids a request names (in its path, query, identifying headers and body, as sent and decoded)."""
    headers = " ".join(f"{k}: {v}" for k, v in request.headers.items() if k.startswith("x-amz-"))
    text = " ".join((request.path, request.query, headers, request.body[:MAX_SCANNED_CHARS].decode("latin-1")))
    texts = [text, unquote(text)]
    with contextlib.suppress(ValueError, RecursionError):  # a JSON body as the endpoint reads it (`\u003a` a colon)
        texts.append(json.dumps(json.loads(request.body), ensure_ascii=False))
    found: set[str] = set()
    for each in dict.fromkeys(texts):
        for pattern in (ARN_ACCOUNT, ACCOUNT_PARAMETER, PARTIAL_ARN, REGION_PARTIAL_ARN):
            found.update(pattern.findall(each))
        for url in QUEUE_URL.findall(each):
            found.update(ACCOUNT_IN_PATH.findall(url))
    return found


def bucket_of(operation: OperationModel, request: RawRequest) -> str | None:
    """The bucket an S3 request names (its path's first segment, path-style as the link sends it), or None for
    an operation that names none (ListBuckets)."""
    shape = operation.input_shape
    member = shape.members.get("Bucket") if shape is not None else None
    if member is None or member.serialization.get("location") != "uri":
        return None
    first = unquote(request.path).lstrip("/").split("/", 1)[0]
    return first or None


@dataclass
class Owner:
    """What one evaluation's sandbox account owns, learned when first needed: its id and its buckets."""

    account_id: str | None = None
    buckets: frozenset[str] | None = None
    listed_at: float = 0.0
    lock: threading.Lock = field(default_factory=threading.Lock)


def account_from(answer: bytes) -> str:
    """The account of a `GetCallerIdentity` answer (XML)."""
    root = ET.fromstring(answer)
    for element in root.iter():
        if element.tag.rsplit("}", 1)[-1] == "Account" and element.text and element.text.strip().isdigit():
            return element.text.strip()
    raise ValueError("no Account in the answer")


def buckets_from(answer: bytes) -> frozenset[str]:
    """The bucket names of a `ListBuckets` answer (XML)."""
    root = ET.fromstring(answer)
    names = set()
    for element in root.iter():
        if element.tag.rsplit("}", 1)[-1] == "Bucket":
            for child in element:
                if child.tag.rsplit("}", 1)[-1] == "Name" and child.text:
                    names.add(child.text)
    return frozenset(names)


def stale(owner: Owner) -> bool:
    """Whether the bucket list may be asked again (a bucket just made)."""
    return time.monotonic() - owner.listed_at >= RELIST_S
