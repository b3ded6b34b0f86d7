"""The clusters and strata of the gold standard (``bootstrap.cluster``, ``bootstrap.strata``).

:func:`attach_design` reads the two columns and puts their codes on the
:class:`~leaderboard_ci.tasks.shared.base.GoldStandard`, which hands the
:class:`~leaderboard_ci.core.resampling.Resampling` to the per-submission
program and to the end-of-phase analysis alike (so both draw the same
replicates).  A gold in a table format (CSV, TSV, JSON, JSON Lines) carries
them as columns; a task with a gold format of its own carries them when its
parser gives per-unit ``design`` values; any task
with unit ids can take them from ``bootstrap.design_file``, a CSV of the
reference data (e.g. the topic of each ranking query).  Otherwise the setting
is an organizer error that says so.

Every problem here is the organizer's (:class:`ConfigError`), named by the gold
file and the column; no message quotes a gold value.

Python 3.7, the standard library and numpy only.
"""

import dataclasses
import os

import numpy as np

from ..core.resampling import unit_codes
from .errors import ConfigError
from .formats import Columns, Source, open_table, own_rows_test, quote

__all__ = ["attach_design", "TableDesign", "design_notes", "DESIGN_KEYS", "FEW_CLUSTERS", "UNEQUAL_SIZES_CV"]

#: The settings this module reads, in the order they are checked.
DESIGN_KEYS = ("cluster", "strata")


def _columns(config):
    bs = config.bootstrap
    return [(key, getattr(bs, key)) for key in DESIGN_KEYS if getattr(bs, key) is not None]


class TableDesign(object):
    """The design values of a gold table: ``get(column)`` reads that column of every gold row.

    What :meth:`GoldFile.rows <leaderboard_ci.scoring.inputs.GoldFile.rows>` gives
    as ``design``: the column format's gold carries its clusters and strata as
    columns.  A column that is missing, or empty on a row, is the organizer's
    error, named by the setting (``bootstrap.cluster`` or ``bootstrap.strata``).
    """

    def __init__(self, source, config, n):
        self.source, self.config, self.n = source, config, n

    def get(self, column):
        config = self.config
        key = [k for k, c in _columns(config) if c == column][0]
        columns = Columns((column,), id=config.files.id_column, id_required=True)
        try:
            table = open_table(self.source, config.files.format, columns)
            values = [value for _, _, value, _ in table.rows]
        except ConfigError:
            raise ConfigError(
                "%s: bootstrap.%s %s: ref/%s has no column %s, or it is empty on some row; add it to the gold"
                % (config.source, key, quote(column), config.files.gold, quote(column))
            )
        if len(values) != self.n or any(v == "" for v in values):
            raise ConfigError(
                "%s: bootstrap.%s %s: the column %s of ref/%s must have a value on every gold row"
                % (config.source, key, quote(column), quote(column), config.files.gold)
            )
        return values


def _file_values(gold_source, config, gold, wanted):
    """``{key: values}`` from ``bootstrap.design_file``, aligned with the gold units by id."""
    name = config.bootstrap.design_file
    path = os.path.join(os.path.dirname(gold_source.path), name)
    where = "%s: bootstrap.design_file ref/%s" % (config.source, name)
    if gold.ids is None:
        raise ConfigError("%s: the gold ref/%s has no unit ids to align it with" % (where, config.files.gold))
    if not os.path.isfile(path):
        raise ConfigError("%s is missing from the reference data" % where)
    source = Source(path, "ref/" + name, error=ConfigError, may_quote=False)
    id_column = config.files.id_column or "id"
    out = {}
    for key, column in wanted:
        headerless = own_rows_test(source, (id_column, column))
        columns = Columns((column,), id=id_column, id_required=True, looks_like_data=headerless)
        try:
            found = dict((ident, value) for _, ident, value, _ in open_table(source, "auto", columns).rows)
        except ConfigError as exc:
            if exc.data_not_header:  # the file's own rows say so: name the line
                raise ConfigError("%s: %s" % (config.source, exc))
            raise ConfigError(
                "%s needs a header with the columns %s and %s (bootstrap.%s), a value on every row"
                % (where, quote(id_column), quote(column), key)
            )
        missing = sum(1 for ident in gold.ids if found.get(ident, "") == "")
        if missing:
            raise ConfigError(
                "%s has no %s for %d unit%s of the gold; give every gold id a value"
                % (where, quote(column), missing, "" if missing == 1 else "s")
            )
        out[key] = [found[ident] for ident in gold.ids]
    return out


def attach_design(source, config, gold, task, design=None):
    """The gold with its cluster and strata codes (the same gold when neither is set).

    Parameters
    ----------
    source : Source
        The gold (its folder holds ``bootstrap.design_file``).
    config : Config
    gold : GoldStandard
    task : TaskType
    design : mapping, optional
        What the task's ``read_gold`` gave as ``design``: ``get(column)`` gives
        one string per unit, or None when the format has no such values (a gold
        table's :class:`TableDesign` reads the column).
    """
    wanted = _columns(config)
    if not wanted:
        return gold
    if config.bootstrap.design_file is not None:
        values = _file_values(source, config, gold, wanted)
    else:
        values = {}
        for key, column in wanted:
            found = None if design is None else design.get(column)
            if found is None:
                raise ConfigError(
                    "%s: bootstrap.%s %s: the %s gold format of ref/%s gives no %s per unit; "
                    "give it in a bootstrap.design_file (a CSV of unit ids and %s)"
                    % (config.source, key, quote(column), task.name, config.files.gold, quote(column), quote(column))
                )
            values[key] = list(found)
    codes = {key: unit_codes(v)[0] for key, v in values.items()}
    if "cluster" in codes and "strata" in codes:
        clusters, strata = codes["cluster"], codes["strata"]
        first = np.full(int(clusters.max()) + 1, -1, dtype=np.intp)
        first[clusters[::-1]] = strata[::-1]
        if np.any(first[clusters] != strata):
            raise ConfigError(
                "%s: bootstrap.cluster %s: a cluster of ref/%s spans several strata (bootstrap.strata %s); "
                "every cluster must lie in one stratum"
                % (config.source, quote(config.bootstrap.cluster), config.files.gold, quote(config.bootstrap.strata))
            )
    return dataclasses.replace(gold, clusters=codes.get("cluster"), strata=codes.get("strata"))


#: Below this many clusters a cluster bootstrap is known to be too narrow (a note says so).
FEW_CLUSTERS = 20
#: Above this coefficient of variation of the cluster sizes (standard deviation / mean) a note
#: says the clusters are very unequal: the largest then dominate every resample.
UNEQUAL_SIZES_CV = 1.0


def design_notes(config, gold, hide_counts=False):
    """Notes on the clusters: too few of them, or of very unequal sizes (the documented rules).

    * fewer than :data:`FEW_CLUSTERS` clusters: the cluster bootstrap
      under-covers with few clusters (Cameron, Gelbach & Miller 2008);
    * a coefficient of variation of the cluster sizes above
      :data:`UNEQUAL_SIZES_CV`: the largest clusters dominate each resample.

    With ``hide_counts`` (decoy ids) the notes give no number.
    """
    resampling = gold.resampling()
    if resampling is None or not resampling.clustered:
        return []
    column = quote(config.bootstrap.cluster)
    notes = []
    units = resampling.n_units
    if units < FEW_CLUSTERS:
        notes.append(
            "The intervals resample whole clusters (%s), and there are %s: with fewer than about %d clusters "
            "the cluster bootstrap is too narrow, so read the intervals as optimistic."
            % (column, "few of them" if hide_counts else "only %d" % units, FEW_CLUSTERS)
        )
    sizes = resampling.unit_sizes.astype(np.float64)
    cv = float(np.std(sizes) / np.mean(sizes)) if units > 1 else 0.0
    if cv > UNEQUAL_SIZES_CV:
        notes.append(
            "The clusters (%s) are of very unequal sizes%s: the largest weigh most in every resample, and "
            "the intervals are less reliable than with clusters of similar size."
            % (column, "" if hide_counts else " (coefficient of variation %.1f, above %g)" % (cv, UNEQUAL_SIZES_CV))
        )
    return notes
