"""Translation edit rate (TER) with shifts, as sacrebleu 2.6 computes it (``sacrebleu/metrics/lib_ter.py``).

Tercom's greedy algorithm: while some shift of a block of hypothesis words
lowers the edit distance to the reference, apply the best one (most edits
saved, then the longest block, the earliest block, the earliest target); the
TER of a segment is the shifts made plus the final edit distance.  The
heuristics that bound the search are tercom's and sacrebleu's: blocks of at
most 10 words that match the reference at most 50 positions away, not already
aligned, and at most 1,000 candidate shifts per segment (the search stops,
dropping the last round's shift, when they are used up).  The edit distance is
a beam search around the diagonal (width 25, widened when the reference is
much longer), whose trace of operations gives the alignment the candidate
shifts are chosen from.  Ties between operations go substitution or match,
then deletion, then insertion, as sacrebleu's.

How it is computed here (same numbers, same ties): words become integer ids;
a round's blocks are found with numpy from the matching word pairs within 50
positions (already in tercom's order), and the round's candidate shifts are
listed first (they do not depend on the distances), then their edit distances
computed together by :mod:`.ter_beam`, each only from the row where it differs
from the current hypothesis until its rows run parallel to the current ones.
sacrebleu bounds a segment's search by its 1,000 candidates and caches rows
by prefix; it has no bound on a file.  Ours counts the rows computed over a
file (plus the hypothesis' length for each round's alignment) and stops past
:data:`MAX_TER_ROWS` with :class:`~.budget.WorkExceeded` naming the segment (as
it stops once the file's CPU budget, :class:`~.budget.WorkBudget`, is spent); the
reader turns it into the participant's sentence with the file and line.
Segments whose two sides both have at most :data:`.ter_short.SHORT_WORDS` words
take :mod:`.ter_short`'s word-by-word search instead, which is faster there
(the numpy calls cost more than the search on sentence-length segments); it
counts its rows toward the same bound.

The text goes through sacrebleu's ``TercomTokenizer`` rules (:func:`tercom_words`):
lower-cased unless ``case_sensitive``; with ``normalized``, tercom's
normalization (XML entities, punctuation split off, possessives, periods and
commas unless next to a digit; with ``asian_support`` also CJK characters
split one by one); with ``no_punct``, ASCII punctuation removed (with
``asian_support`` also CJK and full-width punctuation); then split on
whitespace.  With several references a segment's statistics are the fewest
edits over them and the mean of their lengths.
"""

from __future__ import annotations

import re

import numpy as np

from .budget import WorkBudget, WorkExceeded
from .ter_beam import HYP, MATCH, SUB, Band, distance_of, full_rows, shifted_distances, shifted_rows, trace_of
from .ter_short import SHORT_WORDS, short_segment_ter

__all__ = ["MAX_TER_ROWS", "segment_ter", "ter_statistics", "tercom_words"]

_MAX_SHIFT_SIZE = 10
_MAX_SHIFT_DIST = 50
_MAX_CANDIDATES = 1000

#: The most edit-distance rows TER's shift searches may compute for one file (a row: one hypothesis word
#: against the beam of about 50 reference words; each round of a search also counts the hypothesis' length
#: for its alignment and blocks): 10^8, a few minutes of one core at most.
MAX_TER_ROWS = 10**8


def _alignment(trace, n, m):
    """``(align, ref_err, hyp_err)`` of a trace: each reference word's hypothesis position (the last
    hypothesis word before it when it has none; -1 before the first) and the error flags of both sides."""
    align = np.empty(m, dtype=np.int64)
    ref_err = np.zeros(m, dtype=np.int64)
    hyp_err = np.zeros(n, dtype=np.int64)
    h = r = -1
    for op in trace:
        if op == MATCH or op == SUB:
            h += 1
            r += 1
            align[r] = h
            ref_err[r] = hyp_err[h] = op == SUB
        elif op == HYP:  # a hypothesis word with no reference word
            h += 1
            hyp_err[h] = 1
        else:  # a reference word with no hypothesis word
            r += 1
            align[r] = h
            ref_err[r] = 1
    return align, ref_err, hyp_err


def _blocks(hyp, ref, align, ref_err, hyp_err):
    """``(hyp start, ref start, length)`` of every block worth moving, in tercom's order (hypothesis start,
    reference start, length): equal words in both, at most 10 long, starts at most 50 apart, with an error
    on both sides and not already aligned inside itself."""
    n, m = len(hyp), len(ref)
    offsets = np.arange(-_MAX_SHIFT_DIST, _MAX_SHIFT_DIST + 1)
    start_r = np.arange(n)[:, None] + offsets[None, :]
    valid = (start_r >= 0) & (start_r < m)
    equal = valid & (hyp[:, None] == ref[np.clip(start_r, 0, max(m - 1, 0))])
    runs = equal.astype(np.int64)  # the common run from (start_h, start_r), at most 10 words
    chain = equal
    for k in range(1, _MAX_SHIFT_SIZE):
        chain = chain[:-1] & equal[k:]
        if not chain.any():
            break
        runs[: n - k] += chain
    starts_h, columns = np.nonzero(equal)  # by hypothesis start, then reference start
    starts_r = starts_h + offsets[columns]
    runs = runs[starts_h, columns]
    # one row per (start, length 1..run), in that order
    starts_h, starts_r = np.repeat(starts_h, runs), np.repeat(starts_r, runs)
    lengths = np.arange(starts_h.size) - np.repeat(np.cumsum(runs) - runs, runs) + 1
    hyp_sums = np.concatenate([[0], np.cumsum(hyp_err)])
    ref_sums = np.concatenate([[0], np.cumsum(ref_err)])
    target = align[starts_r]
    keep = (hyp_sums[starts_h + lengths] > hyp_sums[starts_h]) & (ref_sums[starts_r + lengths] > ref_sums[starts_r])
    keep &= (target < starts_h) | (target >= starts_h + lengths)
    return np.stack([starts_h[keep], starts_r[keep], lengths[keep]], axis=1)


def _moved(words, start, length, target):
    """``words`` with ``words[start:start + length]`` moved before position ``target`` (tercom's shift)."""
    block = words[start : start + length]
    if target < start:
        parts = (words[:target], block, words[target:start], words[start + length :])
    elif target > start + length:
        parts = (words[:start], words[start + length : target], block, words[target:])
    else:
        parts = (words[:start], words[start + length : length + target], block, words[length + target :])
    return np.concatenate(parts)


def _shifts(blocks, align, checked):
    """``(shifts, checked)``: ``(start, length, target)`` of every candidate shift of the blocks, stopping
    after the block that brings the candidates checked in this segment to 1,000."""
    align = align.tolist()
    shifts = []
    for start_h, start_r, length in blocks.tolist():
        last = -1
        for offset in range(-1, length):
            target = 0 if start_r + offset == -1 else align[start_r + offset] + 1
            if target != last:
                last = target
                shifts.append((start_h, length, target))
                checked += 1
        if checked >= _MAX_CANDIDATES:
            break
    return shifts, checked


class _Search(object):
    """Tercom's greedy shift search for one segment (word ids), counting the edit-distance rows computed."""

    def __init__(self, hyp, ref):
        self.hyp, self.ref = hyp, ref
        self.band = Band(len(hyp), ref)
        self.cost, self.ops = full_rows(self.band, hyp)
        self.rows = len(hyp)

    def best_shift(self, checked):
        """``(edits saved, shifted words, checked)`` of the best shift (saved 0: none)."""
        n, m = len(self.hyp), len(self.ref)
        align, ref_err, hyp_err = _alignment(trace_of(self.band, self.ops), n, m)
        self.rows += n
        shifts, checked = _shifts(_blocks(self.hyp, self.ref, align, ref_err, hyp_err), align, checked)
        if not shifts:
            return 0, None, checked
        candidates = np.stack([_moved(self.hyp, *shift) for shift in shifts])
        distances, rows = shifted_distances(self.band, self.hyp, self.cost, candidates)
        self.rows += rows
        saved = distance_of(self.band, self.cost) - distances
        best = max(range(len(shifts)), key=lambda k: (saved[k], shifts[k][1], -shifts[k][0], -shifts[k][2], -k))
        return int(saved[best]), candidates[best], checked

    def apply(self, shifted):
        _, self.cost, self.ops, rows = shifted_rows(self.band, self.hyp, self.cost, self.ops, shifted)
        self.rows += rows
        self.hyp = shifted


def _segment_search(hyp, ref):
    """``(edits, reference length, rows computed)`` of word-id arrays ``hyp`` and ``ref``."""
    if not len(ref):
        return len(hyp), 0, 0
    search = _Search(hyp, ref)
    shifts = checked = 0
    while True:
        saved, shifted, checked = search.best_shift(checked)
        if checked >= _MAX_CANDIDATES or saved <= 0:
            break
        shifts += 1
        search.apply(shifted)
    return shifts + distance_of(search.band, search.cost), len(ref), search.rows


def _ids(vocabulary, words):
    return np.array([vocabulary.setdefault(w, len(vocabulary)) for w in words], dtype=np.int64)


def segment_ter(hyp, ref):
    """``(edits, reference length)`` of tokenized ``hyp`` against tokenized ``ref`` (shifts count one each)."""
    vocabulary = {}
    edits, length, _ = _segment_search(_ids(vocabulary, hyp), _ids(vocabulary, ref))
    return edits, length


# Tercom's normalization as sacrebleu 2.6 writes it (``sacrebleu/tokenizers/tokenizer_ter.py``), rule by rule.
_WESTERN = (
    (re.compile(r"\n-"), ""),  # end-of-line hyphenation
    (re.compile(r"\n"), " "),
    (re.compile(r"&quot;"), '"'),
    (re.compile(r"&amp;"), "&"),
    (re.compile(r"&lt;"), "<"),
    (re.compile(r"&gt;"), ">"),
)
_WESTERN_PADDED = (
    (re.compile(r"([{-~[-` -&(-+:-@/])"), r" \1 "),  # ASCII punctuation and symbols, but ' , - .
    (re.compile(r"'s "), r" 's "),
    (re.compile(r"'s$"), r" 's"),
    (re.compile(r"([^0-9])([\.,])"), r"\1 \2 "),
    (re.compile(r"([\.,])([^0-9])"), r" \1 \2"),
    (re.compile(r"([0-9])(-)"), r"\1 \2 "),
)
_CJK_PUNCT = r"([\u3001\u3002\u3008-\u3011\u3014-\u301f\uff61-\uff65\u30fb])"
_FULL_WIDTH_PUNCT = r"([\uff0e\uff0c\uff1f\uff1a\uff1b\uff01\uff02\uff08\uff09])"
_ASIAN = (
    tuple(
        (re.compile(pattern), r" \1 ")
        for pattern in (
            r"([\u4e00-\u9fff\u3400-\u4dbf])",
            r"([\u31c0-\u31ef\u2e80-\u2eff])",
            r"([\u3300-\u33ff\uf900-\ufaff\ufe30-\ufe4f])",
            r"([\u3200-\u3f22])",
        )
    )
    + tuple(
        # kana runs, written as sacrebleu writes them (in effect: a whole line of one script)
        (re.compile(r"(^|^[%s])([%s]+)(?=$|^[%s])" % (block, block, block)), r"\1 \2 ")
        for block in ("\u3040-\u309f", "\u30a0-\u30ff", "\u31f0-\u31ff")
    )
    + ((re.compile(_CJK_PUNCT), r" \1 "), (re.compile(_FULL_WIDTH_PUNCT), r" \1 "))
)
_PUNCT = re.compile(r"[\.,\?:;!\"\(\)]")
_ASIAN_PUNCT = (re.compile(_CJK_PUNCT), re.compile(_FULL_WIDTH_PUNCT))


def tercom_words(text, case_sensitive=False, normalized=False, no_punct=False, asian_support=False):
    """sacrebleu's ``TercomTokenizer(normalized, no_punct, asian_support, case_sensitive)``, split into words."""
    if not text:
        return []
    if not case_sensitive:
        text = text.lower()
    if normalized:
        for pattern, replacement in _WESTERN:
            text = pattern.sub(replacement, text)
        text = " %s " % text
        for pattern, replacement in _WESTERN_PADDED:
            text = pattern.sub(replacement, text)
        if asian_support:
            for pattern, replacement in _ASIAN:
                text = pattern.sub(replacement, text)
    if no_punct:
        text = _PUNCT.sub("", text)
        if asian_support:
            for pattern in _ASIAN_PUNCT:
                text = pattern.sub("", text)
    return text.split()


def ter_statistics(hypotheses, references, options, max_rows=MAX_TER_ROWS, budget=None):
    """``(n, 2)`` float64 ``[fewest edits over the references, mean reference length]`` per segment.

    Raises :class:`~.budget.WorkExceeded` (naming the segment) once the shift searches have computed more
    than ``max_rows`` edit-distance rows in all (None: no bound), or spent ``budget`` (a
    :class:`~.budget.WorkBudget`; each row is a unit of work; None: no bound).
    """
    budget = budget if budget is not None else WorkBudget()
    flags = dict(
        (name, bool(options.get(name, False))) for name in ("case_sensitive", "normalized", "no_punct", "asian_support")
    )
    out = np.zeros((len(hypotheses), 2), dtype=np.float64)
    rows = 0
    for i, (hypothesis, refs) in enumerate(zip(hypotheses, references)):
        vocabulary = {}
        hyp_words = tercom_words(hypothesis.rstrip(), **flags)
        hyp = _ids(vocabulary, hyp_words)
        best, total = None, 0
        for ref in refs:
            ref_words = tercom_words(ref.rstrip(), **flags)
            if len(hyp_words) <= SHORT_WORDS and len(ref_words) <= SHORT_WORDS:  # faster word by word
                edits, length, work = short_segment_ter(hyp_words, ref_words)
            else:
                edits, length, work = _segment_search(hyp, _ids(vocabulary, ref_words))
            rows += work
            if max_rows is not None and rows > max_rows:
                raise WorkExceeded(i, max_rows, seconds=False)
            budget.spend(i, work)
            total += length
            if best is None or edits < best:
                best = edits
        out[i] = (best, total / len(refs))
    return out
