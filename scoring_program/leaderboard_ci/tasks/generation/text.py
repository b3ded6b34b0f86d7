"""Text processing of the generation task: sacrebleu's tokenizers, jiwer's transforms, edit distances.

Written from the definitions of sacrebleu 2.6 (``sacrebleu/tokenizers``) and
jiwer 4 (``jiwer/transformations.py``), in the standard library only (the
scoring program runs in Codabench's Python 3.7 image, without ``regex``):

* ``13a``: mteval-v13a's tokenization as sacrebleu writes it: ``<skipped>``
  removed, ``-`` + line end joined, line ends as spaces, four HTML entities
  (``&quot; &amp; &lt; &gt;``) decoded, then the line padded with a space on
  each side and split by four rules: the ASCII symbols and punctuation other
  than ``' , - .`` (and the space) get spaces around them; ``.`` and ``,`` are
  split from a preceding and from a following non-digit; a ``-`` after a digit
  is split off.  Whitespace is then collapsed.
* ``intl``: mteval-v14's international tokenization: a punctuation character
  (Unicode category P*) is split from a preceding non-number and from a
  following non-number (category N*), a symbol (S*) always.  The categories
  come from :mod:`unicodedata` (sacrebleu uses the ``regex`` module's; the two
  agree wherever their Unicode versions do).
* ``zh``: spaces around every character of sacrebleu's CJK ranges, then the
  13a rules.  sacrebleu writes two of its ranges with five-digit ``\\u``
  escapes (``\\u20000``, ``\\u2f800``), which Python reads as a character and a
  digit; compared as strings they select U+2001..U+2A6D and U+2F81..U+2FA1,
  and that is what is written here (so general punctuation such as ``—`` and
  ``…`` is split, as sacrebleu splits it).
* ``char``: every character separated by a space; ``none``: the text as given.

Edit distances are Levenshtein distances (unit costs) by the bit-parallel
algorithm of Myers (1999) in Hyyrö's formulation, on Python integers used as
bit vectors: a segment of ``m`` reference tokens costs ``len(hypothesis)``
big-integer steps.
"""

from __future__ import annotations

import re
import sys
import unicodedata
from collections import Counter

__all__ = [
    "TOKENIZERS",
    "tokenizer",
    "tokenize_13a",
    "tokenize_intl",
    "tokenize_zh",
    "tokenize_char",
    "word_ngrams",
    "char_ngrams",
    "chrf_words",
    "edit_distance",
    "jiwer_words",
    "jiwer_chars",
]

TOKENIZERS = ("13a", "intl", "zh", "char", "none")

# 13a: the ASCII characters that always get spaces around them: { | } ~, [ \ ] ^ _ `, space ! " # $ % &,
# ( ) * +, : ; < = > ? @ and /.  Not split by this rule: ' , - . and letters and digits.
_ASCII_SPLIT = "".join(
    re.escape(chr(c))
    for c in list(range(0x7B, 0x7F))
    + list(range(0x5B, 0x61))
    + list(range(0x20, 0x27))
    + list(range(0x28, 0x2C))
    + list(range(0x3A, 0x41))
    + [0x2F]
)
_RULES_13A = (
    (re.compile("([%s])" % _ASCII_SPLIT), r" \1 "),
    (re.compile(r"([^0-9])([.,])"), r"\1 \2 "),
    (re.compile(r"([.,])([^0-9])"), r" \1 \2"),
    (re.compile(r"([0-9])(-)"), r"\1 \2 "),
)
_ENTITIES = (("&quot;", '"'), ("&amp;", "&"), ("&lt;", "<"), ("&gt;", ">"))


def _split_13a(line):
    for pattern, replacement in _RULES_13A:
        line = pattern.sub(replacement, line)
    return " ".join(line.split())


def tokenize_13a(line):
    """sacrebleu's ``13a`` tokenization of one segment."""
    line = line.replace("<skipped>", "").replace("-\n", "").replace("\n", " ")
    if "&" in line:
        for entity, char in _ENTITIES:
            line = line.replace(entity, char)
    return _split_13a(" %s " % line)


# zh: sacrebleu's CJK ranges, as its string comparisons select them (see the module's docstring).
_ZH_RANGES = (
    (0x3400, 0x4DB5),
    (0x4E00, 0x9FBB),
    (0xF900, 0xFA2D),
    (0xFA30, 0xFA6A),
    (0xFA70, 0xFAD9),
    (0x2001, 0x2A6D),
    (0x2F81, 0x2FA1),
    (0xFF00, 0xFFEF),
    (0x2E80, 0x2EFF),
    (0x3000, 0x303F),
    (0x31C0, 0x31EF),
    (0x2F00, 0x2FDF),
    (0x2FF0, 0x2FFF),
    (0x3100, 0x312F),
    (0x31A0, 0x31BF),
    (0xFE10, 0xFE1F),
    (0xFE30, 0xFE4F),
    (0x2600, 0x26FF),
    (0x2700, 0x27BF),
    (0x3200, 0x32FF),
    (0x3300, 0x33FF),
)
_ZH = re.compile("([%s])" % "".join("%s-%s" % (re.escape(chr(a)), re.escape(chr(b))) for a, b in _ZH_RANGES))


def tokenize_zh(line):
    """sacrebleu's ``zh`` tokenization: CJK characters split apart, the rest as ``13a``'s rules split it."""
    return _split_13a(_ZH.sub(r" \1 ", line.strip()))


_INTL = {}


def _category_class(prefix):
    """A regular-expression class body of every code point whose Unicode category starts with ``prefix``."""
    ranges = []
    start = None
    for code in range(sys.maxunicode + 2):
        inside = code <= sys.maxunicode and unicodedata.category(chr(code)).startswith(prefix)
        if inside and start is None:
            start = code
        elif not inside and start is not None:
            ranges.append((start, code - 1))
            start = None
    return "".join(re.escape(chr(a)) if a == b else "%s-%s" % (re.escape(chr(a)), re.escape(chr(b))) for a, b in ranges)


def _intl_rules():
    if not _INTL:
        p, n, s = _category_class("P"), _category_class("N"), _category_class("S")
        _INTL["rules"] = (
            (re.compile("([^%s])([%s])" % (n, p)), r"\1 \2 "),
            (re.compile("([%s])([^%s])" % (p, n)), r" \1 \2"),
            (re.compile("([%s])" % s), r" \1 "),
        )
    return _INTL["rules"]


def tokenize_intl(line):
    """sacrebleu's ``intl`` tokenization (mteval-v14 ``--international-tokenization``)."""
    for pattern, replacement in _intl_rules():
        line = pattern.sub(replacement, line)
    return " ".join(line.split())


def tokenize_char(line):
    """sacrebleu's ``char`` tokenization: the characters separated by spaces."""
    return " ".join(line)


def _identity(line):
    return line


_TOKENIZE = {"13a": tokenize_13a, "intl": tokenize_intl, "zh": tokenize_zh, "char": tokenize_char, "none": _identity}


def tokenizer(name):
    """The tokenizer ``name`` (one of :data:`TOKENIZERS`) as a function of a string."""
    if name not in _TOKENIZE:
        raise ValueError("tokenize must be one of: %s, got %r" % (", ".join(TOKENIZERS), name))
    return _TOKENIZE[name]


# ---------------------------------------------------------------------------
# n-grams
# ---------------------------------------------------------------------------
def word_ngrams(tokens, n):
    """``{n-gram: count}`` of the word n-grams of order ``n`` of a token list (a Counter of tuples).

    Counted by ``Counter`` over ``zip`` of shifted lists, in C: 2x (Python 3.11) to 5x (3.7) a loop of slices.
    """
    return Counter(zip(*[tokens[k:] for k in range(n)]))


def char_ngrams(text, n):
    """``{n-gram: count}`` of the character n-grams of order ``n`` of a string."""
    counts = {}
    for i in range(len(text) - n + 1):
        gram = text[i : i + n]
        counts[gram] = counts.get(gram, 0) + 1
    return counts


_PUNCTUATION = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")


def chrf_words(text):
    """chrF++'s words: split on whitespace, one ASCII punctuation mark split off the end (else the start)."""
    words = []
    for word in text.split():
        if len(word) > 1 and word[-1] in _PUNCTUATION:
            words.extend((word[:-1], word[-1]))
        elif len(word) > 1 and word[0] in _PUNCTUATION:
            words.extend((word[0], word[1:]))
        else:
            words.append(word)
    return words


# ---------------------------------------------------------------------------
# Edit distance and jiwer's default transforms
# ---------------------------------------------------------------------------
def edit_distance(reference, hypothesis):
    """Levenshtein distance between two sequences of hashable tokens (bit-parallel, Myers/Hyyrö)."""
    m = len(reference)
    if m == 0:
        return len(hypothesis)
    if not hypothesis:
        return m
    masks = {}
    for i, token in enumerate(reference):
        masks[token] = masks.get(token, 0) | (1 << i)
    full = (1 << m) - 1
    top = 1 << (m - 1)
    vp, vn, score = full, 0, m
    for token in hypothesis:
        eq = masks.get(token, 0)
        xv = eq | vn
        xh = (((eq & vp) + vp) ^ vp) | eq
        hp = vn | ~(xh | vp)
        hn = vp & xh
        if hp & top:
            score += 1
        elif hn & top:
            score -= 1
        hp = (hp << 1) | 1
        hn = hn << 1
        vp = (hn | ~(xv | hp)) & full
        vn = hp & xv & full
    return score


_SPACES = re.compile(r"\s\s+")


def jiwer_words(text):
    """jiwer's ``wer_default``: runs of whitespace as one space, stripped, split on spaces."""
    return [word for word in _SPACES.sub(" ", text).strip().split(" ") if word]


def jiwer_chars(text):
    """jiwer's ``cer_default``: stripped, then its characters (spaces included)."""
    return list(text.strip())
