"""The gateway's reading of raw requests: every operation's own request, serialized by botocore, is read as
that operation (so a write can never pass for a read), and requests no model describes are refused."""

from __future__ import annotations

from functools import cache
from typing import Any
from urllib.parse import urlsplit

import pytest
from botocore.awsrequest import create_request_object, prepare_request_dict
from botocore.serialize import SERIALIZERS, create_serializer

from harness.core.botocore_models import known_services
from harness.core.readonly import is_read
from harness.sandbox.operations import Unidentified, identify, protocols, service_model
from harness.sandbox.tap import RawRequest
from harness.sandbox.wire import Malformed, body_length, parse_head

# The services labs use (issue 10's list), every protocol botocore speaks among them.
LAB_SERVICES = (
    "ec2", "s3", "elbv2", "iam", "sts", "lambda", "dynamodb", "sqs", "sns", "cloudwatch", "logs", "events", "kms",
    "secretsmanager", "rds", "autoscaling", "ecr", "ecs", "apigateway", "apigatewayv2", "cloudfront", "route53",
    "cloudtrail", "ssm",
)  # fmt: skip
FORM = {"content-type": "application/x-www-form-urlencoded"}
DESCRIBE_TABLE = "DynamoDB_20120810.DescribeTable"
JSON_10 = {"content-type": "application/x-amz-json-1.0"}
PLACEHOLDER = {"string": "x1", "integer": 1, "long": 1, "boolean": True, "double": 1.0, "float": 1.0, "blob": b"x"}


def sample(shape: Any, depth: int = 0) -> Any:
    """A value for `shape` with every required member filled: enough for botocore to serialize it."""
    if shape.type_name == "structure":
        if depth > 4:
            return {}
        return {name: sample(shape.members[name], depth + 1) for name in shape.required_members}
    if shape.type_name == "list":
        return []
    if shape.type_name == "map":
        return {}
    if shape.type_name == "timestamp":
        return 0
    if getattr(shape, "enum", None):
        return shape.enum[0]
    return PLACEHOLDER.get(shape.type_name, "x1")


def wire_request(service: str, operation: str, protocol: str) -> RawRequest:
    """What botocore sends for `operation` with placeholder parameters, as the gateway reads it off the wire (the
    request line and headers parsed by harness/sandbox/wire.py, as strictly as the gateway does)."""
    model = service_model(service).operation_model(operation)
    params = sample(model.input_shape) if model.input_shape is not None else {}
    request_dict = create_serializer(protocol, include_validation=False).serialize_to_request(params, model)
    prepare_request_dict(request_dict, "https://gateway.invalid")
    prepared = create_request_object(request_dict).prepare()
    url = urlsplit(prepared.url)
    body = prepared.body if isinstance(prepared.body, bytes) else (prepared.body or "").encode()
    target = (url.path or "/") + (f"?{url.query}" if url.query else "")
    lines = [f"{prepared.method} {target} HTTP/1.1", "Host: gateway"]
    lines += [f"{name}: {value}" for name, value in prepared.headers.items() if name.lower() != "host"]
    if body and "content-length" not in prepared.headers:  # as the link sends it (harness/inside/link.py)
        lines.append(f"Content-Length: {len(body)}")
    method, parsed, headers = parse_head("\r\n".join(lines).encode())
    assert body_length(headers) == len(body)
    return RawRequest(method, parsed.path, parsed.query, headers, body)


def cases() -> list[tuple[str, str, str]]:
    found = []
    for service in LAB_SERVICES:
        model = service_model(service)
        for protocol in protocols(model):
            if protocol in SERIALIZERS:
                found += [(service, name, protocol) for name in model.operation_names]
    return found


CASES = cases()


def test_every_lab_service_and_protocol_is_covered() -> None:
    assert len(CASES) > 2000
    assert {protocol for _, _, protocol in CASES} >= {"ec2", "query", "json", "rest-json", "rest-xml"}


@pytest.mark.parametrize("service", LAB_SERVICES)
def test_each_operation_is_read_as_itself(service: str) -> None:
    """The identifier names the operation itself among its readings: a write is never mistaken for a read."""
    misread = misreadings(service, [(operation, protocol) for name, operation, protocol in CASES if name == service])
    assert not misread, misread[:10]


@cache
def readings_of(service: str, operation: str, protocol: str) -> tuple[str, ...] | Unidentified | Malformed:
    """What the gateway reads `operation`'s own request, as botocore writes it in `protocol`, as (or why it refuses
    it): read once for the tests below, several of which look at the same request (each its own way)."""
    try:
        return identify(service, wire_request(service, operation, protocol)).operations
    except (Unidentified, Malformed) as exc:
        return exc


def read_as(service: str, operation: str, protocol: str) -> tuple[str, ...]:
    """`readings_of`, a refusal raised as `identify` raises it."""
    readings = readings_of(service, operation, protocol)
    if isinstance(readings, Exception):
        raise readings
    return readings


def misreadings(service: str, requests: list[tuple[str, str]]) -> list[str]:
    """Of these (operation, protocol) requests as botocore writes them, those the gateway does not read as
    themselves, and why."""
    misread = []
    for operation, protocol in requests:
        readings = readings_of(service, operation, protocol)
        if isinstance(readings, Exception):
            misread.append(f"{operation} ({protocol}): {readings}")
            continue
        if operation not in readings:
            misread.append(f"{operation} ({protocol}) read as {readings}")
    return misread


def test_a_write_request_is_never_allowed() -> None:
    """What the gateway acts on: for each write's own request, some reading of it is not a read."""
    for service, operation, protocol in CASES:
        if is_read(service, operation):
            continue
        readings = read_as(service, operation, protocol)
        assert not all(is_read(service, name) for name in readings), (service, operation, readings)


def test_rest_reads_are_told_apart_by_their_query_keys() -> None:
    request = wire_request("s3", "GetBucketPolicy", "rest-xml")
    assert identify("s3", request).operations[0] == "GetBucketPolicy"
    put = wire_request("s3", "PutBucketPolicy", "rest-xml")
    assert identify("s3", put).operations[0] == "PutBucketPolicy"


@pytest.mark.parametrize(
    ("service", "target", "content_type", "body"),
    [
        ("sqs", "AmazonSQS.ListQueues", "application/x-amz-json-1.0", b'{"QueueName":"q","z":"&Action=CreateQueue&"}'),
        ("logs", "Logs_20140328.DescribeLogGroups", "application/x-amz-json-1.1", b'{"z":"&action=CreateLogGroup"}'),
        ("dynamodb", "DynamoDB_20120810.ListTables", "application/x-amz-json-1.0", b'{"b":"&Action=CreateTable"}'),
    ],
)  # fmt: skip
def test_a_body_that_also_reads_as_a_form_naming_an_action_is_refused(
    service: str, target: str, content_type: str, body: bytes
) -> None:
    """An emulator (moto) reads any body as a form when the URL has no query, and its Action wins over the target:
    the outside attacker's CreateQueue behind ListQueues. Refused whatever the body says it is."""
    request = RawRequest("POST", "/", "", {"x-amz-target": target, "content-type": content_type}, body)
    with pytest.raises(Malformed, match="reads as a form naming an Action"):
        identify(service, request)


@pytest.mark.parametrize(
    ("service", "request_", "write"),
    [
        # a read's template, its label holding the write's path encoded: an endpoint routing on the decoded path
        # sees ChangeTagsForResource (route53) or the write behind `%74` for "t"
        ("route53", RawRequest("POST", "/2013-04-01/tags/hostedzone%2FZ0ATTACK", "", {}, b""), "ChangeTagsForResource"),
        ("route53", RawRequest("POST", "/2013-04-01/%74ags/hostedzone/Z0ATTACK", "", {}, b""), "ChangeTagsForResource"),
    ],
)  # fmt: skip
def test_a_path_is_read_encoded_and_decoded(service: str, request_: RawRequest, write: str) -> None:
    """The request is every operation either reading of its path matches, so the write behind an encoded slash or
    letter is among them and the gateway refuses it (it acts on the least harmless)."""
    readings = identify(service, request_).operations
    assert write in readings and not all(is_read(service, name) for name in readings), readings


@pytest.mark.parametrize(
    ("service", "request_", "reason"),
    [
        ("nosuchservice", RawRequest("GET", "/", "", {}, b""), "no AWS service"),
        ("ec2", RawRequest("POST", "/", "", FORM, b"Foo=1"), "names no"),
        ("ec2", RawRequest("POST", "/", "Action=DescribeVpcs", {}, b""), None),
        (
            "ec2",
            RawRequest("POST", "/", "Action=DescribeVpcs", {"content-type": "application/x-www-form-urlencoded"},
                       b"Action=CreateVpc&CidrBlock=10.0.0.0/16"),
            "more than once",
        ),
        ("ec2", RawRequest("POST", "/", "", {"x-amz-target": DESCRIBE_TABLE, **JSON_10}, b"{}"), "X-Amz-Target"),
        ("dynamodb", RawRequest("POST", "/", "", {"x-amz-target": DESCRIBE_TABLE, **JSON_10}, b"{}"), None),
        (
            "dynamodb",
            RawRequest("POST", "/", "Action=DeleteTable", {"x-amz-target": DESCRIBE_TABLE, **JSON_10}, b"{}"),
            "X-Amz-Target",
        ),
        ("dynamodb", RawRequest("POST", "/", "", {"x-amz-target": "Other.DescribeTable", **JSON_10}, b"{}"),
         "no operation"),
        ("s3", RawRequest("GET", "/bucket/../other", "", {}, b""), ". or .."),
        ("s3", RawRequest("PATCH", "/bucket", "", {}, b""), "matches no operation"),
    ],
)  # fmt: skip
def test_requests_no_model_describes_are_refused(service: str, request_: RawRequest, reason: str | None) -> None:
    if reason is None:
        assert identify(service, request_).operations
        return
    with pytest.raises(Unidentified, match=reason):
        identify(service, request_)


@pytest.mark.parametrize("service", sorted(known_services()))
def test_every_read_botocore_sends_passes_the_gateways_reading(service: str) -> None:
    """No plain read is refused for its form: each read of every model, in every protocol its service speaks, as
    botocore writes it, passes the wire's strict reading and is identified as itself."""
    model = service_model(service)
    reads = [operation for operation in model.operation_names if is_read(service, operation, model)]
    spoken = [protocol for protocol in protocols(model) if protocol in SERIALIZERS]
    misread = misreadings(service, [(operation, protocol) for protocol in spoken for operation in reads])
    assert not misread, misread[:10]


# Reads whose own request some write's URI template also matches, with nothing in the request to tell them apart
# (a literal segment the write has as a label): refused, since an endpoint might route either way.
AMBIGUOUS_READS = {("iotsitewise", "ListComputationModelDataBindingUsages"): "UpdateComputationModel"}


@pytest.mark.parametrize("service", sorted(known_services()))
def test_no_read_is_refused_for_a_writes_uri_template(service: str) -> None:
    """Issue 31: S3's SelectObjectContent (`POST /{Bucket}/{Key+}?select`) was refused as CompleteMultipartUpload,
    whose template has no query: a write's required query member (`uploadId`) now tells them apart. Every read
    of every model, as botocore writes it, is read as reads only, but for AMBIGUOUS_READS."""
    model = service_model(service)
    spoken = [protocol for protocol in protocols(model) if protocol in SERIALIZERS]
    refused = {}
    for operation in [name for name in model.operation_names if is_read(service, name, model)]:
        for protocol in spoken:
            readings = read_as(service, operation, protocol)
            writes = [name for name in readings if not is_read(service, name, model)]
            if writes:
                refused[(service, operation)] = writes[0]
    assert refused == {key: write for key, write in AMBIGUOUS_READS.items() if key[0] == service}


def test_select_object_content_is_a_read_and_complete_multipart_upload_still_a_write() -> None:
    select = identify("s3", wire_request("s3", "SelectObjectContent", "rest-xml")).operations
    assert select == ("SelectObjectContent",)
    complete = identify("s3", wire_request("s3", "CompleteMultipartUpload", "rest-xml")).operations
    assert "CompleteMultipartUpload" in complete
    crafted = RawRequest("POST", "/b/k", "select&select-type=2&uploadId=u1", {}, b"<x/>")
    assert "CompleteMultipartUpload" in identify("s3", crafted).operations  # its key given: refused as the write
