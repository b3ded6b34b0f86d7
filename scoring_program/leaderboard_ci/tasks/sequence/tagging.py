"""Tagging schemes and entity extraction: seqeval's two chunkers, ported for one sentence at a time.

Tags are read once into ``(prefix, type)`` pairs (``O`` is ``("O", "_")``, a
bare ``B`` has type ``_`` as in seqeval) by :class:`TagReader`, which checks
them against the scheme and the mode; :func:`sentence_entities` then gives the
entities ``(type, start, end exclusive)`` of a sentence:

* ``mode: default``: :func:`entities_default`, conlleval's lenient chunking
  (:func:`seqeval.metrics.sequence_labeling.get_entities`); BILOU's ``L``/``U``
  are read as ``E``/``S``;
* ``mode: strict``: :func:`entities_strict`, seqeval's
  :class:`seqeval.scheme.Tokens` with the scheme's start/inside/end patterns.

``tests/test_sequence.py`` compares both with seqeval on random tag sequences.
Standard library only, Python 3.7 syntax.
"""

from __future__ import annotations

__all__ = [
    "SCHEMES",
    "MODES",
    "PREFIXES",
    "STRICT_PREFIXES",
    "TagReader",
    "entities_default",
    "entities_strict",
    "sentence_entities",
    "allowed_prefixes",
    "expected_tags",
]

SCHEMES = ("IOB1", "IOB2", "IOE1", "IOE2", "IOBES", "BILOU")
MODES = ("default", "strict")
#: The prefixes of tag codes, in code order.
PREFIXES = "BIESLU"
_PREFIXES = PREFIXES

# Allowed prefixes per scheme in strict mode (seqeval.scheme.<SCHEME>.allowed_prefix).
STRICT_PREFIXES = {"IOB1": "IB", "IOB2": "IB", "IOE1": "IE", "IOE2": "IE", "IOBES": "IBES", "BILOU": "BILU"}

# seqeval.scheme's patterns: (previous prefixes, current prefixes, tag condition).
_PATTERNS = {
    "IOB1": {
        "start": [("O", "I", "any"), ("I", "I", "diff"), ("B", "I", "any"), ("I", "B", "same"), ("B", "B", "same")],
        "inside": [("B", "I", "same"), ("I", "I", "same")],
        "end": [
            ("I", "I", "diff"),
            ("I", "O", "any"),
            ("I", "B", "any"),
            ("B", "O", "any"),
            ("B", "I", "diff"),
            ("B", "B", "same"),
        ],
    },
    "IOE1": {
        "start": [("O", "I", "any"), ("I", "I", "diff"), ("E", "I", "any"), ("E", "E", "same")],
        "inside": [("I", "I", "same"), ("I", "E", "same")],
        "end": [("I", "I", "diff"), ("I", "O", "any"), ("I", "E", "diff"), ("E", "I", "same"), ("E", "E", "same")],
    },
    "IOB2": {
        "start": [("*", "B", "any")],
        "inside": [("B", "I", "same"), ("I", "I", "same")],
        "end": [
            ("I", "O", "any"),
            ("I", "I", "diff"),
            ("I", "B", "any"),
            ("B", "O", "any"),
            ("B", "I", "diff"),
            ("B", "B", "any"),
        ],
    },
    "IOE2": {
        "start": [
            ("O", "I", "any"),
            ("O", "E", "any"),
            ("E", "I", "any"),
            ("E", "E", "any"),
            ("I", "I", "diff"),
            ("I", "E", "diff"),
        ],
        "inside": [("I", "E", "same"), ("I", "I", "same")],
        "end": [("E", "*", "any")],
    },
    "IOBES": {
        "start": [("*", "B", "any"), ("*", "S", "any")],
        "inside": [("B", "I", "same"), ("B", "E", "same"), ("I", "I", "same"), ("I", "E", "same")],
        "end": [("S", "*", "any"), ("E", "*", "any")],
    },
    "BILOU": {
        "start": [("*", "B", "any"), ("*", "U", "any")],
        "inside": [("B", "I", "same"), ("B", "L", "same"), ("I", "I", "same"), ("I", "L", "same")],
        "end": [("U", "*", "any"), ("L", "*", "any")],
    },
}
_SAME, _DIFF = 1, 2


def _pattern_tables():
    """``{scheme: {kind: {(prev prefix, prefix): bits}}}``; bit 1: same type matches, bit 2: another type."""
    every = "IOBESLU"
    bits = {"same": _SAME, "diff": _DIFF, "any": _SAME | _DIFF}
    tables = {}
    for scheme, kinds in _PATTERNS.items():
        tables[scheme] = {}
        for kind, patterns in kinds.items():
            table = {}
            for prev, cur, cond in patterns:
                for p in every if prev == "*" else prev:
                    for c in every if cur == "*" else cur:
                        table[(p, c)] = table.get((p, c), 0) | bits[cond]
            tables[scheme][kind] = table
    return tables


_TABLES = _pattern_tables()


# ---------------------------------------------------------------------------
# Entity extraction (one sentence of (prefix, type) pairs; "O" is ("O", "_"))
# ---------------------------------------------------------------------------
def entities_strict(tags, scheme):
    """Entities ``(type, start, end exclusive)`` of one sentence, as seqeval's strict mode finds them.

    ``tags`` are ``(prefix, type)`` pairs whose prefixes the scheme allows
    (``("O", "_")`` for ``O``).  A port of :class:`seqeval.scheme.Tokens`.
    """
    table = _TABLES[scheme]
    start_t, inside_t, end_t = table["start"], table["inside"], table["end"]
    ext = list(tags) + [("O", "_")]

    def match(kind_table, prev, cur):
        found = kind_table.get((prev[0], cur[0]), 0)
        return bool(found & (_SAME if prev[1] == cur[1] else _DIFF))

    entities = []
    i = 0
    prev = ("O", "_")
    n = len(ext)
    while i < n:
        token = ext[i]
        if match(start_t, prev, token):
            end = len(tags) - 1
            last = token
            for j in range(i + 1, n):
                if match(inside_t, last, ext[j]):
                    last = ext[j]
                else:
                    end = j
                    break
            if match(end_t, ext[end - 1], ext[end]):
                entities.append((token[1], i, end))
            i = end
        else:
            i += 1
        prev = ext[i - 1]
    return entities


def entities_default(tags):
    """Entities ``(type, start, end exclusive)`` of one sentence by conlleval's lenient chunking.

    A port of :func:`seqeval.metrics.sequence_labeling.get_entities` for
    ``(prefix, type)`` pairs with prefixes ``O``, ``B``, ``I``, ``E``, ``S``.
    """
    prev_tag, prev_type = "O", ""
    begin = 0
    chunks = []
    for i, (tag, type_) in enumerate(list(tags) + [("O", "_")]):
        end = prev_tag in "ES" or (prev_tag in "BI" and tag in "BSO") or (prev_tag != "O" and prev_type != type_)
        if end:
            chunks.append((prev_type, begin, i))
        start = tag in "BS" or (prev_tag in "ESO" and tag in "EI") or (tag != "O" and prev_type != type_)
        if start:
            begin = i
        prev_tag, prev_type = tag, type_
    return chunks


# ---------------------------------------------------------------------------
# Tags
# ---------------------------------------------------------------------------
def expected_tags(settings):
    prefixes = allowed_prefixes(settings)
    return "O or a tag %s followed by an entity type (e.g. %s-PER)" % (
        "/".join("%s-" % p for p in prefixes),
        prefixes[0],
    )


def allowed_prefixes(settings):
    if settings.mode == "strict":
        return STRICT_PREFIXES[settings.scheme]
    return "BIESLU" if settings.scheme == "BILOU" else "BIES"


class TagReader(object):
    """Checks tags and turns them into ``(prefix, type)`` pairs (cached per distinct tag)."""

    def __init__(self, source, settings):
        self.source = source
        self.settings = settings
        self.allowed = allowed_prefixes(settings)
        self.cache = {"O": ("O", "_")}

    def __call__(self, line, tag):
        found = self.cache.get(tag)
        if found is not None:
            return found
        prefix, type_ = tag[:1], None
        if len(tag) == 1 and prefix in _PREFIXES:
            type_ = "_"
        elif len(tag) > 2 and tag[1] == "-" and prefix in _PREFIXES:
            type_ = tag[2:]
            if type_.startswith("-") or type_.endswith("-"):
                type_ = None
        if type_ is None or prefix not in self.allowed:
            raise self._bad(line, tag, prefix)
        found = (prefix, type_)
        self.cache[tag] = found
        return found

    def _bad(self, line, tag, prefix):
        settings = self.settings
        shown = "tag %r" % (tag if len(tag) <= 40 else tag[:40] + "...") if self.source.may_quote else "the tag"
        if prefix in _PREFIXES and (len(tag) == 1 or tag[1:2] == "-") and prefix not in self.allowed:
            if settings.mode == "strict":
                return self.source.at(
                    line,
                    "%s breaks scheme %s (strict mode allows only %s); expected %s"
                    % (shown, settings.scheme, ", ".join(self.allowed + "O"), expected_tags(settings)),
                )
            which = "prefix %s" % prefix if self.source.may_quote else "a prefix"
            return self.source.at(
                line,
                "%s has %s, which scheme %s does not use; expected %s"
                % (shown, which, settings.scheme, expected_tags(settings)),
            )
        return self.source.at(
            line, "%s is not a tag of scheme %s; expected %s" % (shown, settings.scheme, expected_tags(settings))
        )


def sentence_entities(pairs, settings):
    if settings.mode == "strict":
        return entities_strict(pairs, settings.scheme)
    if settings.scheme == "BILOU":
        pairs = [(("E" if p == "L" else "S" if p == "U" else p), t) for p, t in pairs]
    return entities_default(pairs)
