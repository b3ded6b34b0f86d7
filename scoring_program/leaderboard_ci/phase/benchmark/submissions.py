"""The submissions of a benchmark's tasks, and one Codabench multi-task bulk download feeding them all.

What Codabench does (read in codalab/codabench at c7dbc756, March 2026)
------------------------------------------------------------------------
* **A phase with several tasks** stores one *parent* submission and one *child*
  per task: ``src/apps/competitions/tasks.py`` lines 305-327 (``_run_submission``:
  ``if len(tasks) > 1`` the submission gets ``has_children = True`` and, for each
  task ordered by pk, a ``Submission(..., data=submission.data, parent=submission,
  task=task)``).  Every child points at the parent's ``data``: the same uploaded
  zip (``Submission.data``, ``parent`` and ``has_children`` in
  ``src/apps/competitions/models.py`` lines 453, 494-495; a re-run copies
  ``'data': self.data`` too, line 641).
* **What each task's scoring program sees.**  For a results submission (no
  ``metadata`` command) the worker copies the whole submission to the
  prediction output (``compute_worker/compute_worker.py`` line 859,
  ``shutil.copytree(program_dir, self.output_dir)``), writes a ``metadata``
  file there (line 1357) and gives that output to scoring as ``input/res``
  (line 1157).  So every task's scoring program reads the *same* files: the
  participant submits one zip with one file per task, and each task's program
  picks its own (here: ``files.predictions`` in the task's config, or
  ``file:`` in ``benchmark.yaml``).
* **The organizer's bulk download** (``download_many``,
  ``src/apps/api/views/submissions.py`` lines 409-459) returns, for each
  selected submission, ``{id}_{owner}_PhaseId{phase}_{date}_{file}`` (line
  453, date ``'%Y-%m-%d:%M-%S'``) and the URL of ``sub.data``: the participant's
  zip, with no task in the name and no metadata about tasks.  The browser
  zips them (``src/static/riot/competitions/detail/submission_manager.tag``
  line 657, ``:``, ``/`` and ``\\`` replaced by ``_``; ``failed.txt`` line 690;
  ``bulk_submissions.zip`` line 699).  The submissions table shows parents
  only (``filter_children``, lines 94 and 262-263, with the checkbox named by
  the parent's id, line 98), so a bulk download holds **one entry per
  participant submission, not one per task**.  Through the API an organizer can
  still ask for children's ids: each child is then its own entry named with
  its own id but otherwise the same name and the same bytes as its parent;
  such duplicates (and re-runs of the same file) are read once here.  The
  "results" and "predictions" choices give the same files (the code that
  would list scoring results, lines 461-471, follows a ``return``).

Hence the keys of ``benchmark.yaml``: a top-level ``submissions:`` shared by the
tasks that give none, ``file:`` per task (this task's prediction file in every
submission; a glob), and ``phase:`` per task (the Codabench phase id of the
submissions it reads, when one download holds several phases).

Only the standard library is used here; reading goes through
:mod:`.discovery` (safe unpacking, limits) and :mod:`.submissions`.
"""

from __future__ import annotations

import fnmatch
import hashlib
import os
import zipfile
from collections import OrderedDict
from dataclasses import replace

from ...scoring.errors import ConfigError
from ...scoring.text_files import list_names, quote
from ..ingestion.discovery import codabench_parts, discover, natural_key
from ..ingestion.names_map import apply_names_map, read_names_map
from ..ingestion.safe_unzip import UnzipLimits
from ..ingestion.submissions import read_entry

__all__ = ["SharedSubmissions", "task_systems", "find_task_file", "MISSING_FILE"]

#: Files the platform or an operating system adds, never a task's file.
_IGNORED = ("__MACOSX", "metadata", ".DS_Store")
#: How a skip reason for a submission without the task's file starts (the report lists it).
MISSING_FILE = "has no file matching"


def _ignored(name):
    return name in _IGNORED or name.startswith("._")


def _files(folder, prefix=""):
    """``(files, folders)`` of ``folder`` as relative names, without the platform's and OS's own files."""
    files, folders = [], []
    for name in sorted(os.listdir(folder), key=natural_key):
        full = os.path.join(folder, name)
        if _ignored(name) or os.path.islink(full):
            continue
        (folders if os.path.isdir(full) else files).append(prefix + name)
    return files, folders


def _look(res_dir, pattern):
    """``(hits, held)``: the files matching ``pattern`` and what the submission holds (see :func:`find_task_file`)."""

    def matches(rel):
        return fnmatch.fnmatchcase(rel if "/" in pattern else rel.rsplit("/", 1)[-1], pattern)

    files, folders = _files(res_dir) if os.path.isdir(res_dir) else ([], [])
    hits = [f for f in files if matches(f)]
    held = files + [d + "/" for d in folders]
    if not hits and len(folders) == 1:
        inner, deeper = _files(os.path.join(res_dir, folders[0]), folders[0] + "/")
        hits = [f for f in inner if matches(f)]
        if not files:
            held = inner + [d + "/" for d in deeper]
    return hits, held


def find_task_file(res_dir, pattern):
    """The one file of a submission matching ``pattern``: ``(relative name, None)`` or ``(None, reason)``.

    Looked for at the top of the submission, then, if nothing matches there,
    inside its only folder (a zip of a folder), as the scoring program does.
    ``pattern`` is an :func:`fnmatch.fnmatchcase` glob on the file name, or
    on the relative path when it holds a ``/``.  ``metadata``, ``__MACOSX/``
    and ``._*`` are never matched.
    """
    hits, held = _look(res_dir, pattern)
    if len(hits) == 1:
        return hits[0], None
    if not hits:
        return None, "%s %s (it holds %s)" % (MISSING_FILE, quote(pattern), list_names(held, 5) or "nothing")
    return None, "has %d files matching %s (%s); make file: match one" % (
        len(hits),
        quote(pattern),
        list_names(hits, 5),
    )


def _digest(folder):
    """SHA-256 of a folder's relative paths and bytes (to find the same submission file twice)."""
    h = hashlib.sha256()
    for base, dirs, names in os.walk(folder):
        dirs.sort()
        for name in sorted(names):
            path = os.path.join(base, name)
            h.update(os.path.relpath(path, folder).encode("utf-8", "surrogateescape") + b"\0")
            with open(path, "rb") as handle:
                for block in iter(lambda: handle.read(1 << 20), b""):
                    h.update(block)
            h.update(b"\0")
    return h.hexdigest()


def _same_file_twice(entries):
    """``(kept, skipped)``: Codabench entries that are one upload seen twice are kept once (the lowest id).

    Children of a multi-task submission and re-runs share their parent's
    ``data``: same owner, phase, date and file name, same bytes, another id.
    """
    groups = OrderedDict()
    for entry in entries:
        parts = codabench_parts(os.path.basename(entry.source)) if entry.layout == "codabench" else None
        file_name = parts["file"] if parts else None
        key = (entry.owner, entry.phase_id, entry.date, file_name) if file_name is not None else id(entry)
        groups.setdefault(key, []).append(entry)
    drop = {}
    for group in groups.values():
        if len(group) < 2:
            continue
        group = sorted(group, key=lambda e: int(e.submission_id) if (e.submission_id or "").isdigit() else 0)
        first_of = {}
        for entry in group:
            digest = _digest(entry.path)
            if digest in first_of:
                drop[id(entry)] = first_of[digest]
            else:
                first_of[digest] = entry.name
    kept = [e for e in entries if id(e) not in drop]
    skipped = [
        (
            e.name,
            "is the same submission file as %s (on Codabench a child submission of a multi-task "
            "phase, or a re-run, shares its parent's file); read once" % drop[id(e)],
        )
        for e in entries
        if id(e) in drop
    ]
    return kept, skipped


_MAX_LISTING = 4 << 20


def _phases_by_name(path):
    """``{"owner (id)": phase id}`` from the Codabench names in ``path`` (zip members or folder items, failed.txt).

    Lets a task with ``phase:`` leave out the skipped submissions of other
    phases (a corrupt zip's name still says its phase).  Only names are read.
    """
    names, failed = [], b""
    try:
        if os.path.isdir(path):
            names = os.listdir(path)
            if os.path.isfile(os.path.join(path, "failed.txt")):
                with open(os.path.join(path, "failed.txt"), "rb") as handle:
                    failed = handle.read(_MAX_LISTING)
        else:
            with zipfile.ZipFile(path) as archive:
                for info in archive.infolist():
                    names.append(info.filename.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1])
                    if names[-1].lower() == "failed.txt" and info.file_size <= _MAX_LISTING:
                        failed = archive.read(info)
    except (OSError, zipfile.BadZipFile, RuntimeError, NotImplementedError):
        return {}
    names += failed.decode("utf-8", "replace").splitlines()
    out = {}
    for name in names:
        parts = codabench_parts(name.strip())
        if parts:
            out["%s (%s)" % (parts["owner"], parts["id"])] = parts["phase"]
    return out


class SharedSubmissions(object):
    """Each submissions path of a benchmark discovered and unpacked once, whatever the number of tasks reading it.

    Parameters
    ----------
    workdir : str
        Where submissions are unpacked.
    names_map : str, optional
        The benchmark's ``names:`` CSV (``submission,name``), read once and
        applied to each task's submissions (one download may hold several
        phases, whose submissions the map gives the same names).
    limits : UnzipLimits
    """

    def __init__(self, workdir, names_map=None, limits=UnzipLimits()):
        self.workdir = workdir
        self.names_map = names_map
        self.names_rows = read_names_map(names_map) if names_map is not None else None
        self.limits = limits
        self._found = {}
        self._phases = {}

    def get(self, path):
        """``(entries, skipped)`` of ``path`` (see :func:`.discovery.discover`), without duplicates."""
        if path not in self._found:
            entries, skipped = discover(path, os.path.join(self.workdir, "%03d" % len(self._found)), self.limits)
            entries, same = _same_file_twice(entries)
            self._found[path] = (entries, skipped + same)
        entries, skipped = self._found[path]
        return list(entries), list(skipped)

    def phases(self, path):
        """``{"owner (id)": phase id}`` of the Codabench names in ``path``."""
        if path not in self._phases:
            self._phases[path] = _phases_by_name(path)
        return self._phases[path]


def task_systems(task, config, gold, shared, source="benchmark.yaml"):
    """The systems of one task read from (possibly shared) submissions, each by the task's own file.

    Parameters
    ----------
    task : TaskSpec
        With ``submissions``, and ``file`` (a glob) or None for the config's
        ``files.predictions``; ``phase`` keeps only that Codabench phase's
        submissions.
    config : Config
        The task's config.
    gold : GoldStandard
    shared : SharedSubmissions
    source : str
        The benchmark file's name, for messages.

    Returns
    -------
    coded : OrderedDict
        System name -> predictions aligned with the gold.
    skipped : list of (str, str)
        ``(submission, reason)``: the participant's message, a missing or
        ambiguous task file, or why unpacking refused the submission.

    Raises
    ------
    ConfigError
        With no file to look for, no submission of ``phase``, or no usable
        submission (one sentence naming the file and what was expected).
    """
    where = "%s: %s (%s)" % (source, task.key or "task", task.label)
    pattern = task.file or config.files.predictions
    entries, skipped = shared.get(task.submissions)
    if task.phase is not None:
        phases = sorted(set(e.phase_id for e in entries if e.phase_id is not None), key=natural_key)
        entries = [e for e in entries if e.phase_id == task.phase]
        phase_of = shared.phases(task.submissions)
        skipped = [(label, reason) for label, reason in skipped if phase_of.get(label, task.phase) == task.phase]
        if not entries:
            raise ConfigError(
                "%s: %s holds no submission of phase %s (the PhaseId in Codabench's names; found: %s)"
                % (where, os.path.basename(task.submissions), task.phase, ", ".join(phases) or "no Codabench names")
            )
    if shared.names_rows is not None:
        entries, _ = apply_names_map(
            entries, shared.names_rows, skipped, "the names map %s" % os.path.basename(shared.names_map)
        )
    coded, missing, own = OrderedDict(), 0, []
    for entry in entries:
        if pattern is None:  # the file the task's scoring program would pick (the only one, the one with its header)
            values, reason = read_entry(entry, config, gold)
        else:
            name, reason = find_task_file(entry.path, pattern)
            if reason is None:
                files = replace(config.files, predictions=name.rsplit("/", 1)[-1])
                values, reason = read_entry(entry, replace(config, files=files), gold)
            else:
                missing += reason.startswith(MISSING_FILE)
        if reason is None:
            coded[entry.name] = values
        else:
            skipped.append((entry.name, reason))
            own.append((entry.name, reason))
    if not coded:
        if pattern is None and task.shared:
            raise ConfigError(
                "%s reads the submissions %s, shared with other tasks, but names no file of its own "
                "and none could be read (%s: %s); give file: (this task's prediction file in each "
                "submission, e.g. %s_predictions.csv) or files.predictions in its config.yaml"
                % (
                    where,
                    os.path.basename(task.submissions),
                    own[0][0] if own else "-",
                    own[0][1] if own else "no submission",
                    task.name,
                )
            )
        if entries and missing == len(entries):
            raise ConfigError(
                "%s: no submission in %s has a file matching %s (expected this task's prediction "
                "file in each submission; %s holds %s)"
                % (
                    where,
                    os.path.basename(task.submissions),
                    quote(pattern),
                    entries[0].name,
                    list_names(_look(entries[0].path, pattern)[1]) or "nothing",
                )
            )
        first = own + [s for s in skipped if s not in own]  # this task's reasons before the download's
        shown = "; ".join("%s: %s" % s for s in first[:3])
        raise ConfigError(
            "%s: no submission in %s could be used: all %d were skipped (%s%s)"
            % (where, os.path.basename(task.submissions), len(skipped), shown, " ..." if len(skipped) > 3 else "")
        )
    return coded, skipped
