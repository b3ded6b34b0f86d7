"""The generation task's files: plain text (one segment per line) and JSON Lines with ids.

Gold standard
    *Plain text*: line ``i`` holds the reference(s) of segment ``i``.  With
    the setting ``reference_separator`` (e.g. ``"\\t"`` or ``" ||| "``), a line
    holds several references separated by it; without it, one.  Blank lines
    at the end of the file are dropped (an empty reference elsewhere is an
    empty line).  *JSON Lines* (a file named ``*.jsonl``, or ``files.format:
    jsonl``): one object per segment, ``{"id": ..., "references": [...]}`` or
    ``{"id": ..., "reference": "..."}``; the number of references may vary.
Predictions
    *Plain text*: line ``i`` is the hypothesis of segment ``i`` (an empty line
    is an empty hypothesis); exactly as many lines as segments, blank lines
    after the last one are ignored.  *JSON Lines* (``*.jsonl``): ``{"id": ...,
    "hypothesis": "..."}``, one per gold id, in any order (the gold must have ids).

Lines are read by the scoring program's line reader (encoding checks, a
bounded line length); messages name the file and line, never quote a
reference, and quote a participant's id shortened.  With ``ter`` among the
metrics a hypothesis may have at most :data:`MAX_TER_WORDS` words.
"""

from __future__ import annotations

import numpy as np

from ..protocol import GoldData
from ..shared import json_documents
from ..shared.base import UnscoredIds, id_positions
from ..shared.words import counted

__all__ = ["Hypotheses", "is_jsonl", "work_error", "read_gold", "read_predictions", "text_array", "MAX_TER_WORDS"]

#: The longest hypothesis TER is computed for: its shift search costs up to 1,000 beam edit distances
#: of the hypothesis' length (sacrebleu's limits), so a hostile line of a million words would not end.
#: The whole file's work is bounded too (:mod:`.budget`, ``ter.MAX_TER_ROWS``; see :func:`work_error`).
MAX_TER_WORDS = 1000

_HYPOTHESIS_KEYS = ("hypothesis", "prediction", "translation", "output")
_EXAMPLE = '{"id": "segment id", "hypothesis": "the system output"}'
_SHOWN_IDS = 3


def text_array(items):
    """A one-dimensional object array of the given items (strings or tuples of strings)."""
    out = np.empty(len(items), dtype=object)
    for i, item in enumerate(items):
        out[i] = item
    return out


class Hypotheses(np.ndarray):
    """A participant's hypotheses (an object array of strings) with the file (``source``) and the line of
    each segment (``lines``), for a problem found while scoring (the bound on the metrics' work)."""

    source = None
    lines = None

    def __array_finalize__(self, obj):
        self.source, self.lines = getattr(obj, "source", None), getattr(obj, "lines", None)


def work_error(hypotheses, exc):
    """The participant's error once the metrics' work passes its bound (``exc``: :class:`~.budget.WorkExceeded`),
    naming the file and the segment's line when ``hypotheses`` were read from a file (else a ValueError).

    The CPU budget is shown only when the organizer set it (``max_seconds``): the default grows with the
    references' length, which the participant must not learn."""
    if not exc.seconds:
        bound = "needs more than {:,} edit-distance rows of TER's shift search, the scoring program's bound".format(
            exc.limit
        )
    elif exc.given:
        bound = "takes more than %g CPU seconds, the competition's bound on the metrics' work" % exc.limit
    else:
        bound = "takes longer than the scoring program allows for this test set"
    what = (
        "scoring the hypotheses up to this one %s; expected shorter hypotheses, closer to their references "
        "(long hypotheses, and reordered or repeated words, make TER's search and the n-gram counts long)" % bound
    )
    if isinstance(hypotheses, Hypotheses) and hypotheses.source is not None:
        return hypotheses.source.at(hypotheses.lines[exc.segment], what)
    return ValueError("segment %d: %s" % (exc.segment + 1, what))


def is_jsonl(source, fmt):
    """Whether ``source`` is read as JSON Lines: a ``.jsonl`` name, or ``files.format: jsonl`` (``fmt``)."""
    return source.extension == ".jsonl" or fmt == "jsonl"


def _every_line(lines):
    """``(line, text)`` of every line, the blank lines the reader folds into one given back one by one."""
    expected = 1
    for lineno, text in lines:
        while expected < lineno:
            yield expected, ""
            expected += 1
        yield lineno, text
        expected = lineno + 1


def _quoted(text):
    text = str(text)
    text = text if len(text) <= 40 else text[:40] + "..."
    return repr(text).encode("ascii", "backslashreplace").decode("ascii")


_kind = json_documents.kind


def _json_objects(source, lines, expected):
    """``(line, object)`` of each non-blank line, which must hold one JSON object."""
    for lineno, text in lines:
        if not text.strip():
            continue
        try:
            value = json_documents.loads(text)
        except RecursionError:
            raise source.at(lineno, "the JSON is nested too deeply; expected one object per line, %s" % expected)
        except ValueError as exc:
            raise source.at(
                lineno,
                "not valid JSON (%s); expected one object per line, %s" % (getattr(exc, "msg", "error"), expected),
            )
        if not isinstance(value, dict):
            raise source.at(lineno, "holds a JSON %s; expected one object per line, %s" % (_kind(value), expected))
        yield lineno, value


def _ident(source, lineno, value, expected):
    ident = value.get("id")
    if isinstance(ident, bool) or not isinstance(ident, (str, int)):
        raise source.at(lineno, 'needs an "id" (a string or an integer); expected %s' % expected)
    return str(ident)


def _object(source, lineno, value, expected):
    if not isinstance(value, dict):
        raise source.at(lineno, "holds a JSON %s; expected %s" % (_kind(value), expected))
    return value


def _refuse_table_gold(source, fmt, separator):
    """A CSV (or TSV) gold would be read as plain text, its header a reference: refuse it in one sentence.

    A ``.tsv`` file of plain text whose references are separated by tabs (``reference_separator: "\\t"``) is read.
    """
    kind = fmt if fmt in ("csv", "tsv") else None
    kind = kind or {".csv": "csv", ".tsv": "tsv", ".tab": "tsv"}.get(source.extension)
    if kind is None or (kind == "tsv" and separator == "\t"):
        return
    raise source.whole(
        "is named as a %s table, which the generation task does not read (its header would be a reference); "
        "give plain text, one reference per line (e.g. references.txt), JSON Lines (references.jsonl, one "
        '{"id": "segment id", "references": ["...", ...]} per line) or a JSON array of those objects' % kind.upper()
    )


def read_gold(gold, context):
    """The references of every segment (tuples of strings), with their ids in JSON Lines or a JSON array."""
    source, lines = gold.source, gold.lines()
    where, ids, values = [], [], []
    _refuse_table_gold(source, context.format, context.settings.reference_separator)
    json_array = source.extension == ".json" or context.format == "json"
    if json_array or is_jsonl(source, context.format):
        expected = '{"id": "segment id", "references": ["reference", ...]}'
        seen = {}
        if json_array:  # a JSON array of the same objects, read as one document
            text = json_documents.document_text(lines)
            listed = json_documents.members(source, text, "a JSON array of %s" % expected, allow_list=True)
            objects = ((line, _object(source, line, value, expected)) for line, _, value in listed)
        else:
            objects = _json_objects(source, lines, expected)
        for lineno, value in objects:
            ident = _ident(source, lineno, value, expected)
            refs = value.get("references", value.get("reference"))
            if isinstance(refs, str):
                refs = [refs]
            if not isinstance(refs, list) or not refs or any(not isinstance(r, str) for r in refs):
                raise source.at(lineno, 'needs "references": a non-empty list of strings; expected %s' % expected)
            if ident in seen:
                raise source.at(
                    lineno,
                    "segment id %s appears again (first on line %d); each segment id must be unique"
                    % (_quoted(ident), seen[ident]),
                )
            seen[ident] = lineno
            where.append(lineno)
            ids.append(ident)
            values.append(tuple(refs))
        if not values:
            raise source.whole("has no segments; expected one JSON object per line, %s" % expected)
        return GoldData(where, text_array(values), ids=ids)
    separator = context.settings.reference_separator
    for lineno, text in _every_line(lines):
        where.append(lineno)
        values.append(tuple(text.split(separator)) if separator else (text,))
    while values and not any(ref.strip() for ref in values[-1]):
        values.pop()
        where.pop()
    if not values:
        raise source.whole("has no segments; expected one line of reference text per segment")
    counts = set(len(v) for v in values)
    if separator and len(counts) > 1:
        line = next(w for w, v in zip(where, values) if len(v) != len(values[0]))
        raise source.at(
            line,
            "has %d references where line %d has %d (reference_separator splits each line into the "
            "same number of references; use JSON Lines for a varying number)"
            % (len(values[where.index(line)]), where[0], len(values[0])),
        )
    return GoldData(where, text_array(values))


def _structured_line(source, lineno, text):
    """Refuse a first line that is a JSON object or a table header of hypotheses: the file is not plain text.

    Read as text, JSON Lines would be scored as the hypotheses' JSON (BLEU far below the real one), and a
    header ``id,hypothesis`` would be a hypothesis.
    """
    stripped = text.strip()
    if stripped.startswith("{") and stripped.endswith("}"):
        try:
            value = json_documents.loads(stripped)
        except (ValueError, RecursionError):
            return
        if isinstance(value, dict) and any(key in value for key in _HYPOTHESIS_KEYS):
            raise source.at(
                lineno,
                "holds a JSON object with a hypothesis, but this file is read as plain text (one hypothesis per "
                "line, scored as written); write each hypothesis's text alone on its line, or send JSON Lines in "
                "a file named .jsonl",
            )
    fields = [f.strip().strip('"').lower() for f in stripped.replace("\t", ",").split(",")]
    if len(fields) > 1 and any(f in _HYPOTHESIS_KEYS for f in fields) and source.extension in (".csv", ".tsv"):
        raise source.at(
            lineno,
            "is a table header, but hypotheses are read as plain text (one hypothesis per line, in the order of "
            "the test set, no header); write each hypothesis's text alone on its line",
        )


def _read_text(source, lines, n):
    found, where = [], []
    for lineno, text in _every_line(lines):
        if not found:
            _structured_line(source, lineno, text)
        if len(found) == n:
            if text.strip():
                raise source.at(
                    lineno,
                    "more lines than the %d test segments; expected exactly %d lines, one hypothesis per "
                    "segment in the order of the test set" % (n, n),
                )
            continue
        found.append(text)
        where.append(lineno)
    if len(found) < n:
        raise source.whole(
            "has %s, expected %d (one hypothesis per test segment, in order; an empty line is an "
            "empty hypothesis)" % (counted(len(found), "line"), n)
        )
    return found, where


def _read_jsonl(source, lines, gold, context):
    unscored = UnscoredIds(source, context)
    if gold.ids is None:
        raise source.whole(
            "is JSON Lines, but the test set has no segment ids; send plain text, one hypothesis per line in order"
        )
    position = id_positions(gold.ids)
    found = [None] * len(gold.ids)
    where = [0] * len(gold.ids)
    first = {}
    for lineno, value in _json_objects(source, lines, _EXAMPLE):
        error = unscored.count(lineno)
        if error is not None:
            raise error
        ident = _ident(source, lineno, value, _EXAMPLE)
        i = position.get(ident)
        if i is None:
            error = unscored.unknown(
                lineno,
                "segment id %s is not in the test set (ids look like %s); give one hypothesis per test segment"
                % (_quoted(ident), _quoted(gold.ids[0])),
            )
            if error is not None:
                raise error
        if ident in first:
            raise source.at(
                lineno,
                "segment id %s appears again (first on line %d); give one hypothesis per segment"
                % (_quoted(ident), first[ident]),
            )
        key = next((k for k in _HYPOTHESIS_KEYS if k in value), None)
        text = value.get(key) if key else None
        if not isinstance(text, str):
            raise source.at(
                lineno,
                'segment %s needs "hypothesis": a string (an empty string is allowed), got %s; expected %s'
                % (_quoted(ident), "nothing" if key is None else "a JSON " + _kind(text), _EXAMPLE),
            )
        first[ident] = lineno
        if i is None:  # an unscored id (files.unscored_ids: ignore), read and checked
            continue
        found[i] = text
        where[i] = lineno
    missing = [gold.ids[i] for i, v in enumerate(found) if v is None]
    if missing:
        raise unscored.missing(
            "has no hypothesis for %d of the %d test segments (e.g. %s); give one per segment (an empty "
            "string if you have none)"
            % (len(missing), len(gold.ids), ", ".join(_quoted(m) for m in missing[:_SHOWN_IDS]))
        )
    return found, where


def read_predictions(submission, gold, context):
    """A participant's hypotheses, aligned with the gold's segments (an object array of strings)."""
    hypotheses = submission.file()
    source, lines = hypotheses.source, hypotheses.lines()
    if is_jsonl(source, context.format):
        found, where = _read_jsonl(source, lines, gold, context)
    else:
        found, where = _read_text(source, lines, gold.n)
    if any(spec.name == "ter" for spec in context.metrics):
        for text, lineno in zip(found, where):
            if len(text) > MAX_TER_WORDS and len(text.split()) > MAX_TER_WORDS:
                raise source.at(
                    lineno,
                    "the hypothesis has {:,} words; TER (a search over word shifts) is computed for "
                    "hypotheses of at most {:,} words".format(len(text.split()), MAX_TER_WORDS),
                )
    out = text_array(found).view(Hypotheses)
    out.source, out.lines = source, tuple(where)
    return out
