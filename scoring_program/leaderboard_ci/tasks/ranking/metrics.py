"""Ranking and retrieval: a ranked list of documents per query, judged by graded relevance.

The task type's pieces for runs:

* **formats**: :func:`read_gold` reads TREC qrels (``qid 0 docid relevance``)
  or JSON ``{qid: {docid: relevance}}``; :func:`read_predictions` reads TREC
  runs (``qid Q0 docid rank score tag``) or JSON ``{qid: {docid: score}}``.
  The unit of resampling is the **query**: one row of the gold per query of
  the qrels, in order of first appearance.
* **encoding**: per query, the documents judged with a relevance above 0
  (``M`` = the most any query has; shorter rows are padded).  The gold row
  holds their grades (descending), whether each counts as relevant
  (``relevance_threshold``) and their ids; a run's row holds the number of
  documents it retrieved for the query and the rank of each judged document
  in it (0 = not retrieved).  Documents judged 0 or not judged change no
  metric, so the rank of each positively judged document is all a metric
  needs, and every system's row has the same shape (the end-of-phase
  stacking and the permutation test work unchanged).
* **per-query statistics**: the value of every configured metric on every
  query, summed exactly under the resample counts
  (:class:`~leaderboard_ci.core.accumulators.ExactSums`, one column per metric
  and group): each replicate's score is the mean of the per-query values
  weighted by the resample counts, exactly as averaging ``pytrec_eval``'s (or
  ``ranx``'s) per-query values over the resampled queries.

Conventions (trec_eval's, stated in docs/tasks/ranking.md)
----------------------------------------------------------
* **Order.** Documents are sorted by score, descending; ties by document id,
  descending (``strcmp``, as trec_eval does).  The rank column of a TREC run
  is ignored, as trec_eval ignores it.  No depth cut-off.
* **Relevance.** nDCG uses the graded judgments as gains (``rel /
  log2(rank + 1)``; judgments <= 0 gain nothing); the other metrics are binary:
  relevant means ``relevance >= relevance_threshold`` (default 1, trec_eval's
  ``-l``).
* **Precision@k** divides by k even when fewer than k documents are
  retrieved; **MAP@k** divides by the number of relevant documents, not by
  ``min(k, R)`` (trec_eval's ``map_cut``).  A query with no relevant document
  scores 0 on every metric (trec_eval).
* **A query with no retrieved document** (absent from the run) counts as 0
  (``missing_queries: zero``, like ``trec_eval -c``); with ``missing_queries:
  skip`` the mean runs over the queries the run answers (trec_eval's default),
  and a replicate that draws none of them scores 0.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Callable, Optional

import numpy as np

from ...core.accumulators import CodeCounts, ExactSums
from ..metrics import Metric, Metrics, Option
from ..protocol import SubmissionFormat
from ..shared.sparse import few_queries
from .files import MISSING_QUERIES, RankingSettings, gold_array, read_gold, read_predictions, run_array
from .files import positions as _positions
from .files import run_dtype as _run_dtype

__all__ = [
    "NAME",
    "METRICS",
    "RankingMetric",
    "RankingSettings",
    "read_gold",
    "read_predictions",
    "encode_values",
    "decode",
    "per_query_values",
    "Statistics",
    "gold_array",
    "run_array",
    "sparse_units",
    "submission_format",
    "FEW_QUERIES",
    "MISSING_QUERIES",
]

NAME = "ranking"
_MAX_K = 1000000
_NAME_PATTERN = re.compile(r"^([a-z_]+?)(?:[@_]([0-9]+))?$")


def _cutoff(value):
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or value != int(value)
        or not 1 <= value <= _MAX_K
    ):
        raise ValueError("the cut-off k must be a whole number from 1 to %d, got %r" % (_MAX_K, value))
    return int(value)


#: The one option of the ranking metrics.
K = Option("k", "The cut-off: the first k documents of a ranking (ndcg@10), or the k best classes (top-k accuracy).")


@dataclass(frozen=True, eq=False, repr=False)
class RankingMetric(Metric):
    """A mean over queries of a per-query value (trec_eval's definitions), with a cut-off ``@k``.

    ``per_query(k, gold, run) -> (Q,)`` is the per-query value (``k`` None: no
    cut-off); ``needs_k``: the metric needs a cut-off (``p@10``).  Every spelling
    takes a cut-off: ``ndcg@10``, ``ndcg_10``, ``precision@5`` (an alias).
    """

    per_query: Optional[Callable[..., Any]] = None
    needs_k: bool = False

    def parse_name(self, name):
        match = _NAME_PATTERN.match(name)
        if match is None or match.group(2) is None:
            return None
        if match.group(1) not in (self.name,) + self.aliases:
            return None
        return {"k": int(match.group(2))}

    def make_spec(self, options, defaults):
        """``(fields, default key, title)``: the cut-off ``k`` lives in ``options`` (``ndcg@10`` -> k=10)."""
        k = options.get("k")
        if k is not None:
            k = _cutoff(k)
        if k is None and self.needs_k:
            raise ValueError("%s needs a cut-off, e.g. %s@10" % (self.name, self.name))
        if k is None:
            return {"options": ()}, self.name, self.title
        return {"options": (("k", k),)}, "%s_%d" % (self.name, k), "%s@%d" % (self.title, k)


def _judged(gold, run, k):
    """``(grade, relevant, rank, within, hits, n_relevant, safe_r)`` of the encoded rows."""
    grade = np.asarray(gold["grade"], dtype=np.float64)
    relevant = np.asarray(gold["relevant"], dtype=bool)
    rank = np.asarray(run["rank"], dtype=np.int64)
    found = rank > 0
    within = found if k is None else found & (rank <= k)
    hits = relevant & within
    n_relevant = relevant.sum(axis=1).astype(np.float64)
    safe_r = np.where(n_relevant == 0, 1.0, n_relevant)
    return grade, relevant, rank, within, hits, n_relevant, safe_r


def _precision(k, gold, run):
    hits = _judged(gold, run, k)[4]
    return hits.sum(axis=1) / float(k)


def _recall(k, gold, run):
    _, _, _, _, hits, n_relevant, safe_r = _judged(gold, run, k)
    return np.where(n_relevant == 0, 0.0, hits.sum(axis=1) / safe_r)


def _hit_rate(k, gold, run):
    return _judged(gold, run, k)[4].any(axis=1).astype(np.float64)


def _reciprocal_rank(k, gold, run):
    _, _, rank, _, hits, _, _ = _judged(gold, run, k)
    inverse = np.where(hits, 1.0 / np.where(hits, rank, 1), 0.0)
    return inverse.max(axis=1) if inverse.shape[1] else np.zeros(inverse.shape[0])


def _average_precision(k, gold, run):
    _, _, rank, _, hits, n_relevant, safe_r = _judged(gold, run, k)
    ranks = np.sort(np.where(hits, rank, np.iinfo(np.int64).max), axis=1)
    order = np.arange(1, ranks.shape[1] + 1, dtype=np.float64)
    counted = ranks != np.iinfo(np.int64).max
    precision = np.where(counted, order / np.where(counted, ranks, 1), 0.0)
    return np.where(n_relevant == 0, 0.0, precision.sum(axis=1) / safe_r)


def _ndcg(k, gold, run):
    grade, _, rank, within, _, _, _ = _judged(gold, run, k)
    gains = np.where(within, grade / np.log2(np.where(within, rank, 1) + 1.0), 0.0)
    dcg = gains.sum(axis=1)
    depth = grade.shape[1] if k is None else min(k, grade.shape[1])
    ideal = (grade[:, :depth] / np.log2(np.arange(2, depth + 2, dtype=np.float64))).sum(axis=1)
    return np.where(ideal == 0, 0.0, dcg / np.where(ideal == 0, 1.0, ideal))


def _mean_over_queries(view, spec):
    """The mean of ``spec``'s per-query values (NaN for an empty group; see :meth:`Statistics.score`)."""
    return view.mean(spec)


def _metric(name, title, per_query, aliases=(), spellings=(), needs_k=False):
    return RankingMetric(
        NAME,
        name,
        title,
        "higher",
        1.0,
        aliases=aliases,
        spellings=spellings,
        options=(K,),
        needs=("per_query",),
        formula=_mean_over_queries,
        per_query=per_query,
        needs_k=needs_k,
    )


METRICS = Metrics(
    [
        _metric("ndcg", "nDCG", _ndcg, ("ndcg_cut",), ("ndcg", "ndcg@k")),
        _metric("map", "MAP", _average_precision, ("map_cut", "ap"), ("map", "map@k")),
        _metric("mrr", "MRR", _reciprocal_rank, ("rr", "recip_rank", "mean_reciprocal_rank"), ("mrr", "mrr@k")),
        _metric("p", "P", _precision, ("precision",), ("p@k",), needs_k=True),
        _metric("recall", "Recall", _recall, (), ("recall@k",), needs_k=True),
        _metric("hit_rate", "Hit rate", _hit_rate, ("hitrate", "hit", "success"), ("hit_rate@k",), needs_k=True),
    ]
)


def per_query_values(spec_name, k, gold, run):
    """One metric's value on every query, shape ``(Q,)`` (trec_eval's definitions).

    ``gold`` and ``run`` are the encoded rows (:func:`gold_array`, :func:`run_array`).
    """
    if spec_name not in METRICS:
        raise ValueError("%r is not a ranking metric" % (spec_name,))
    return METRICS[spec_name].per_query(k, gold, run)


# ---------------------------------------------------------------------------
# In-memory values (the analysis API)
# ---------------------------------------------------------------------------
def encode_values(gold_values, systems, labels=None, settings=None):
    """``(gold rows, None, {name: run rows})`` from ``list(qrels.items())`` and ``{name: {qid: {docid: score}}}``."""
    gold_values = list(gold_values)
    if not gold_values or not all(
        isinstance(item, (tuple, list)) and len(item) == 2 and isinstance(item[1], dict) for item in gold_values
    ):
        raise ValueError(
            "the ranking gold must be a list of (query id, {document id: relevance}) pairs, e.g. list(qrels.items())"
        )
    qids = [str(q) for q, _ in gold_values]
    if len(set(qids)) != len(qids):
        raise ValueError("the gold lists a query id twice")
    judgments = []
    for qid, docs in gold_values:
        rows = []
        for doc, rel in docs.items():
            if isinstance(rel, bool) or int(rel) != rel:
                raise ValueError("query %r: relevance must be whole numbers" % (qid,))
            rows.append((str(doc), int(rel)))
        judgments.append(rows)
    gold = gold_array(judgments, settings)
    positions = _positions(gold)
    index = dict((q, i) for i, q in enumerate(qids))
    coded = {}
    for name, run in systems.items():
        if not isinstance(run, dict):
            raise ValueError("system %r must be a mapping {query id: {document id: score}}" % (name,))
        rankings = [[] for _ in qids]
        for qid, docs in run.items():
            q = index.get(str(qid))
            if q is None:
                raise ValueError("system %r ranks query %r, which the gold does not have" % (name, qid))
            scores = [(str(d), float(s)) for d, s in docs.items()]
            if not all(math.isfinite(s) for _, s in scores):
                raise ValueError("system %r has a score that is not finite for query %r" % (name, qid))
            rankings[q] = scores
        coded[name] = run_array(gold, rankings, positions)
    return gold, None, coded


def decode(gold, values):
    """Custom metrics receive the encoded rows as they are (see the module docstring)."""
    return values


# ---------------------------------------------------------------------------
# Per-query values and scores
# ---------------------------------------------------------------------------
class Statistics:
    """Exact sums of the per-query values of every metric, overall and per group.

    One :class:`ExactSums` with a column per (metric, all queries or group),
    plus, with ``missing_queries: skip``, a column per group counting the
    queries the run answers (the denominator), and :class:`CodeCounts` of the
    group codes when there are groups.
    """

    def __init__(self, add, gold, predictions, metrics, group_codes, n_groups, layout=None):
        values, run = gold.values, np.asarray(predictions)
        if run.dtype != _run_dtype(values.dtype["grade"].shape[0]) or run.shape != values.shape:
            raise ValueError(
                "predictions must be %d encoded run rows (ranking.run_array), got %s %s"
                % (values.shape[0], run.dtype, run.shape)
            )
        self.n = values.shape[0]
        self.count_empty = bool(values["count_empty"][0]) if self.n else True
        answered = (run["retrieved"] > 0).astype(np.float64)
        has_groups = gold.groups is not None
        masks = [np.ones(self.n, dtype=bool)] + ([group_codes == j for j in range(n_groups)] if has_groups else [])
        columns = []
        self._column = {}
        for spec in metrics:
            if spec.task != NAME or spec.name not in METRICS or spec.key in self._column:
                continue
            per_query = per_query_values(spec.name, spec.option("k"), values, run)
            if not self.count_empty:
                per_query = per_query * answered
            self._column[spec.key] = len(columns)
            columns.extend(np.where(mask, per_query, 0.0) for mask in masks)
        self._answered = None
        if not self.count_empty:
            self._answered = len(columns)
            columns.extend(np.where(mask, answered, 0.0) for mask in masks)
        self._sums_acc = ExactSums(np.stack(columns, axis=1)) if columns else None
        self._sums = add(self._sums_acc) if columns else None
        self._group_counts = add(CodeCounts(group_codes, n_groups)) if has_groups else None
        self._masks = masks
        self._answered_mask = answered > 0

    def prepare(self, stats):
        return stats

    def unit_values(self, spec, j):
        """The per-query values whose mean is the full-sample score of ``spec`` (all queries or group ``j - 1``).

        With ``missing_queries: skip``, the queries the run answers only.
        None for a metric of another task (a custom metric).
        """
        column = self._column.get(spec.key)
        if column is None:
            return None
        keep = self._masks[j] if self.count_empty else self._masks[j] & self._answered_mask
        return self._sums_acc.item_values()[keep, column + j].copy()

    def score(self, stats, spec, j):
        """``spec``'s score on all queries (``j`` 0) or group ``j - 1``: its formula."""
        return METRICS[spec.name].score(_View(self, stats, j), spec)

    def mean(self, stats, spec, j):
        """Mean per-query value of ``spec`` on all queries (``j`` 0) or group ``j - 1``.

        NaN only for a group with no query in the replicate; with
        ``missing_queries: skip``, 0 when none of the drawn queries is answered.
        """
        sums = np.asarray(stats[self._sums], dtype=np.float64)
        total = sums[:, self._column[spec.key] + j]
        if j == 0:
            n = np.full(total.shape, float(self.n))
        else:
            n = np.asarray(stats[self._group_counts], dtype=np.float64)[:, j - 1]
        if self._answered is not None:
            answered = sums[:, self._answered + j]
            out = np.where(answered == 0, 0.0, total / np.where(answered == 0, 1.0, answered))
        else:
            out = total / np.where(n == 0, 1.0, n)
        return np.where(n == 0, np.nan, out)


class _View(object):
    """What a ranking metric's formula reads: the statistics of one block, on all queries or one group."""

    def __init__(self, statistics, stats, j):
        self.statistics, self.stats, self.j = statistics, stats, j

    def mean(self, spec):
        return self.statistics.mean(self.stats, spec, self.j)


# ---------------------------------------------------------------------------
# Where an interval rests on almost nothing (the sparse_units capability)
# ---------------------------------------------------------------------------
#: A target with this many queries that have a relevant document, or fewer, is flagged: the
#: mean over queries then rests on a handful of values (the other queries score 0 for everyone).
FEW_QUERIES = 10


def sparse_units(spec, gold, predictions=None, items=None):
    """Whether the mean over queries rests on almost nothing, in the ``items`` (the queries).

    Returns one :class:`~.base.SparseUnits` of unnamed queries when at most
    :data:`FEW_QUERIES` queries of the target have a relevant document (a grade
    above 0 for nDCG); an empty tuple otherwise.  ``predictions`` are not used:
    a system retrieving little is not a sparse unit, its score is just low.
    """
    if spec.name not in METRICS:
        return ()
    values = gold.values
    judged = np.asarray(values["grade"]) > 0 if spec.name == "ndcg" else values["relevant"]
    return few_queries(
        judged, items, FEW_QUERIES, "a bootstrap over so few units can cover well below its nominal level"
    )


def submission_format(gold, files, metrics):
    """What participants submit: a TREC run (or its JSON form), documents ranked per query."""
    queries = list(gold.ids or ())
    lines = ["%s Q0 example_document 1 1.0 sample" % q for q in queries]
    missing = RankingSettings.of(gold).missing_queries
    return SubmissionFormat(
        unit="query",
        units="queries",
        goal="Rank the documents of the collection for each of the {n} test queries.",
        description=(
            "A **TREC run**: one line per retrieved document, `query Q0 document rank score tag`, separated by "
            'spaces or tabs, or the same as JSON `{"query": {"document": score, ...}, ...}`. Documents are '
            "ordered by score, highest first (the rank column is ignored; equal scores are ordered by document "
            "id, descending, as trec_eval does). %s A repeated document for a query, a score that is not a "
            "number or a query id that is not a test query is refused with its line.\n\n```\n%s\n...\n```\n"
            % (
                "A query you leave out counts as a query with nothing found (0 on every metric)."
                if missing == "zero"
                else "Every test query must be in the run.",
                "\n".join(
                    "%s Q0 %s %d %.2f mysystem" % (queries[0] if queries else "q1", d, r, 12.0 - r)
                    for r, d in ((1, "doc_17"), (2, "doc_4"))
                ),
            )
        ),
        file_name="run.txt",
        sample="\n".join(lines) + "\n",
        public_files=(("queries.tsv", "".join("%s\t(the text of query %s)\n" % (q, q) for q in queries)),),
    )
