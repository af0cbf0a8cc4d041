"""EventBridge schedules judged by when they fire: rates and AWS's six-field crons, each spelling of one schedule."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.kit import events, schedules
from harness.kit.schedules import Cron, Rate, ScheduleError, parse, same_firing
from tests.kit.conftest import described, miss, passes, unique


def same(a: str, b: str) -> bool:
    return same_firing(parse(a), parse(b))


# --- spellings of one schedule ----------------------------------------------------------------------------------

DIVISORS_OF_AN_HOUR = [1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30]
UNITS = {"minute": 1, "hour": 60, "day": 1440}


def rate_spellings(minutes: int) -> list[str]:
    """Every `rate(...)` that means `minutes`, in each unit it divides, singular or plural, spaced any way."""
    found = []
    for unit, size in UNITS.items():
        if minutes % size == 0:
            count = minutes // size
            found += [f"rate({count} {unit}{'s' if count != 1 else ''})", f"rate( {count}  {unit}s )"]
    return found


def minute_field_spellings(step: int) -> list[str]:
    """Cron minute fields that fire every `step` minutes from :00."""
    listed = ",".join(str(m) for m in range(0, 60, step))
    return [f"0/{step}", f"*/{step}", f"0-59/{step}", listed] + (["*"] if step == 1 else [])


@settings(max_examples=60, deadline=None)
@given(step=st.sampled_from(DIVISORS_OF_AN_HOUR), data=st.data())
def test_every_spelling_of_every_n_minutes_is_one_schedule(step: int, data: st.DataObject) -> None:
    rate = data.draw(st.sampled_from(rate_spellings(step)))
    minutes = data.draw(st.sampled_from(minute_field_spellings(step)))
    day_fields = data.draw(st.sampled_from(["* * ?", "? * *", "1-31 * ?", "? * 1-7", "? * SUN-SAT", "* JAN-DEC ?"]))
    year = data.draw(st.sampled_from(["*", "1970-2199", "1970/1"]))
    cron = f"cron({minutes} * {day_fields} {year})"
    case = data.draw(st.sampled_from([str.lower, str.upper, lambda s: s]))
    assert same(rate, case(cron))
    assert same(cron, f"cron(*/{step} * * * ? *)")


@settings(max_examples=60, deadline=None)
@given(step=st.sampled_from(DIVISORS_OF_AN_HOUR), other=st.sampled_from(DIVISORS_OF_AN_HOUR), offset=st.integers(1, 9))
def test_another_period_or_a_gap_is_another_schedule(step: int, other: int, offset: int) -> None:
    if other != step:
        assert not same(f"rate({step} minutes)", f"cron(0/{other} * * * ? *)")
        assert not same(f"cron(0/{step} * * * ? *)", f"cron(0/{other} * * * ? *)")
    if offset < step:
        assert not same(f"cron(0/{step} * * * ? *)", f"cron({offset}/{step} * * * ? *)")  # same period, other times
    assert not same(f"rate({step} minutes)", f"cron(0/{step} 0-22 * * ? *)")  # a gap each night
    assert not same(f"rate({step} minutes)", f"cron(0/{step} * ? * MON-FRI *)")  # weekends off
    assert not same(f"rate({step} minutes)", f"cron(0/{step} * * * ? 2026-2030)")  # ends


@settings(max_examples=40, deadline=None)
@given(hour=st.integers(0, 23), minute=st.integers(0, 59))
def test_daily_and_weekly_crons_are_the_rates_of_a_day_and_a_week(hour: int, minute: int) -> None:
    for daily in (
        f"cron({minute} {hour} * * ? *)",
        f"cron({minute} {hour} ? * * *)",
        f"cron({minute} {hour} 1/1 * ? *)",
    ):
        assert same("rate(1 day)", daily) and same("rate(24 hours)", daily) and same("rate(1440 minutes)", daily)
    assert same("rate(7 days)", f"cron({minute} {hour} ? * MON *)")
    assert same(f"cron({minute} {hour} ? * MON *)", f"cron({minute} {hour} ? * 2 *)")
    assert not same("rate(1 day)", f"cron({minute} {hour} ? * MON-FRI *)")
    assert not same("rate(7 days)", f"cron({minute} {hour} 1 * ? *)")  # monthly: 28 to 31 days apart


WEEKDAY_NAMES = ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"]
MONTH_NAMES = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"]


@settings(max_examples=60, deadline=None)
@given(
    first=st.integers(1, 7),
    last=st.integers(1, 7),
    months=st.lists(st.integers(1, 12), min_size=1, max_size=4, unique=True),
)
def test_names_and_numbers_are_one_field(first: int, last: int, months: list[int]) -> None:
    month_names = ",".join(MONTH_NAMES[m - 1] for m in months)
    by_name = f"cron(30 9 ? {month_names} {WEEKDAY_NAMES[first - 1]}-{WEEKDAY_NAMES[last - 1]} *)"
    by_number = f"cron(30 9 ? {','.join(map(str, sorted(months)))} {first}-{last} *)"
    assert same(by_name, by_number)


def fires(expression: str, year: int, month: int) -> list[int]:
    """The days of a month the cron fires on."""
    cron = parse(expression)
    assert isinstance(cron, Cron)
    days = range(1, schedules.calendar.monthrange(year, month)[1] + 1)
    return [d for d in days if cron.fires_on(dt.date(year, month, d))]


def test_last_weekday_and_nth_terms_read_as_aws_does() -> None:
    # 2026: Jan 1 is a Thursday; Feb 15 a Sunday; Feb has 28 days; 2028 is a leap year
    assert fires("cron(0 12 L * ? *)", 2026, 2) == [28] and fires("cron(0 12 L * ? *)", 2028, 2) == [29]
    assert fires("cron(0 12 15W * ? *)", 2026, 2) == [16]  # Sunday the 15th: Monday the 16th
    assert fires("cron(0 12 1W * ? *)", 2026, 8) == [3]  # Saturday the 1st: Monday the 3rd, never July
    assert fires("cron(0 12 LW * ? *)", 2026, 5) == [29]  # Sunday the 31st: Friday the 29th
    assert fires("cron(0 12 ? * 2#1 *)", 2026, 1) == [5]  # first Monday
    assert fires("cron(0 12 ? * MON#1 *)", 2026, 1) == [5]
    assert fires("cron(0 12 ? * 6L *)", 2026, 1) == [30]  # last Friday
    assert fires("cron(0 12 ? * L *)", 2026, 1) == [3, 10, 17, 24, 31]  # `L` alone: Saturday
    assert fires("cron(0 12 ? * FRI-MON *)", 2026, 1)[:4] == [2, 3, 4, 5]  # a range past Saturday wraps
    assert same("cron(0 12 ? * 6L *)", "cron(0 12 ? * FRIL *)")
    assert not same("cron(0 12 L * ? *)", "cron(0 12 31 * ? *)")  # February, April...


@pytest.mark.parametrize(
    "expression",
    [
        "every 5 minutes",
        "rate(0 minutes)",
        "rate(5 weeks)",
        "cron(0/5 * * * *)",  # five fields: a Unix cron
        "cron(0/5 * * * * *)",  # both day fields set
        "cron(0/5 * ? * ? *)",  # neither
        "cron(60 * * * ? *)",
        "cron(0 24 * * ? *)",
        "cron(0 0 32 * ? *)",
        "cron(0 0 ? * 0 *)",  # AWS counts Sunday as 1
        "cron(0 0 ? FOO * *)",
        "cron(0 0 * * ? 1969)",
        "cron(0/0 * * * ? *)",
        "cron(0 0 ? * 2#6 *)",
    ],
)
def test_what_eventbridge_refuses_is_an_error_naming_it(expression: str) -> None:
    with pytest.raises(ScheduleError, match="'"):
        parse(expression)
    with pytest.raises(ScheduleError):
        events.schedule(expression)


def test_rates_in_any_unit() -> None:
    assert parse("rate(1 hour)") == parse("rate(60 minutes)") == Rate(60)
    assert parse("RATE(2 Days)") == Rate(2880)


# --- on an EventBridge rule in moto -----------------------------------------------------------------------------


def test_a_rule_on_a_cron_meets_a_rate_requirement(aws_session) -> None:
    client = aws_session.client("events")
    every_five, every_ten = unique("five"), unique("ten")
    client.put_rule(Name=every_five, ScheduleExpression="cron(0/5 * * * ? *)")
    client.put_rule(Name=every_ten, ScheduleExpression="cron(*/10 * * * ? *)")
    five = described(events.RULE, aws_session, every_five)
    assert passes(events.schedule("rate(5 minutes)"), five)
    assert passes(events.schedule("cron(*/5 * * * ? *)"), five)
    ten = described(events.RULE, aws_session, every_ten)
    assert miss(events.schedule("rate(5 minutes)"), events.RULE, every_ten, ten) == (
        f"EventBridge rule {every_ten}: schedule should be rate(5 minutes), but is cron(*/10 * * * ? *)."
    )
