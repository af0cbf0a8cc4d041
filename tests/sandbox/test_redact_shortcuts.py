"""The redactor's shortcuts find what the whole search finds: the credential patterns searched in parts, each only
where the text holds what every match of it holds (`secret_shapes.credential_shaped`), say of every text what all of
them searched everywhere say; a secret each part alone finds is found with its hint and only there."""

from __future__ import annotations

import pytest
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
)


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
