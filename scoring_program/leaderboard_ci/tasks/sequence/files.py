"""Sentences of tags from CoNLL files and JSON Lines, for the sequence task's readers.

* CoNLL: one token per line, its tag in the last column (any whitespace
  between columns), a blank line between sentences; a ``-DOCSTART-`` line
  starts a new document (numbered 0, 1, ...).
* JSON Lines: one object per sentence, ``{"id": ..., "tags": [...]}``, with
  optional ``"tokens"`` (ignored) and ``"document"`` (for ``unit: document``).

Every problem is one sentence naming the file and line (``source.at``).
Standard library only, Python 3.7 syntax.
"""

from __future__ import annotations

from ..shared import json_documents
from ..shared.base import UnscoredIds

__all__ = ["DOCSTART", "Sentence", "read_sentences", "align_ids", "quoted", "type_list", "Memory", "memory_units"]

DOCSTART = "-DOCSTART-"
_LISTED = 12


class Sentence(object):
    __slots__ = ("line", "tags", "tag_lines", "ident", "document")

    def __init__(self, line, tags, tag_lines, ident=None, document=None):
        self.line = line
        self.tags = tags
        self.tag_lines = tag_lines
        self.ident = ident
        self.document = document


def _is_jsonl(source, first_text, fmt):
    if fmt == "jsonl" or fmt == "json":
        return True
    if fmt not in (None, "auto"):
        return False
    if source.extension in (".jsonl", ".ndjson", ".json"):
        return True
    return first_text is not None and first_text.lstrip().startswith("{")


def read_sentences(source, lines, fmt):
    """``(sentences, format)`` of a file; CoNLL documents are numbered by their ``-DOCSTART-`` lines."""
    lines = iter(lines)
    first = None
    for first in lines:
        if first[1].strip():
            break
    else:
        raise source.whole(
            "is empty; expected one token per line with its tag in the last column "
            '(CoNLL), or JSON Lines with a "tags" list per sentence'
        )

    def chained():
        yield first
        for item in lines:
            yield item

    if _is_jsonl(source, first[1], fmt):
        return _jsonl_sentences(source, chained()), "jsonl"
    if source.extension == ".csv" and "," in first[1]:
        raise source.at(
            first[0],
            "is a CSV file (its fields separated by commas), which sequence labelling does not read; give CoNLL "
            "(one token per line, its tag in the last column, separated by spaces or tabs) or JSON Lines "
            '({"id": ..., "tags": [...]} per sentence)',
        )
    return _conll_sentences(source, chained()), "conll"


def _conll_sentences(source, lines):
    sentences = []
    tags, tag_lines, start = [], [], None
    document = 0
    seen_docstart = False
    for lineno, text in lines:
        fields = text.split()
        if not fields:
            if tags:
                sentences.append(Sentence(start, tags, tag_lines, document=document))
                tags, tag_lines, start = [], [], None
            continue
        if fields[0] == DOCSTART:
            if tags:
                sentences.append(Sentence(start, tags, tag_lines, document=document))
                tags, tag_lines, start = [], [], None
            if seen_docstart or sentences:
                document += 1
            seen_docstart = True
            continue
        if start is None:
            start = lineno
        tags.append(fields[-1])
        tag_lines.append(lineno)
    if tags:
        sentences.append(Sentence(start, tags, tag_lines, document=document))
    return sentences


def _jsonl_sentences(source, lines):
    sentences = []
    for lineno, text in lines:
        if not text.strip():
            continue
        try:
            record = json_documents.loads(text)
        except RecursionError:
            raise source.at(
                lineno, 'the JSON is nested too deeply; expected an object like {"id": "s1", "tags": ["B-PER", "O"]}'
            )
        except ValueError as exc:
            raise source.at(
                lineno,
                "not valid JSON (%s); expected one object per line like "
                '{"id": "s1", "tags": ["B-PER", "O"]}' % getattr(exc, "msg", "error"),
            )
        if not isinstance(record, dict):
            raise source.at(
                lineno,
                'expected a JSON object like {"id": "s1", "tags": ["B-PER", "O"]}, '
                "found a JSON %s"
                % type(record).__name__.replace("str", "string").replace("dict", "object").replace("NoneType", "null"),
            )
        tags = record.get("tags")
        if tags is None:
            raise source.at(lineno, 'the object has no "tags" key; expected {"id": ..., "tags": [...]}')
        if not isinstance(tags, list) or any(not isinstance(t, str) for t in tags):
            raise source.at(lineno, '"tags" must be a list of strings (one tag per token)')
        if not tags:
            raise source.at(lineno, '"tags" is empty; a sentence has at least one token')
        ident = record.get("id")
        if ident is not None:
            if isinstance(ident, bool) or not isinstance(ident, (str, int)):
                raise source.at(lineno, '"id" must be a string or an integer')
            ident = str(ident)
        document = record.get("document")
        if document is not None and (isinstance(document, bool) or not isinstance(document, (str, int))):
            raise source.at(lineno, '"document" must be a string or an integer')
        sentences.append(
            Sentence(
                lineno,
                [t.strip() for t in tags],
                [lineno] * len(tags),
                ident,
                None if document is None else str(document),
            )
        )
    return sentences


def quoted(source, text):
    return repr(text if len(text) <= 40 else text[:40] + "...")


def type_list(types):
    shown = ", ".join(types[:_LISTED])
    if len(types) > _LISTED:
        shown += " and %d more" % (len(types) - _LISTED)
    return "entity types: %s" % shown


def align_ids(source, sentences, idents, context):
    """``(sentences in gold order, dropped)``: an id the gold lacks is refused, or with ``files.unscored_ids:
    ignore`` its sentence is dropped (returned apart, for the caller to check its tags)."""
    unscored = UnscoredIds(source, context)
    position = dict((ident, i) for i, ident in enumerate(idents))
    placed = [None] * len(idents)
    dropped = []
    first = {}
    for s in sentences:
        error = unscored.count(s.line)
        if error is not None:
            raise error
        if s.ident in first:
            raise source.at(
                s.line,
                "id %s appears again (first on line %d); give one line per sentence"
                % (quoted(source, s.ident), first[s.ident]),
            )
        first[s.ident] = s.line
        i = position.get(s.ident)
        if i is None:
            error = unscored.unknown(
                s.line,
                "id %s is not a test sentence id (e.g. %s)" % (quoted(source, s.ident), quoted(source, idents[0])),
            )
            if error is None:
                dropped.append(s)
                continue
            raise error
        placed[i] = s
    missing = [idents[i] for i, s in enumerate(placed) if s is None]
    if missing:
        raise unscored.missing(
            "is missing %d of the %d test sentence ids (e.g. %s); give one line per sentence"
            % (len(missing), len(idents), ", ".join(quoted(source, m) for m in missing[:3]))
        )
    return placed, dropped


class Memory(object):
    """A stand-in Source for in-memory values: messages name the system and sentence."""

    may_quote = True
    extension = ""

    def __init__(self, name):
        self.name = name

    def at(self, line, message):
        return ValueError("%s, sentence %d: %s" % (self.name, line, message))

    def whole(self, message):
        return ValueError("%s %s" % (self.name, message))


def memory_units(values, name):
    """Units given in memory: each a sentence (list of tags) or a document (list of sentences)."""
    units = []
    for _u, unit in enumerate(values):
        unit = list(unit)
        if unit and isinstance(unit[0], (list, tuple)):
            units.append([[str(t) for t in sentence] for sentence in unit])
        else:
            units.append([[str(t) for t in unit]])
    return units
