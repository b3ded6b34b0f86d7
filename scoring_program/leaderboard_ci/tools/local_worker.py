"""Run a scoring program on this machine exactly as Codabench's worker does.

Mirrors ``compute_worker/compute_worker.py`` of codalab/codabench:

* a fresh tree ``program/``, ``input/ref/``, ``input/res/``, ``output/``,
  ``shared/`` (in the container: ``/app/program``, ``/app/input/ref``, ...);
* the submission zip unpacked into ``input/res/`` plus the ``metadata`` file
  the worker adds there (unpacked safely: a member whose name leaves the
  folder, a zip bomb, an encrypted member or an unknown compression method
  stops the run with :class:`UnpackError`, one sentence; dotfiles and
  ``__MACOSX/`` are kept, as the worker keeps them);
* the command from the program's ``metadata.yaml`` (``command:``), with
  ``$input $output $program $hidden $shared`` replaced by those folders,
  split with :func:`shlex.split` and run without a shell, with the program
  folder as working directory;
* ``output/scores.json`` read back (else ``scores.txt`` as YAML), and the run
  failed if the program wrote ``output/metadata``.

``python3`` at the head of the command is replaced by the interpreter asked
for, which is how the tests reproduce the stock ``codalab-legacy`` images.
Only the standard library and PyYAML are used.
"""

from __future__ import annotations

import io
import json
import os
import shlex
import shutil
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from typing import Optional

import yaml

from ..phase.ingestion.safe_unzip import (
    CORRUPT_ERRORS,
    Allowance,
    Rejected,
    UnzipLimits,
    describe_error,
    extract_zip_file,
    format_size,
)

__all__ = ["RunResult", "UnpackError", "prepare_tree", "metadata_command", "run_scoring", "WORKER_METADATA"]

#: What the worker writes as res/metadata (a YAML dump of the prediction run's status).
WORKER_METADATA = "elapsedTime: 0.5\nexitCode: 0\ningestionElapsedTime: null\ningestionExitCode: null\n"


@dataclass(frozen=True)
class RunResult:
    returncode: int
    stdout: str
    stderr: str
    root: str
    scores: Optional[dict]
    scores_json_bytes: Optional[bytes]

    @property
    def output_dir(self):
        return os.path.join(self.root, "output")


class UnpackError(ValueError):
    """A zip that cannot be unpacked safely; the message is one sentence."""


#: What unpacking a program, reference data or submission may write.
LIMITS = UnzipLimits(max_total_bytes=4 * 1024**3, max_submission_bytes=4 * 1024**3)


def _unzip(src, dst):
    """Unpack a zip into the new folder ``dst`` with every check of :mod:`leaderboard_ci.phase.ingestion.safe_unzip`."""
    allowance = Allowance(LIMITS.max_total_bytes, "the limit of %s" % format_size(LIMITS.max_total_bytes))
    try:
        extract_zip_file(src, dst, LIMITS, allowance, skip_ignored=False)
    except Rejected as exc:
        shutil.rmtree(dst, ignore_errors=True)
        reason = str(exc)
        reason = reason[len("is ") :] if reason.startswith("is ") else reason
        raise UnpackError("%s cannot be unpacked: %s" % (os.path.basename(src), reason))
    except (OSError, RuntimeError, NotImplementedError) + CORRUPT_ERRORS as exc:
        shutil.rmtree(dst, ignore_errors=True)
        raise UnpackError("%s cannot be unpacked: %s" % (os.path.basename(src), describe_error(exc)))


def _copy_tree(src, dst):
    if os.path.isdir(src):
        shutil.copytree(src, dst, symlinks=True)
    elif zipfile.is_zipfile(src):
        _unzip(src, dst)
    else:
        raise ValueError("%s is neither a folder nor a zip file" % src)


def prepare_tree(root, program, reference, submission):
    """Lay out ``root`` like the worker's ``/app`` and return it.

    ``program`` and ``reference`` are folders or zips.  ``submission`` is a
    zip (unpacked into ``input/res`` as the worker does), a folder (copied),
    or a single file (copied into ``input/res``).
    """
    if os.path.exists(root):
        shutil.rmtree(root)
    os.makedirs(os.path.join(root, "input"))
    os.makedirs(os.path.join(root, "output"))
    os.makedirs(os.path.join(root, "shared"))
    _copy_tree(program, os.path.join(root, "program"))
    _copy_tree(reference, os.path.join(root, "input", "ref"))
    res = os.path.join(root, "input", "res")
    if os.path.isdir(submission) or zipfile.is_zipfile(submission):
        _copy_tree(submission, res)
    else:  # a lone prediction file
        os.makedirs(res)
        shutil.copy(submission, res)
    with io.open(os.path.join(res, "metadata"), "w", encoding="utf-8") as handle:
        handle.write(WORKER_METADATA)
    return root


def metadata_command(program_dir, root, python=None):
    """The argv the worker would run, from ``metadata.yaml``'s ``command``."""
    path = os.path.join(program_dir, "metadata.yaml")
    if not os.path.exists(path):
        path = os.path.join(program_dir, "metadata")
    with io.open(path, encoding="utf-8") as handle:
        metadata = yaml.safe_load(handle)
    command = metadata.get("command") if isinstance(metadata, dict) else None
    if not command:
        raise ValueError("%s has no 'command'" % path)
    replacements = [
        ("$input", os.path.join(root, "input")),
        ("$output", os.path.join(root, "output")),
        ("$program", os.path.join(root, "program")),
        ("$ingestion_program", os.path.join(root, "program")),
        ("$hidden", os.path.join(root, "input", "ref")),
        ("$shared", os.path.join(root, "shared")),
        ("$tmp", os.path.join(root, "output")),
        ("$predictions", os.path.join(root, "input", "res")),
    ]
    for name, value in replacements:  # the worker's order and plain str.replace
        command = command.replace(name, value)
    argv = shlex.split(command)
    if python is not None and argv and os.path.basename(argv[0]) in ("python", "python3"):
        argv[0] = python
    return argv


def run_scoring(root, program, reference, submission, python=None, timeout=600, env=None):
    """Prepare a fresh tree in ``root``, run the scoring program, read the scores.

    Returns a :class:`RunResult`; ``scores`` is None when no scores file was
    written.  Raises RuntimeError if the program wrote ``output/metadata``
    (the worker fails such a run).
    """
    prepare_tree(root, program, reference, submission)
    program_dir = os.path.join(root, "program")
    argv = metadata_command(program_dir, root, python=python or sys.executable)
    run_env = dict(os.environ if env is None else env)
    run_env["PYTHONUNBUFFERED"] = "1"
    run_env.pop("PYTHONPATH", None)  # the container has no PYTHONPATH pointing at this checkout
    proc = subprocess.run(
        argv, cwd=program_dir, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout, env=run_env
    )
    return collect_run(
        root, proc.returncode, proc.stdout.decode("utf-8", "replace"), proc.stderr.decode("utf-8", "replace")
    )


def collect_run(root, returncode, stdout, stderr):
    """The :class:`RunResult` of a finished run in the tree ``root``: its exit code, texts and scores file.

    Raises RuntimeError if the program wrote ``output/metadata`` (the worker fails such a run).
    """
    output = os.path.join(root, "output")
    if os.path.exists(os.path.join(output, "metadata")):
        raise RuntimeError("the scoring program wrote output/metadata; Codabench fails such runs")
    scores, raw = None, None
    if os.path.exists(os.path.join(output, "scores.json")):
        with open(os.path.join(output, "scores.json"), "rb") as handle:
            raw = handle.read()
        scores = json.loads(raw.decode("utf-8"))
    elif os.path.exists(os.path.join(output, "scores.txt")):
        with io.open(os.path.join(output, "scores.txt"), encoding="utf-8") as handle:
            scores = yaml.load(handle, Loader=yaml.SafeLoader)
    return RunResult(returncode, stdout, stderr, root, scores, raw)
