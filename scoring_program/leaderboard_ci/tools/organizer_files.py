"""The organizer's gold and baseline files, read where the organizer gave them (``--gold``, ``--baseline``).

``init``, ``columns`` and ``plan`` copy the given files into a reference-data
folder under the names the config gives them (``files.gold``,
``baseline.file``) and read them exactly as the scoring program will read
``ref/``.  The program's messages name ``ref/<files.gold>``; here they name the
path the organizer typed instead (:func:`as_given`), and a gold whose extension
says another format than ``files.gold`` is refused before it is read as the
wrong one (a TSV read as a CSV fails on its first line with a confusing sentence).
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile

from ..scoring.errors import ConfigError
from ..scoring.readers import read_gold

__all__ = ["SetupError", "as_given", "check_gold_name", "read_given_gold"]


class SetupError(Exception):
    """An organizer's mistake in ``init``, ``columns`` or ``plan``: one sentence, no traceback."""


def as_given(message, config, gold_path, baseline_path=None):
    """``message`` with ``ref/<files.gold>`` (and ``ref/<baseline.file>``) replaced by the paths as given."""
    pairs = [(config.files.gold, gold_path)]
    if baseline_path is not None and config.baseline is not None:
        pairs.append((config.baseline.file, baseline_path))
    for name, given in pairs:
        message = re.sub(r"(?<![\w/])ref/%s(?![\w.])" % re.escape(name), lambda _m, g=given: g, message)
    return message


def _extension(name):
    return os.path.splitext(name)[1].lower()


def check_gold_name(config, gold_path, source):
    """Refuse a gold whose extension differs from ``files.gold``'s: the program would read it as another format."""
    wanted = config.files.gold
    if _extension(gold_path) != _extension(wanted):
        raise SetupError(
            "the gold file %s would be read as %s (files.gold in %s), whose extension says another format; "
            "set files.gold: %s in %s (or give a gold file named like %s)"
            % (gold_path, wanted, source, os.path.basename(gold_path), source, wanted)
        )


def read_given_gold(config, gold_path, source, extra_folders=()):
    """Read ``gold_path`` as the program reads ``ref/<files.gold>``; returns the ``GoldStandard``.

    ``extra_folders`` are searched for ``bootstrap.design_file`` (the gold's own
    folder is searched first).  Every problem is one :class:`SetupError`
    sentence naming ``gold_path``.
    """
    if not os.path.exists(gold_path):
        raise SetupError("the gold file %s does not exist" % gold_path)
    check_gold_name(config, gold_path, source)
    if os.path.basename(gold_path) == config.files.gold:  # read in place, beside the files the config names
        try:
            return read_gold(os.path.dirname(os.path.abspath(gold_path)), config)
        except ConfigError as exc:
            raise SetupError(as_given(exc.message, config, gold_path))
    workdir = tempfile.mkdtemp(prefix="leaderboard-ci-gold-")
    try:
        if os.path.isdir(gold_path):  # a task that reads a folder of files (segmentation masks)
            shutil.copytree(gold_path, os.path.join(workdir, config.files.gold))
        else:
            shutil.copy(gold_path, os.path.join(workdir, config.files.gold))
        design = config.bootstrap.design_file  # the clusters of a task whose gold cannot carry them
        if design:
            folders = [os.path.dirname(os.path.abspath(gold_path))] + list(extra_folders)
            found = [os.path.join(f, design) for f in folders if os.path.isfile(os.path.join(f, design))]
            if found:
                shutil.copy(found[0], os.path.join(workdir, design))
        try:
            return read_gold(workdir, config)
        except ConfigError as exc:
            raise SetupError(as_given(exc.message, config, gold_path))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
