"""The two test sets of a shake-up: two phases' reference data, or the two parts of one split reference.

Each set is scored exactly as the scoring program scores it (its own
configuration: the program's ``config.yaml`` merged with the reference's,
its seed and its B), on the official metric only: extra metrics, groups and
the baseline do not enter the shake-up, and the official metric's scores and
intervals do not depend on them.

A split reference (``--split-column``) holds both sets: the gold file's
column names each item's part (Kaggle's ``Usage`` column: ``Public``,
``Private``; items with any other value, such as ``Ignored``, are in
neither).  Each part is then a test set of its own: the gold's rows of that
part (:func:`subset_gold`), resampled on their own, so the two parts are
disjoint and independent samples of items.
"""

from __future__ import annotations

import os
import zipfile
from dataclasses import dataclass, replace
from typing import Optional

import numpy as np

from ...core.resampling import unit_codes
from ...scoring.config import load_config
from ...scoring.errors import ConfigError
from ...scoring.readers import read_gold

__all__ = [
    "TestSet",
    "load_reference",
    "official_only",
    "without_groups",
    "split_reference",
    "subset_gold",
    "subset_values",
]


@dataclass(frozen=True)
class TestSet:
    """One leaderboard's test set: what scores a submission on it.

    Attributes
    ----------
    label : str
        ``public`` or ``private``.
    config : Config
        The official metric only (:func:`official_only`).
    gold : GoldStandard
        The set's items (a part of the read gold in split mode).
    items : ndarray of int or None
        In split mode, the rows of the read gold that are this set (submissions are read
        against the whole gold, then cut to these rows); None otherwise.
    source : str
        Where the set comes from, for the page (``ref/gold.csv``, ``ref/gold.csv, Usage = Public``).
    """

    label: str
    config: object
    gold: object
    items: Optional[np.ndarray] = None
    source: str = ""

    @property
    def n(self):
        return self.gold.n


def official_only(config):
    """``config`` with the official metric only: no extra metrics, groups or baseline."""
    return replace(config, metrics=(config.official,), groups=None, baseline=None)


def without_groups(gold):
    """The gold standard without its group codes (the shake-up scores the official metric on all items)."""
    return replace(gold, groups=None, group_values=None)


def _reference_dir(path, workdir, label):
    if os.path.isdir(path):
        return path
    if os.path.isfile(path) and zipfile.is_zipfile(path):
        from ..ingestion.safe_unzip import UnzipLimits, safe_extract

        target = os.path.join(workdir, "reference-%s" % label)
        safe_extract(path, target, UnzipLimits())
        return target
    raise ConfigError("the %s reference %s is neither a folder nor a zip file" % (label, path))


def load_reference(path, program, workdir, label, config_path=None):
    """``(reference folder, config, gold)`` of one phase's reference data, as the scoring program reads it.

    ``config_path`` replaces the program's ``config.yaml`` merged with the
    reference's own (as ``--config`` of the end of phase).
    """
    ref_dir = _reference_dir(path, workdir, label)
    if config_path:
        if not os.path.isfile(config_path):
            raise ConfigError("the %s configuration %s does not exist" % (label, config_path))
        config = load_config(os.path.dirname(config_path), None, path=config_path)
    else:
        config = load_config(program, ref_dir)
    return ref_dir, config, read_gold(ref_dir, config)


def _recode(codes):
    return None if codes is None else unit_codes(np.asarray(codes).tolist())[0]


def subset_gold(gold, items, source=None):
    """The gold standard of rows ``items`` only (a part of a split reference).

    Group codes are dropped (the shake-up scores the official metric on all
    items of a part); cluster and strata codes are kept and renumbered in order
    of first appearance, as :func:`~leaderboard_ci.core.resampling.unit_codes`
    numbers them.
    """
    items = np.asarray(items, dtype=np.intp)
    return replace(
        gold,
        values=gold.values[items],
        ids=None if gold.ids is None else tuple(gold.ids[i] for i in items),
        groups=None,
        group_values=None,
        clusters=None if gold.clusters is None else _recode(gold.clusters[items]),
        strata=None if gold.strata is None else _recode(gold.strata[items]),
        source=gold.source if source is None else source,
    )


def subset_values(values, items):
    """A submission's encoded predictions (aligned with the whole gold) cut to ``items``."""
    return np.asarray(values)[np.asarray(items, dtype=np.intp)]


def _split_config(config, column):
    from ...scoring.config import GroupSettings

    return replace(config, groups=GroupSettings(column=column, values=None), baseline=None)


def split_reference(ref_dir, config, gold, column, public_value="Public", private_value="Private"):
    """``(public items, private items, items in neither)`` of a reference whose gold has a split column.

    The column is read as the scoring program reads a group column (the same
    rows, the same formats); values are compared without regard to case.

    Raises
    ------
    ConfigError
        When the column is missing, a part has no item, or the two values are the same.
    """
    if public_value.strip().lower() == private_value.strip().lower():
        raise ConfigError(
            "--public-value and --private-value are both %r; the two parts of the split need two values" % public_value
        )
    try:
        parts = read_gold(ref_dir, _split_config(config, column))
    except ConfigError as exc:
        raise ConfigError("--split-column %s: %s" % (column, exc.message))
    if parts.n != gold.n:  # the same file read twice
        raise ConfigError("--split-column %s: the gold file changed while it was read" % column)
    names = [str(v).strip().lower() for v in parts.group_values]
    codes = np.asarray(parts.groups)
    out = []
    for option, value in (("--public-value", public_value), ("--private-value", private_value)):
        wanted = value.strip().lower()
        if wanted not in names:
            raise ConfigError(
                "%s %r: no item of ref/%s has it in the column %s (its values: %s)"
                % (option, value, config.files.gold, column, ", ".join(map(str, parts.group_values[:10])))
            )
        out.append(np.flatnonzero(codes == names.index(wanted)))
    neither = gold.n - out[0].size - out[1].size
    return out[0], out[1], neither
