"""Blanking secrets in answers, on models written for the purpose: every element or key a parser could read as a
secret member is blanked (repeated, flattened, wrapped, in any case), the rest of the answer is left as it was, and
an answer that does not parse as its protocol says is not relayed."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from typing import Any

import pytest
from botocore.model import ServiceModel

from harness.core.botocore_models import find_service_model
from harness.core.secret_shapes import looks_like_credential, secret_entry, secrets_of, variable_entry
from harness.sandbox import redact as redact_module
from harness.sandbox.redact import MARKER, Unredactable, obstacle, redact, scrub

SHAPES: dict[str, Any] = {
    "Out": {
        "type": "structure",
        "members": {
            "Name": {"shape": "Text"},
            "MasterUserPassword": {"shape": "Text"},
            "Users": {"shape": "UserList"},
            "Flat": {"shape": "FlatList", "locationName": "flatItem"},
            "Connection": {"shape": "Connection"},
            "Environment": {"shape": "Env"},
        },
    },
    "Text": {"type": "string"},
    "User": {"type": "structure", "members": {"Name": {"shape": "Text"}, "SessionToken": {"shape": "Text"}}},
    "UserList": {"type": "list", "member": {"shape": "User"}},
    "FlatList": {"type": "list", "member": {"shape": "User"}, "flattened": True},
    "Connection": {"type": "structure", "members": {"ConnectionProperties": {"shape": "Props"}}},
    "Props": {"type": "map", "key": {"shape": "Text"}, "value": {"shape": "Text"}},
    "Env": {"type": "list", "member": {"shape": "Pair"}},
    "Pair": {"type": "structure", "members": {"name": {"shape": "Text"}, "value": {"shape": "Text"}}},
}


def model(protocol: str) -> ServiceModel:
    """A model named glue (so that its Connection's properties are the listed, keyed ones) speaking `protocol`."""
    output = {"shape": "Out", "resultWrapper": "ReadResult"} if protocol == "query" else {"shape": "Out"}
    return ServiceModel(
        {
            "metadata": {"protocol": protocol, "apiVersion": "2020-01-01", "endpointPrefix": "glue",
                         "serviceId": "Glue", "signatureVersion": "v4"},
            "operations": {"Read": {"name": "Read", "http": {"method": "POST", "requestUri": "/"}, "output": output}},
            "shapes": SHAPES,
        },
        service_name="glue",
    )  # fmt: skip


def test_json_secrets_are_blanked_at_any_depth_and_the_rest_is_left() -> None:
    service = model("json")
    answer = {
        "Name": "db",
        "MasterUserPassword": "hunter2",
        "Users": [{"Name": "a", "SessionToken": "t1"}, {"Name": "b", "sessiontoken": "t2"}],
        "Connection": {"ConnectionProperties": {"PASSWORD": "p", "KAFKA_CLIENT_KEY_PASSWORD": "k", "URL": "jdbc:x"}},
        "Environment": [{"name": "TABLE", "value": "orders"}, {"name": "KEY", "value": "AKIAABCDEFGHIJKLMNOP"}],
        "Unmodelled": "kept",
    }
    body = redact(secrets_of(service), service.operation_model("Read"), "json", json.dumps(answer).encode())
    assert json.loads(body) == {
        "Name": "db",
        "MasterUserPassword": MARKER,
        "Users": [{"Name": "a", "SessionToken": MARKER}, {"Name": "b", "sessiontoken": MARKER}],
        "Connection": {
            "ConnectionProperties": {"PASSWORD": MARKER, "KAFKA_CLIENT_KEY_PASSWORD": MARKER, "URL": "jdbc:x"}
        },
        "Environment": [{"name": "TABLE", "value": "orders"}, {"name": "KEY", "value": MARKER}],  # by its value
        "Unmodelled": MARKER,  # nothing says what a member the model does not know holds
    }  # fmt: skip


@pytest.mark.parametrize("protocol", ["query", "rest-xml"])
def test_xml_secrets_are_blanked_however_the_elements_repeat_or_wrap(protocol: str) -> None:
    service = model(protocol)
    inner = (
        "<Name>db</Name><MasterUserPassword>hunter2</MasterUserPassword>"
        "<MasterUserPassword>again</MasterUserPassword>"  # repeated: a parser may read either
        "<Users><member><Name>a</Name><SessionToken>t1</SessionToken></member>"
        "<item><Name>b</Name><SessionToken>t2</SessionToken></item></Users>"
        "<flatItem><Name>c</Name><SessionToken>t3</SessionToken></flatItem>"
        "<Connection><ConnectionProperties>"
        "<entry><key>PASSWORD</key><value>p</value></entry><entry><key>URL</key><value>jdbc:x</value></entry>"
        "</ConnectionProperties></Connection>"
        "<Environment><member><name>TABLE</name><value>orders</value></member>"
        "<member><name>DB_PASSWORD</name><value>pw</value></member></Environment>"
    )
    xmlns = 'xmlns="https://glue.example/doc/"'
    document = (
        f"<ReadResponse {xmlns}><ReadResult>{inner}</ReadResult></ReadResponse>"
        if protocol == "query"
        else f"<Out {xmlns}>{inner}</Out>"
    )
    body = redact(secrets_of(service), service.operation_model("Read"), protocol, document.encode())
    root = ET.fromstring(body)
    texts = {element.tag.split("}")[-1] + ":" + (element.text or "") for element in root.iter()}
    for secret in ("hunter2", "again", "t1", "t2", "t3", ":p", ":pw"):
        assert not any(text.endswith(secret) for text in texts), (secret, texts)
    for kept in ("Name:db", "Name:a", "Name:b", "Name:c", "key:PASSWORD", "value:jdbc:x", "value:orders"):
        assert kept in texts, (kept, texts)


@pytest.mark.parametrize(("protocol", "body"), [("json", b"<not-json/>"), ("query", b'{"MasterUserPassword": "x"}')])
def test_an_answer_that_is_not_its_protocols_is_not_relayed(protocol: str, body: bytes) -> None:
    """A JSON answer to a query request (an Accept header can ask some APIs for one) is not blanked as XML would be:
    it is refused whole."""
    service = model(protocol)
    with pytest.raises(Unredactable):
        redact(secrets_of(service), service.operation_model("Read"), protocol, body)


def test_answers_the_gateway_cannot_blank_are_refused_before_they_are_asked_for() -> None:
    service = model("json")
    assert obstacle(secrets_of(service), service.operation_model("Read"), "smithy-rpc-v2-cbor") is not None
    assert obstacle(secrets_of(service), service.operation_model("Read"), "json") is None


@pytest.mark.parametrize(
    ("key", "value", "blanked"),
    [
        ("DB_PASSWORD", "hunter2", True),
        ("GITHUB_TOKEN", "abc", True),
        ("TABLE_NAME", "orders", False),
        ("KEY", "AKIAABCDEFGHIJKLMNOP", True),  # by its value, whatever its name
        # where a credential is kept is no credential: labs check these (a function finds its secret by ARN)
        ("SECRET_ARN", "arn:aws:secretsmanager:us-east-1:123456789012:secret:orders/db-AbCdEf", False),
        ("SECRET_NAME", "orders/db", False),
        ("DB_PASSWORD_PARAM", "/app/db/password", False),
        ("API_KEY_SECRET_ID", "orders/api", False),
        ("DB_SECRET", "arn:aws:secretsmanager:us-east-1:123456789012:secret:orders/db-AbCdEf", False),
        ("DB_SECRET", "plain-text-password", True),
        ("SECRET_ARN", "ghp_abcdefghijklmnopqrstuvwxyz", True),  # a token by its shape, whatever its key says
        # the second outside attacker's: short words, a key of a vendor, a password inside a URL
        ("DB_PASS", "hunter2", True),
        ("SMTP_PASS", "hunter2", True),
        ("STRIPE_KEY", "abc", True),
        ("AUTH", "abc", True),
        ("DATABASE_URL", "postgres://app:hunter2@db/app", True),
        ("BYPASS", "true", False),
        ("DATABASE_URL", "postgres://db:5432/app", False),
        ("PARTITION_KEY", "pk", False),
    ],
)
def test_a_secret_entry_is_a_credential_not_a_reference_to_one(key: str, value: str, blanked: bool) -> None:
    assert secret_entry(key, value) is blanked


PLAIN: dict[str, Any] = {  # a model no rule of secret_shapes names a secret in: the answer is blanked all the same
    "Out": {
        "type": "structure",
        "members": {
            "Name": {"shape": "Text"},
            "NextToken": {"shape": "Text"},
            "Settings": {"shape": "Labels", "locationName": "settings"},
            "Parameters": {"shape": "Parameters"},
            "Headers": {"shape": "Headers"},
            "Count": {"shape": "Number"},
        },
    },
    "Text": {"type": "string"},
    "Number": {"type": "integer"},
    "Labels": {"type": "map", "key": {"shape": "Text"}, "value": {"shape": "Text"}},
    "Parameter": {
        "type": "structure",
        "members": {"ParameterKey": {"shape": "Text"}, "ParameterValue": {"shape": "Text"}},
    },
    "Parameters": {"type": "list", "member": {"shape": "Parameter"}},
    "Header": {
        "type": "structure",
        "members": {"Key": {"shape": "Text"}, "Value": {"shape": "Text"}, "IsValueSecret": {"shape": "Flag"}},
    },
    "Flag": {"type": "boolean"},
    "Headers": {"type": "list", "member": {"shape": "Header"}},
}
JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJsZWFybmVyIn0.c2lnbmF0dXJl"


def plain(protocol: str) -> ServiceModel:
    output = {"shape": "Out", "resultWrapper": "ReadResult"} if protocol == "query" else {"shape": "Out"}
    return ServiceModel(
        {
            "metadata": {"protocol": protocol, "apiVersion": "2020-01-01", "endpointPrefix": "plain",
                         "serviceId": "Plain", "signatureVersion": "v4"},
            "operations": {"Read": {"name": "Read", "http": {"method": "POST", "requestUri": "/"}, "output": output}},
            "shapes": PLAIN,
        },
        service_name="plain",
    )  # fmt: skip


def test_secrets_are_blanked_by_what_they_are_in_any_map_and_outside_the_model() -> None:
    """Issue 31: a map of settings, a target's headers, a stack's parameters, a connection's unmodelled API key:
    no rule names these members, and each is blanked by its key, its form, or by not being in the model."""
    service = plain("rest-json")
    operation = service.operation_model("Read")
    answer = {
        "Name": "https://app:hunter2@db.example/app",  # a URL carrying its password, wherever it sits
        "NextToken": JWT,  # where the next page starts: kept, whatever it looks like
        "settings": {"DB_PASSWORD": "hunter2", "x-api-key": "k1", "TABLE": "orders", "hook": JWT},
        "Parameters": [{"ParameterKey": "DBPassword", "ParameterValue": "hunter2"},
                       {"ParameterKey": "Env", "ParameterValue": "prod"}],
        "Headers": [{"Key": "x-custom", "Value": "v1", "IsValueSecret": True}, {"Key": "x-trace", "Value": "on"}],
        "Count": 3,
        "ApiKeyValue": "not-in-the-model",
        "Deep": {"any": ["thing"]},
    }  # fmt: skip
    assert redact_module.needed(secrets_of(service), operation, "rest-json")
    assert not secrets_of(service).holds(operation.output_shape)  # no member is named for a secret
    body = json.loads(redact(secrets_of(service), operation, "rest-json", json.dumps(answer).encode()))
    assert body == {
        "Name": MARKER,
        "NextToken": JWT,
        "settings": {"DB_PASSWORD": MARKER, "x-api-key": MARKER, "TABLE": "orders", "hook": MARKER},
        "Parameters": [{"ParameterKey": "DBPassword", "ParameterValue": MARKER},
                       {"ParameterKey": "Env", "ParameterValue": "prod"}],
        "Headers": [{"Key": "x-custom", "Value": MARKER, "IsValueSecret": True}, {"Key": "x-trace", "Value": "on"}],
        "Count": 3,
        "ApiKeyValue": MARKER,
        "Deep": MARKER,
    }  # fmt: skip


def test_xml_answers_lose_what_their_model_does_not_know() -> None:
    service = plain("query")
    inner = (
        "<Name>db</Name><Count>3</Count><ApiKeyValue>hunter2</ApiKeyValue>"
        "<settings><entry><key>DB_PASSWORD</key><value>pw</value></entry>"
        "<entry><key>TABLE</key><value>orders</value></entry></settings>"
        "<Parameters><member><ParameterKey>DBPassword</ParameterKey><ParameterValue>pv</ParameterValue></member>"
        "</Parameters><Name2><Deep>dv</Deep></Name2>"
    )
    document = (
        '<ReadResponse xmlns="https://plain.example/doc/"><ReadResult>'
        f"{inner}</ReadResult><ResponseMetadata><RequestId>r-1</RequestId></ResponseMetadata><Extra>ev</Extra>"
        "</ReadResponse>"
    )
    body = redact(secrets_of(service), service.operation_model("Read"), "query", document.encode())
    texts = {element.tag.split("}")[-1] + ":" + (element.text or "") for element in ET.fromstring(body).iter()}
    for secret in ("hunter2", ":pw", ":pv", ":dv", ":ev"):
        assert not any(text.endswith(secret) for text in texts), (secret, texts)
    for kept in ("Name:db", "Count:3", "key:DB_PASSWORD", "value:orders", "RequestId:r-1"):
        assert kept in texts, (kept, texts)


@pytest.mark.parametrize("protocol", ["query", "rest-xml"])
def test_an_xml_answer_with_nothing_to_blank_is_relayed_as_the_endpoint_wrote_it(protocol: str) -> None:
    """Nothing blanked: the endpoint's bytes, not the tree written again (which would change its declaration, its
    character references and its spacing); one thing blanked, or a part the parser reads otherwise than it is
    written (a comment, a DOCTYPE), and it is written anew, without the secret."""
    service = model(protocol)
    operation = service.operation_model("Read")
    inner = "<Name>d&#x62;</Name>\n  <Users><member><Name>a</Name></member></Users>"
    wrap = (
        (lambda text: f'<ReadResponse xmlns="https://glue.example/doc/"><ReadResult>{text}</ReadResult>'
         "<ResponseMetadata><RequestId>r-1</RequestId></ResponseMetadata></ReadResponse>")
        if protocol == "query"
        else (lambda text: f'<Out xmlns="https://glue.example/doc/">{text}</Out>')
    )  # fmt: skip
    clean = ('<?xml version="1.0" encoding="UTF-8"?>\n' + wrap(inner)).encode()
    assert redact(secrets_of(service), operation, protocol, clean) == clean

    for changed in (
        wrap(inner + "<MasterUserPassword>hunter2</MasterUserPassword>"),
        wrap(inner + "<Users><member><Name>AKIAABCDEFGHIJKLMNOP</Name></member></Users>"),  # a credential's shape
        wrap(inner + "<Unmodelled>x</Unmodelled>"),
        wrap(inner + "<!-- a comment -->"),
    ):
        body = redact(secrets_of(service), operation, protocol, changed.encode())
        assert body != changed.encode()
        assert b"hunter2" not in body and b"AKIA" not in body and b"comment" not in body
        assert b">db<" in body  # written anew: the character reference as its character


def test_a_deeply_nested_answer_is_refused_not_a_crash() -> None:
    service = plain("rest-json")
    nested = b'{"Deep":' + b"[" * 40_000 + b"]" * 40_000 + b"}"
    with pytest.raises(Unredactable):
        redact(secrets_of(service), service.operation_model("Read"), "rest-json", nested)


def test_a_member_named_token_is_blanked_and_where_the_next_page_starts_is_not() -> None:
    shapes = {
        "Out": {"type": "structure", "members": {"Token": {"shape": "Text"}, "NextToken": {"shape": "Text"},
                                                 "Marker": {"shape": "Text"}}},
        "Text": {"type": "string"},
    }  # fmt: skip
    service = ServiceModel(
        {
            "metadata": {"protocol": "json", "apiVersion": "2020-01-01", "endpointPrefix": "plain",
                         "serviceId": "Plain", "signatureVersion": "v4"},
            "operations": {"Read": {"name": "Read", "http": {"method": "POST", "requestUri": "/"},
                                    "output": {"shape": "Out"}}},
            "shapes": shapes,
        },
        service_name="plain",
    )  # fmt: skip
    answer = {"Token": "t0p", "NextToken": JWT, "Marker": JWT}
    body = redact(secrets_of(service), service.operation_model("Read"), "json", json.dumps(answer).encode())
    assert json.loads(body) == {"Token": MARKER, "NextToken": JWT, "Marker": JWT}


@pytest.mark.parametrize(
    ("key", "value"),
    [  # the fourth outside attacker's: credentials under names that do not say so, or said in one word
        ("PGPASS", "hunter2"),
        ("dbpass", "hunter2"),
        ("MYSQL_PWD", "hunter2"),
        ("CRED", "hunter2"),
        ("DB_CREDS", "hunter2"),
        ("SALT", "s3cr3t"),
        ("HASHSALT", "s3cr3t"),
        ("REDIS_URL", "redis://:hunter2@cache:6379/0"),  # a password in a URL with no user
        ("X", "base64:q1w2e3r4t5y6u7i8o9p0a1s2d3f4g5h6j7k8l9z0x1c="),  # Laravel's APP_KEY, whatever its name
        ("X", "SG.abcdefghijklmnopqrstuv.abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG"),  # SendGrid
        ("X", "xoxb-1234567890-abcdefghijklmnop"),
        ("X", "glpat-abcdefghijklmnopqrst"),
        ("X", "sk_live_abcdefghijklmnopqrst"),
        ("X", "AIzaSyAabcdefghijklmnopqrstuvwxyz012345"),
        ("X", "ghp_abcdefghijklmnopqrstuvwxyz0123456789"),
    ],
)
def test_credentials_under_names_that_do_not_say_so_are_found(key: str, value: str) -> None:
    assert secret_entry(key, value) is True
    assert variable_entry(key, value) is True


@pytest.mark.parametrize(
    ("key", "value"), [("BYPASS", "hunter2"), ("COMPASS", "north"), ("TASK", "task-abcdefghijklmnopqrstuvwx")]
)
def test_words_that_only_end_like_a_credential_are_none(key: str, value: str) -> None:
    assert secret_entry(key, value) is False


@pytest.mark.parametrize(
    "key", ["passcode", "db-passcode", "dbPasscode", "DB_PASSCODE", "user_passwd", "adminPwd", "sts:ExternalId"]
)
def test_credential_names_with_any_separator_are_found(key: str) -> None:
    """A DynamoDB attribute, a tag's key, a map's key or a JSON document's (issue 31's attack 01)."""
    assert secret_entry(key, "hunter2") is True


@pytest.mark.parametrize("key", ["passenger", "keyboard", "tokenizer", "passport", "compass", "bypass", "KeyName"])
def test_words_holding_a_credentials_word_are_none(key: str) -> None:
    assert secret_entry(key, "bert-base") is False


@pytest.mark.parametrize(
    ("key", "value", "blanked"),
    [
        ("TABLE_NAME", "items", False),  # the serverless lab checks it
        ("QUEUE_URL", "https://sqs.us-east-1.amazonaws.com/123456789012/jobs", False),
        ("LOG_LEVEL", "debug", False),
        ("PORT", "5432", False),
        ("FEATURE", "true", False),
        ("UPSTREAM", "arn:aws:lambda:us-east-1:123456789012:function:fnA", False),
        ("RETRIES", "3", False),
        # every other value is blanked, whatever its name: an author sees that the variable is there, not what
        ("DJANGO_KEY", "django-insecure-abc", True),
        ("APP_KEY", "anything", True),
        ("SENDGRID_KEY", "whatever", True),
        ("FOO", "bar", True),
        ("PARTITION_KEY", "pk", True),
        ("DB_HOST", "postgres://app:hunter2@db/app", True),  # a safe name, a credential's form
    ],
)
def test_a_bag_of_variables_keeps_only_what_is_known_to_be_safe(key: str, value: str, blanked: bool) -> None:
    assert variable_entry(key, value) is blanked


def test_a_functions_variables_are_blanked_but_the_safe_ones() -> None:
    """GetFunctionConfiguration through the gateway's redaction, with the real model: the attacker's variables."""
    lam = find_service_model("lambda")
    assert lam is not None
    operation = lam.operation_model("GetFunctionConfiguration")
    variables = {"TABLE_NAME": "items", "PGPASS": "p1", "CRED": "p2", "REDIS_URL": "redis://:p3@cache:6379/0",
                 "APP_KEY": "base64:q1w2e3r4t5y6u7i8o9p0a1s2d3f4g5h6j7k8=", "SENDGRID_KEY": "SG.p5", "SALT": "p6",
                 "DJANGO_KEY": "p7"}  # fmt: skip
    answer = {"FunctionName": "fnA", "Environment": {"Variables": variables}}
    body = json.loads(redact(secrets_of(lam), operation, "rest-json", json.dumps(answer).encode()))
    assert body["Environment"]["Variables"] == {k: "items" if k == "TABLE_NAME" else MARKER for k in variables}
    assert body["FunctionName"] == "fnA"


def test_a_cbor_answer_holding_variables_is_refused_before_it_is_asked_for() -> None:
    """CodeBuild answers in CBOR by default (botocore 1.44): a project's environment variables would pass as they
    are, so BatchGetProjects over CBOR is refused (no CBOR library is a dependency); over JSON it is blanked."""
    codebuild = find_service_model("codebuild")
    assert codebuild is not None
    operation = codebuild.operation_model("BatchGetProjects")
    assert "CBOR" in str(obstacle(secrets_of(codebuild), operation, "smithy-rpc-v2-cbor")).upper()
    assert obstacle(secrets_of(codebuild), operation, "json") is None
    variables = [{"name": "PGPASS", "value": "p1", "type": "PLAINTEXT"}, {"name": "TABLE_NAME", "value": "items"}]
    answer = {"projects": [{"name": "p", "environment": {"environmentVariables": variables}}]}
    body = json.loads(redact(secrets_of(codebuild), operation, "json", json.dumps(answer).encode()))
    kept = body["projects"][0]["environment"]["environmentVariables"]
    assert [v["value"] for v in kept] == [MARKER, "items"]


AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"


@pytest.mark.parametrize(
    ("text", "credential"),
    [
        # the fifth outside attacker's: credential-named query parameters, `key=value` text, a bearer token
        ("postgresql://db.internal:5432/app?user=app&password=hunter2", True),
        ("jdbc:postgresql://db/app?user=app&password=hunter2", True),
        ("https://api.pay.example/v1?api_key=abc123", True),
        ("https://hooks.example/x?token=abc", True),
        ("https://b.s3.amazonaws.com/k?X-Amz-Signature=abc&sig=def", True),
        ("password=hunter2", True),
        ("db.user=app\ndb.secret=hunter2", True),
        ("Authorization: Bearer abcdefgh", True),
        (AWS_SECRET, True),  # an AWS secret access key standing alone
        (f"aws_secret_access_key {AWS_SECRET}", True),
        ('{"db_password": "hunter2"}', True),  # JSON text holding a credential-named key, at any depth
        ('{"States": {"A": {"Result": {"Authorization": "Bearer abcdefgh"}}}}', True),
        ('["x", {"nested": "{\\"api_key\\": \\"abc\\"}"}]', True),  # JSON inside JSON text
        # what is no credential: a URL's plain query, a commit's SHA-1, a code digest, a path, a state machine's path
        ("https://sqs.us-east-1.amazonaws.com/123456789012/jobs?Version=2012-11-05", False),
        ("s3://bucket/key?versionId=abc", False),
        ("9fceb02d0ae598e95dc970b74767f19372d61af8", False),
        ("BuKNMCqxMFM4VdGSnAxEpS9FqRb0aGjf9nfBK+rE1qU=", False),
        ("logs/my-function/2026/11/29/part-0001.json", False),
        ('{"StartAt": "A", "States": {"A": {"Type": "Pass", "Parameters": {"TableName": "items"}}}}', False),
        ('{"States": {"A": {"Parameters": {"TaskToken.$": "$$.Task.Token"}}}}', False),
        ("ttl=5", False),
        ("a_" * 20 + "password=x", True),  # a credential-named key after any prefix
        ("bypass the cache", False),
        # a JWT where a run of its alphabet starts (`eyJ` repeated was read again from each: quadratic); not inside one
        (f'{{"hook": "{JWT}"}}', True),
        (f"token {JWT}", True),
        ("eyJ" * 5000, False),
        # the sixth outside attacker's: connection strings, `name: value` in free text, passwords on command lines
        ("DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=Zm9vYmFy;EndpointSuffix=core.windows.net", True),
        ("Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=Root;SharedAccessKey=Zm9vYmFy", True),
        ("Server=db;Database=app;User Id=app;Pwd=hunter2;", True),
        ("connecting with password: hunter2", True),
        ("DB_PASSWORD: hunter2\n", True),
        ("Resources:\n  Db:\n    Properties:\n      MasterUserPassword: hunter2\n", True),
        ("db passcode: 55213", True),
        ('"api_key": "abc123"', True),
        ("mysql -uadmin -p'hunter2' -e 'select 1'", True),
        ('mysqldump -u app -p"hunter2" app', True),
        ("mysql -uadmin -phunter2 app", True),
        ("pg_restore --password hunter2", True),
        ("sshpass -p hunter2 ssh host", True),
        # ordinary text: words that hold a credential's word, references, ARNs, descriptions
        ("passenger: 3 seats", False),
        ("Keyboard: US layout", False),
        ("Tokenizer: splits text into words", False),
        ("tokens: 512", False),
        ("the passport office", False),
        ("compass: north", False),
        ("MasterUserPassword: !Ref DbPassword", False),
        ("password: {{ ssm:/app/db }}", False),
        ("DB_PASSWORD: ${DB_PASSWORD}", False),
        ("arn:aws:secretsmanager:us-east-1:123456789012:secret:orders/db-AbCdEf", False),
        ("mkdir -p /var/app && tar -xpf app.tar", False),
        ("ssh -p 2222 host", False),
        ("Stores passwords and tokens for the app's users", False),
        ("Key: value pairs for the keyboard shortcuts", False),
    ],
)
def test_credentials_by_their_shape_in_any_text(text: str, credential: bool) -> None:
    assert looks_like_credential(text) is credential


def test_json_text_keeps_its_configuration_and_loses_its_credentials() -> None:
    """A state machine's definition relayed: the value under `password` and the bearer token blanked inside it, the
    rest of the definition kept for the lab to read."""
    definition = {"StartAt": "A", "States": {"A": {"Type": "Pass", "Result": {
        "password": "hunter2", "Authorization": "Bearer abcdefgh", "TableName": "items"}, "End": True}}}  # fmt: skip
    scrubbed = json.loads(scrub(json.dumps(definition)))
    assert scrubbed["States"]["A"]["Result"] == {"password": MARKER, "Authorization": MARKER, "TableName": "items"}
    assert scrubbed["StartAt"] == "A"
    assert scrub("password=hunter2") == MARKER
    assert scrub("items") == "items"


def test_a_state_machines_definition_is_relayed_with_its_credentials_blanked() -> None:
    """DescribeStateMachine through the gateway's redaction, with the real model: `definition` is a string."""
    sfn = find_service_model("stepfunctions")
    assert sfn is not None
    definition = json.dumps({"StartAt": "A", "States": {"A": {"Type": "Pass", "Result": {"password": "hunter2"}}}})
    answer = {"name": "sm", "definition": definition, "description": "uses https://x/?api_key=abc"}
    operation = sfn.operation_model("DescribeStateMachine")
    body = json.loads(redact(secrets_of(sfn), operation, "json", json.dumps(answer).encode()))
    assert "hunter2" not in json.dumps(body)
    assert json.loads(body["definition"])["States"]["A"]["Result"]["password"] == MARKER
    assert body["description"] == MARKER
    assert body["name"] == "sm"


@pytest.mark.parametrize(
    ("key", "value", "blanked"),
    [
        # a plain name keeps its value only when the value has the shape the name says (the fifth attacker's)
        ("DB_HOST", "db.internal", False),
        ("DB_HOST", "10.0.0.12:5432", False),
        ("DB_HOST", "PLANT-hostpw", True),  # not a host's lowercase labels
        ("DB_HOST", "hunter 2", True),
        ("DATABASE_URL", "postgresql://db.internal:5432/app", False),
        ("DATABASE_URL", "postgresql://db.internal:5432/app?user=app&password=hunter2", True),
        ("PAYMENTS_API_URL", "https://api.pay.example/v1?api_key=abc", True),
        ("PAYMENTS_API_URL", "not a url", True),
        ("APP_CONFIG_FILE", "/etc/app/config.json", False),
        ("APP_CONFIG_FILE", '{"db_password": "hunter2"}', True),
        ("ADMIN_USER", "admin", False),
        ("ADMIN_USER", "admin:hunter2", True),  # user:secret
        ("KMS_KEY_ID", "1234abcd-12ab-34cd-56ef-1234567890ab", False),
        ("BACKUP_KEY_ID", AWS_SECRET, True),  # an AWS secret access key's shape
        ("LOG_LEVEL", "info", False),
        ("LOG_LEVEL", "x=y", True),
        ("SCHEDULE", "rate(5 minutes)", False),
        ("ALLOWED_ORIGINS", "https://a.example,https://b.example", False),
        # a name mentioning a secret is a reference only with an ARN or a resource name's shape
        ("SIGNING_KEY_ID", "xK9fPq2LmZ", True),
        ("DB_PASSWORD_NAME", "Hunter2Pass", True),
        ("SECRET_PART1_ID", "Hunter2", True),
        ("DB_PASSWORD_NAME", "/app/db/password", False),
        ("SECRET_ID", "orders-db-secret", False),
        ("SECRET_ARN", "arn:aws:secretsmanager:us-east-1:123456789012:secret:orders/db-AbCdEf", False),
    ],
)
def test_a_plain_name_keeps_only_a_value_of_its_shape(key: str, value: str, blanked: bool) -> None:
    assert variable_entry(key, value) is blanked


def cloudtrail_event(external_id: str | None) -> dict[str, Any]:
    """An AssumeRole event as CloudTrail records it, with the platform's external id or (a learner's) none."""
    parameters = {"roleArn": "arn:aws:iam::111111111111:role/evaluator", "roleSessionName": "stepeval-0123"}
    if external_id is not None:
        parameters["externalId"] = external_id
    return {
        "eventName": "AssumeRole",
        "eventSource": "sts.amazonaws.com",
        "userIdentity": {"type": "AssumedRole", "arn": "arn:aws:sts::999988887777:assumed-role/service/i-0abc"},
        "sourceIPAddress": "10.20.30.40",
        "userAgent": "Boto3/1.35",
        "requestParameters": parameters,
    }


def test_the_services_own_entry_in_cloudtrail_loses_its_identity() -> None:
    """Issue 31's attack 11: LookupEvents relays the service's AssumeRole into the sandbox (its external id, its
    principal, its address); an AssumeRole carrying an external id is a platform's entry: its caller and the id are
    blanked, the event kept. A learner's own AssumeRole (no external id) is relayed whole."""
    cloudtrail = find_service_model("cloudtrail")
    assert cloudtrail is not None
    events = [cloudtrail_event("lab-platform-7f3c9a"), cloudtrail_event(None)]
    body = {"Events": [{"EventName": "AssumeRole", "CloudTrailEvent": json.dumps(e)} for e in events]}
    answer = redact(
        secrets_of(cloudtrail), cloudtrail.operation_model("LookupEvents"), "json", json.dumps(body).encode()
    )
    platform, learner = (json.loads(e["CloudTrailEvent"]) for e in json.loads(answer)["Events"])
    assert "lab-platform-7f3c9a" not in answer.decode() and "999988887777" in json.dumps(learner)
    assert platform["requestParameters"]["externalId"] == MARKER
    assert [platform[k] for k in ("userIdentity", "sourceIPAddress", "userAgent")] == [MARKER] * 3
    assert platform["eventName"] == "AssumeRole" and platform["requestParameters"]["roleSessionName"] == "stepeval-0123"
    assert learner == cloudtrail_event(None)
    # the same external id in a role's trust policy (GetRole's AssumeRolePolicyDocument) is blanked by its key
    trust = {"Statement": [{"Condition": {"StringEquals": {"sts:ExternalId": "lab-platform-7f3c9a"}}}]}
    assert "lab-platform-7f3c9a" not in scrub(json.dumps(trust))


@pytest.mark.parametrize(
    ("body", "kept"),
    [
        (b"TABLE=items\r\npassword: hunter2\r\nLOG=info", f"TABLE=items\r\n{MARKER}\r\nLOG=info".encode()),
        (
            b'{"db": {"password": "hunter2", "host": "db"}}',
            f'{{"db": {{"password": "{MARKER}", "host": "db"}}}}'.encode(),
        ),
        (b"<h1>the passenger's keyboard</h1>\n", b"<h1>the passenger's keyboard</h1>\n"),
        (b"\x89PNG\x00password: hunter2", b"\x89PNG\x00password: hunter2"),  # binary: as it is
        (b"\xff\xfepassword: hunter2", b"\xff\xfepassword: hunter2"),  # not UTF-8: as it is
    ],
)
def test_a_learners_object_loses_the_lines_holding_credentials(body: bytes, kept: bytes) -> None:
    assert redact_module.scrub_payload(body) == kept


def test_an_answers_text_past_the_scanned_bound_is_blanked_with_a_marker_saying_so() -> None:
    service = model("json")
    big = "host=a;" * (redact_module.MAX_SCANNED_CHARS // 7 + 1)
    answer = {"Name": "db", "Users": [{"Name": big}, {"Name": "after"}]}
    out = json.loads(redact(secrets_of(service), service.operation_model("Read"), "json", json.dumps(answer).encode()))
    assert out["Name"] == "db"
    assert out["Users"] == [{"Name": redact_module.PAST_SCANNED}, {"Name": redact_module.PAST_SCANNED}]


@pytest.mark.parametrize(
    "text, credential",
    [
        ("Server=db;User Id=app;Password='hunter2'", True),
        ('Data Source=db;Initial Catalog=x;Pwd="s3cret"', True),
        ("host=a;" * 5000, False),
        ("host=a;\nPassword='x'", False),
        ("host=a;" + "x" * 600 + "Password='x'", False),
        (("x" * 20_000) + "AKIAABCDEFGHIJKLMNOP", True),  # found past the first window
        ("x" * (16 * 1024 - 10) + "AKIAABCDEFGHIJKLMNOP" + "x" * 40_000, True),  # across two windows
    ],
)
def test_connection_strings_and_long_text_are_read_in_bounded_steps(text: str, credential: bool) -> None:
    assert looks_like_credential(text) is credential


def test_a_list_of_urls_is_matched_one_way_only() -> None:
    """`a://x,` repeated then a refused character: exponential backtracking before (40 of them: hours), none now."""
    assert variable_entry("SERVICE_URL", "a://x," * 40 + "@") is True
    assert variable_entry("SERVICE_URL", "https://a.example.com/x,https://b.example.com/y") is False
