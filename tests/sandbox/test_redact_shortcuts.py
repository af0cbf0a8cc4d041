"""The redactor's shortcuts find what the whole search finds: the credential patterns searched in parts, each only
where the text holds what every match of it holds (`secret_shapes.credential_shaped`), say of every text what all of
them searched everywhere say; a secret each part alone finds is found with its hint and only there."""

from __future__ import annotations

import json
from typing import Any

import pytest
from botocore.model import ServiceModel
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.core import secret_shapes
from harness.core.secret_shapes import (
    CREDENTIAL_TEXT,
    CREDENTIAL_VALUE,
    SCAN_OVERLAP,
    SCAN_WINDOW,
    connection_password,
    credential_shaped,
    secrets_of,
)
from harness.sandbox import redact as redact_module
from harness.sandbox.redact import MARKER, Unredactable, redact


def whole_search(text: str) -> bool:
    """Every credential pattern searched in every window of `text`, whatever it holds: what the parts must equal."""
    if len(text) <= SCAN_WINDOW:
        return bool(CREDENTIAL_VALUE.search(text) or connection_password(text) or CREDENTIAL_TEXT.search(text))
    step = SCAN_WINDOW - SCAN_OVERLAP
    return any(whole_search(text[at : at + SCAN_WINDOW]) for at in range(0, len(text) - SCAN_OVERLAP, step))


# Each found by one part of the search alone (and none of the others): a shortcut that skips that part where it
# should not lets that secret through.
ONE_PART_EACH = [
    ("AKIAABCDEFGHIJKLMNOP", "CREDENTIAL_FORM"),
    ("Authorization: Bearer abcdefgh", "CREDENTIAL_FORM"),
    ("redis://:hunter2@cache:6379/0", "CREDENTIAL_URL"),  # no `=`
    ("https://hooks.slack.com/services/T000/B000/XXXX", "CREDENTIAL_URL"),
    ("password=hunter2", "CREDENTIAL_PARAMETER"),  # no `://`
    ("https://api.example/v1?api_key=abc123", "CREDENTIAL_PARAMETER"),  # a `://` and a `=`: only the `=`'s part
    ("Server=db;User Id=app;Password='hunter2'", "connection_password"),  # the quote: no parameter's value
    ("DB_PASSWORD: hunter2", "CREDENTIAL_TEXT"),  # `:`
    ("mysql -uadmin -p'hunter2' -e 'select 1'", "CREDENTIAL_TEXT"),  # `-p`
    ("MYSQLDUMP --PASSWORD hunter2 app", "CREDENTIAL_TEXT"),  # `-P` alone
]


@pytest.mark.parametrize(("text", "part"), ONE_PART_EACH)
def test_a_secret_only_one_part_finds_is_found(text: str, part: str) -> None:
    parts = {
        "CREDENTIAL_FORM": bool(secret_shapes.CREDENTIAL_FORM.search(text)),
        "CREDENTIAL_URL": bool(secret_shapes.CREDENTIAL_URL.search(text)),
        "CREDENTIAL_PARAMETER": bool(secret_shapes.CREDENTIAL_PARAMETER.search(text)),
        "connection_password": connection_password(text),
        "CREDENTIAL_TEXT": bool(CREDENTIAL_TEXT.search(text)),
    }
    assert [name for name, found in parts.items() if found] == [part]  # the case tests that part alone
    assert credential_shaped(text) is True
    assert credential_shaped(f"subnet-0a1b {text} 172.31.0.0/20") is True  # amid other text


def test_the_parts_are_the_whole_pattern() -> None:
    """CREDENTIAL_VALUE, which the whole search reads, is the three parts and nothing else."""
    parts = (secret_shapes.CREDENTIAL_FORM, secret_shapes.CREDENTIAL_URL, secret_shapes.CREDENTIAL_PARAMETER)
    assert CREDENTIAL_VALUE.pattern == "|".join(part.pattern for part in parts)
    assert CREDENTIAL_VALUE.flags == parts[0].flags


# Pieces of every credential form and of what is near one (their hints among them): texts made of them reach each
# part of the search, with and without its hint.
PIECES = [
    "password", "Pwd", "api_key", "token", "secret", "sig", "auth", "host", "Server", "Data Source", "mysql", "sshpass",
    "=", "==", ":", "://", "@", ";", "-p", "-P", "--password", "--PASS", "'", '"', " ", "\t", "\n", "/", "+", ".",
    "_", "-", ",", "&", "?", "{", "}", "$", "!Ref", "x", "Y", "7", "hunter2", "abcdefghijklmnop", "ABCDEFGHIJKLMNOP",
    "AKIA", "ASIA", "eyJ", "eyJhbGciOiJIUzI1NiJ9", "ghp_", "sk-", "SG.", "base64:", "Bearer ", "bearer",
    "https://", "hooks.slack.com/services", "redis", "postgres", "-----BEGIN RSA PRIVATE KEY-----",
    "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "arn:aws:ec2:us-east-1:123456789012:subnet/subnet-0a1b",
]  # fmt: skip


@settings(max_examples=3000)
@given(st.lists(st.sampled_from(PIECES), max_size=14).map("".join))
def test_the_search_in_parts_finds_what_the_whole_search_finds(text: str) -> None:
    assert credential_shaped(text) is whole_search(text)


@pytest.mark.parametrize(
    "text",
    [
        "x" * (SCAN_WINDOW - 3) + "password=hunter2" + "y" * 100,  # across two windows
        "redis://" + "a" * (SCAN_WINDOW + 10) + ":pw@cache",  # a URL longer than a window: in none whole
        ("host=a;" * 3000) + "Password='x'",
        ("x" * 20_000) + "--PASSWORD hunter2",
    ],
)
def test_long_text_is_searched_in_parts_as_it_is_whole(text: str) -> None:
    assert credential_shaped(text) is whole_search(text)


# -- the walk of an answer ----------------------------------------------------------------------------------------

SHAPES: dict[str, Any] = {
    "Out": {
        "type": "structure",
        "members": {
            "Name": {"shape": "Text"},
            "MasterUserPassword": {"shape": "Text"},
            "NextToken": {"shape": "Text"},
            "Users": {"shape": "UserList"},
        },
    },
    "Text": {"type": "string"},
    "User": {"type": "structure", "members": {"Name": {"shape": "Text"}}},
    "UserList": {"type": "list", "member": {"shape": "User"}},
}


def service_speaking(protocol: str) -> ServiceModel:
    return ServiceModel(
        {
            "metadata": {"protocol": protocol, "apiVersion": "2020-01-01", "endpointPrefix": "plain",
                         "serviceId": "Plain", "signatureVersion": "v4"},
            "operations": {"Read": {"name": "Read", "http": {"method": "POST", "requestUri": "/"},
                                    "output": {"shape": "Out"}}},
            "shapes": SHAPES,
        },
        service_name="plain",
    )  # fmt: skip


def blanked(protocol: str, body: bytes) -> bytes:
    service = service_speaking(protocol)
    return redact(secrets_of(service), service.operation_model("Read"), protocol, body)


def test_a_credential_an_answer_repeats_is_blanked_each_time() -> None:
    """The texts found clean are remembered for the rest of the answer; a credential never is."""
    users = [{"Name": name} for name in ("plain", "AKIAABCDEFGHIJKLMNOP", "plain", "AKIAABCDEFGHIJKLMNOP")]
    out = json.loads(blanked("json", json.dumps({"Users": users}).encode()))
    assert [user["Name"] for user in out["Users"]] == ["plain", MARKER, "plain", MARKER]
    xml = "".join(f"<member><Name>{user['Name']}</Name></member>" for user in users)
    body = blanked("rest-xml", f'<Out xmlns="https://plain.example/doc/"><Users>{xml}</Users></Out>'.encode())
    assert b"AKIA" not in body and body.count(MARKER.encode()) == 2 and body.count(b">plain<") == 2


def test_text_an_answer_repeats_counts_against_the_text_searched_each_time() -> None:
    """A text remembered clean is not searched again, but it is read again: past MAX_SCANNED_CHARS, the marker."""
    text = "x" * 1000
    count = redact_module.MAX_SCANNED_CHARS // len(text) + 2
    out = json.loads(blanked("json", json.dumps({"Users": [{"Name": text}] * count}).encode()))
    names = [user["Name"] for user in out["Users"]]
    assert names[: count - 2] == [text] * (count - 2)
    assert names[-1] == redact_module.PAST_SCANNED


@pytest.mark.parametrize("xmlns", ["https://plain.example/doc/", "urn:{x", "{", "urn:x}y", "}"])
def test_a_secret_in_any_namespace_is_blanked_or_not_relayed(xmlns: str) -> None:
    """A namespace holding braces: its elements' names read as botocore reads them and blanked, or (a `}`, which the
    parser refuses) the answer not relayed at all."""
    document = (
        f'<Out xmlns="https://plain.example/doc/"><Name>db</Name>'
        f'<MasterUserPassword xmlns="{xmlns}">hunter2</MasterUserPassword>'
        f'<Name xmlns="{xmlns}">AKIAABCDEFGHIJKLMNOP</Name></Out>'
    )
    if "}" in xmlns:
        with pytest.raises(Unredactable):
            blanked("rest-xml", document.encode())
        return
    body = blanked("rest-xml", document.encode())
    assert b"hunter2" not in body and b"AKIA" not in body and b">db<" in body


@given(st.text(alphabet="{}ab:", max_size=12))
def test_a_name_loses_its_namespaces_as_the_pattern_takes_them(tag: str) -> None:
    assert redact_module._local(tag) == redact_module.NAMESPACE.sub("", tag)


def test_where_the_next_page_starts_is_relayed_however_it_looks() -> None:
    token = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"  # the shape of a secret access key: a page's token may have it
    document = f'<Out xmlns="https://plain.example/doc/"><NextToken>{token}</NextToken><Name>{token}</Name></Out>'
    body = blanked("rest-xml", document.encode()).decode()
    assert f"<NextToken>{token}</NextToken>" in body and f"<Name>{MARKER}</Name>" in body
