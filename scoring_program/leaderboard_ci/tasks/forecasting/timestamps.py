"""The ``ds`` column: dates, date-times or whole time steps, parsed with numpy and compared as integers.

A ``ds`` field is one of

* a date ``YYYY-MM-DD`` (pandas writes a daily ``datetime64`` column so),
* a date-time ``YYYY-MM-DD HH:MM`` or ``YYYY-MM-DD HH:MM:SS`` (or with ``T``),
* a whole number (a time step, as M4's series are often numbered).

Dates and date-times become seconds since 1970-01-01 (so ``2016-05-23`` and
``2016-05-23 00:00:00`` are the same instant), time steps stay as they are;
the two kinds never match each other.  Standard library and numpy only.
"""

from __future__ import annotations

import datetime

import numpy as np

__all__ = ["STEP", "TIME", "BAD", "parse", "format_key", "describe_kind"]

#: Kind codes: a whole time step, a date or date-time, a field that is neither.
STEP, TIME, BAD = 0, 1, -1
_WIDTH = 19
_EPOCH = datetime.datetime(1970, 1, 1)


def _digits(chars, columns):
    value = np.zeros(chars.shape[0], dtype=np.int64)
    ok = np.ones(chars.shape[0], dtype=bool)
    for c in columns:
        digit = chars[:, c].astype(np.int64) - 48
        ok &= (digit >= 0) & (digit <= 9)
        value = value * 10 + digit
    return value, ok


def _days_from_civil(y, m, d):
    """Days since 1970-01-01 of a proleptic Gregorian date (Hinnant's algorithm), vectorized."""
    y = y - (m <= 2)
    era = np.where(y >= 0, y, y - 399) // 400
    yoe = y - era * 400
    doy = (153 * np.where(m > 2, m - 3, m + 9) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def _days_in_month(y, m):
    leap = ((y % 4 == 0) & (y % 100 != 0)) | (y % 400 == 0)
    days = np.array([0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31], dtype=np.int64)[np.clip(m, 0, 12)]
    return days + (leap & (m == 2))


def parse(data, starts, lengths):
    """``(keys, kinds)`` of the fields ``data[starts[i] : starts[i] + lengths[i]]`` (uint8 ``data``)."""
    starts = np.asarray(starts, dtype=np.int64)
    lengths = np.asarray(lengths, dtype=np.int64)
    n = len(starts)
    keys = np.zeros(n, dtype=np.int64)
    kinds = np.full(n, BAD, dtype=np.int8)
    if not n:
        return keys, kinds
    fifth = data[np.minimum(starts + 4, len(data) - 1)]
    looks_dated = np.isin(lengths, (10, 16, 19)) & (fifth == 45)
    rows = np.flatnonzero(~looks_dated)
    if len(rows):
        keys[rows], ok = _steps(data, starts[rows], lengths[rows])
        kinds[rows[ok]] = STEP
    rows = np.flatnonzero(looks_dated)
    if len(rows):
        keys[rows], ok = _times(data, starts[rows], lengths[rows])
        kinds[rows[ok]] = TIME
    return keys, kinds


def _chars(data, starts, lengths, width):
    at = np.minimum(starts[:, None] + np.arange(width)[None, :], len(data) - 1)
    return np.where(np.arange(width)[None, :] < lengths[:, None], data[at], 0)


def _steps(data, starts, lengths):
    """Whole numbers: an optional sign and 1 to 18 digits."""
    width = int(min(lengths.max(), 19))
    chars = _chars(data, starts, lengths, width)
    negative = chars[:, 0] == 45
    signed = negative | (chars[:, 0] == 43)
    value = np.zeros(len(starts), dtype=np.int64)
    ok = (lengths - signed >= 1) & (lengths - signed <= 18)
    for c in range(width):
        inside = (c >= signed) & (c < lengths)
        digit = chars[:, c].astype(np.int64) - 48
        ok &= ~inside | ((digit >= 0) & (digit <= 9))
        value = np.where(inside, value * 10 + np.clip(digit, 0, 9), value)
    return np.where(negative, -value, value), ok


def _times(data, starts, lengths):
    """Dates and date-times (seconds since 1970-01-01).

    Fields of 10 characters alone (dates, the usual column) take 10 columns of characters, not 19.
    """
    dates_only = int(lengths.max()) <= 10
    chars = _chars(data, starts, lengths, 10 if dates_only else _WIDTH)
    year, ok_y = _digits(chars, (0, 1, 2, 3))
    month, ok_m = _digits(chars, (5, 6))
    day, ok_d = _digits(chars, (8, 9))
    ok = (chars[:, 7] == 45) & ok_y & ok_m & ok_d & (month >= 1) & (month <= 12) & (day >= 1)
    ok &= day <= _days_in_month(year, month)
    if dates_only:
        return _days_from_civil(year, month, day) * 86400, ok
    timed = lengths > 10
    separator = (chars[:, 10] == 32) | (chars[:, 10] == 84)
    hour, ok_h = _digits(chars, (11, 12))
    minute, ok_mi = _digits(chars, (14, 15))
    second, ok_s = _digits(chars, (17, 18))
    with_seconds = lengths == 19
    clock = separator & ok_h & ok_mi & (chars[:, 13] == 58) & (hour <= 23) & (minute <= 59)
    clock &= ~with_seconds | (ok_s & (chars[:, 16] == 58) & (second <= 59))
    ok &= ~timed | clock
    seconds = _days_from_civil(year, month, day) * 86400
    seconds += np.where(timed, hour * 3600 + minute * 60 + np.where(with_seconds, second, 0), 0)
    return seconds, ok


def format_key(key, kind, with_time=False):
    """A key as ``ds`` text: a date (with its time when ``with_time`` or not at midnight), or the step."""
    key = int(key)
    if kind == STEP:
        return str(key)
    moment = _EPOCH + datetime.timedelta(seconds=key)
    if with_time or key % 86400:
        return moment.strftime("%Y-%m-%d %H:%M:%S")
    return moment.strftime("%Y-%m-%d")


def describe_kind(kind):
    """What ``ds`` values of a kind look like, for a message."""
    if kind == STEP:
        return "whole numbers (time steps) such as 1"
    return (
        "dates as YYYY-MM-DD with a two-digit month and day, such as 2016-05-23 (or date-times such as "
        "2016-05-23 14:00:00)"
    )
