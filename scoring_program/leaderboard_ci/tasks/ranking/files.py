"""The ranking task's settings, its encoding of qrels and runs, and its file formats (TREC qrels and runs, JSON)."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from ..protocol import GoldData
from ..settings import TaskSettings, setting
from ..shared import json_documents
from ..shared.base import UnscoredIds, id_positions
from . import trec_runs

__all__ = [
    "RankingSettings",
    "MISSING_QUERIES",
    "gold_array",
    "run_array",
    "read_gold",
    "read_predictions",
    "positions",
    "run_dtype",
]

MISSING_QUERIES = ("zero", "skip")
_WHOLE_NUMBER = re.compile(r"^[+-]?[0-9]+$")
#: What a line of each format holds, for messages.
_RUN_COLUMNS = "6 columns: query id, Q0, document id, rank, score, run tag"
_QRELS_COLUMNS = "4 columns: query id, iteration, document id, relevance"


def _threshold(threshold):
    """``relevance_threshold``: a whole number >= 1 (ValueError)."""
    if (
        isinstance(threshold, bool)
        or not isinstance(threshold, (int, float))
        or threshold != int(threshold)
        or threshold < 1
    ):
        raise ValueError(
            "relevance_threshold must be a whole number >= 1 (the lowest relevance that counts as "
            "relevant), got %r" % (threshold,)
        )
    return int(threshold)


def _missing_queries(value):
    """``missing_queries``: zero or skip (ValueError)."""
    missing = str(value).strip().lower()
    if missing not in MISSING_QUERIES:
        raise ValueError("missing_queries must be one of: %s, got %r" % (", ".join(MISSING_QUERIES), value))
    return missing


@dataclass(frozen=True)
class RankingSettings(TaskSettings):
    """The top-level keys of a ranking task: what counts as relevant, and how an unanswered query counts."""

    relevance_threshold: int = setting(
        1,
        "Least relevance grade counted as relevant by MAP, MRR, P, recall, hit rate "
        "(trec_eval -l); nDCG uses the grades as gains.",
        parse=_threshold,
    )
    missing_queries: str = setting(
        "zero",
        "zero: an unanswered query scores 0 (trec_eval -c, ranx); skip: the mean runs over the answered queries.",
        parse=_missing_queries,
    )


# ---------------------------------------------------------------------------
# Encoding
# ---------------------------------------------------------------------------
def _gold_dtype(m, width):
    return np.dtype(
        [
            ("grade", np.int64, (m,)),
            ("relevant", np.bool_, (m,)),
            ("doc", "U%d" % max(width, 1), (m,)),
            ("count_empty", np.bool_),
        ]
    )


def _run_dtype(m):
    return np.dtype([("retrieved", np.int64), ("rank", np.int64, (m,))])


def gold_array(judgments, settings=None):
    """The encoded gold: ``judgments`` is a list (one per query) of ``[(docid, relevance), ...]``.

    Only documents with relevance > 0 are kept, by grade descending then id.
    """
    settings = settings or RankingSettings()
    threshold = settings.relevance_threshold
    kept = [sorted(((d, int(r)) for d, r in docs if int(r) > 0), key=lambda x: (-x[1], x[0])) for docs in judgments]
    m = max([len(docs) for docs in kept] + [1])
    width = max([len(d) for docs in kept for d, _ in docs] + [1])
    out = np.zeros(len(kept), dtype=_gold_dtype(m, width))
    for q, docs in enumerate(kept):
        if docs:
            grades = [r for _, r in docs]
            out["grade"][q, : len(docs)] = grades
            out["relevant"][q, : len(docs)] = [r >= threshold for r in grades]
            out["doc"][q, : len(docs)] = [d for d, _ in docs]
    out["count_empty"] = settings.missing_queries == "zero"
    return out


def _positions(gold):
    """Per query, ``{docid: column}`` of the judged documents."""
    docs, grades = gold["doc"], gold["grade"]
    return [dict((docs[q, j], j) for j in range(docs.shape[1]) if grades[q, j] > 0) for q in range(gold.shape[0])]


def run_array(gold, rankings, positions=None):
    """The encoded run: ``rankings[q]`` is a list of ``(docid, score)`` of query ``q`` (any order).

    Documents are ranked by score descending, ties by document id descending
    (trec_eval); the row keeps the rank of each judged document (0: not retrieved).
    """
    if positions is None:
        positions = _positions(gold)
    m = gold.dtype["grade"].shape[0]
    out = np.zeros(len(rankings), dtype=_run_dtype(m))
    ranks = out["rank"]
    for q, docs in enumerate(rankings):
        if not docs:
            continue
        out["retrieved"][q] = len(docs)
        where = positions[q]
        ordered = sorted(((score, doc) for doc, score in docs), reverse=True)
        for rank, (_, doc) in enumerate(ordered, 1):
            j = where.get(doc)
            if j is not None:
                ranks[q, j] = rank
    return out


# ---------------------------------------------------------------------------
# Reading files
# ---------------------------------------------------------------------------
#: The largest JSON run read (bytes): 2 x 10^6 entries (21.7 MB) take 4.6 s of CPU and 369 MB in py37.
MAX_JSON_RUN_BYTES = 20 * 1000 * 1000


def _split_json(lines, max_bytes=None, what="score"):
    """``(True, text, 1)`` when the file is JSON (starts with ``{``), else ``(False, lines, None)``.

    The file (its decoded ``lines``) is then read as one document: a minified
    JSON run is one long line.
    """
    if lines.first_character() == "[":
        raise lines.source.whole("is a JSON list; expected a JSON object {query id: {document id: %s}}" % what)
    if lines.first_character() == "{":
        if max_bytes is not None and lines.source_size() > max_bytes:
            raise lines.source.whole(
                "is a JSON run of {:.1f} MB; a JSON run is read up to {:,} MB (its entries become Python "
                "objects): send larger runs as TREC runs, one line 'query_id Q0 doc_id rank score "
                "run_tag' per document, read at any size up to the file limit".format(
                    lines.source_size() / 1e6, max_bytes // 1000000
                )
            )
        return True, lines.text(), 1
    return False, lines, None


class _Pairs(list):
    """The ``(key, value)`` pairs of one JSON object, in file order; ``duplicate``: a key given twice, or None."""

    duplicate = None


def _no_duplicate_keys(source):
    def hook(pairs):
        out = _Pairs(pairs)
        if len(set(key for key, _ in pairs)) != len(pairs):
            seen = set()
            for key, _ in pairs:
                if key in seen:
                    out.duplicate = key
                    break
                seen.add(key)
        return out

    return hook


def _no_duplicate_documents(source, qid, docs):
    """The error for a query's object that names a document twice (the reader checks each query's object)."""
    if docs.duplicate is not None:
        raise source.whole(
            "query %s: document %s is given twice; give each document once per query"
            % (_quote(source, qid), _quote(source, docs.duplicate))
        )


def _quote(source, text):
    text = str(text)
    if not source.may_quote:
        return "(not shown)"
    return repr(text if len(text) <= 40 else text[:40] + "...")


def _load_json(source, text, what):
    try:
        data = json_documents.loads(
            text, object_pairs_hook=_no_duplicate_keys(source), parse_int=json_documents.integer
        )
    except RecursionError:
        raise source.whole("holds JSON nested too deeply; expected two levels: {query id: {document id: %s}}" % what)
    except ValueError as exc:
        if isinstance(exc, source.error):
            raise
        line = getattr(exc, "lineno", None)
        if line is None:
            raise source.whole("is not valid JSON")
        raise source.at(
            line,
            "is not valid JSON (%s); expected {query id: {document id: %s}}"
            % (getattr(exc, "msg", "syntax error"), what),
        )
    if not isinstance(data, _Pairs):
        raise source.whole(
            "is a JSON %s; expected a JSON object {query id: {document id: %s}}" % (_json_kind(data), what)
        )
    if data.duplicate is not None:
        raise source.whole("has query %s twice; give each query once" % _quote(source, data.duplicate))
    return data


def read_gold(gold, context):
    """TREC qrels or JSON ``{qid: {docid: relevance}}`` into one encoded row per query.

    Messages name the file and the line (or the query, in JSON), never a relevance judgment.
    """
    source = gold.source
    is_json, content, _ = _split_json(gold.lines(), what="relevance")
    qids, first_lines, judgments = [], [], []
    index = {}
    if is_json:
        for qid, docs in _load_json(source, content, "relevance"):
            if not isinstance(docs, _Pairs):
                raise source.whole(
                    "query %s must map to an object {document id: relevance}, not a JSON %s"
                    % (_quote(source, qid), _json_kind(docs))
                )
            _no_duplicate_documents(source, qid, docs)
            rows = []
            for doc, rel in docs:
                if isinstance(rel, bool) or not isinstance(rel, int) or abs(rel) > 1 << 62:
                    raise source.whole(
                        "query %s: a relevance is not a whole number; expected whole numbers "
                        "(0 = not relevant)" % _quote(source, qid)
                    )
                rows.append((doc, rel))
            _check_id(source, qid, None, "query id")
            index[qid] = len(qids)
            qids.append(qid)
            first_lines.append(1)
            judgments.append(rows)
    else:
        seen = {}
        for line, text in content:
            fields = text.split()
            if not fields:
                continue
            if len(fields) != 4:
                raise source.at(
                    line,
                    "has %d column%s; expected %s (TREC qrels)%s"
                    % (
                        len(fields),
                        "" if len(fields) == 1 else "s",
                        _QRELS_COLUMNS,
                        trec_runs.columns_hint(text, 4, not seen),
                    ),
                )
            qid, _, doc, rel = fields
            if _WHOLE_NUMBER.match(rel) is None and not seen:
                error = trec_runs.header_line(source, line, fields, (3,), _QRELS_COLUMNS, "TREC qrels file")
                if error is not None:
                    raise error
            if _WHOLE_NUMBER.match(rel) is None:
                raise source.at(line, "the relevance is not a whole number; expected %s" % _QRELS_COLUMNS)
            first = seen.get((qid, doc))
            if first is not None:
                raise source.at(
                    line,
                    "the same query and document were judged before, on line %d; judge each "
                    "document once per query" % first,
                )
            seen[(qid, doc)] = line
            q = index.get(qid)
            if q is None:
                q = index[qid] = len(qids)
                qids.append(qid)
                first_lines.append(line)
                judgments.append([])
            judgments[q].append((doc, int(rel)))
    if not qids:
        raise source.whole("has no relevance judgments; expected %s per line (TREC qrels)" % _QRELS_COLUMNS)
    values = gold_array(judgments, context.settings)
    if not values["grade"].any():
        raise source.whole("judges no document relevant; qrels need at least one positive judgment")
    return GoldData(first_lines, values, ids=tuple(qids))


def _check_id(source, ident, line, what):
    if ident == "":
        if line is None:
            raise source.whole("has an empty %s" % what)
        raise source.at(line, "the %s is empty" % what)


def read_predictions(submission, gold, context):
    """A TREC run or JSON ``{qid: {docid: score}}``, aligned with the gold's queries.

    Every query id must be one of the qrels' (with ``files.unscored_ids: ignore``, the lines of other
    queries are read, checked and dropped, at most ``files.max_ids`` query ids in all); a query the run
    omits counts as a query with no retrieved document (see ``missing_queries``).  A TREC run
    is read in blocks with numpy (:mod:`.trec_runs`): the first wrong line
    stops the reading.
    """
    run_file = submission.file()
    source = run_file.source
    unscored = UnscoredIds(source, context)
    is_json, content, _ = _split_json(run_file.lines(), MAX_JSON_RUN_BYTES)
    # a TREC line holds 6 tokens and 6 separators (12 bytes at least); a JSON entry "d":1, 6 bytes
    rows = trec_runs.RunRows(*trec_runs.capacity(run_file.path, 6 if is_json else 12))
    (_read_json_run if is_json else _read_trec_run)(source, content, gold, unscored, rows)

    def duplicate(line, first, doc, q):
        return source.at(
            line,
            "document %s is retrieved again for query %s (first on line %d); rank each "
            "document once per query" % (_quote(source, doc), _quote(source, gold.ids[q]), first),
        )

    run = trec_runs.encode_rows(rows, gold.values, len(gold.ids), duplicate)
    if not run["retrieved"].any():
        raise source.whole(
            "retrieves no document for any query; expected %s per line (a TREC run) or "
            "{query id: {document id: score}}" % _RUN_COLUMNS
        )
    return run


def _read_json_run(source, content, gold, unscored, rows):
    """The queries of a JSON run ``{qid: {docid: score}}`` into ``rows`` (each checked as it is read)."""
    index = id_positions(gold.ids)
    seen = set()
    for qid, docs in _load_json(source, content, "score"):
        _check_id(source, qid, None, "query id")
        q = index.get(qid)
        if q is None and not unscored.ignore:
            raise _unknown_query(source, None, qid, gold)
        error = None if q is not None else unscored.decoy(qid, len(gold.ids))
        if error is not None:
            raise error
        if qid in seen:
            raise source.whole("has query %s twice; give each query once" % _quote(source, qid))
        seen.add(qid)
        if not isinstance(docs, _Pairs):
            raise source.whole(
                "query %s must map to an object {document id: score}, not a JSON %s"
                % (_quote(source, qid), _json_kind(docs))
            )
        _no_duplicate_documents(source, qid, docs)
        for doc, score in docs:
            _check_json_score(source, qid, doc, score)
        if q is not None:  # else an unscored query (files.unscored_ids: ignore), read and checked
            trec_runs.add_query_docs(rows, q, docs)


def _read_trec_run(source, content, gold, unscored, rows):
    """The lines of a TREC run into ``rows``, block by block (:func:`.trec_runs.parse_block`)."""
    queries = trec_runs.Queries(gold.ids)

    def unknown(line, qid):
        return _unknown_query(source, line, qid, gold)

    def decoy(line, qid):  # at most files.max_ids query ids in all
        return unscored.decoy(qid, len(gold.ids), line)

    def bad_score(line, text):
        return source.at(line, "the score %s (the 5th column) %s" % (_quote(source, text), _why(text)))

    for first, text, count in content.blocks():
        trec_runs.parse_block(
            source, first, text, count, queries, rows, None if unscored.ignore else unknown, bad_score, decoy
        )


def _json_kind(value):
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, _Pairs):  # a JSON object (its pairs are a list): before the list test
        return "object"
    return "list" if isinstance(value, list) else "string"


def _check_json_score(source, qid, doc, score):
    if isinstance(score, json_documents.LongNumber):
        score = float("inf")  # thousands of digits: beyond a double
    elif isinstance(score, bool) or not isinstance(score, (int, float)):
        raise source.whole(
            "query %s, document %s: the score is a JSON %s; expected a number (a JSON number, "
            "not in quotes)" % (_quote(source, qid), _quote(source, doc), _json_kind(score))
        )
    if isinstance(score, int):
        try:
            score = float(score)
        except OverflowError:
            score = float("inf")
    if not math.isfinite(score):
        raise source.whole(
            "query %s, document %s: the score %s; expected a finite number"
            % (
                _quote(source, qid),
                _quote(source, doc),
                "is NaN" if math.isnan(score) else "is beyond the range of a double (about +/-1.8e308)",
            )
        )


def _why(text):
    """Why a score token is refused, for a message."""
    lowered = text.strip().lower().lstrip("+-")
    if lowered in ("nan", "inf", "infinity"):
        return "is not a finite number; expected a finite number"
    if "_" not in text:
        try:
            float(text)
        except ValueError:
            return "is not a number; expected a number such as 0.5 or 1e-3 (a dot for decimals)"
        except OverflowError:
            pass
        return "is beyond the range of a double (about +/-1.8e308); expected a finite number"
    return "is not a number; expected a number such as 0.5 or 1e-3 (no '_' between digits)"


def _unknown_query(source, line, qid, gold):
    message = "query id %s is not one of the test queries; expected ids like %s" % (
        _quote(source, qid),
        _quote(source, gold.ids[0]),
    )
    return source.whole(message) if line is None else source.at(line, message)


positions = _positions
run_dtype = _run_dtype
