"""`python -m bench.boundary`: what the gateway's boundary costs on the service path, per response and per request.

Redaction (harness/sandbox/redact.py): the CPU time to blank an answer's secrets, for typical answers (Lambda's
`ListFunctions` in JSON, IAM's `ListRoles` in XML) and adversarial ones (large, a bag of 20,000 variables, text nested
deep, 1 MiB of text shaped to make a pattern read it again and again), beside the same run's baseline: a plain parse
and write of the same body (json.loads and json.dumps, ElementTree's fromstring and tostring). The owner check
(harness/sandbox/owner.py: the accounts a request names, the bucket it names), per request, beside the plain parse of
the same request (its JSON or form body, its path) and the gateway's own reading of it (`identify`). Then whether
each grows linearly: the time for a body four times as large over the time for one (4 is linear; a quadratic pattern
once made it 16 and more). CPU times of this process, each measure sampled in turn with its baseline.
"""

from __future__ import annotations

import argparse
import json
import urllib.parse
import xml.etree.ElementTree as ET
from collections.abc import Callable
from dataclasses import dataclass

from rich.table import Table

from bench.common import interleaved_cpu_ms, results_console
from harness.sandbox import redact
from harness.sandbox.models import read_model
from harness.sandbox.operations import identify
from harness.sandbox.owner import bucket_of, named_accounts
from harness.sandbox.tap import RawRequest

ACCOUNT = "111111111111"
JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJsZWFybmVyIn0.c2lnbmF0dXJl"
RATIO_GOAL = 6.0  # a body 4x as large takes at most this many times as long: linear, with some noise
FORM = "application/x-www-form-urlencoded; charset=utf-8"


@dataclass(frozen=True)
class Answer:
    """An answer to blank: its service, operation, protocol and body."""

    name: str
    service: str
    operation: str
    protocol: str
    body: bytes


def lambda_function(i: int, description: str = "orders API", variables: dict[str, str] | None = None) -> dict:
    return {
        "FunctionName": f"fn-{i}",
        "FunctionArn": f"arn:aws:lambda:us-east-1:{ACCOUNT}:function:fn-{i}",
        "Runtime": "python3.12",
        "Role": f"arn:aws:iam::{ACCOUNT}:role/app",
        "Handler": "index.handler",
        "CodeSize": 1234,
        "Description": description,
        "Timeout": 30,
        "MemorySize": 128,
        "LastModified": "2026-11-29T00:00:00.000+0000",
        "CodeSha256": "BuKNMCqxMFM4VdGSnAxEpS9FqRb0aGjf9nfBK+rE1qU=",
        "Version": "$LATEST",
        "TracingConfig": {"Mode": "PassThrough"},
        "Architectures": ["x86_64"],
        "Environment": {"Variables": variables or {"TABLE_NAME": "orders", "LOG_LEVEL": "info", "DB_PASSWORD": "pw"}},
        "PackageType": "Zip",
    }


def functions(count: int, description: str = "orders API") -> bytes:
    return json.dumps({"Functions": [lambda_function(i, description) for i in range(count)]}).encode()


def one_function(description: str = "orders API", variables: dict[str, str] | None = None) -> bytes:
    return json.dumps(lambda_function(0, description, variables)).encode()


def roles(count: int, description: str = "the app's role", extra: str = "") -> bytes:
    policy = urllib.parse.quote(json.dumps({"Version": "2012-10-17", "Statement": [{"Effect": "Allow"}]}))
    members = "".join(
        f"<member><Path>/</Path><RoleName>app-{i}</RoleName><RoleId>AROA{i:016d}</RoleId>"
        f"<Arn>arn:aws:iam::{ACCOUNT}:role/app-{i}</Arn><CreateDate>2026-11-29T00:00:00Z</CreateDate>"
        f"<AssumeRolePolicyDocument>{policy}</AssumeRolePolicyDocument><Description>{description}</Description>"
        f"<MaxSessionDuration>3600</MaxSessionDuration>{extra}</member>"
        for i in range(count)
    )
    return (
        '<ListRolesResponse xmlns="https://iam.amazonaws.com/doc/2010-05-08/"><ListRolesResult>'
        f"<IsTruncated>false</IsTruncated><Roles>{members}</Roles></ListRolesResult>"
        "<ResponseMetadata><RequestId>r</RequestId></ResponseMetadata></ListRolesResponse>"
    ).encode()


def nested_json_text(depth: int) -> str:
    """JSON text nested `depth` deep with a credential-named key at the bottom (read as JSON, walked to blank it)."""
    return '{"a": ' * depth + '{"db_password": "pw"}' + "}" * depth


def answers() -> list[Answer]:
    many = {f"SETTING_{i}": f"value-{i}" for i in range(20_000)}
    return [
        Answer("JSON, typical: 50 functions", "lambda", "ListFunctions", "rest-json", functions(50)),
        Answer("XML, typical: 100 roles", "iam", "ListRoles", "query", roles(100)),
        Answer("JSON, large: 3,000 functions", "lambda", "ListFunctions", "rest-json", functions(3000)),
        Answer(
            "JSON, many keys: 20,000 variables",
            "lambda",
            "GetFunctionConfiguration",
            "rest-json",
            one_function(variables=many),
        ),
        Answer(
            "JSON, deep: JSON text 400 deep in each of 50",
            "lambda",
            "ListFunctions",
            "rest-json",
            functions(50, description=nested_json_text(400)),
        ),
        Answer(
            "JSON, 1 MiB of 'eyJ' in a description",
            "lambda",
            "GetFunctionConfiguration",
            "rest-json",
            one_function(description="eyJ" * 350_000),
        ),
        Answer("XML, large: 6,000 roles", "iam", "ListRoles", "query", roles(6000)),
        Answer(
            "XML, deep: 900 elements under each of 20",
            "iam",
            "ListRoles",
            "query",
            roles(20, extra="<x>" * 900 + "</x>" * 900),
        ),
        Answer(
            "XML, 1 MiB of 'eyJ' in a description", "iam", "ListRoles", "query", roles(1, description="eyJ" * 350_000)
        ),
    ]


def plain_parse(protocol: str, body: bytes) -> Callable[[], object]:
    """The baseline: the body parsed and written back, as a proxy that reads it must at least."""
    if protocol in redact.JSON_PROTOCOLS:
        return lambda: json.dumps(json.loads(body), separators=(",", ":"))
    return lambda: ET.tostring(ET.fromstring(body), encoding="utf-8")


def blanking(answer: Answer) -> Callable[[], object]:
    entry = read_model(answer.service)
    operation = entry.model.operation_model(answer.operation)
    assert redact.needed(entry.secrets, operation, answer.protocol), answer.name
    return lambda: redact.redact(entry.secrets, operation, answer.protocol, answer.body)


@dataclass(frozen=True)
class Request:
    """A request to check for the sandbox's account: its service, operation and what it is on the wire."""

    name: str
    service: str
    operation: str
    raw: RawRequest


def form(body: str) -> RawRequest:
    return RawRequest("POST", "/", "", {"content-type": FORM}, body.encode())


def requests() -> list[Request]:
    topic = urllib.parse.quote(f"arn:aws:sns:us-east-1:{ACCOUNT}:orders", safe="")
    queue = urllib.parse.quote(f"https://sqs.us-east-1.amazonaws.com/{ACCOUNT}/jobs", safe="")
    json_headers = {"content-type": "application/x-amz-json-1.0", "x-amz-target": "DynamoDB_20120810.DescribeTable"}
    arns = json.dumps(
        {"TableName": "|".join(f"arn:aws:dynamodb:us-east-1:{ACCOUNT}:table/t{i}" for i in range(20_000))}
    )
    return [
        Request(
            "S3 GetObject (a path)", "s3", "GetObject", RawRequest("GET", "/alpha-bucket/orders/1.json", "", {}, b"")
        ),
        Request(
            "SNS GetTopicAttributes (a form, an ARN)",
            "sns",
            "GetTopicAttributes",
            form(f"Action=GetTopicAttributes&Version=2010-03-31&TopicArn={topic}"),
        ),
        Request(
            "DynamoDB DescribeTable (JSON)",
            "dynamodb",
            "DescribeTable",
            RawRequest("POST", "/", "", json_headers, b'{"TableName": "orders"}'),
        ),
        Request(
            "1 MiB form of 'queueurl='",
            "sns",
            "GetTopicAttributes",
            form(f"Action=GetTopicAttributes&Version=2010-03-31&TopicArn={topic}&x=" + "queueurl=" * 116_000),
        ),
        Request(
            "1 MiB JSON of 20,000 ARNs",
            "dynamodb",
            "DescribeTable",
            RawRequest("POST", "/", "", json_headers, arns.encode()),
        ),
        Request(
            "1 MiB form of digits and colons",
            "sns",
            "GetTopicAttributes",
            form(f"Action=GetTopicAttributes&Version=2010-03-31&TopicArn={topic}&x=" + "1111111111111:" * 74_000),
        ),
        Request(
            "SQS-style queue URL (a form)",
            "sns",
            "GetTopicAttributes",
            form(f"Action=GetTopicAttributes&Version=2010-03-31&TopicArn={topic}&QueueUrl={queue}"),
        ),
    ]


def owner_check(request: Request) -> Callable[[], object]:
    """What the gateway does per request to keep it to the sandbox account (the answers it asks once per
    evaluation, the account's id and buckets, aside)."""
    operation = read_model(request.service).model.operation_model(request.operation)

    def check() -> object:
        return named_accounts(request.raw), bucket_of(operation, request.raw) if request.service == "s3" else None

    return check


def request_parse(raw: RawRequest) -> Callable[[], object]:
    """The baseline: the request's body parsed (JSON or a form) and its path decoded."""
    if raw.headers.get("content-type", "").startswith("application/x-www-form-urlencoded"):
        return lambda: (urllib.parse.unquote(raw.path), urllib.parse.parse_qsl(raw.body.decode("latin-1")))
    if raw.body:
        return lambda: (urllib.parse.unquote(raw.path), json.loads(raw.body))
    return lambda: (urllib.parse.unquote(raw.path), urllib.parse.parse_qsl(raw.query))


def growth(make: Callable[[int], Callable[[], object]], size: int, runs: int) -> tuple[float, float]:
    """CPU ms at `size` and at 4x `size`."""
    timed = interleaved_cpu_ms({"n": make(size), "4n": make(4 * size)}, runs=runs, warmup=1)
    return timed["n"], timed["4n"]


def growth_cases() -> list[tuple[str, Callable[[int], Callable[[], object]], int]]:
    """(what grows, a maker of the timed action at a size, the smaller size)."""

    def blank(service: str, operation: str, protocol: str, body: Callable[[int], bytes]) -> Callable[[int], Callable]:
        return lambda n: blanking(Answer("", service, operation, protocol, body(n)))

    def owner(body: Callable[[int], str]) -> Callable[[int], Callable]:
        return lambda n: owner_check(Request("", "sns", "GetTopicAttributes", form(body(n))))

    return [
        ("JSON answer: functions", blank("lambda", "ListFunctions", "rest-json", functions), 500),
        (
            "JSON answer: variables",
            blank(
                "lambda",
                "GetFunctionConfiguration",
                "rest-json",
                lambda n: one_function(variables={f"K{i}": "v" for i in range(n)}),
            ),
            4000,
        ),
        (
            "JSON answer: 'eyJ' text",
            blank("lambda", "GetFunctionConfiguration", "rest-json", lambda n: one_function(description="eyJ" * n)),
            60_000,
        ),
        ("XML answer: roles", blank("iam", "ListRoles", "query", roles), 500),
        (
            "XML answer: 'eyJ' text",
            blank("iam", "ListRoles", "query", lambda n: roles(1, description="eyJ" * n)),
            60_000,
        ),
        ("request: 'queueurl=' form", owner(lambda n: "x=" + "queueurl=" * n), 25_000),
        ("request: digits and colons", owner(lambda n: "x=" + "1111111111111:" * n), 15_000),
    ]


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.boundary", description=__doc__)
    parser.add_argument("--runs", type=int, default=30, help="samples of each typical measure (30)")
    args = parser.parse_args()
    console = results_console("boundary")
    adversarial_runs = max(3, args.runs // 6)

    table = Table(title="Redaction per answer: CPU ms, beside a plain parse and write of the same body")
    for column in ("answer", "size", "blanked (ms)", "plain parse (ms)", "ratio"):
        table.add_column(column)
    for answer in answers():
        runs = args.runs if "typical" in answer.name else adversarial_runs
        timed = interleaved_cpu_ms(
            {"blanked": blanking(answer), "parse": plain_parse(answer.protocol, answer.body)}, runs=runs, warmup=1
        )
        table.add_row(
            answer.name,
            f"{len(answer.body) / 1024:,.0f} KiB",
            f"{timed['blanked']:.2f}",
            f"{timed['parse']:.2f}",
            f"{timed['blanked'] / timed['parse']:.1f}x",
        )
    console.print(table)

    table = Table(title="Owner check per request: CPU ms, beside a plain parse of it and the gateway's reading of it")
    for column in ("request", "size", "owner check (ms)", "plain parse (ms)", "identify (ms)", "check / parse"):
        table.add_column(column)
    for request in requests():
        runs = args.runs * 10 if len(request.raw.body) < 4096 else adversarial_runs
        timed = interleaved_cpu_ms(
            {
                "check": owner_check(request),
                "parse": request_parse(request.raw),
                "identify": lambda raw=request.raw, service=request.service: identify(service, raw),
            },
            runs=runs,
            warmup=1,
        )
        table.add_row(
            request.name,
            f"{len(request.raw.body) / 1024:,.1f} KiB",
            f"{timed['check']:.3f}",
            f"{timed['parse']:.3f}",
            f"{timed['identify']:.3f}",
            f"{timed['check'] / timed['parse']:.1f}x",
        )
    console.print(table)

    table = Table(title="Growth: CPU ms for a body 4x as large over one (4 is linear)")
    for column in ("what grows", "n (ms)", "4n (ms)", "ratio", "goal", "met"):
        table.add_column(column)
    for name, make, size in growth_cases():
        small, large = growth(make, size, adversarial_runs)
        ratio = large / small
        met = "[green]yes[/]" if ratio <= RATIO_GOAL else "[red]no[/]"
        table.add_row(name, f"{small:.2f}", f"{large:.2f}", f"{ratio:.1f}", f"<= {RATIO_GOAL:g}", met)
    console.print(table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
