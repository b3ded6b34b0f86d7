"""Finding the submissions in the organizer's download of a phase, and unpacking them safely.

:func:`discover` turns ``--submissions PATH`` into one folder per submission
(a :class:`SubmissionEntry`), unpacking zips safely into a work folder;
:mod:`leaderboard_ci.phase.ingestion.submissions` then reads them.

Layouts of PATH
---------------
* **A folder.**  Each zip in it is one submission, each other data file is one
  submission (a file of predictions), each sub-folder is one submission (its
  files, read in place).
* **A Codabench bulk download** (``bulk_submissions.zip``, made in the
  browser by ``submission_manager.tag``).  A zip of the submissions' zips,
  each named ``{id}_{owner}_PhaseId{phase}_{date}_{file}`` where the date is
  ``strftime('%Y-%m-%d:%M-%S')`` (day, then *minutes* and seconds) and ``:``,
  ``/`` and ``\\`` are replaced by ``_`` (unzip tools and file systems also
  write ``-`` or keep ``:``; all three are read): e.g.
  ``123_alice_smith_PhaseId45_2024-05-01_13-22_submission.zip``.  Owners may
  contain underscores: the name is anchored on ``_PhaseId<digits>_<date>_``.
  A ``failed.txt`` ("The following submissions failed to download:" then one
  ``{name} ({error})`` per line) lists the submissions that are missing.
* **A legacy CodaLab download** ("Download all" of a leaderboard): members
  ``{user} - {n} submission.zip`` (with ``Team {team} `` for teams, hence a
  double space), next to ``{user} - {n} output.zip``, ``profile.txt``,
  ``method.txt``, ``team_names_and_members.txt`` and
  ``detailed_results.html``, which are ignored.  Accepted liberally: any
  spacing around the dash, ``_`` or ``-`` before ``submission.zip``, any
  letter case; and the single-file download name ``{user}-{n}-input.zip``.
* **A single submission zip**: a zip whose top level holds data files.

The same names are recognized in a folder (an unpacked bulk download).  A zip
given as PATH is a container of submissions when its top level (after one
folder wrapping everything) names Codabench or CodaLab submissions or holds a
Codabench ``failed.txt``, or holds only zips, or holds only folders (two or
more); otherwise it is one submission.

System names: a Codabench or legacy CodaLab submission is named by its
owner (``alice_smith``) when the owner has one submission in PATH; an owner's
several submissions are told apart by their file names (``alice_smith
(bert-large)``) when those differ, by the submission id (Codabench, ``alice_smith
(123)``) or number (CodaLab, ``alice (2)``) when they do not.  Other entries
are named by the file or folder name without its extension.  Equal names get
``#2``, ``#3``... in the natural order of the entries.  The submission id,
phase, date and file stay on the :class:`SubmissionEntry` (and in the end of
phase's ``submissions.csv``).

Safety
------
Everything is written inside ``workdir``, into numbered folders (``00001/res``)
whose names never come from the input, by :mod:`leaderboard_ci.phase.ingestion.safe_unzip`
(zip-slip, symbolic links, zip bombs and lying headers are refused there).
Nesting is bounded: a container holds submission zips, and a zip inside a
submission is written as a file, never opened.

Only the standard library and numpy are used.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from collections import OrderedDict
from dataclasses import dataclass, field, replace
from typing import Optional, Tuple

from ...scoring.errors import ConfigError
from .safe_unzip import (
    CORRUPT_ERRORS,
    ZIP_MAGIC,
    Allowance,
    MiB,
    Rejected,
    UnzipLimits,
    _shown,
    check_member,
    copy_counted,
    create_file,
    describe_error,
    entry_kind,
    extract_members,
    extract_zip_file,
    format_size,
    is_ignored,
    is_zip_file,
    open_zip,
    safe_parts,
    split_name,
)

__all__ = ["SubmissionEntry", "NamesMapWarning", "discover", "codabench_parts", "FAILED_REASON"]


#: The reason given for a submission listed in Codabench's ``failed.txt``.
FAILED_REASON = "download failed (failed.txt)"

#: An empty file marking a folder this module unpacked into (never read as a submission).
_MARKER = ".leaderboard-ci-unpacked"
_FAILED_TXT = "failed.txt"
_FAILED_HEADER = "the following submissions failed to download"
_MAX_FAILED_TXT = 4 * MiB

_CODABENCH = re.compile(
    r"^(?P<id>\d+)_(?P<owner>.+?)_PhaseId(?P<phase>\d+)_"
    r"(?P<date>\d{4}-\d{2}-\d{2}[-_: T]\d{2}[-_:]\d{2})_(?P<file>.*)$",
    re.I | re.S,
)
_CODABENCH_RESULT = re.compile(r"^res_\d+_.+_PhaseId\d+_", re.I | re.S)
_DASH = r"(?:\s+-\s*|\s*-\s+)"  # CodaLab writes " - "; any spacing, but some, is accepted
_CODALAB = re.compile(r"^(?P<owner>.*?\S)" + _DASH + r"(?P<number>\d+)[\s_]+submission\.zip$", re.I | re.S)
_CODALAB_SINGLE = re.compile(r"^(?P<owner>.+)-(?P<number>\d+)-input\.zip$", re.I | re.S)
_CODALAB_COMPANION = re.compile(
    r"^(.*\S" + _DASH + r"\d+[\s_]+(output\.zip|profile\.txt|method\.txt)"
    r"|.+-\d+-(output|private_output|prediction-output)\.zip"
    r"|.+-\d+-(stdout|stderr|predict_stdout|predict_stderr|ingestion_program_std(out|err)_file)\.txt"
    r"|(.+-\d+-)?detailed_results\.html|team_names_and_members\.txt)$",
    re.I | re.S,
)


# ---------------------------------------------------------------------------
# Public types
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class SubmissionEntry:
    """One submission found in PATH, unpacked and ready to read.

    Attributes
    ----------
    name : str
        The system name (unique), e.g. ``alice (123)``.
    owner : str
        The participant (user or team); the unit of ``per_participant``.
        For a plain file or folder, the system name itself.
    submission_id : str or None
        Codabench's submission id; legacy CodaLab's per-user submission number.
    phase_id : str or None
        Codabench's phase id.
    date : str or None
        As in the file name, e.g. ``2024-05-01_13-22`` (day, minutes-seconds).
    source : str
        The entry's name in the input (relative to PATH, or PATH's own name).
    path : str
        The folder holding the submission's files (its ``res/``).
    layout : str
        ``codabench``, ``codalab`` or ``plain``.
    notes : tuple of str
        What was left out while unpacking (symbolic links, special files).
    file : str or None
        The file the participant uploaded, as Codabench's bulk download names it.
    renamed : bool
        Whether ``name`` comes from the names map.
    """

    name: str
    owner: str
    submission_id: Optional[str]
    phase_id: Optional[str]
    date: Optional[str]
    source: str
    path: str
    layout: str = "plain"
    notes: Tuple[str, ...] = ()
    file: Optional[str] = None
    renamed: bool = False

    @property
    def default_name(self):
        """``owner (id)`` for a platform submission (a names-map key), else the name."""
        if self.layout == "plain" or self.submission_id is None:
            return self.name
        return "%s (%s)" % (self.owner, self.submission_id)


class NamesMapWarning(UserWarning):
    """A row of the names map that matches no submission."""


# ---------------------------------------------------------------------------
# Names
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class _Identity:
    layout: str
    owner: str
    submission_id: Optional[str] = None
    phase_id: Optional[str] = None
    date: Optional[str] = None
    file: Optional[str] = None

    @property
    def default_name(self):
        """``owner (id)``: the name that tells every submission apart (messages, names-map keys)."""
        if self.submission_id is None:
            return self.owner
        return "%s (%s)" % (self.owner, self.submission_id)

    @property
    def file_label(self):
        """The submission's file name without ``.zip`` (Codabench), or None."""
        if not self.file:
            return None
        stem = self.file[:-4] if self.file.lower().endswith(".zip") else self.file
        return stem.strip() or None


def _identify(basename, is_dir=False):
    """Who submitted ``basename`` (a bulk member or file name), from its name alone."""
    match = _CODABENCH.match(basename)
    if match:
        return _Identity(
            "codabench",
            match.group("owner"),
            match.group("id"),
            match.group("phase"),
            match.group("date"),
            match.group("file"),
        )
    match = _CODALAB.match(basename) or _CODALAB_SINGLE.match(basename)
    if match:
        return _Identity("codalab", match.group("owner").strip(), str(int(match.group("number"))))
    stem = basename if is_dir else os.path.splitext(basename)[0]
    return _Identity("plain", stem.strip() or basename)


def codabench_parts(basename):
    """``{"id", "owner", "phase", "date", "file"}`` of a Codabench bulk member's name, or None.

    Children of a multi-task submission and re-runs share their parent's file:
    their names differ only in the id.
    """
    match = _CODABENCH.match(basename)
    return match.groupdict() if match else None


def natural_key(text):
    """Sort key putting ``2_x`` before ``10_x``."""
    parts = re.split(r"(\d+)", text)
    return [(0, int(p), "") if p.isdigit() else (1, 0, p.casefold()) for p in parts], text


def _unique(name, used):
    """``name``, or ``name #2``, ``name #3``... whichever is not in ``used`` (which it joins)."""
    candidate, k = name, 1
    while candidate in used:
        k += 1
        candidate = "%s #%d" % (name, k)
    used.add(candidate)
    return candidate


# ---------------------------------------------------------------------------
# Candidates: the submissions PATH holds, before unpacking
# ---------------------------------------------------------------------------
@dataclass
class _Candidate:
    """One submission to unpack.

    ``kind`` and ``origin``: ``disk-zip``/``disk-file``/``disk-dir`` with a
    path; ``member-zip``/``member-file`` with a ZipInfo; ``member-dir`` with a
    list of ZipInfo (``strip`` leading components removed).
    """

    source: str
    kind: str
    origin: object
    identity: _Identity
    strip: int = 0
    name: str = ""


@dataclass
class _Found:
    """What a container or folder holds."""

    candidates: list = field(default_factory=list)
    failed: list = field(default_factory=list)  # entry names listed in failed.txt
    skipped: list = field(default_factory=list)  # (label, reason)


def _parse_failed(text):
    """Entry names listed in Codabench's ``failed.txt``, as the bulk zip would have named them."""
    names = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.lower().startswith(_FAILED_HEADER):
            continue
        if line.endswith(")") and " (" in line:
            line = line[: line.rindex(" (")]
        names.append(re.sub(r"[:/\\]", "_", line))
    return names


def _failed_text(data):
    """The text of a would-be ``failed.txt`` if it is Codabench's, else None."""
    text = data.decode("utf-8", "replace")
    return text if text.lstrip().lower().startswith(_FAILED_HEADER) else None


def _not_a_submission(basename, found):
    """True for companions of a legacy download (and Codabench result zips, which are skipped)."""
    if _CODALAB_COMPANION.match(basename):
        return True
    if _CODABENCH_RESULT.match(basename):
        found.skipped.append((basename, "a Codabench scoring result (res_...), not a submission"))
        return True
    return False


def _folder_candidates(path, root):
    """The submissions of a folder (one per zip, data file or sub-folder), never ``root`` or what holds it."""
    found = _Found()
    try:
        names = sorted(os.listdir(path), key=natural_key)
    except OSError as exc:
        raise ConfigError("the submissions folder %s cannot be listed (%s)" % (path, describe_error(exc)))
    avoid = os.path.realpath(root)
    for name in names:
        full = os.path.join(path, name)
        real = os.path.realpath(full)
        if is_ignored([name]) or real == avoid or avoid.startswith(real + os.sep):
            continue  # never read this run's own output (or a folder holding it) as a submission
        try:
            _folder_item(name, full, found)
        except OSError as exc:
            found.skipped.append((name, "cannot be read (%s)" % describe_error(exc)))
    return found


def _folder_item(name, full, found):
    """Add what the folder item ``name`` is to ``found``."""
    if os.path.islink(full):
        found.skipped.append((name, "is a symbolic link; put the file itself in the folder"))
    elif os.path.isdir(full):
        if os.path.exists(os.path.join(full, _MARKER)):
            return  # an earlier run's output, when workdir is PATH
        found.candidates.append(_Candidate(name, "disk-dir", full, _identify(name, is_dir=True)))
    elif not os.path.isfile(full):
        found.skipped.append((name, "is not a regular file"))
    elif not _not_a_submission(name, found):
        failed = _read_failed_file(full) if name.lower() == _FAILED_TXT else None
        if failed is not None:
            found.failed.extend(_parse_failed(failed))
        else:
            kind = "disk-zip" if is_zip_file(full) else "disk-file"
            found.candidates.append(_Candidate(name, kind, full, _identify(name)))


def _read_failed_file(path):
    """The text of Codabench's ``failed.txt`` at ``path``, or None if it is some other file."""
    with open(path, "rb") as handle:
        return _failed_text(handle.read(_MAX_FAILED_TXT))


def _read_member_head(archive, info, size):
    """The first ``size`` bytes of a member (b"" if it cannot be read)."""
    try:
        with archive.open(info) as handle:
            return handle.read(size)
    except Exception:  # a corrupt member is reported when it is unpacked
        return b""


def _top_level(infos):
    """``(strip, files, folders, unsafe)`` of a zip's top level, below one folder that wraps everything.

    ``files``: name -> ZipInfo; ``folders``: name -> list of ZipInfo;
    ``unsafe``: ``(ZipInfo, reason)`` of members whose names could escape.
    """
    listed, unsafe = [], []
    for info in infos:
        try:
            parts = safe_parts(info.filename)
        except Rejected as exc:
            parts = split_name(info.filename)
            if _unsafe_in_folder(info.filename, parts):
                listed.append((info, parts))  # it makes its folder's submission refused when unpacked
            else:
                unsafe.append((info, str(exc)))
            continue
        if parts and not is_ignored(parts):
            listed.append((info, parts))
    strip = 0
    tops = set(parts[0] for _, parts in listed)
    if len(tops) == 1 and all(len(parts) > 1 or entry_kind(info) == "dir" for info, parts in listed):
        strip = 1
    files, folders = OrderedDict(), OrderedDict()
    for info, parts in listed:
        parts = parts[strip:]
        if not parts:
            continue
        if parts[0] == "..":  # "wrapper/../x": outside the wrapping folder
            unsafe.append((info, str(_reason_for_name(info.filename))))
        elif len(parts) == 1 and entry_kind(info) != "dir":
            files[parts[0]] = info
        else:
            folders.setdefault(parts[0], []).append(info)
    return strip, files, folders, unsafe


def _unsafe_in_folder(name, parts):
    """Whether an unsafe member name still starts with a plain folder (``team/../x``)."""
    return (
        len(parts) > 1
        and not name.replace("\\", "/").startswith("/")
        and parts[0] != ".."
        and not re.match(r"^[A-Za-z]:", parts[0])
    )


def _reason_for_name(name):
    """The :class:`Rejected` that :func:`safe_parts` gives for ``name``."""
    try:
        safe_parts(name)
    except Rejected as exc:
        return exc
    return Rejected("the zip member %s is not safe" % _shown(name))


def _is_container(archive, files, folders):
    """Whether a zip holds several submissions (see the module docstring)."""
    for name, info in files.items():
        if _identify(name).layout != "plain" or _CODABENCH_RESULT.match(name):
            return True
        if name.lower() == _FAILED_TXT and _failed_text(_read_member_head(archive, info, 256)) is not None:
            return True
    if files:
        return not folders and all(name.lower().endswith(".zip") or _CODALAB_COMPANION.match(name) for name in files)
    return len(folders) >= 2


def _container_candidates(archive, strip, files, folders, unsafe):
    """The submissions of a bulk zip: one per zip member, data member or folder."""
    found = _Found()
    for info, reason in unsafe:
        label = _identify(split_name(info.filename)[-1] if split_name(info.filename) else info.filename).default_name
        found.skipped.append((label, reason))
    for name in sorted(files, key=natural_key):
        info = files[name]
        if _not_a_submission(name, found):
            continue
        if name.lower() == _FAILED_TXT:
            text = _failed_text(_read_member_head(archive, info, _MAX_FAILED_TXT))
            if text is not None:
                found.failed.extend(_parse_failed(text))
                continue
        identity = _identify(name)
        is_zip = (
            name.lower().endswith(".zip")
            or identity.layout == "codabench"
            or _read_member_head(archive, info, 4) in ZIP_MAGIC
        )
        found.candidates.append(
            _Candidate(info.filename, "member-zip" if is_zip else "member-file", info, identity, strip)
        )
    for name in sorted(folders, key=natural_key):
        source = "/".join(split_name(folders[name][0].filename)[: strip + 1])
        found.candidates.append(
            _Candidate(source, "member-dir", folders[name], _identify(name, is_dir=True), strip + 1)
        )
    return found


# ---------------------------------------------------------------------------
# Unpacking
# ---------------------------------------------------------------------------
class _Unpacker(object):
    """Unpacks candidates into numbered folders of ``root``, within the run's limits."""

    def __init__(self, root, limits, archive=None):
        self.root = root
        self.limits = limits
        self.archive = archive
        self.total_left = limits.max_total_bytes
        self.count = 0

    def allowance(self):
        """The bytes the next submission may use: its own limit or what is left of the run's."""
        if self.total_left < self.limits.max_submission_bytes:
            return Allowance(
                self.total_left,
                "what is left of the run's limit of %s (UnzipLimits.max_total_bytes)"
                % format_size(self.limits.max_total_bytes),
            )
        return Allowance(
            self.limits.max_submission_bytes,
            "the limit of %s per submission" % format_size(self.limits.max_submission_bytes),
        )

    def unpack(self, candidate):
        """The folder of the candidate's files, and notes; or :class:`Rejected` (nothing is left behind)."""
        if candidate.kind == "disk-dir":
            return candidate.origin, []
        self.count += 1
        slot = os.path.join(self.root, "%05d" % self.count)
        os.makedirs(slot)
        res = os.path.join(slot, "res")
        try:
            written, notes = self._unpack(candidate, slot, res)
        except BaseException:
            shutil.rmtree(slot, ignore_errors=True)
            raise
        self.total_left -= written
        return res, notes

    def _unpack(self, candidate, slot, res):
        kind, origin = candidate.kind, candidate.origin
        if kind == "disk-zip":
            return extract_zip_file(origin, res, self.limits, self.allowance())
        if kind == "disk-file":
            return self._copy_file(origin, res), []
        if kind == "member-dir":
            return extract_members(self.archive, origin, res, self.limits, self.allowance(), candidate.strip)
        if kind == "member-file":
            return self._copy_member(origin, res), []
        return self._unpack_member_zip(origin, slot, res)

    def _copy_file(self, path, res):
        os.makedirs(res)
        allowance = self.allowance()
        size = os.stat(path).st_size
        if size > allowance.limit:
            raise allowance.refuse("the file is %s, more than" % format_size(size))
        with open(path, "rb") as source, create_file(os.path.join(res, os.path.basename(path))) as target:
            return copy_counted(source, target, size, allowance, _shown(os.path.basename(path)))

    def _copy_member(self, info, res):
        parts = safe_parts(info.filename)
        check_member(info, self.limits, _shown(info.filename))
        allowance = self.allowance()
        if info.file_size > allowance.limit:
            raise allowance.refuse("the file is %s, more than" % format_size(info.file_size))
        os.makedirs(res)
        with self.archive.open(info) as source, create_file(os.path.join(res, parts[-1])) as target:
            return copy_counted(source, target, info.file_size, allowance, _shown(info.filename))

    def _unpack_member_zip(self, info, slot, res):
        """A submission zip inside the bulk zip: copied out (bounded), then extracted, then removed."""
        safe_parts(info.filename)
        check_member(info, self.limits, _shown(info.filename))
        limit = self.limits.max_submission_bytes
        if info.file_size > limit:
            raise Rejected(
                "the submission zip is %s, more than the limit of %s per submission"
                % (format_size(info.file_size), format_size(limit))
            )
        temporary = os.path.join(slot, "submission.zip")
        with self.archive.open(info) as source, create_file(temporary) as target:
            copy_counted(
                source,
                target,
                info.file_size,
                Allowance(limit, "the limit of %s per submission" % format_size(limit)),
                _shown(info.filename),
            )
        try:
            return extract_zip_file(temporary, res, self.limits, self.allowance())
        finally:
            os.remove(temporary)


def _reason(exc):
    """The skip reason for an exception raised while unpacking a submission."""
    if isinstance(exc, Rejected):
        return str(exc)
    if isinstance(exc, CORRUPT_ERRORS):
        return "is not a valid zip file (corrupt or truncated: %s)" % describe_error(exc)
    if isinstance(exc, RuntimeError) and "encrypted" in str(exc):
        return "holds an encrypted (password-protected) member, which cannot be read"
    if isinstance(exc, NotImplementedError) and "compression" in str(exc):
        return "holds a member compressed with a method that cannot be read (only stored, deflate, bzip2 and LZMA)"
    if isinstance(exc, (NotImplementedError, RuntimeError)):
        return "uses a zip feature that cannot be read (%s)" % describe_error(exc)
    if isinstance(exc, OSError):
        return "could not be extracted (%s)" % describe_error(exc)
    return "could not be extracted: %s" % type(exc).__name__


def _name_candidates(candidates):
    """Give every candidate a unique system name, in order (plain entries own themselves).

    A platform submission is named by its owner; an owner with several is
    told apart by file name when the names differ, else by submission id.
    """
    by_owner = OrderedDict()
    for candidate in candidates:
        if candidate.identity.layout != "plain":
            by_owner.setdefault(candidate.identity.owner, []).append(candidate.identity)
    used = set()
    for candidate in candidates:
        candidate.name = _unique(_base_name(candidate.identity, by_owner), used)
        if candidate.identity.layout == "plain":
            candidate.identity = replace(candidate.identity, owner=candidate.name)


def _base_name(identity, by_owner):
    if identity.layout == "plain":
        return identity.owner
    runs = by_owner[identity.owner]
    if len(runs) == 1:
        return identity.owner
    labels = [run.file_label for run in runs]
    if None not in labels and len(set(label.casefold() for label in labels)) == len(labels):
        return "%s (%s)" % (identity.owner, identity.file_label)
    return identity.default_name


def _entry(candidate, path, notes):
    ident = candidate.identity
    return SubmissionEntry(
        name=candidate.name,
        owner=ident.owner,
        submission_id=ident.submission_id,
        phase_id=ident.phase_id,
        date=ident.date,
        file=ident.file,
        source=candidate.source,
        path=path,
        layout=ident.layout,
        notes=tuple(notes),
    )


def _unpack_all(found, unpacker):
    """Entries and skipped ``(label, reason)`` for every candidate and failed download."""
    _name_candidates(found.candidates)
    entries, skipped = [], list(found.skipped)
    for candidate in found.candidates:
        try:
            path, notes = unpacker.unpack(candidate)
        except Exception as exc:  # a submission's problem never stops the run
            skipped.append((candidate.name, _reason(exc)))
            continue
        entries.append(_entry(candidate, path, notes))
    for name in found.failed:
        skipped.append((_identify(name).default_name, FAILED_REASON))
    return entries, skipped


def _discover_zip(path, root, limits):
    try:
        archive = open_zip(path, limits)
    except Rejected as exc:
        raise ConfigError(
            "the submissions file %s %s; download it again" % (path, exc)
            if str(exc).startswith("is not")
            else "the submissions file %s: %s" % (path, exc)
        )
    with archive:
        strip, files, folders, unsafe = _top_level(archive.infolist())
        if _is_container(archive, files, folders):
            found = _container_candidates(archive, strip, files, folders, unsafe)
        else:
            base = os.path.basename(path)
            found = _Found(candidates=[_Candidate(base, "disk-zip", path, _identify(base))])
        return _unpack_all(found, _Unpacker(root, limits, archive))


def discover(path, workdir, limits=UnzipLimits()):
    """Find and unpack the submissions in ``path``.

    Parameters
    ----------
    path : str
        A folder, a Codabench ``bulk_submissions.zip``, a legacy CodaLab
        download-all zip, or one submission zip (see the module docstring).
    workdir : str
        Where to unpack (created if missing); nothing is written elsewhere.
        Submissions go to a new folder inside it.
    limits : UnzipLimits

    Returns
    -------
    entries : list of SubmissionEntry
        In the natural order of their names in ``path``.
    skipped : list of (str, str)
        ``(submission, reason)`` for every submission that could not be
        unpacked or was listed in ``failed.txt``.

    Raises
    ------
    ConfigError
        If ``path`` does not exist, is neither a folder nor a zip, is a
        corrupt zip, or holds nothing that looks like a submission.
    """
    if not os.path.exists(path):
        raise ConfigError("the submissions path %s does not exist" % path)
    is_dir = os.path.isdir(path)
    if not is_dir and not (os.path.isfile(path) and is_zip_file(path)):
        raise ConfigError("the submissions path %s is neither a folder nor a zip file" % path)
    os.makedirs(workdir, exist_ok=True)
    root = tempfile.mkdtemp(prefix="submissions-", dir=workdir)
    open(os.path.join(root, _MARKER), "wb").close()
    if is_dir:
        entries, skipped = _unpack_all(_folder_candidates(path, root), _Unpacker(root, limits))
    else:
        entries, skipped = _discover_zip(path, root, limits)
    if not entries and not skipped:
        raise ConfigError(
            "the submissions path %s holds no submission (expected zips, prediction files "
            "or folders, or a Codabench/CodaLab download)" % path
        )
    return entries, skipped
