"""The names map: ``--names map.csv`` renames submissions (``submission,name``)."""

from __future__ import annotations

import csv
import io
import os
from dataclasses import replace

from ...scoring.errors import ConfigError

__all__ = ["read_names_map", "apply_names_map"]


def read_names_map(path):
    """Read a names map: a CSV with the header ``submission,name``.

    Returns
    -------
    list of (int, str, str)
        ``(line, key, name)``; a key is an entry's name in the input, a
        submission id, or a default system name.

    Raises
    ------
    ConfigError
        For a missing or malformed file, an empty name, or a key listed twice.
    """
    shown = os.path.basename(path)
    if not os.path.isfile(path):
        raise ConfigError("the names map %s does not exist" % path)
    try:
        with io.open(path, "r", encoding="utf-8-sig", newline="") as handle:
            rows = list(csv.reader(handle))
    except (UnicodeDecodeError, csv.Error) as exc:
        raise ConfigError("the names map %s cannot be read as UTF-8 CSV (%s)" % (shown, exc))
    header = [cell.strip().lower() for cell in rows[0]] if rows else []
    if "submission" not in header or "name" not in header:
        raise ConfigError("the names map %s must start with the header submission,name" % shown)
    key_at, name_at = header.index("submission"), header.index("name")
    out, seen = [], {}
    for line, row in enumerate(rows[1:], start=2):
        if not any(cell.strip() for cell in row):
            continue
        key = row[key_at].strip() if key_at < len(row) else ""
        name = row[name_at].strip() if name_at < len(row) else ""
        if not key or not name:
            raise ConfigError("the names map %s, line %d: both submission and name are needed" % (shown, line))
        if key in seen:
            raise ConfigError("the names map %s lists %r twice (lines %d and %d)" % (shown, key, seen[key], line))
        seen[key] = line
        out.append((line, key, name))
    return out


def _keys_of(entry):
    """What a names-map key may say to pick ``entry``."""
    keys = {entry.name, entry.default_name, entry.source, os.path.basename(entry.source.rstrip("/"))}
    if entry.submission_id is not None:
        keys.add(entry.submission_id)
    return keys


def apply_names_map(entries, rows, skipped=(), source="names map"):
    """Rename entries by the rows of :func:`read_names_map`.

    Parameters
    ----------
    entries : list of SubmissionEntry
    rows : list of (int, str, str)
    skipped : list of (str, str)
        A key naming a skipped submission is not unknown.
    source : str
        The map's name for messages.

    Returns
    -------
    entries : list of SubmissionEntry
        Renamed, in the same order.
    warnings : list of str
        One per key that matches no submission.

    Raises
    ------
    ConfigError
        If a key matches several submissions, two keys pick the same
        submission, or two systems end up with the same name.
    """
    index = {}
    for i, entry in enumerate(entries):
        for key in _keys_of(entry):
            index.setdefault(key, set()).add(i)
    skipped_labels = set(label for label, _ in skipped)
    names, picked_by, notes = [e.name for e in entries], {}, []
    for line, key, name in rows:
        matches = index.get(key, set())
        if len(matches) > 1:
            raise ConfigError(
                "%s, line %d: %r matches %d submissions (%s); use the full entry name"
                % (source, line, key, len(matches), ", ".join(sorted(entries[i].name for i in matches)))
            )
        if not matches:
            if key not in skipped_labels:
                notes.append("%s, line %d: no submission matches %r" % (source, line, key))
            continue
        i = next(iter(matches))
        if i in picked_by:
            raise ConfigError("%s, lines %d and %d both rename %s" % (source, picked_by[i], line, entries[i].name))
        picked_by[i] = line
        names[i] = name
    _check_unique(names, entries, source)
    renamed = [
        replace(e, name=n, renamed=True) if i in picked_by else e for i, (e, n) in enumerate(zip(entries, names))
    ]
    return renamed, notes


def _check_unique(names, entries, source):
    first = {}
    for name, entry in zip(names, entries):
        if name in first:
            raise ConfigError(
                "after %s, two systems are named %r (%s and %s); system names must be unique"
                % (source, name, first[name], entry.source)
            )
        first[name] = entry.source
