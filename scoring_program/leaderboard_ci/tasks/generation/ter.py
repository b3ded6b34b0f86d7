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

import math
import re

import numpy as np

__all__ = ["segment_ter", "ter_statistics", "tercom_words"]

_MAX_SHIFT_SIZE = 10
_MAX_SHIFT_DIST = 50
_BEAM_WIDTH = 25
_MAX_CANDIDATES = 1000
_INFINITY = int(1e16)
# Operations, from the hypothesis' side: match, substitute, consume a hypothesis word, consume a reference word.
_MATCH, _SUB, _HYP, _REF = " ", "s", "d", "i"


def _beam_distance(hyp, ref):
    """``(distance, trace)``: sacrebleu's beam edit distance and its operations from start to end."""
    n, m = len(hyp), len(ref)
    ratio = m / n if n else 1
    width = int(math.ceil(ratio / 2 + _BEAM_WIDTH)) if _BEAM_WIDTH < ratio / 2 else _BEAM_WIDTH
    cost = [list(range(m + 1))]
    ops = [[_REF] * (m + 1)]
    for i in range(1, n + 1):
        row_cost = [_INFINITY] * (m + 1)
        row_ops = ["x"] * (m + 1)
        above_cost = cost[i - 1]
        diagonal = int(math.floor(i * ratio))
        low = max(0, diagonal - width)
        high = m + 1 if i == n else min(m + 1, diagonal + width)
        word = hyp[i - 1]
        for j in range(low, high):
            if j == 0:
                row_cost[0], row_ops[0] = above_cost[0] + 1, _HYP
                continue
            if word == ref[j - 1]:
                best, op = above_cost[j - 1], _MATCH
            else:
                best, op = above_cost[j - 1] + 1, _SUB
            if above_cost[j] + 1 < best:
                best, op = above_cost[j] + 1, _HYP
            if row_cost[j - 1] + 1 < best:
                best, op = row_cost[j - 1] + 1, _REF
            if best < row_cost[j]:
                row_cost[j], row_ops[j] = best, op
        cost.append(row_cost)
        ops.append(row_ops)
    trace = []
    i, j = n, m
    while i > 0 or j > 0:
        op = ops[i][j]
        trace.append(op)
        if op in (_SUB, _MATCH):
            i, j = i - 1, j - 1
        elif op == _REF:
            j -= 1
        elif op == _HYP:
            i -= 1
        else:  # pragma: no cover - outside the beam; sacrebleu raises too
            raise ValueError("TER: the edit-distance trace left the beam")
    trace.reverse()
    return cost[n][m], trace


def _alignment(trace):
    """``(reference position -> hypothesis position, reference errors, hypothesis errors)`` of a trace."""
    h = r = -1
    align, ref_err, hyp_err = {}, [], []
    for op in trace:
        if op in (_MATCH, _SUB):
            h += 1
            r += 1
            align[r] = h
            flag = 0 if op == _MATCH else 1
            hyp_err.append(flag)
            ref_err.append(flag)
        elif op == _HYP:  # a hypothesis word with no reference word: an insertion
            h += 1
            hyp_err.append(1)
        else:  # a reference word with no hypothesis word: a deletion
            r += 1
            align[r] = h
            ref_err.append(1)
    return align, ref_err, hyp_err


def _matching_blocks(hyp, ref):
    """``(hyp start, ref start, length)`` of every common block (every prefix length), as tercom lists them."""
    for start_h in range(len(hyp)):
        for start_r in range(len(ref)):
            if abs(start_r - start_h) > _MAX_SHIFT_DIST:
                continue
            length = 0
            while hyp[start_h + length] == ref[start_r + length] and length < _MAX_SHIFT_SIZE:
                length += 1
                yield start_h, start_r, length
                if start_h + length == len(hyp) or start_r + length == len(ref):
                    break


def _moved(words, start, length, target):
    block = words[start : start + length]
    if target < start:
        return words[:target] + block + words[target:start] + words[start + length :]
    if target > start + length:
        return words[:start] + words[start + length : target] + block + words[target:]
    return words[:start] + words[start + length : length + target] + block + words[length + target :]


def _best_shift(hyp, ref, checked):
    """``(edits saved, shifted words, candidates checked)`` of the best shift of ``hyp`` (saved 0: none)."""
    before, trace = _beam_distance(hyp, ref)
    align, ref_err, hyp_err = _alignment(trace)
    best = None
    for start_h, start_r, length in _matching_blocks(hyp, ref):
        if not any(hyp_err[start_h : start_h + length]) or not any(ref_err[start_r : start_r + length]):
            continue
        if start_h <= align[start_r] < start_h + length:
            continue
        last = -1
        for offset in range(-1, length):
            if start_r + offset == -1:
                target = 0
            elif start_r + offset in align:
                target = align[start_r + offset] + 1
            else:
                break
            if target == last:
                continue
            last = target
            shifted = _moved(hyp, start_h, length, target)
            candidate = (before - _beam_distance(shifted, ref)[0], length, -start_h, -target, shifted)
            checked += 1
            if best is None or candidate > best:
                best = candidate
        if checked >= _MAX_CANDIDATES:
            break
    if best is None:
        return 0, hyp, checked
    return best[0], best[4], checked


def segment_ter(hyp, ref):
    """``(edits, reference length)`` of tokenized ``hyp`` against tokenized ``ref`` (shifts count one each)."""
    if not ref:
        return len(hyp), 0
    shifts = 0
    checked = 0
    while True:
        saved, shifted, checked = _best_shift(hyp, ref, checked)
        if checked >= _MAX_CANDIDATES or saved <= 0:
            break
        shifts += 1
        hyp = shifted
    return shifts + _beam_distance(hyp, ref)[0], len(ref)


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


def ter_statistics(hypotheses, references, options):
    """``(n, 2)`` float64 ``[fewest edits over the references, mean reference length]`` per segment."""
    flags = dict(
        (name, bool(options.get(name, False))) for name in ("case_sensitive", "normalized", "no_punct", "asian_support")
    )
    out = np.zeros((len(hypotheses), 2), dtype=np.float64)
    for i, (hypothesis, refs) in enumerate(zip(hypotheses, references)):
        hyp = tercom_words(hypothesis.rstrip(), **flags)
        best, total = None, 0
        for ref in refs:
            edits, length = segment_ter(hyp, tercom_words(ref.rstrip(), **flags))
            total += length
            if best is None or edits < best:
                best = edits
        out[i] = (best, total / len(refs))
    return out
