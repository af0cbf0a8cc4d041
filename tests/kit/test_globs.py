"""Resource patterns and the catalog's ARN formats as automata: one ARN field per `${Name}` before a `:`."""

from __future__ import annotations

from harness.kit.globs import (
    arn_format,
    escapes,
    iam_glob,
    matches,
    overlap,
    regions,
    surely_covers,
    surely_disjoint,
    verbatim,
)

STREAM = arn_format("arn:${Partition}:logs:${Region}:${Account}:log-group:${LogGroupName}:log-stream:${LogStreamName}")
GROUP = arn_format("arn:${Partition}:logs:${Region}:${Account}:log-group:${LogGroupName}")
TABLE = arn_format("arn:${Partition}:dynamodb:${Region}:${Account}:table/${TableName}")


def test_a_name_before_a_colon_is_one_field_and_the_last_name_is_any_run() -> None:
    assert matches(STREAM, "arn:aws:logs:us-east-1:123456789012:log-group:/aws/lambda/f:log-stream:2026/x[1]")
    assert not matches(STREAM, "arn:aws:logs:us-east-1:123456789012:log-group:/aws/lambda/f:x:log-stream:s")
    assert not matches(STREAM, "arn:aws:logs:us-east-1:extra:123456789012:log-group:g:log-stream:s")
    assert matches(GROUP, "arn:aws:logs:us-east-1:123456789012:log-group:/aws/lambda/f:*")  # the last name: any run
    assert matches(TABLE, "arn:aws-cn:dynamodb:cn-north-1:123456789012:table/orders")


def test_iam_patterns_match_across_colons_and_slashes() -> None:
    assert matches(iam_glob("arn:aws:logs:*:log-stream:*"), "arn:aws:logs:r:a:log-group:g:log-stream:s")
    assert matches(iam_glob("arn:aws:s3:::b/?"), "arn:aws:s3:::b/k")
    assert not matches(iam_glob("arn:aws:s3:::b/?"), "arn:aws:s3:::b/kk")
    assert matches(verbatim("*"), "*") and not matches(verbatim("*"), "x")


def test_a_group_grant_meets_the_stream_type_only_on_that_groups_streams() -> None:
    """`log-group:G:*` and the log-stream format overlap (on G's streams); within the stream format, nothing
    the grant matches lies outside `log-group:G:log-stream:*`."""
    held = iam_glob("arn:aws:logs:us-east-1:123456789012:log-group:/aws/lambda/f:*")
    asked = iam_glob("arn:aws:logs:us-east-1:123456789012:log-group:/aws/lambda/f:log-stream:*")
    found = regions("", [((held,), False), ((asked,), False), ((STREAM,), False)])
    assert (True, True, True) in found
    assert (True, False, True) not in found  # no stream of G outside the asked pattern
    assert (True, False, False) in found  # the grant alone matches more: e.g. G's own `:*` ARN


def test_a_negated_set_matches_what_none_of_its_patterns_match() -> None:
    found = regions("arn:aws:s3:::", [((iam_glob("arn:aws:s3:::b/*"),), True)])
    assert found[(False,)].startswith("b/") and found[(True,)]


def test_cheap_tests_are_sound_and_say_no_when_unsure() -> None:
    logs_pattern = iam_glob("arn:aws:logs:us-east-1:1:log-group:g:*")
    assert surely_disjoint(logs_pattern, TABLE)  # another service, literally
    assert not surely_disjoint(iam_glob("*"), TABLE)
    assert not surely_disjoint(iam_glob("arn:*:dynamodb:*"), TABLE)
    assert not surely_disjoint(iam_glob("arn:aws?dynamodb:x"), TABLE)  # `?` may be the colon: unsure
    assert surely_disjoint(logs_pattern, verbatim("*")) and not surely_disjoint(iam_glob("*"), verbatim("*"))
    assert surely_covers(iam_glob("*"), TABLE) and surely_covers(iam_glob("*"), verbatim("*"))
    assert surely_covers(iam_glob("arn:*"), TABLE) and not surely_covers(iam_glob("arn:aws:*"), TABLE)
    assert not surely_covers(iam_glob("arn:*:table/*"), TABLE)  # it does, but the cheap test does not claim it
    assert overlap(iam_glob("arn:aws:*"), TABLE) and not overlap(iam_glob("arn:aws:s3:::*"), TABLE)
    assert escapes(TABLE, [iam_glob("arn:aws:*")])  # e.g. another partition's table
    assert not escapes(TABLE, [iam_glob("arn:*")])
    assert not escapes(TABLE, [iam_glob("arn:*:table/*")])  # true, and the cheap test does not claim otherwise
