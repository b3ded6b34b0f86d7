"""Organizer tooling for the sample competition and Codabench bundles.

This is *not* on the per-submission path (that is ``scoring_program/``): it
builds and checks competition bundles, and runs sample submissions through
:func:`leaderboard_ci.tools.local_worker.run_scoring` the way the Codabench worker
would.  pandas / scikit-learn may be used here.

Main entry points
-----------------
* :func:`build_bundle` -- the uploadable zip, with deterministic bytes;
* :func:`check_bundle` -- a list of problems Codabench's unpacker, its
  serializers or the worker would hit (empty list = fine);
* :func:`score_one` -- one submission through the scoring program, in a fresh
  tree, as the platform runs it;
* :func:`write_zip` -- a zip whose bytes depend only on the files' contents.

The rules checked by :func:`check_bundle` were read from codalab/codabench:
``src/apps/competitions/tasks.py`` (``unpack_competition``),
``src/apps/competitions/unpackers/{v2,base_unpacker,utils}.py``,
``src/apps/api/serializers/{leaderboards,competitions,tasks}.py``,
``src/apps/leaderboards/models.py`` and ``compute_worker/compute_worker.py``.
"""

from __future__ import annotations

import io
import os
import posixpath
import zipfile
from collections import OrderedDict
from dataclasses import dataclass
from typing import Optional

import yaml

from ..scoring.limits import MAX_KEY_LENGTH, MAX_TITLE_LENGTH
from .codalab import is_legacy, legacy_referenced_paths
from .local_worker import run_scoring

#: The scoring program folder this package sits in, and the repository around it.
PROGRAM_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REPO = os.path.dirname(PROGRAM_DIR)
BUNDLE_DIR = os.path.join(REPO, "competition_bundle")
REFERENCE_DIR = os.path.join(BUNDLE_DIR, "reference_data")
SAMPLES_DIR = os.path.join(BUNDLE_DIR, "sample_submissions")


__all__ = [
    "REPO",
    "PROGRAM_DIR",
    "BUNDLE_DIR",
    "REFERENCE_DIR",
    "SAMPLES_DIR",
    "ZIP_DATE_TIME",
    "write_zip",
    "zip_folder_entries",
    "program_entries",
    "build_bundle",
    "bundle_entries",
    "sample_submissions",
    "score_one",
    "ScoredSubmission",
    "read_signature",
    "MAX_KEY_LENGTH",
    "MAX_TITLE_LENGTH",
]

#: Every zip entry gets this timestamp, so zips are byte-identical run to run.
ZIP_DATE_TIME = (1980, 1, 1, 0, 0, 0)
#: The file types a task of competition.yaml may name.
TASK_FILE_TYPES = ("ingestion_program", "input_data", "scoring_program", "reference_data")


#: Never shipped inside a program or data zip.
_SKIP_DIRS = {"__pycache__", ".pytest_cache", ".hypothesis", ".git", ".mypy_cache"}
_SKIP_SUFFIXES = (".pyc", ".pyo", ".egg-info")


# ---------------------------------------------------------------------------
# Deterministic zips
# ---------------------------------------------------------------------------
def write_zip(path_or_file, entries):
    """Write ``entries`` (archive name -> bytes) as a zip with stable bytes.

    Entries are sorted by name, every timestamp is :data:`ZIP_DATE_TIME`,
    permissions are 0644, compression is deflate at level 9.  Accepts a path
    or a binary file object; returns the bytes written when given a path.
    """

    def _write(handle):
        with zipfile.ZipFile(handle, "w") as archive:
            for name in sorted(entries):
                info = zipfile.ZipInfo(name, date_time=ZIP_DATE_TIME)
                info.compress_type = zipfile.ZIP_DEFLATED
                info.external_attr = 0o100644 << 16
                info.create_system = 3  # unix, so external_attr is read as mode bits
                archive.writestr(info, entries[name], compress_type=zipfile.ZIP_DEFLATED, compresslevel=9)

    if hasattr(path_or_file, "write"):
        _write(path_or_file)
        return None
    buffer = io.BytesIO()
    _write(buffer)
    data = buffer.getvalue()
    folder = os.path.dirname(os.path.abspath(path_or_file))
    if not os.path.isdir(folder):
        os.makedirs(folder)
    with open(path_or_file, "wb") as handle:
        handle.write(data)
    return data


def zip_bytes(entries):
    buffer = io.BytesIO()
    write_zip(buffer, entries)
    return buffer.getvalue()


def _skipped(name):
    return name in _SKIP_DIRS or name.endswith(_SKIP_SUFFIXES) or name == ".DS_Store"


def zip_folder_entries(folder, prefix=""):
    """The files under ``folder`` as {archive name: bytes}, caches and egg-info left out."""
    entries = {}
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not _skipped(d))
        for name in sorted(files):
            if _skipped(name):
                continue
            path = os.path.join(root, name)
            rel = os.path.relpath(path, folder).replace(os.sep, "/")
            with open(path, "rb") as handle:
                entries[prefix + rel] = handle.read()
    return entries


#: The subpackages the per-submission program imports; the drop-in carries only these
#: (the end-of-phase, report and tools subpackages need pandas, SciPy or matplotlib).
DROP_IN_PACKAGES = ("core", "tasks", "scoring")


def _in_drop_in(name):
    """Whether a program file belongs in ``scoring_program.zip``."""
    parts = name.split("/")
    if parts[0] != "leaderboard_ci" or len(parts) == 2:
        return True  # the program's own files, and the package's top-level modules
    return parts[1] in DROP_IN_PACKAGES


def program_entries(program_dir=PROGRAM_DIR):
    """The scoring program's files, ``metadata.yaml`` at the root (as the worker needs).

    Only the per-submission path of the package is included (:data:`DROP_IN_PACKAGES`).
    """
    entries = OrderedDict((name, data) for name, data in zip_folder_entries(program_dir).items() if _in_drop_in(name))
    if "metadata.yaml" not in entries and "metadata" not in entries:
        raise ValueError("%s has no metadata.yaml at its root; the worker would not find the command" % program_dir)
    return entries


# ---------------------------------------------------------------------------
# Building the bundle
# ---------------------------------------------------------------------------
def _load_yaml_bytes(data):
    return yaml.safe_load(data.decode("utf-8-sig"))


def referenced_paths(competition):
    """Every file path competition.yaml (v2, or CodaLab's v1.5) points at: (path, what) pairs."""
    if is_legacy(competition):
        return legacy_referenced_paths(competition)
    out = []
    for key in ("image", "terms"):
        if isinstance(competition.get(key), str):
            out.append((competition[key], key))
    for page in competition.get("pages") or []:
        if isinstance(page, dict) and isinstance(page.get("file"), str):
            out.append((page["file"], "page"))
    for task in competition.get("tasks") or []:
        if isinstance(task, dict) and "key" not in task:
            for file_type in TASK_FILE_TYPES:
                if isinstance(task.get(file_type), str):
                    out.append((task[file_type], file_type))
    for phase in competition.get("phases") or []:
        if isinstance(phase, dict):
            for key in ("public_data", "starting_kit"):
                if isinstance(phase.get(key), str):
                    out.append((phase[key], key))
    for solution in competition.get("solutions") or []:
        if isinstance(solution, dict) and isinstance(solution.get("path"), str):
            out.append((solution["path"], "solution"))
    return out


def bundle_entries(bundle_dir=BUNDLE_DIR, program_dir=PROGRAM_DIR):
    """{archive name: bytes} of the uploadable bundle.

    ``competition.yaml`` goes at the root.  Each path it references is taken
    from ``bundle_dir``; a ``NAME.zip`` that is not a file there is built from
    the folder ``NAME/`` (its contents at the zip's root, as Codabench's
    ``zip_if_directory`` would), except ``scoring_program.zip``, which is
    built from the bundle's own ``scoring_program/`` folder if it has one (as
    ``leaderboard-ci init`` writes), else from the repository's (one source of truth).
    """
    with open(os.path.join(bundle_dir, "competition.yaml"), "rb") as handle:
        yaml_bytes = handle.read()
    competition = _load_yaml_bytes(yaml_bytes)
    entries = {"competition.yaml": yaml_bytes}
    for path, what in referenced_paths(competition):
        name = posixpath.normpath(path.strip().rstrip("/"))
        if name in entries:
            continue
        source = os.path.join(bundle_dir, *name.split("/"))
        if what == "scoring_program" and name.endswith(".zip") and not os.path.isfile(source):
            # The competition's own scoring_program/ (leaderboard-ci init writes one), else the repository's.
            own = source[:-4]
            entries[name] = zip_bytes(program_entries(own if os.path.isdir(own) else program_dir))
        elif os.path.isfile(source):
            with open(source, "rb") as handle:
                entries[name] = handle.read()
        elif name.endswith(".zip") and os.path.isdir(source[:-4]):
            entries[name] = zip_bytes(zip_folder_entries(source[:-4]))
        elif os.path.isdir(source):
            entries.update(zip_folder_entries(source, prefix=name + "/"))
        else:
            raise FileNotFoundError("competition.yaml points at %s (%s), which is not in %s" % (path, what, bundle_dir))
    return entries


def build_bundle(out_path, bundle_dir=BUNDLE_DIR, program_dir=PROGRAM_DIR):
    """Write the uploadable bundle zip to ``out_path``; returns its archive names."""
    entries = bundle_entries(bundle_dir, program_dir)
    write_zip(out_path, entries)
    return sorted(entries)


# ---------------------------------------------------------------------------
# Scoring submissions as the worker does
# ---------------------------------------------------------------------------
@dataclass
class ScoredSubmission:
    name: str
    path: str
    returncode: int
    stdout: str
    stderr: str
    root: str
    scores: Optional[dict]
    scores_json_bytes: Optional[bytes]
    signature: Optional[str] = None

    @property
    def output_dir(self):
        return os.path.join(self.root, "output")

    @property
    def detailed_results(self):
        return os.path.join(self.output_dir, "detailed_results.html")


def read_signature(stdout):
    """The ``signature: ...`` line the scoring program prints, if any."""
    for line in stdout.splitlines():
        if line.startswith("signature:"):
            return line.split(":", 1)[1].strip()
    return None


def sample_submissions(folder=SAMPLES_DIR):
    """The sample submission zips, sorted by name."""
    if not os.path.isdir(folder):
        return []
    return [os.path.join(folder, n) for n in sorted(os.listdir(folder)) if n.endswith(".zip")]


def score_one(submission, root, program=PROGRAM_DIR, reference=REFERENCE_DIR, python=None, env=None, timeout=600):
    """Run one submission through the scoring program in a fresh tree at ``root``."""
    name = os.path.basename(submission)
    if name.endswith(".zip"):
        name = name[:-4]
    result = run_scoring(root, program, reference, submission, python=python, env=env, timeout=timeout)
    return ScoredSubmission(
        name,
        submission,
        result.returncode,
        result.stdout,
        result.stderr,
        result.root,
        result.scores,
        result.scores_json_bytes,
        read_signature(result.stdout),
    )


def format_table(headers, rows, align=None):
    """A plain-text table (monospace), right-aligned numbers by default."""
    rows = [[str(x) for x in row] for row in rows]
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(headers)]
    align = align or ["<"] + [">"] * (len(headers) - 1)

    def line(cells):
        return "  ".join(("{:%s%d}" % (a, w)).format(c) for c, a, w in zip(cells, align, widths)).rstrip()

    out = [line(headers), line(["-" * w for w in widths])]
    out.extend(line(r) for r in rows)
    return "\n".join(out)
