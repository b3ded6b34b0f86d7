"""Checking a Codabench bundle before upload: what its unpacker, serializers or worker would reject.

:func:`check_bundle` returns a list of :class:`BundleProblem` (empty: fine).  The
rules were read from codalab/codabench: ``src/apps/competitions/tasks.py``
(``unpack_competition``), ``src/apps/competitions/unpackers/{v2,base_unpacker,utils}.py``,
``src/apps/api/serializers/{leaderboards,competitions,tasks}.py``,
``src/apps/leaderboards/models.py`` and ``compute_worker/compute_worker.py``.
"""

from __future__ import annotations

import datetime
import io
import math
import os
import posixpath
import shutil
import tempfile
import uuid
import zipfile
from collections import namedtuple
from dataclasses import dataclass, field
from typing import List

import yaml

from ..scoring.config import load_config
from ..scoring.errors import ConfigError
from ..scoring.limits import MAX_ABS_SCORE, MAX_KEY_LENGTH, MAX_LEADERBOARD_TITLE, MAX_TITLE_LENGTH
from ..scoring.outputs import written_columns
from ..scoring.readers import organizer_warnings, read_gold
from .bundle import TASK_FILE_TYPES, sample_submissions, score_one
from .bundle_check_codalab import check_legacy
from .codalab import is_legacy

__all__ = ["check_bundle", "BundleProblem", "SORTINGS", "COMPUTATIONS"]

SORTINGS = ("asc", "desc")
#: The files a phase (not a task) offers participants.
PHASE_FILE_TYPES = ("public_data", "starting_kit")
COMPUTATIONS = ("avg", "sum", "min", "max")
SUBMISSION_RULES = tuple(
    "Add Add_And_Delete Add_And_Delete_Multiple Force_Last Force_Latest_Multiple Force_Best".split()
)


@dataclass
class BundleProblem:
    """One thing Codabench (or the worker) would reject or get wrong."""

    where: str
    message: str

    def __str__(self):
        return "%s: %s" % (self.where, self.message)


@dataclass
class _Checker:
    archive: zipfile.ZipFile
    problems: List[BundleProblem] = field(default_factory=list)

    def add(self, where, message):
        self.problems.append(BundleProblem(where, message))

    # archive helpers ----------------------------------------------------
    @property
    def names(self):
        return [n for n in self.archive.namelist() if not n.endswith("/")]

    def exists(self, path):
        """A file or a folder (any entry under it) in the bundle."""
        name = posixpath.normpath(path.strip())
        if name in self.names:
            return "file"
        prefix = name.rstrip("/") + "/"
        if any(n.startswith(prefix) for n in self.names):
            return "dir"
        return None

    def read(self, path):
        return self.archive.read(posixpath.normpath(path.strip()))


def _as_datetime(value):
    if value is None or value == "":
        return None
    if isinstance(value, datetime.datetime):
        return value.replace(tzinfo=None)
    if isinstance(value, datetime.date):
        return datetime.datetime.combine(value, datetime.time())
    from dateutil import parser  # Codabench parses with dateutil too

    return parser.parse(str(value)).replace(tzinfo=None)


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _check_text_file(c, path, where, what):
    kind = c.exists(path)
    if kind is None:
        c.add(where, "%s %r is not in the bundle" % (what, path))
        return None
    if kind == "dir":
        c.add(where, "%s %r is a folder; it must be a file" % (what, path))
        return None
    data = c.read(path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        c.add(where, "%s %r is not UTF-8 text" % (what, path))
        return None
    if not text:
        c.add(where, "%s %r is empty; Codabench requires content" % (what, path))
    return text


def _nested_zip(c, path, where, what):
    """Open a zip inside the bundle; None (and a problem) when it is not one."""
    data = c.read(path)
    try:
        return zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile:
        c.add(where, "%s %r is not a valid zip file" % (what, path))
        return None


def _check_program_zip(c, path, where):
    """metadata.yaml (or metadata) at the program's root, with a command."""
    kind = c.exists(path)
    if kind == "dir":
        names = [n[len(path.rstrip("/")) + 1 :] for n in c.names if n.startswith(path.rstrip("/") + "/")]
        reader = lambda n: c.read(path.rstrip("/") + "/" + n)  # noqa: E731
    else:
        inner = _nested_zip(c, path, where, "scoring_program")
        if inner is None:
            return
        names = [n for n in inner.namelist() if not n.endswith("/")]
        reader = inner.read
    meta = "metadata.yaml" if "metadata.yaml" in names else ("metadata" if "metadata" in names else None)
    if meta is None:
        nested = sorted(n for n in names if posixpath.basename(n) in ("metadata.yaml", "metadata"))
        hint = (" (found %s: zip the folder's contents, not the folder)" % nested[0]) if nested else ""
        c.add(
            where,
            "scoring program %r has no metadata.yaml at its root; the worker looks for "
            "program/metadata.yaml%s" % (path, hint),
        )
        return
    try:
        metadata = yaml.safe_load(reader(meta).decode("utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        c.add(where, "scoring program %s/%s is not valid YAML: %s" % (path, meta, exc))
        return
    command = metadata.get("command") if isinstance(metadata, dict) else None
    if not isinstance(command, str) or not command.strip():
        c.add(where, "scoring program %s/%s has no 'command'" % (path, meta))


def _check_leaderboard(c, board, where):
    if not isinstance(board, dict):
        c.add(where, "must be a mapping")
        return []
    title, key = board.get("title"), board.get("key")
    if not isinstance(title, str) or not title.strip():
        c.add(where, "needs a 'title'")
    elif len(title) > MAX_LEADERBOARD_TITLE:
        c.add(where, "title %r is %d characters; Codabench allows %d" % (title, len(title), MAX_LEADERBOARD_TITLE))
    if not isinstance(key, str) or not key.strip():
        c.add(where, "needs a 'key'")
    elif len(key) > MAX_KEY_LENGTH:
        c.add(where, "key %r is %d characters; Codabench allows %d" % (key, len(key), MAX_KEY_LENGTH))
    rule = board.get("submission_rule")
    if rule is not None and rule not in SUBMISSION_RULES:
        c.add(where, "submission_rule %r is not one of %s" % (rule, ", ".join(SUBMISSION_RULES)))
    columns = board.get("columns")
    if not isinstance(columns, list) or not columns:
        c.add(where, "leaderboards require at least 1 column")
        return []
    indexes, keys = [], []
    for i, column in enumerate(columns):
        cw = "%s.columns[%d]" % (where, i)
        if not isinstance(column, dict):
            c.add(cw, "must be a mapping")
            continue
        ckey, ctitle, index = column.get("key"), column.get("title"), column.get("index")
        if not isinstance(ckey, str) or not ckey:
            c.add(cw, "needs a 'key' (the scores.json key it shows)")
        else:
            keys.append(ckey)
            if len(ckey) > MAX_KEY_LENGTH:
                c.add(cw, "key %r is %d characters; Codabench allows %d" % (ckey, len(ckey), MAX_KEY_LENGTH))
        if not isinstance(ctitle, str) or not ctitle:
            c.add(cw, "needs a 'title'")
        elif len(ctitle) > MAX_TITLE_LENGTH:
            c.add(cw, "title %r is %d characters; Codabench allows %d" % (ctitle, len(ctitle), MAX_TITLE_LENGTH))
        if not _is_int(index) or index < 0:
            c.add(cw, "needs an 'index' (a non-negative integer), got %r" % (index,))
        else:
            indexes.append(index)
        sorting = column.get("sorting", "desc")
        if sorting not in SORTINGS:
            c.add(cw, "sorting %r must be 'asc' or 'desc'" % (sorting,))
        precision = column.get("precision", 2)
        if not _is_int(precision) or precision < 0:
            c.add(cw, "precision must be a non-negative integer, got %r" % (precision,))
        computation = column.get("computation")
        comp_indexes = column.get("computation_indexes")
        if computation is not None and computation not in COMPUTATIONS:
            c.add(cw, "computation %r is not one of %s" % (computation, ", ".join(COMPUTATIONS)))
        if computation is not None and not comp_indexes:
            c.add(cw, "a column with a computation needs computation_indexes")
        if comp_indexes and computation is None:
            c.add(cw, "computation_indexes without a computation")
    for name, values in (("indexes", indexes), ("keys", keys)):
        dupes = sorted(set(v for v in values if values.count(v) > 1), key=str)
        if dupes:
            c.add(where, "columns must have unique %s; repeated: %s" % (name, ", ".join(map(str, dupes))))
    for i, column in enumerate(columns):
        comp_indexes = column.get("computation_indexes") if isinstance(column, dict) else None
        if comp_indexes:
            if isinstance(comp_indexes, str):
                comp_indexes = comp_indexes.split(",")
            for ref in comp_indexes:
                try:
                    ref = int(ref)
                except (TypeError, ValueError):
                    c.add("%s.columns[%d]" % (where, i), "computation index %r is not an integer" % (ref,))
                    continue
                if ref not in indexes:
                    c.add("%s.columns[%d]" % (where, i), "computation index %d is not a column index" % ref)
                if ref == column.get("index"):
                    c.add("%s.columns[%d]" % (where, i), "a column cannot compute from itself")
    primary = board.get("primary_index", 0)
    if not _is_int(primary) or primary not in indexes:
        c.add(
            where,
            "primary_index %r is not the index of one of its columns (%s)"
            % (primary, ", ".join(map(str, sorted(indexes)))),
        )
    else:
        for column in columns:
            if isinstance(column, dict) and column.get("index") == primary and column.get("hidden"):
                c.add(where, "the primary column (index %d) is hidden" % primary)
    visible = [col for col in columns if isinstance(col, dict) and not col.get("hidden")]
    if not visible:
        c.add(where, "no visible column: Codabench refuses to show the leaderboard")
    return [
        col
        for col in columns
        if isinstance(col, dict) and isinstance(col.get("key"), str) and not col.get("computation")
    ]


def check_bundle(path, submissions=None, run_program=True, python=None, workdir=None, warnings=None):
    """Validate a bundle zip against Codabench's unpacker, serializers and worker.

    Parameters
    ----------
    path : str
        The bundle zip.
    submissions : list of str, optional
        Submission zips to score with the bundle's own scoring program and
        reference data; every leaderboard column key must be in each one's
        ``scores.json``.  Default: the repository's sample submissions.
    run_program : bool
        False skips running the scoring program (static checks only).
    python : str, optional
        The interpreter that runs the program (default: this one).
    workdir : str, optional
        Where to lay out the scoring runs (default: a temporary folder).
    warnings : list, optional
        Receives advice that is not a problem (e.g. ``labels`` not set).

    Returns
    -------
    list of BundleProblem
        Empty when the bundle is fine.
    """
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as exc:
        return [BundleProblem(os.path.basename(path), "not a readable zip file (%s)" % exc)]
    with archive:
        c = _Checker(archive)
        bad = archive.testzip()
        if bad is not None:
            c.add(os.path.basename(path), "entry %s is corrupt" % bad)
            return c.problems
        for name in c.names:
            if name.startswith("/") or ".." in name.split("/"):
                c.add(os.path.basename(path), "entry %r would unpack outside the folder" % name)
        competition = _load_competition_yaml(c)
        if competition is None:
            return c.problems
        if is_legacy(competition):
            return check_legacy(c, competition, SHARED, submissions, run_program, python, workdir, warnings)
        _check_competition_yaml(c, competition)
        tasks = _check_tasks(c, competition)
        _check_phases(c, competition, tasks)
        columns = _check_leaderboards(c, competition)
        if not columns:
            return c.problems
        owned = workdir is None
        workdir = workdir or tempfile.mkdtemp(prefix="bundle-check-")
        try:
            boards = competition.get("leaderboards")
            primary = boards[0].get("primary_index", 0) if isinstance(boards[0], dict) else 0
            unwritten = _check_directions(c, tasks, columns, os.path.join(workdir, "config"), warnings, primary)
            if run_program and not c.problems:
                _check_scores(c, competition, tasks, columns, submissions, python, workdir, unwritten)
        finally:
            if owned:
                shutil.rmtree(workdir, ignore_errors=True)
        return c.problems


def _load_competition_yaml(c):
    """The parsed competition.yaml at the zip's root, or None (and a problem)."""
    if "competition.yaml" not in c.names:
        nested = sorted(n for n in c.names if posixpath.basename(n) == "competition.yaml")
        hint = (" (found %s: zip the folder's contents, not the folder)" % nested[0]) if nested else ""
        c.add("bundle", "competition.yaml is missing from the zip's root%s" % hint)
        return None
    try:
        competition = yaml.safe_load(c.read("competition.yaml").decode("utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        c.add("competition.yaml", "is not valid YAML: %s" % exc)
        return None
    if not isinstance(competition, dict):
        c.add("competition.yaml", "must be a mapping")
        return None
    return competition


def _check_competition_yaml(c, competition):
    """Codabench's v2 rules for the top level of competition.yaml."""
    if str(competition.get("version", "1")) != "2":
        c.add(
            "competition.yaml",
            "version must be 2 (got %r); other versions use another unpacker (a legacy CodaLab v1.5 bundle "
            "has html:, numbered phases: and leaderboard:, as leaderboard-ci init --platform codalab writes)"
            % competition.get("version"),
        )
    title = competition.get("title")
    if not isinstance(title, str) or not title.strip():
        c.add("competition.yaml", "'title' is required")
    elif len(title) > 256:
        c.add("competition.yaml", "title is %d characters; Codabench allows 256" % len(title))
    image = competition.get("image")
    if not isinstance(image, str):
        c.add("competition.yaml", "'image' (the logo) is required")
    else:
        kind = c.exists(image)
        if kind != "file":
            c.add("competition.yaml", "image %r is not a file in the bundle" % image)
        else:
            data = c.read(image)
            if not (
                data.startswith(b"\x89PNG\r\n\x1a\n")
                or data.startswith(b"\xff\xd8")
                or data[:6] in (b"GIF87a", b"GIF89a")
            ):
                c.add("competition.yaml", "image %r is not a PNG, JPEG or GIF" % image)
    terms = competition.get("terms")
    if not isinstance(terms, str):
        c.add("competition.yaml", "'terms' (a page file) is required")
    else:
        _check_text_file(c, terms, "competition.yaml: terms", "terms file")
    pages = competition.get("pages")
    if pages is None:
        c.add("competition.yaml", "'pages' is required by the v2 unpacker (a list of {title, file})")
    elif not isinstance(pages, list):
        c.add("competition.yaml", "'pages' must be a list")
    else:
        for i, page in enumerate(pages):
            where = "pages[%d]" % i
            if not isinstance(page, dict) or not isinstance(page.get("file"), str):
                c.add(where, "needs a 'file'")
                continue
            if not page.get("title"):
                c.add(where, "needs a 'title'")
            _check_text_file(c, page["file"], where, "page file")
    docker_image = competition.get("docker_image")
    if docker_image is not None and (not isinstance(docker_image, str) or len(docker_image) > 128):
        c.add("competition.yaml", "docker_image must be an image name of at most 128 characters")
    for flag in (
        "enable_detailed_results",
        "registration_auto_approve",
        "auto_run_submissions",
        "make_programs_available",
        "make_input_data_available",
    ):
        if flag in competition and not isinstance(competition[flag], bool):
            c.add("competition.yaml", "%s must be True or False, got %r" % (flag, competition[flag]))
    return competition


def _check_tasks(c, competition):
    """Returns {index: task dict} of the tasks defined in the bundle."""
    tasks = competition.get("tasks")
    if not isinstance(tasks, list) or not tasks:
        c.add("competition.yaml", "no tasks listed in this competition")
        return {}
    out = {}
    for i, task in enumerate(tasks):
        where = "tasks[%d]" % i
        if not isinstance(task, dict):
            c.add(where, "must be a mapping")
            continue
        if "index" not in task:
            c.add(where, "has no 'index'")
            continue
        index = task["index"]
        if index in out:
            c.add(where, "duplicate task index %r" % (index,))
            continue
        out[index] = task
        if "key" in task:
            try:
                uuid.UUID(str(task["key"]))
            except ValueError:
                c.add(where, "key %r is not a task UUID" % (task["key"],))
            continue
        if not task.get("name"):
            c.add(where, "needs a 'name'")
        for key in PHASE_FILE_TYPES:
            if key in task:
                c.add(
                    where,
                    "%s belongs to a phase, not to a task: Codabench ignores it here and participants get "
                    "nothing; move it to phases[...].%s" % (key, key),
                )
        if "scoring_program" not in task:
            c.add(where, "does not have a scoring_program")
        for file_type in TASK_FILE_TYPES:
            if file_type not in task:
                continue
            value = task[file_type]
            if not isinstance(value, str) or c.exists(value) is None:
                try:
                    uuid.UUID(str(value))  # an existing dataset's key: cannot be checked offline
                except ValueError:
                    c.add(where, "%s %r is not in the bundle" % (file_type, value))
                continue
            if c.exists(value) == "file" and not zipfile.is_zipfile(io.BytesIO(c.read(value))):
                c.add(where, "%s %r is a file but not a zip" % (file_type, value))
                continue
            if file_type == "scoring_program":
                _check_program_zip(c, value, where)
    return out


def _check_phases(c, competition, tasks):
    phases = competition.get("phases")
    if not isinstance(phases, list) or not phases:
        c.add("competition.yaml", "competitions must have at least one phase")
        return
    ordered = []
    for i, phase in enumerate(phases):
        where = "phases[%d]" % i
        if not isinstance(phase, dict):
            c.add(where, "must be a mapping")
            continue
        if not phase.get("name"):
            c.add(where, "needs a 'name'")
        try:
            start = _as_datetime(phase.get("start"))
            end = _as_datetime(phase.get("end"))
        except (ValueError, OverflowError) as exc:
            c.add(where, "start/end is not a date: %s" % exc)
            continue
        if start is None:
            c.add(where, "needs a 'start' date")
        if start is not None and end is not None and end <= start:
            c.add(where, "ends (%s) before it starts (%s)" % (end, start))
        phase_tasks = phase.get("tasks")
        if not isinstance(phase_tasks, list) or not phase_tasks:
            c.add(where, "phases must contain at least one task")
        else:
            for t in phase_tasks:
                if t not in tasks:
                    c.add(
                        where,
                        "task index %r is not one of the tasks (%s)" % (t, ", ".join(map(str, sorted(tasks, key=str)))),
                    )
        for key in PHASE_FILE_TYPES:
            if key in phase and (not isinstance(phase[key], str) or c.exists(phase[key]) is None):
                c.add(where, "%s %r is not in the bundle" % (key, phase[key]))
        limit = phase.get("execution_time_limit")
        if limit is not None and (not _is_int(limit) or limit <= 0):
            c.add(where, "execution_time_limit must be a positive number of seconds")
        ordered.append((phase.get("index", 0) if _is_int(phase.get("index", 0)) else 0, i, phase, start, end))
    ordered.sort(key=lambda t: t[0])
    if ordered and ordered[0][2].get("auto_migrate_to_this_phase"):
        c.add("phases[%d]" % ordered[0][1], "cannot auto-migrate to the first phase")
    for (_, i1, _p1, _s1, e1), (_, i2, _p2, s2, _e2) in zip(ordered, ordered[1:]):
        if e1 is None:
            c.add("phases[%d]" % i1, "must have an end because another phase follows it")
        elif s2 is not None and s2 <= e1:
            c.add("phases[%d]" % i2, "starts (%s) before or when phases[%d] ends (%s)" % (s2, i1, e1))


def _check_leaderboards(c, competition):
    """Returns the columns of the leaderboard phases use (Codabench uses the first)."""
    boards = competition.get("leaderboards")
    if boards is None and "leaderboard" in competition:
        c.add("competition.yaml", "the v2 key is 'leaderboards' (a list), not 'leaderboard'")
        return []
    if not isinstance(boards, list) or not boards:
        c.add("competition.yaml", "'leaderboards' must be a list with at least one leaderboard")
        return []
    columns = []
    for i, board in enumerate(boards):
        cols = _check_leaderboard(c, board, "leaderboards[%d]" % i)
        if i == 0:
            columns = cols
    return columns


def _extract(c, path, dest):
    """Unpack a bundle entry (zip or folder) into ``dest``."""
    name = posixpath.normpath(path.strip())
    os.makedirs(dest)
    if c.exists(name) == "file":
        with zipfile.ZipFile(io.BytesIO(c.read(name))) as inner:
            inner.extractall(dest)
    else:
        prefix = name.rstrip("/") + "/"
        for entry in c.names:
            if entry.startswith(prefix):
                target = os.path.join(dest, *entry[len(prefix) :].split("/"))
                os.makedirs(os.path.dirname(target), exist_ok=True)
                with open(target, "wb") as handle:
                    handle.write(c.read(entry))
    return dest


def _first_task(tasks):
    """The first task defined in the bundle with a scoring program, or None."""
    for index in sorted(tasks, key=str):
        task = tasks[index]
        if isinstance(task, dict) and "key" not in task and "scoring_program" in task:
            return task
    return None


def _check_directions(c, tasks, columns, workdir, warnings=None, primary_index=0):
    """Each column against the keys the bundle's program writes for its own config.

    A column whose ``sorting`` contradicts its metric's direction would rank the worst
    submission first; a column whose key the program never writes stays empty.  Each is
    reported once.  Returns the set of column keys the program does not write.
    """
    task = _first_task(tasks)
    if task is None:
        return set()
    program = _extract(c, task["scoring_program"], os.path.join(workdir, "program"))
    reference = os.path.join(workdir, "reference")
    if "reference_data" in task:
        _extract(c, task["reference_data"], reference)
    else:
        os.makedirs(reference)
    try:
        config = load_config(program, reference)
        groups = read_gold(reference, config).group_values if config.groups is not None else None
    except ConfigError as exc:
        c.add("scoring program", "its configuration cannot be used: %s" % exc.message)
        return set()
    if warnings is not None:
        warnings.extend("scoring program: %s" % text for text in organizer_warnings(config))
    written = dict((col.key, col) for col in written_columns(config, groups))
    _check_primary(c, config, columns, written, primary_index)
    unwritten = set()
    for i, column in enumerate(columns):
        where = "leaderboards[0].columns[%d]" % i
        key, sorting = column["key"], column.get("sorting", "desc")
        meaning = written.get(key)
        if meaning is None:
            unwritten.add(key)
            c.add(
                where,
                "key %r is not one of the %d keys the scoring program writes for its config, so the "
                "column would stay empty (leaderboard-ci columns prints them)" % (key, len(written)),
            )
        elif meaning.part != "se" and sorting in SORTINGS and sorting != meaning.sorting:
            if meaning.part in ("score", "ci_low", "ci_high"):
                why = "for %s %s" % (meaning.metric.title, meaning.metric.better)
            elif meaning.part == "vs_base_p":
                why = "a smaller p-value is stronger evidence of beating the baseline"
            else:
                why = "the difference from the baseline is oriented so that positive is better"
            c.add(
                where,
                "key %r sorts %s (%s first) but %s, so the leaderboard would rank the worst submission "
                "first; use sorting: %s"
                % (key, sorting, "highest" if sorting == "desc" else "lowest", why, meaning.sorting),
            )
    return unwritten


def _check_primary(c, config, columns, written, primary_index):
    """The primary column must show the official metric (the config's first), as the end-of-phase report ranks."""
    official = config.metrics[0]
    for column in columns:
        if column.get("index") != primary_index:
            continue
        meaning = written.get(column["key"])
        if meaning is not None and meaning.part == "score" and meaning.metric.key == official.key:
            return
        target = [col.get("index") for col in columns if col["key"] == official.key]
        c.add(
            "leaderboards[0]",
            "the primary column (index %d, key %r) is not the official metric %r (the config's metric:, which the "
            "end-of-phase report ranks by), so the leaderboard and the report could name different winners; %s"
            % (
                primary_index,
                column["key"],
                official.key,
                "set primary_index: %d" % target[0]
                if target
                else "add a column with key %r and make it the primary one" % official.key,
            ),
        )
        return


def _scores_json(run):
    """The scores Codabench reads (scores.json), or a sentence saying why there are none usable."""
    if run.scores is None or isinstance(run.scores, dict):
        return run.scores
    return "scores.json is not a mapping"


def _check_scores(
    c, competition, tasks, columns, submissions, python, workdir, unwritten=(), read_scores=_scores_json, phases=None
):
    """Score the submissions with the bundle's program; every column key must be written.

    A problem that several submissions share is reported once, naming how many had it.
    """
    if submissions is None:
        submissions = sample_submissions()
    if not submissions:
        c.add(
            "scores",
            "no submission to score: cannot check that the program writes the column keys "
            "(give --submissions, or put zips in the competition's sample_submissions/)",
        )
        return
    missing = {}
    for phase_index, phase in enumerate(competition.get("phases") or [] if phases is None else phases):
        for t in phase.get("tasks") or []:
            task = tasks.get(t)
            if not isinstance(task, dict) or "key" in task or "scoring_program" not in task:
                continue
            base = os.path.join(workdir, "phase%d-task%s" % (phase_index, t))
            program = _extract(c, task["scoring_program"], os.path.join(base, "program"))
            reference = os.path.join(base, "reference")
            if "reference_data" in task:
                _extract(c, task["reference_data"], reference)
            else:
                os.makedirs(reference)
            for sub in submissions:
                label = "phase %r task %r, %s" % (phase.get("name"), t, os.path.basename(sub))
                run = score_one(sub, os.path.join(base, "run"), program=program, reference=reference, python=python)
                scores = read_scores(run) if run.returncode == 0 else None
                if run.returncode != 0 or scores is None:
                    lines = run.stderr.strip().splitlines()
                    c.add(
                        "scores",
                        "%s: the scoring program exited %d without scores: %s"
                        % (label, run.returncode, lines[-1][-500:] if lines else "(nothing on stderr)"),
                    )
                    continue
                if isinstance(scores, str):
                    c.add("scores", "%s: %s" % (label, scores))
                    continue
                for column in columns:
                    key = column["key"]
                    if key in unwritten:
                        continue  # reported once by the configuration check
                    if key not in scores:
                        missing.setdefault(key, []).append(os.path.basename(sub))
                        continue
                    value = scores[key]
                    ok = isinstance(value, (int, float)) and not isinstance(value, bool)
                    if not ok or not math.isfinite(value) or abs(value) >= MAX_ABS_SCORE:
                        c.add("scores", "%s: %s = %r is not a finite number below 1e10" % (label, key, value))
    for key, names in missing.items():
        c.add(
            "scores",
            "column key %r is not in %s of %d submission%s (%s)"
            % (
                key,
                "scores.json" if read_scores is _scores_json else "scores.txt",
                len(names),
                "" if len(names) == 1 else "s",
                ", ".join(names[:3]) + (" ..." if len(names) > 3 else ""),
            ),
        )


#: The checks the legacy CodaLab (v1.5) check shares with this one (see ``bundle_check_codalab.check_legacy``).
SHARED = namedtuple("SharedChecks", "check_text_file check_program_zip check_directions check_scores")(
    _check_text_file, _check_program_zip, _check_directions, _check_scores
)
