"""TER's shift search for short segments, word by word in plain Python (sacrebleu 2.6's algorithm).

On sentence-length segments the numpy engine of :mod:`.ter_beam` spends more on array calls than on
the search (the generation example's 800 segments of about 11 words: 1.7 s here against 6.2 s of
CPU), and on long ones it is far faster (a shuffled 64-word segment: 0.67 s here, 0.20 s there; a
1,000-word one: 41 s here, 1.2 s there), so :func:`.ter.ter_statistics` sends a segment here when
both sides have at most :data:`SHORT_WORDS` words and to the engine otherwise.  Both give sacrebleu's
numbers (tests/test_generation_ter.py, tests/test_generation.py).

Tercom's greedy algorithm: while some shift of a block of hypothesis words lowers the edit distance
to the reference, apply the best one (most edits saved, then the longest block, the earliest block,
the earliest target); the TER of a segment is the shifts made plus the final edit distance.  The
bounds are tercom's and sacrebleu's: blocks of at most 10 words that match the reference at most 50
positions away, not already aligned, and at most 1,000 candidate shifts per segment.  The edit
distance is a beam search around the diagonal (width 25, widened when the reference is much longer).
"""

from __future__ import annotations

import math

__all__ = ["SHORT_WORDS", "short_segment_ter"]

#: Segments whose hypothesis and reference both have at most this many words take this module's search.
SHORT_WORDS = 32

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


def short_segment_ter(hyp, ref):
    """``(edits, reference length, rows computed)`` of tokenized ``hyp`` against tokenized ``ref`` (shifts count
    one each); a row is one hypothesis word of one edit distance, as :mod:`.ter` counts its work."""
    if not ref:
        return len(hyp), 0, 0
    shifts = 0
    checked = 0
    while True:
        saved, shifted, checked = _best_shift(hyp, ref, checked)
        if checked >= _MAX_CANDIDATES or saved <= 0:
            break
        shifts += 1
        hyp = shifted
    distances = checked + shifts + 2  # each round's own, its candidates', the final one
    return shifts + _beam_distance(hyp, ref)[0], len(ref), distances * max(len(hyp), 1)
