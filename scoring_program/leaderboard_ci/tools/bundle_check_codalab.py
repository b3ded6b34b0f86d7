"""Checking a legacy CodaLab bundle (competition.yaml v1.5) before upload.

:func:`check_legacy` is what :func:`leaderboard_ci.tools.bundle_check.check_bundle` runs when the
competition.yaml has v1.5's shape (:func:`leaderboard_ci.tools.codalab.is_legacy`).  The rules were read
from codalab/codalab-competitions, ``codalab/apps/web/models.py`` (``CompetitionDefBundle.unpack``, the
``Competition`` and ``CompetitionPhase`` models) and ``codalab/apps/web/tasks.py`` (``scores.txt``); the
module docstring of :mod:`leaderboard_ci.tools.codalab` lists them.  The scoring runs are the v2 check's:
every submission through the worker emulation, each leaderboard column's key read from ``scores.txt``.
"""

from __future__ import annotations

import datetime
import io
import os
import re
import shutil
import tempfile
import uuid
import zipfile

from .codalab import COMPETITION_FIELDS, HTML_PAGES, PHASE_FIELDS, PHASE_FILE_TYPES

#: The column sortings CodaLab knows.
SORTINGS = ("asc", "desc")

__all__ = ["check_legacy", "read_scores_txt"]

#: Django's parse_datetime: what a quoted start_date must look like (an unquoted YAML date is fine).
_DJANGO_DATETIME = re.compile(r"^\d{4}-\d{1,2}-\d{1,2}[T ]\d{1,2}:\d{1,2}")


def read_scores_txt(path):
    """``{key: float}`` of a ``scores.txt`` read as CodaLab reads it, or a sentence saying why it cannot be."""
    if not os.path.isfile(path):
        return "the program wrote no scores.txt, which CodaLab reads"
    scores = {}
    with io.open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle.read().split("\n"), 1):
            if not line:
                continue
            parts = line.split(":")
            if len(parts) != 2:
                return "scores.txt line %d has %d colons; CodaLab splits each line at its one colon" % (
                    number,
                    len(parts) - 1,
                )
            try:
                scores[parts[0].strip()] = float(parts[1])
            except ValueError:
                return "scores.txt line %d: the value is not a number CodaLab's float() reads" % number
    return scores


def _scores_txt(run):
    return read_scores_txt(os.path.join(run.output_dir, "scores.txt"))


def _check_top(c, competition, rules):
    where = "competition.yaml"
    archive_yaml = [n for n in c.archive.namelist() if ".yaml" in n]
    if archive_yaml and archive_yaml[0] != "competition.yaml":
        c.add(
            where,
            "the entry %r comes before competition.yaml, and CodaLab's unpacker reads the first entry whose "
            "name holds '.yaml'; zip the other one inside its data zip" % archive_yaml[0],
        )
    for key in competition:
        if key not in COMPETITION_FIELDS:
            c.add(
                where,
                "key %r is not a field of CodaLab's Competition; the v1.5 unpacker passes the top level to it and "
                "the upload fails (remove the key)" % (key,),
            )
    title = competition.get("title")
    if not isinstance(title, str) or not title.strip():
        c.add(where, "'title' is required")
    image = competition.get("image")
    if image is not None and (not isinstance(image, str) or c.exists(image) != "file"):
        c.add(where, "image %r is not a file in the bundle" % (image,))
    pages = competition.get("html")
    if not isinstance(pages, dict):
        c.add(where, "'html' must map %s to HTML files" % ", ".join(HTML_PAGES))
        return
    for name in HTML_PAGES:
        if name not in pages:
            c.add("html", "the %r page is required by CodaLab's unpacker" % name)
    for name, path in pages.items():
        if not isinstance(path, str):
            c.add("html", "page %r must be a file name" % (name,))
        else:
            rules.check_text_file(c, path, "html.%s" % name, "page file")


def _is_dataset_key(value):
    try:
        uuid.UUID(str(value))
    except ValueError:
        return False
    return True


def _check_phases(c, competition, rules):
    """{phase number: phase} of the phases with a scoring program and reference data in the bundle."""
    phases = competition.get("phases")
    if not isinstance(phases, dict) or not phases:
        c.add("competition.yaml", "'phases' must map phase numbers to phases (at least one)")
        return {}
    out = {}
    for number, phase in phases.items():
        where = "phases.%s" % number
        if not isinstance(phase, dict):
            c.add(where, "must be a mapping")
            continue
        for key in phase:
            if key not in PHASE_FIELDS:
                c.add(where, "key %r is not a field of CodaLab's CompetitionPhase; the upload fails (remove it)" % key)
        if not _is_int(phase.get("phasenumber")):
            c.add(where, "needs a 'phasenumber' (an integer)")
        if not phase.get("label"):
            c.add(where, "needs a 'label'")
        start = phase.get("start_date")
        if not isinstance(start, (datetime.date, datetime.datetime)) and not (
            isinstance(start, str) and _DJANGO_DATETIME.match(start)
        ):
            c.add(
                where,
                "start_date %r is not a date CodaLab reads; write it unquoted, e.g. start_date: 2026-01-01" % (start,),
            )
        if "reference_data" not in phase:
            c.add(where, "has no reference_data; CodaLab refuses a bundle without it")
        if "scoring_program" not in phase:
            c.add(where, "has no scoring_program; no submission would be scored")
        usable = True
        for key in PHASE_FILE_TYPES:
            if key not in phase:
                continue
            value = phase[key]
            if isinstance(value, str) and value.endswith(".zip"):
                if c.exists(value) != "file":
                    c.add(where, "%s %r is not a file in the bundle" % (key, value))
                    usable = False
                elif not zipfile.is_zipfile(io.BytesIO(c.read(value))):
                    c.add(where, "%s %r is not a zip" % (key, value))
                    usable = False
                elif key == "scoring_program":
                    rules.check_program_zip(c, value, where)
            elif not _is_dataset_key(value):
                c.add(where, "%s %r must be a zip in the bundle (NAME.zip) or an existing dataset's key" % (key, value))
                usable = False
        if usable and isinstance(phase.get("scoring_program"), str) and phase["scoring_program"].endswith(".zip"):
            out[number] = phase
    return out


def _check_leaderboard(c, competition):
    """The leaderboard's columns in v2's shape (key, title, index, sorting) and the primary column's index."""
    board = competition.get("leaderboard")
    if not isinstance(board, dict):
        c.add("competition.yaml", "'leaderboard' must hold leaderboards: and columns:")
        return [], 0
    boards = board.get("leaderboards")
    labels = set()
    if not isinstance(boards, dict) or not boards:
        c.add("leaderboard", "'leaderboards' must map keys to {label, rank}")
    else:
        for key, value in boards.items():
            if not isinstance(value, dict) or not isinstance(value.get("label"), str) or "rank" not in value:
                c.add("leaderboard.leaderboards.%s" % key, "needs a 'label' and a 'rank'")
            else:
                labels.add(value["label"].strip())
    columns = board.get("columns")
    if not isinstance(columns, dict) or not columns:
        c.add("leaderboard", "'columns' must map scores.txt keys to columns (at least one)")
        return [], 0
    out, primary = [], 0
    for index, (key, column) in enumerate(columns.items()):
        where = "leaderboard.columns.%s" % key
        if not isinstance(column, dict):
            c.add(where, "must be a mapping")
            continue
        if not isinstance(key, str) or ":" in key or not key.strip():
            c.add(where, "the key must be a name without ':' (scores.txt lines are split at their colon)")
            continue
        parent = column.get("leaderboard")
        if not isinstance(parent, dict) or str(parent.get("label", "")).strip() not in labels:
            c.add(where, "its leaderboard must be one of leaderboard.leaderboards (by label), e.g. *RESULTS")
        sort = column.get("sort", "desc")
        if sort not in SORTINGS:
            c.add(where, "sort %r must be 'asc' or 'desc'" % (sort,))
        if "computed" in column:
            continue
        if column.get("selection_default"):
            primary = index
        out.append({"key": key, "title": column.get("label", key), "index": index, "sorting": sort})
    return out, primary


def _rename_v2_places(problems, columns):
    """The v2 checks name leaderboards[0].columns[i] and primary_index; here columns go by key."""
    by_index = dict((col["index"], col["key"]) for col in columns)

    def selection(match):
        return "give the column %r selection_default: 1 (and no other)" % by_index.get(int(match.group(1)))

    for problem in problems:
        match = re.match(r"^leaderboards\[0\]\.columns\[(\d+)\]$", problem.where)
        if match:
            problem.where = "leaderboard.columns.%s" % columns[int(match.group(1))]["key"]
        elif problem.where == "leaderboards[0]":
            problem.where = "leaderboard"
            text = problem.message.replace("primary column (index", "default-sorted column (index")
            problem.message = re.sub(r"set primary_index: (\d+)", selection, text)


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def check_legacy(c, competition, rules, submissions=None, run_program=True, python=None, workdir=None, warnings=None):
    """The problems of a v1.5 bundle ``c`` (a ``bundle_check._Checker``) whose competition.yaml is ``competition``.

    ``rules`` are the checks v2 shares (``bundle_check.SHARED``: the program zip, page files, column
    directions, scoring runs), passed in so that this module does not import the v2 check back.
    """
    _check_top(c, competition, rules)
    phases = _check_phases(c, competition, rules)
    columns, primary = _check_leaderboard(c, competition)
    if not columns or not phases:
        return c.problems
    owned = workdir is None
    workdir = workdir or tempfile.mkdtemp(prefix="bundle-check-")
    try:
        unwritten = rules.check_directions(c, phases, columns, os.path.join(workdir, "config"), warnings, primary)
        if run_program and not c.problems:
            runs = [{"name": phase.get("label"), "tasks": [number]} for number, phase in phases.items()]
            rules.check_scores(
                c, competition, phases, columns, submissions, python, workdir, unwritten, _scores_txt, runs
            )
    finally:
        if owned:
            shutil.rmtree(workdir, ignore_errors=True)
    _rename_v2_places(c.problems, columns)
    return c.problems
