"""EventBridge schedule expressions read strictly and compared by when they fire, not by how they are spelled.

`rate(5 minutes)`, `cron(0/5 * * * ? *)` and `cron(*/5 * * * ? *)` all fire every 5 minutes: `same_firing`
says so. A cron is AWS's six fields (minutes, hours, day-of-month, month, day-of-week, year) with `,` `-` `*` `/`,
`?` in one of the two day fields, `L` and `W` in day-of-month, `L` and `#` in day-of-week, and the names
JAN-DEC and SUN-SAT (day-of-week counts SUN as 1). Two crons fire alike when they name the same years, the same
times of day, and the same days over 28 years (every pattern of weekdays and leap years between 1901 and 2099);
a rate fires every N minutes from whenever the rule was made, so a cron fires like it when every gap between
two of its firings is N minutes.
"""

from __future__ import annotations

import calendar
import datetime as dt
import itertools
import re
from dataclasses import dataclass
from functools import cache

MONTHS = {name.upper(): number for number, name in enumerate(calendar.month_abbr) if name}
WEEKDAYS = {"SUN": 1, "MON": 2, "TUE": 3, "WED": 4, "THU": 5, "FRI": 6, "SAT": 7}
RATE_MINUTES = {"minute": 1, "hour": 60, "day": 1440}
WINDOW_START, WINDOW_YEARS = 2026, 28
"""The days compared: 28 years repeat every weekday and leap-year pattern of the Gregorian calendar 1901-2099."""

_RATE = re.compile(r"rate\(\s*(\d+)\s+(minute|hour|day)s?\s*\)", re.IGNORECASE)
_CRON = re.compile(r"cron\((.*)\)", re.IGNORECASE | re.DOTALL)


class ScheduleError(ValueError):
    """A schedule expression that is not one EventBridge accepts; the message names the field at fault."""


@dataclass(frozen=True)
class Rate:
    """`rate(N unit)`: every `minutes` minutes from when the rule was made."""

    minutes: int


@dataclass(frozen=True)
class Cron:
    """An AWS cron expression read into the sets each field allows (day rules are kept as written, read per day)."""

    minutes: frozenset[int]
    hours: frozenset[int]
    month_days: tuple[str, ...] | None
    """Day-of-month terms (`15`, `L`, `LW`, `15W`, ranges and steps expanded), None for `?`."""
    months: frozenset[int]
    weekdays: tuple[str, ...] | None
    """Day-of-week terms (`2`, `6L`, `2#1`, `L`), None for `?`."""
    years: frozenset[int]

    def fires_on(self, day: dt.date) -> bool:
        """Whether the expression fires on `day` (ignoring its year field, compared apart)."""
        if day.month not in self.months:
            return False
        if self.month_days is not None:
            plain, special = self._split(self.month_days)
            return day.day in plain or any(_month_day(term, day) for term in special)
        if self.weekdays is None:
            return False
        plain, special = self._split(self.weekdays)
        return _aws_weekday(day) in plain or any(_weekday(term, day) for term in special)

    @staticmethod
    @cache
    def _split(terms: tuple[str, ...]) -> tuple[frozenset[int], tuple[str, ...]]:
        """A day field's plain numbers (looked up at once) and its `L`, `W`, `#` terms (read per day)."""
        plain = frozenset(int(t) for t in terms if t.isdigit())
        return plain, tuple(t for t in terms if not t.isdigit())

    @property
    def times(self) -> list[int]:
        """The minutes of the day it fires at, in order."""
        return sorted(h * 60 + m for h in self.hours for m in self.minutes)


Schedule = Rate | Cron


def parse(expression: str) -> Schedule:
    """The schedule `expression` names; ScheduleError, naming the field, when EventBridge would refuse it."""
    text = " ".join(str(expression).split())
    rate = _RATE.fullmatch(text)
    if rate:
        value = int(rate[1])
        if value < 1:
            raise ScheduleError(f"{expression!r}: a rate's value must be a positive whole number")
        return Rate(value * RATE_MINUTES[rate[2].lower()])
    cron = _CRON.fullmatch(text)
    if cron is None:
        raise ScheduleError(f"{expression!r}: a schedule is rate(VALUE UNIT) or cron(6 fields)")
    return _cron(expression, cron[1].strip().upper().split())


def _cron(expression: str, fields: list[str]) -> Cron:
    if len(fields) != 6:
        raise ScheduleError(f"{expression!r}: a cron has 6 fields (minutes hours day-of-month month day-of-week year)")
    minute, hour, month_day, month, weekday, year = fields
    if (month_day == "?") == (weekday == "?"):
        raise ScheduleError(f"{expression!r}: exactly one of day-of-month and day-of-week must be '?'")
    where = f"{expression!r}"
    return Cron(
        frozenset(_values(minute, 0, 59, {}, f"{where} minutes")),
        frozenset(_values(hour, 0, 23, {}, f"{where} hours")),
        None if month_day == "?" else _month_day_terms(month_day, where),
        frozenset(_values(month, 1, 12, MONTHS, f"{where} month")),
        None if weekday == "?" else _weekday_terms(weekday, where),
        frozenset(_values(year, 1970, 2199, {}, f"{where} year")),
    )


def _number(text: str, low: int, high: int, names: dict[str, int], where: str) -> int:
    value = names.get(text) if text in names else int(text) if text.isdigit() else None
    if value is None or not low <= value <= high:
        raise ScheduleError(f"{where}: {text!r} is not a value from {low} to {high}")
    return value


def _values(field: str, low: int, high: int, names: dict[str, int], where: str) -> list[int]:
    """The values a field of `,`-separated `*`, `N`, `A-B` (wrapping past `high`), each with an optional `/STEP`."""
    found: list[int] = []
    for part in field.split(","):
        base, slash, step_text = part.partition("/")
        step = _number(step_text, 1, high - low + 1, {}, where) if slash else 1
        if base == "*":
            span = list(range(low, high + 1))
        elif "-" in base:
            start, _, end = base.partition("-")
            a, b = _number(start, low, high, names, where), _number(end, low, high, names, where)
            span = list(range(a, b + 1)) if a <= b else [*range(a, high + 1), *range(low, b + 1)]
        else:
            first = _number(base, low, high, names, where)
            span = list(range(first, high + 1)) if slash else [first]
        found += span[::step]
    return found


def _month_day_terms(field: str, where: str) -> tuple[str, ...]:
    terms: list[str] = []
    for part in field.split(","):
        if part in ("L", "LW") or re.fullmatch(r"\d{1,2}W", part):
            if part.endswith("W") and part != "LW":
                _number(part[:-1], 1, 31, {}, f"{where} day-of-month")
            terms.append(part)
        else:
            terms += [str(v) for v in _values(part, 1, 31, {}, f"{where} day-of-month")]
    return tuple(terms)


def _weekday_terms(field: str, where: str) -> tuple[str, ...]:
    terms: list[str] = []
    for part in field.split(","):
        last = re.fullmatch(r"(\w+)L", part)
        nth = re.fullmatch(r"(\w+)#([1-5])", part)
        if part == "L":
            terms.append("7")  # `L` alone is the week's last day: Saturday
        elif last and part != "L":
            terms.append(f"{_number(last[1], 1, 7, WEEKDAYS, f'{where} day-of-week')}L")
        elif nth:
            terms.append(f"{_number(nth[1], 1, 7, WEEKDAYS, f'{where} day-of-week')}#{nth[2]}")
        else:
            terms += [str(v) for v in _values(part, 1, 7, WEEKDAYS, f"{where} day-of-week")]
    return tuple(terms)


def _aws_weekday(day: dt.date) -> int:
    """SUN=1 ... SAT=7, as AWS's day-of-week counts."""
    return (day.weekday() + 1) % 7 + 1


def _last_day(day: dt.date) -> int:
    return calendar.monthrange(day.year, day.month)[1]


def _nearest_weekday(day: dt.date, target: int) -> int:
    """The weekday nearest `target` in `day`'s month, never crossing into another month (AWS's `W`)."""
    last = _last_day(day)
    target = min(target, last)
    weekday = dt.date(day.year, day.month, target).weekday()
    if weekday == 5:  # Saturday: the Friday before, or the Monday after when the 1st is a Saturday
        return target - 1 if target > 1 else target + 2
    if weekday == 6:  # Sunday: the Monday after, or the Friday before at the month's end
        return target + 1 if target < last else target - 2
    return target


def _month_day(term: str, day: dt.date) -> bool:
    if term == "L":
        return day.day == _last_day(day)
    if term == "LW":
        return day.day == _nearest_weekday(day, _last_day(day))
    if term.endswith("W"):
        return day.day == _nearest_weekday(day, int(term[:-1]))
    return day.day == int(term)


def _weekday(term: str, day: dt.date) -> bool:
    if term.endswith("L"):
        return _aws_weekday(day) == int(term[:-1]) and day.day + 7 > _last_day(day)
    if "#" in term:
        weekday, _, nth = term.partition("#")
        return _aws_weekday(day) == int(weekday) and (day.day - 1) // 7 + 1 == int(nth)
    return _aws_weekday(day) == int(term)


@cache
def _window() -> tuple[dt.date, ...]:
    start = dt.date(WINDOW_START, 1, 1)
    days = (dt.date(WINDOW_START + WINDOW_YEARS, 1, 1) - start).days
    return tuple(start + dt.timedelta(days=n) for n in range(days))


@cache
def _days(cron: Cron) -> tuple[int, ...]:
    """The days (as ordinals) in the window that the cron fires on."""
    return tuple(day.toordinal() for day in _window() if cron.fires_on(day))


def _every(cron: Cron, minutes: int) -> bool:
    """Whether every gap between two firings of `cron` is `minutes` (as a rate fires)."""
    if cron.years != frozenset(range(1970, 2200)):
        return False
    times, days = cron.times, _days(cron)
    if len(times) > 1 or minutes < 1440:
        gaps = [b - a for a, b in zip(times, [*times[1:], times[0] + 1440], strict=True)]
        return len(days) == len(_window()) and set(gaps) == {minutes}
    return {(b - a) * 1440 for a, b in itertools.pairwise(days)} == {minutes}


def same_firing(a: Schedule, b: Schedule) -> bool:
    """Whether two schedules fire at the same times (a rate: at the same intervals)."""
    if isinstance(a, Rate) and isinstance(b, Rate):
        return a.minutes == b.minutes
    if isinstance(a, Rate) or isinstance(b, Rate):
        rate, cron = (a, b) if isinstance(a, Rate) else (b, a)
        return isinstance(cron, Cron) and isinstance(rate, Rate) and _every(cron, rate.minutes)
    return a.years == b.years and a.times == b.times and _days(a) == _days(b)
