"""The end-of-phase analysis of all submissions: who won, and which differences are noise.

:func:`analyze` scores every system on the same bootstrap resamples as the
leaderboard (same configuration, same seed, so every per-system CI equals the
leaderboard's), then for each metric (and each group):

* ranks systems by the **full-sample** score in the metric's direction
  (never by the bootstrap mean);
* compares every system with the winner and every pair with each other:
  oriented difference (positive = the better-ranked system is better), its
  paired CI, and a p-value from the configured test (paired bootstrap or
  permutation), plus McNemar's exact test for accuracy;
* corrects p-values with statsmodels (Bonferroni, Holm, Benjamini-Hochberg or
  any statsmodels method) within the configured family;
* computes the competition indicators, the compact letter display, the set of
  systems tied with the winner and, with a baseline, the baseline-calibrated
  gain of each system (ODESIA) and the gap between groups.

Correction families (``analysis.family``)
------------------------------------------
=============  ===============================  ==========================
family         vs-winner tests corrected over    pairs table corrected over
=============  ===============================  ==========================
``all_pairs``  all m(m-1)/2 pairs                all pairs
``vs_winner``  the m-1 comparisons with winner   all pairs
``per_row``    the winner's row (m-1 tests)      each system's row: the
                                                 systems ranked below it
=============  ===============================  ==========================

Sides (``analysis.sides``)
--------------------------
Which system of a pair is "a" (the better one) is decided by the observed
ranking.  A one-sided p-value in a direction chosen from the data rejects
about twice as often as its level under the null, so by default
(``sides: two``) decisions and corrections use the two-sided p-value (either
direction), which controls the error of declaring a direction; the one-sided
p-value of Berg-Kirkpatrick et al. ("a is better") is reported beside it as
``p_one_sided``.  ``sides: one`` uses the one-sided value throughout, as
CompStats and the paper do.

``analysis.primary`` (default ``holm``) is the correction that decides the
stars, the letters, the ``significant`` column and the set tied with the
winner; the others are reported beside it.
"""
from __future__ import annotations

import platform as _platform
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Optional

import numpy as np
import pandas as pd

from ._version import __version__
from .config import column_key, parse_config
from .corrections import adjust, adjust_within
from .intervals import confidence_interval
from .letters import MAX_SYSTEMS as LETTERS_MAX_SYSTEMS, letter_groups
from .metrics import ppi as ppi_of
from .indicators import competition_indicators
from .pairwise import pair_statistics, ranked_pairs
from .paired import score_systems
from .randomization import PermutationUnsupported, permutation_pvalues
from .scorer import GoldStandard, SystemScorer
from .significance import mcnemar_pvalues, stars
from .signature import Signature
from .errors import ConfigError

__all__ = ["analyze", "PhaseResult", "TargetAnalysis", "encode_inputs"]

@dataclass
class TargetAnalysis:
    """The analysis of one metric on all items or on one group."""

    key: str
    metric: object
    group: Optional[str]
    winner: str
    systems: pd.DataFrame
    vs_winner: pd.DataFrame
    pairs: pd.DataFrame
    indicators: OrderedDict
    tied_with_winner: list
    gains: Optional[pd.DataFrame] = None
    replicates: Optional[np.ndarray] = field(default=None, repr=False)  # (B, m) in rank order
    notes: list = field(default_factory=list)

    @property
    def title(self):
        return self.metric.title + ("" if self.group is None else " [%s]" % self.group)

    def pair_matrix(self, value="diff"):
        """Lower-triangular matrix: row = lower-ranked system, column = higher-ranked.

        ``value`` is a column of :attr:`pairs` (e.g. ``diff``, ``p_value``, ``stars``).
        Entries read "column minus row" (positive: the column is better).
        """
        names = list(self.systems["name"])
        matrix = pd.DataFrame("" if value == "stars" else np.nan, index=names, columns=names, dtype=object)
        for row in self.pairs.itertuples(index=False):
            matrix.loc[row.b, row.a] = getattr(row, value)
        return matrix


@dataclass
class PhaseResult:
    """Everything the report shows; DataFrames per metric target."""

    targets: "OrderedDict[str, TargetAnalysis]"
    signature: OrderedDict
    settings: OrderedDict
    n: int
    names: tuple
    baseline: Optional[str] = None
    skipped: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=["submission", "reason"]))
    group_gaps: Optional[pd.DataFrame] = None

    @property
    def official(self):
        return next(iter(self.targets.values()))

    def indicators_frame(self):
        """Indicators as a table: one row per indicator, one column per target."""
        from .report_tables import indicators_table
        return indicators_table(self)

    def to_dict(self):
        from .report_json import result_to_dict
        return result_to_dict(self)

    def to_json(self, path=None):
        from .report_json import result_to_json
        text = result_to_json(self)
        if path is not None:
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(text)
        return text

    def to_html(self, path=None):
        from .report_html import render_report
        html = render_report(self)
        if path is not None:
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(html)
        return html

    def write(self, out_dir):
        """Write report.html, report.json, CSV, Markdown and LaTeX tables and figures."""
        from .report_files import write_report
        return write_report(self, out_dir)


# ---------------------------------------------------------------------------
# Inputs
# ---------------------------------------------------------------------------
def _natural_sorted(values):
    values = [str(v) for v in values]
    try:
        return sorted(values, key=float)
    except ValueError:
        return sorted(values)


def encode_inputs(config, gold, systems, groups=None):
    """Turn raw gold values and system outputs into a GoldStandard and coded arrays.

    ``gold``: a GoldStandard (then ``systems`` must already be coded) or a
    sequence of labels/values.  ``systems``: mapping name -> sequence.
    """
    if isinstance(gold, GoldStandard):
        return gold, OrderedDict((str(k), np.asarray(v)) for k, v in systems.items())
    gold_values = list(gold)
    n = len(gold_values)
    group_codes = group_values = None
    if groups is not None:
        groups = [str(g) for g in groups]
        if len(groups) != n:
            raise ValueError("groups has %d values for %d items" % (len(groups), n))
        group_values = tuple(config.groups.values) if config.groups and config.groups.values \
            else tuple(_natural_sorted(set(groups)))
        index = {g: i for i, g in enumerate(group_values)}
        missing = sorted(set(groups) - set(index))
        if missing:
            raise ValueError("group value %r is not in groups.values" % missing[0])
        group_codes = np.array([index[g] for g in groups], dtype=np.intp)
    coded = OrderedDict()
    if config.kind == "classification":
        labels = tuple(config.labels) if config.labels else tuple(_natural_sorted(set(str(v) for v in gold_values)))
        index = {label: i for i, label in enumerate(labels)}
        unknown = sorted(set(str(v) for v in gold_values) - set(index))
        if unknown:
            raise ValueError("gold label %r is not one of the labels: %s" % (unknown[0], ", ".join(labels)))
        gold_std = GoldStandard(values=np.array([index[str(v)] for v in gold_values], dtype=np.intp),
                                labels=labels, groups=group_codes, group_values=group_values, source="gold")
        for name, preds in systems.items():
            preds = [str(v) for v in preds]
            if len(preds) != n:
                raise ValueError("system %r has %d predictions for %d items" % (name, len(preds), n))
            bad = [p for p in preds if p not in index]
            if bad:
                raise ValueError("system %r predicts %r, not one of the labels: %s" % (name, bad[0], ", ".join(labels)))
            coded[str(name)] = np.array([index[p] for p in preds], dtype=np.intp)
    else:
        gold_std = GoldStandard(values=np.asarray(gold_values, dtype=np.float64), groups=group_codes,
                                group_values=group_values, source="gold")
        for name, preds in systems.items():
            arr = np.asarray(preds, dtype=np.float64)
            if arr.shape != (n,) or not np.all(np.isfinite(arr)):
                raise ValueError("system %r needs %d finite numeric predictions" % (name, n))
            coded[str(name)] = arr
    return gold_std, coded


def _config_from_kwargs(config, metric, extra_metrics, labels, kwargs):
    """Build a Config from keyword arguments (the Python API) or adjust a given one."""
    if config is not None and metric is None and not kwargs and labels is None and extra_metrics is None:
        return config
    data = {}
    if config is not None:
        raise ValueError("pass either config or metric/keyword settings, not both")
    data["metric"] = metric or "accuracy"
    if extra_metrics:
        data["extra_metrics"] = list(extra_metrics)
    if labels is not None:
        data["labels"] = list(labels)
    bootstrap = {k: kwargs.pop(k) for k in ("n_resamples", "seed", "method", "confidence_level")
                 if k in kwargs}
    if bootstrap:
        data["bootstrap"] = bootstrap
    analysis = {k: kwargs.pop(k) for k in ("test", "alpha", "corrections", "family", "n_permutations",
                                           "reference_point", "primary", "sides") if k in kwargs}
    if analysis:
        data["analysis"] = analysis
    for k in ("pos_label", "zero_division"):
        if k in kwargs:
            data[k] = kwargs.pop(k)
    if kwargs:
        raise TypeError("unexpected keyword argument %r" % sorted(kwargs)[0])
    return parse_config(data, source="analyze()")


# ---------------------------------------------------------------------------
# The analysis
# ---------------------------------------------------------------------------
def analyze(gold, systems=None, metric=None, config=None, *, extra_metrics=None, labels=None, groups=None,
            baseline=None, n_jobs="auto", progress=False, skipped=None, executor=None, **settings):
    """Paired bootstrap analysis of all systems of a competition.

    Parameters
    ----------
    gold : DataFrame, sequence or GoldStandard
        With a DataFrame (CompStats style), ``systems`` is the name of its gold
        column (default ``"y"``) and every other column is a system.
        Otherwise the gold labels or values, one per item.
    systems : mapping name -> predictions, or the gold column name
    metric : str or dict, optional
        The official metric (e.g. ``"f1_macro"``); or pass ``config``.
    config : Config, optional
        A loaded configuration (as the scoring program uses).
    extra_metrics, labels : optional
        As in ``config.yaml``.
    groups : sequence, optional
        A group value per item (e.g. language): every metric is also analysed
        per group.
    baseline : str, optional
        Name of the system that is the baseline (for baseline-calibrated gains).
    n_jobs : int or "auto"
    progress : bool
        Show a progress bar (tqdm) on stderr when it is a terminal.
    skipped : DataFrame or list of (submission, reason), optional
        Carried into the report.
    executor : callable, optional
        Runs replicate spans elsewhere (see :mod:`leaderboard_ci.distributed`).
    **settings
        Any of ``n_resamples, seed, method, confidence_level, test, sides,
        alpha, corrections, primary, family, n_permutations, reference_point,
        pos_label, zero_division``.

    Returns
    -------
    PhaseResult

    Examples
    --------
    >>> result = analyze(df, "y", metric="f1_macro")            # doctest: +SKIP
    >>> result.official.systems                                   # doctest: +SKIP
    >>> result.official.vs_winner                                 # doctest: +SKIP
    """
    if isinstance(gold, pd.DataFrame):
        gold_column = systems or "y"
        if gold_column not in gold.columns:
            raise ValueError("the DataFrame has no gold column %r" % gold_column)
        frame = gold
        gold = frame[gold_column].tolist()
        systems = OrderedDict((str(c), frame[c].tolist()) for c in frame.columns if c != gold_column)
    if not systems:
        raise ValueError("no systems to analyse")
    config = _config_from_kwargs(config, metric, extra_metrics, labels, dict(settings))
    gold_std, coded = encode_inputs(config, gold, systems, groups=groups)
    if baseline is not None and str(baseline) not in coded:
        raise ValueError("baseline %r is not one of the systems" % (baseline,))
    return _analyze_coded(config, gold_std, coded, baseline=None if baseline is None else str(baseline),
                          n_jobs=n_jobs, progress=progress, skipped=skipped, executor=executor)


def _progress_bar(enabled, total, desc):
    if not enabled:
        return None, None
    import sys
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return None, None
    bar = tqdm(total=total, desc=desc, unit="resample", disable=not sys.stderr.isatty(), leave=False)
    return bar, bar.update


def _analyze_coded(config, gold, coded, baseline=None, n_jobs="auto", progress=False, skipped=None,
                   executor=None):
    names = list(coded)
    if len(set(names)) != len(names):
        raise ValueError("system names must be unique")
    predictions = [coded[k] for k in names]
    bs = config.bootstrap
    bar, tick = _progress_bar(progress, bs.n_resamples, "bootstrap")
    try:
        scores = score_systems(config, gold, predictions, names, n_jobs=n_jobs, progress=tick, executor=executor)
    finally:
        if bar is not None:
            bar.close()
    pred_matrix = np.stack([np.asarray(p) for p in predictions], axis=1)
    targets = OrderedDict()
    for t, target in enumerate(scores.targets):
        targets[column_key(target.metric.key, target.group)] = _analyze_target(
            config, gold, scores, t, names, pred_matrix, baseline, n_jobs)
    gaps = _group_gaps(config, targets, baseline) if gold.group_values else None
    if skipped is None:
        skipped = pd.DataFrame(columns=["submission", "reason"])
    elif not isinstance(skipped, pd.DataFrame):
        skipped = pd.DataFrame(list(skipped), columns=["submission", "reason"])
    return PhaseResult(targets=targets, signature=_signature(config, gold, len(names)),
                       settings=_settings(config), n=gold.n, names=tuple(names), baseline=baseline,
                       skipped=skipped, group_gaps=gaps)


def _rank_order(scores, sign, names):
    """Indices from best to worst by full-sample score, ties broken by name."""
    return sorted(range(len(names)), key=lambda j: (-sign * scores[j], names[j]))


def _families(pairs_order_rows, m, family):
    """Index arrays of the pairs table's families and of the vs-winner family."""
    rows = pairs_order_rows
    per_row = [np.flatnonzero(rows == r) for r in range(m - 1)]
    winner_pairs = per_row[0] if per_row else np.array([], dtype=np.intp)
    if family == "per_row":
        return per_row, [winner_pairs]
    everything = [np.arange(rows.shape[0])]
    if family == "vs_winner":
        return everything, [winner_pairs]
    return everything, everything  # all_pairs: vs-winner values read from the pairs family


def _analyze_target(config, gold, scores, t, names, pred_matrix, baseline, n_jobs=1):
    bs, an = config.bootstrap, config.analysis
    target = scores.targets[t]
    spec = target.metric
    sign = spec.sign
    m = len(names)
    full = scores.full[:, t]
    reps = scores.replicates[:, :, t]
    order = _rank_order(full, sign, names)
    winner = order[0]
    notes = []

    # Per-system scores and CIs (equal to the leaderboard's).
    rows = []
    for position, j in enumerate(order):
        jk = None
        if scores.jackknife is not None:
            jk_scores, jk_weights, _ = scores.jackknife[j]
            jk = (jk_scores[:, t], jk_weights)
        iv = confidence_interval(bs.method, reps[:, j], full[j], bs.confidence_level, jackknife=jk)
        better = int(np.count_nonzero(sign * full > sign * full[j]))
        rows.append(OrderedDict([("rank", better + 1), ("name", names[j]), ("score", float(full[j])),
                                 ("ci_low", iv.low), ("ci_high", iv.high)]))
        if iv.note:
            notes.append("%s: %s" % (names[j], iv.note))
    systems = pd.DataFrame(rows)
    if np.isnan(reps).any():
        valid = int(np.all(np.isfinite(reps), axis=1).sum())
        notes.append("%d of %d resamples had no items for this group and were left out" % (bs.n_resamples - valid,
                                                                                            bs.n_resamples))

    # Pairs in rank order: (better-ranked a, worse-ranked b).
    pairs = ranked_pairs(order)
    position_of = {j: p for p, j in enumerate(order)}
    row_of_pair = np.array([position_of[a] for a in pairs[:, 0]], dtype=np.intp)
    jack = scores.jackknife_matrix(t) if bs.method == "bca" and m > 1 else None
    stats = pair_statistics(reps, full, pairs, sign, bs.method, bs.confidence_level, jackknife=jack, n_jobs=n_jobs)
    two = an.sides == "two"
    p_one = stats.p_value
    p_main = stats.p_two_sided if two else stats.p_value
    tests = OrderedDict([("p_bootstrap", p_main)])
    if an.test == "permutation" and m > 1:
        plan_scorers = [SystemScorer(config, gold, pred_matrix[:, j], layout="reduced") for j in range(m)]
        try:
            perm_one, perm_two, exact = permutation_pvalues(plan_scorers, scores.full, pairs, pred_matrix, bs.seed,
                                                            an.n_permutations)
        except PermutationUnsupported as exc:
            raise ConfigError("analysis.test: %s" % exc)
        p_one = perm_one[:, t]
        p_main = perm_two[:, t] if two else p_one
        tests["p_permutation"] = p_main
        tests["exact"] = exact
    if spec.name == "accuracy" and gold.kind == "classification" and m > 1:
        items = np.ones(gold.n, bool) if target.group is None else \
            (np.asarray(gold.groups) == list(gold.group_values).index(target.group))
        correct = pred_matrix == np.asarray(gold.values)[:, None]
        tests["p_mcnemar"] = mcnemar_pvalues(correct[items][:, pairs[:, 0]], correct[items][:, pairs[:, 1]],
                                             sides=an.sides)
    if two:
        tests["p_one_sided"] = p_one

    pair_families, winner_families = _families(row_of_pair, m, an.family)
    methods = ("none",) + tuple(an.corrections)
    pair_adjusted = OrderedDict()
    winner_adjusted = OrderedDict()
    winner_idx = np.flatnonzero(row_of_pair == 0)
    for method in methods:
        pair_adjusted[method] = adjust_within(p_main, pair_families, method, an.alpha)
        if an.family == "all_pairs":
            winner_adjusted[method] = pair_adjusted[method][winner_idx]
        else:
            winner_adjusted[method] = adjust(p_main[winner_idx], method, an.alpha)
    primary = an.primary

    pair_rows = OrderedDict([("a", [names[a] for a in pairs[:, 0]]), ("b", [names[b] for b in pairs[:, 1]]),
                             ("diff", stats.difference), ("ci_low", stats.ci_low), ("ci_high", stats.ci_high),
                             ("p_value", p_main)])
    for key, values in tests.items():
        if key != "p_value":
            pair_rows[key] = values
    for method in an.corrections:
        pair_rows["p_" + method] = pair_adjusted[method]
    pair_rows["stars"] = [stars(p) for p in pair_adjusted[primary]]
    pairs_df = pd.DataFrame(pair_rows)

    vs = pairs_df.iloc[winner_idx].drop(columns=["a"]).rename(columns={"b": "name"}).reset_index(drop=True)
    for method in an.corrections:
        vs["p_" + method] = winner_adjusted[method]
    vs["stars"] = [stars(p) for p in winner_adjusted[primary]]
    vs["significant"] = winner_adjusted[primary] <= an.alpha

    tied = [names[winner]] + [name for name, sig in zip(vs["name"], vs["significant"]) if not sig]
    different = set(frozenset((names[a], names[b])) for (a, b), p in zip(pairs, pair_adjusted[primary])
                     if p <= an.alpha)
    letters = letter_groups([names[j] for j in order], different)
    systems["letters"] = [letters[n] for n in systems["name"]] if letters is not None else ""
    systems["tied_with_winner"] = systems["name"].isin(tied)
    if letters is None:
        notes.append("the letter display is omitted above %d systems" % LETTERS_MAX_SYSTEMS)

    ppi_value, ppi_reason = ppi_of(spec, full[winner])
    n_items = gold.n if target.group is None else \
        int(np.count_nonzero(np.asarray(gold.groups) == list(gold.group_values).index(target.group)))
    indicators = competition_indicators(n_items, full, winner, winner_adjusted, pair_adjusted, an.alpha,
                                        ppi_value, ppi_reason)
    gains = _gains(config, spec, names, full, reps, baseline, order) if baseline is not None else None
    return TargetAnalysis(key=column_key(spec.key, target.group), metric=spec, group=target.group,
                          winner=names[winner], systems=systems, vs_winner=vs, pairs=pairs_df,
                          indicators=indicators, tied_with_winner=tied, gains=gains,
                          replicates=reps[:, order], notes=notes)


def reference_point(config, spec):
    """ODESIA's reference r: the configured point, else the metric's best value, else 0."""
    if config.analysis.reference_point is not None:
        return float(config.analysis.reference_point)
    best = spec.info.best
    return float(best) if best is not None else 0.0


def _gains(config, spec, names, full, reps, baseline, order):
    """Baseline-calibrated gain 100 * sign * (s - b) / |b - r| with its CI (percentile)."""
    b = names.index(baseline)
    r = reference_point(config, spec)
    denominator = abs(full[b] - r)
    rows = []
    for j in order:
        if denominator == 0:
            rows.append(OrderedDict([("name", names[j]), ("gain", None), ("ci_low", None), ("ci_high", None),
                                     ("note", "the baseline already reaches the reference point %g" % r)]))
            continue
        gain = 100.0 * spec.sign * (full[j] - full[b]) / denominator
        with np.errstate(divide="ignore", invalid="ignore"):
            rep = 100.0 * spec.sign * (reps[:, j] - reps[:, b]) / np.abs(reps[:, b] - r)
        rep = np.where(np.isfinite(rep), rep, np.nan)
        method = "percentile" if config.bootstrap.method == "bca" else config.bootstrap.method
        iv = confidence_interval(method, rep, gain, config.bootstrap.confidence_level)
        rows.append(OrderedDict([("name", names[j]), ("gain", float(gain)), ("ci_low", iv.low),
                                 ("ci_high", iv.high), ("note", "")]))
    frame = pd.DataFrame(rows)
    frame.attrs["reference_point"] = r
    frame.attrs["baseline"] = baseline
    return frame


def _group_gaps(config, targets, baseline):
    """Gap between groups of each system's gain (ODESIA), or of its score without a baseline."""
    rows = []
    groups = []
    for target in targets.values():
        if target.group is not None and target.group not in groups:
            groups.append(target.group)
    if len(groups) < 2:
        return None
    for spec in config.metrics:
        per_group = {}
        for g in groups:
            tg = targets[column_key(spec.key, g)]
            if tg.gains is not None:
                per_group[g] = dict(zip(tg.gains["name"], tg.gains["gain"]))
                quantity = "gain"
            else:
                per_group[g] = dict(zip(tg.systems["name"], tg.systems["score"]))
                quantity = "score"
        first = groups[0]
        for other in groups[1:]:
            for name, value in per_group[first].items():
                other_value = per_group[other].get(name)
                gap = None if value is None or other_value is None else float(value) - float(other_value)
                rows.append(OrderedDict([("metric", spec.key), ("quantity", quantity), ("name", name),
                                         ("groups", "%s - %s" % (first, other)), ("gap", gap)]))
    return pd.DataFrame(rows)


def _signature(config, gold, m):
    import numpy
    import scipy
    import statsmodels

    bs, an = config.bootstrap, config.analysis
    return Signature(
        metric=config.official.key, n_resamples=bs.n_resamples, seed=bs.seed, method=bs.method,
        confidence_level=bs.confidence_level, test=an.test,
        n_permutations=an.n_permutations if an.test == "permutation" else None, sides=an.sides,
        family=an.family, corrections=tuple(an.corrections), primary=an.primary, alpha=an.alpha,
        n_items=gold.n, n_systems=m, gold_sha256=gold.sha256 or None, version=__version__,
        environment=(("python", _platform.python_version()), ("numpy", numpy.__version__),
                     ("pandas", pd.__version__), ("scipy", scipy.__version__),
                     ("statsmodels", statsmodels.__version__)))


def _settings(config):
    return OrderedDict([("metrics", [m.key for m in config.metrics]),
                        ("labels", list(config.labels) if config.labels else None),
                        ("groups", config.groups.column if config.groups else None),
                        ("reference_point", config.analysis.reference_point)])
