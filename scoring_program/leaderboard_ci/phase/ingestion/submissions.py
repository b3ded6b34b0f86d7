"""From the organizer's download of a phase to the systems to analyse.

:func:`~leaderboard_ci.phase.ingestion.discovery.discover` turns ``--submissions PATH``
into one folder per submission; :func:`load_systems` then reads every
submission exactly as the scoring program did
(:func:`~leaderboard_ci.scoring.readers.read_submission`), so a submission that
failed on the leaderboard is skipped with the very message its participant
saw, renames systems with the names map and keeps all, the best or the last
run of each participant, or the runs the names map lists.
"""

from __future__ import annotations

import os
import warnings
from collections import OrderedDict
from dataclasses import replace

from ...scoring import readers
from ...scoring.custom import custom_functions
from ...scoring.errors import ConfigError, SubmissionError
from ...tasks.shared.scorer import SystemScorer
from .discovery import FAILED_REASON, NamesMapWarning, SubmissionEntry, discover, natural_key
from .names_map import apply_names_map, read_names_map
from .safe_unzip import UnzipLimits, safe_extract

__all__ = [
    "read_entry",
    "find_submissions",
    "select_entries",
    "SubmissionEntry",
    "UnzipLimits",
    "NamesMapWarning",
    "discover",
    "load_systems",
    "safe_extract",
    "read_names_map",
    "apply_names_map",
    "PER_PARTICIPANT",
    "FAILED_REASON",
    "names_after_selection",
    "submissions_table",
    "INVENTORY_COLUMNS",
]

#: The choices of ``per_participant``.
PER_PARTICIPANT = ("all", "best", "last", "listed")

#: ``per_participant`` choices that keep one run per participant.
_ONE_PER_OWNER = ("best", "last")

_SYMLINK_NOTE = "ignored the symbolic link "

#: The columns of :func:`submissions_table` (``submissions.csv``).
INVENTORY_COLUMNS = ("system", "owner", "submission_id", "phase_id", "date", "file", "source", "status")


def read_entry(entry, config, gold):
    """``(values, None)``, or ``(None, reason)`` with the participant's message."""
    try:
        return readers.read_submission(entry.path, config, gold), None
    except SubmissionError as exc:
        links = [note[len(_SYMLINK_NOTE) :] for note in entry.notes if note.startswith(_SYMLINK_NOTE)]
        if links and exc.message.startswith("the submission is empty"):
            return None, (
                "the zip holds no prediction file, only the symbolic link %s, which is never followed; "
                "put the file itself in the zip" % ", ".join(links[:3])
            )
        return None, exc.message
    except Exception as exc:  # a bug or an odd file must not stop the analysis of the others
        return None, "could not be read: %s" % type(exc).__name__


def _official_score(config, gold, values):
    """The official metric on all items (the leaderboard's score)."""
    scorer = SystemScorer(config.metrics, gold, values, custom=custom_functions(config))
    stats = [accumulator.full()[None, :] for accumulator in scorer.accumulators]
    return float(scorer.scores(stats)[0, 0])


def _recency(entry):
    """Sort key of submissions from oldest to newest.

    Codabench's date has no hour (``%Y-%m-%d:%M-%S``), so only its day is
    used, then the submission id, which Codabench and CodaLab increase.
    """
    day = (entry.date or "")[:10]
    number = int(entry.submission_id) if entry.submission_id and entry.submission_id.isdigit() else -1
    return day, number, natural_key(entry.source)


def _official_or_nan(config, gold):
    def score(values):
        try:
            return _official_score(config, gold, values)
        except Exception:  # e.g. a custom metric that fails: the run ranks last
            return float("nan")

    return score


def select_entries(readable, per_participant, sign, score_of):
    """The ``(entry, x)`` kept: all, or one per owner (best or last); order is kept.

    ``score_of(x)`` is the run's official full-sample score (for ``best``);
    ``sign`` the official metric's direction.
    """
    if per_participant not in _ONE_PER_OWNER:
        return readable
    by_owner = OrderedDict()
    for item in readable:
        by_owner.setdefault(item[0].owner, []).append(item)
    if per_participant == "best":

        def key(item):
            score = score_of(item[1])
            return (score == score, sign * score if score == score else 0.0, _recency(item[0]))
    else:

        def key(item):
            return _recency(item[0])

    chosen = set(id(max(items, key=key)) if len(items) > 1 else id(items[0]) for items in by_owner.values())
    return [item for item in readable if id(item) in chosen]


def names_after_selection(entries, per_participant):
    """``{name at discovery: system name}`` once one run per participant is kept.

    With ``best`` or ``last`` each participant keeps one run, which is then
    named by its owner alone (``alice`` rather than ``alice (bert-large)``),
    unless that name is taken by a plain entry or a names-map name.  Whichever
    run is kept, its name is the same, so the map is known before scoring.
    Names not in the map stay as they are.
    """
    if per_participant not in _ONE_PER_OWNER:
        return {}
    fixed = [e for e in entries if e.renamed or e.layout == "plain"]
    taken = set(e.name for e in fixed)
    owners = OrderedDict()
    for entry in entries:
        if not (entry.renamed or entry.layout == "plain"):
            owners.setdefault(entry.owner, []).append(entry)
    out = {}
    for owner, runs in owners.items():
        if owner in taken:
            continue
        taken.add(owner)
        for entry in runs:
            out[entry.name] = owner
    return out


def submissions_table(entries, skipped, analysed, renames, per_participant):
    """One row per submission found: its system name, owner, ids, file and what became of it.

    ``analysed`` holds the names at discovery of the submissions analysed;
    ``renames`` maps them to their system names (:func:`names_after_selection`).
    Returns a list of dicts with the columns ``system, owner, submission_id,
    phase_id, date, file, source, status``.
    """
    reasons = dict(skipped)
    rows = []
    for entry in entries:
        name = renames.get(entry.name, entry.name)
        if entry.name in analysed:
            status = "analysed"
        elif entry.name in reasons:
            status = "skipped: %s" % reasons[entry.name]
        else:
            status = "not selected (per participant: %s)" % per_participant
        rows.append(
            OrderedDict(
                [
                    ("system", name if status == "analysed" else ""),
                    ("owner", entry.owner),
                    ("submission_id", entry.submission_id or ""),
                    ("phase_id", entry.phase_id or ""),
                    ("date", entry.date or ""),
                    ("file", entry.file or ""),
                    ("source", entry.source),
                    ("status", status),
                ]
            )
        )
    return rows


def no_systems(path, skipped):
    shown = "; ".join("%s: %s" % (label, reason) for label, reason in skipped[:3])
    more = " ..." if len(skipped) > 3 else ""
    return ConfigError(
        "no submission in %s could be used: all %d were skipped (%s%s)" % (path, len(skipped), shown, more)
    )


def find_submissions(path, workdir, names_map=None, per_participant="all", limits=UnzipLimits(), warnings_list=None):
    """Discover and unpack the submissions and apply the names map, without reading them.

    Returns ``(entries, skipped)``; see :func:`load_systems` for the parameters.  The
    end of phase in blocks reads each entry where its block is scored.
    """
    if per_participant not in PER_PARTICIPANT:
        raise ConfigError("per_participant must be one of: %s, got %r" % (", ".join(PER_PARTICIPANT), per_participant))
    if per_participant == "listed" and names_map is None:
        raise ConfigError(
            "per_participant 'listed' keeps the submissions the names map lists: give the names map "
            "(--names map.csv, one row submission,name per submission to keep)"
        )
    rows = read_names_map(names_map) if names_map is not None else None
    entries, skipped = discover(path, workdir, limits)
    if rows is not None:
        entries, notes = apply_names_map(entries, rows, skipped, "the names map %s" % os.path.basename(names_map))
        for note in notes:
            if warnings_list is not None:
                warnings_list.append(note)
            else:
                warnings.warn(note, NamesMapWarning, stacklevel=2)
    if per_participant == "listed":
        entries = [entry for entry in entries if entry.renamed]
        if not entries:
            raise ConfigError("the names map %s lists none of the submissions found" % os.path.basename(names_map))
    return entries, skipped


def load_systems(
    path,
    config,
    gold,
    workdir,
    names_map=None,
    per_participant="all",
    limits=UnzipLimits(),
    warnings_list=None,
    inventory=None,
):
    """Discover, unpack and read every submission: the systems of the end-of-phase analysis.

    Parameters
    ----------
    path : str
        See :func:`discover`.
    config : Config
    gold : GoldStandard
    workdir : str
        Where submissions are unpacked (see :func:`discover`).
    names_map : str, optional
        A CSV ``submission,name`` renaming systems; ``submission`` is an
        entry's name in the input, a submission id, or a default name.
    per_participant : {"all", "best", "last", "listed"}
        Every readable run (default); or per owner the run with the best
        official full-sample score (ties: the latest), or the latest run (by
        day, then submission id), each then named by its owner; or the runs
        the names map lists (``names_map`` required).
    limits : UnzipLimits
    warnings_list : list, optional
        Receives the organizer-facing warnings (names-map keys that match
        nothing); without it they are issued as :class:`NamesMapWarning`.
    inventory : list, optional
        Receives every submission found, as :func:`submissions_table` rows.

    Returns
    -------
    coded : OrderedDict
        System name -> predictions aligned with the gold items.
    skipped : list of (str, str)
        ``(submission, reason)``: the reason is the message the participant
        saw on the leaderboard, or why unpacking refused the submission.
    entries : list of SubmissionEntry
        The entries of ``coded``, in the same order, with their final names.

    Raises
    ------
    ConfigError
        For a bad ``path``, names map or ``per_participant``, or when no
        submission can be used.
    """
    entries, skipped = find_submissions(path, workdir, names_map, per_participant, limits, warnings_list)
    readable = []
    for entry in entries:
        values, reason = read_entry(entry, config, gold)
        if reason is None:
            readable.append((entry, values))
        else:
            skipped.append((entry.name, reason))
    if not readable:
        raise no_systems(path, skipped)
    chosen = select_entries(readable, per_participant, config.official.sign, _official_or_nan(config, gold))
    renames = names_after_selection(entries, per_participant)
    if inventory is not None:
        kept = set(entry.name for entry, _ in chosen)
        inventory.extend(submissions_table(entries, skipped, kept, renames, per_participant))
    chosen = [(replace(entry, name=renames.get(entry.name, entry.name)), values) for entry, values in chosen]
    coded = OrderedDict((entry.name, values) for entry, values in chosen)
    return coded, skipped, [entry for entry, _ in chosen]
