"""Per-segment sufficient statistics of the generation metrics, and the corpus formulas over their sums.

Every metric here is a function of the *sums* of integer per-segment
statistics (sacrebleu's ``_extract_corpus_statistics`` and
``_compute_score_from_stats``; jiwer's counts summed over sentences), so the
score of a bootstrap replicate is the formula applied to the segments'
statistics weighted by their resample counts.  The formulas below take an
``(N, F)`` array of such sums and return the ``N`` scores at once.

BLEU (sacrebleu's ``BLEU``)
    Statistics ``[hyp_len, ref_len, correct_1..N, total_1..N]`` (N = ``max_ngram_order``, 4 by default): the
    hypothesis' token count, the reference length closest to it (the shorter
    on a tie), and per order the hypothesis n-grams and those matched, each
    clipped by its largest count in any one reference.  Brevity penalty
    ``exp(1 - r / c)`` when ``c < r`` (0 when ``c`` is 0); precisions with
    the smoothing ``exp`` (the k-th order with no match counts ``1 / 2^k``
    matches), ``floor``, ``add-k`` or ``none``; BLEU is 0 when nothing
    matches; ``effective_order`` averages only the orders up to the last
    with n-grams.
chrF / chrF++ (sacrebleu's ``CHRF``)
    Per character order 1..``char_order`` (6 by default) and word order
    1..``word_order`` (0 for chrF, 2 for chrF++): hypothesis n-grams,
    reference n-grams, matches, from the reference whose segment chrF is
    highest (the first on a tie).  The corpus score averages precision and
    recall over the orders where both sides have n-grams, then takes the
    F-beta (``beta``, 2 by default); ``eps_smoothing`` averages the per-order
    F-scores instead.
WER / CER (jiwer's ``wer`` / ``cer`` with their default transforms)
    ``[edits, reference length]`` against the first reference, or (``best``)
    against the reference with the fewest edits (the first on a tie); the
    rate is their ratio, or the edits when no reference has a token (jiwer's
    rule).
TER (sacrebleu's ``TER``)
    ``[edits, mean reference length]``, the fewest edits over the
    references (see :mod:`.generation_ter`); ``100 * edits / length``.
"""

from __future__ import annotations

import numpy as np

from .budget import WorkBudget
from .text import char_ngrams, chrf_words, edit_distance, jiwer_chars, jiwer_words, word_ngrams

__all__ = [
    "BLEU_ORDER",
    "SMOOTHING",
    "bleu_statistics",
    "bleu_scores",
    "chrf_statistics",
    "chrf_scores",
    "edit_statistics",
    "edit_rates",
    "ter_scores",
]

BLEU_ORDER = 4
#: sacrebleu's smoothing methods and the default value of those that take one.
SMOOTHING = {"none": None, "floor": 0.1, "add-k": 1, "exp": None}
_LOG_ZERO = -9999999999.0  # sacrebleu's my_log(0)
CHAR_ORDER, BETA = 6, 2


# ---------------------------------------------------------------------------
# BLEU
# ---------------------------------------------------------------------------
def _all_word_ngrams(tokens, order):
    counts = {}
    for n in range(1, order + 1):  # the orders' n-grams differ in length: no key is in two of them
        counts.update(word_ngrams(tokens, n))
    return counts


def _closest(hyp_len, ref_lens):
    best = None
    for length in ref_lens:
        if best is None or abs(hyp_len - length) < abs(hyp_len - best):
            best = length
        elif abs(hyp_len - length) == abs(hyp_len - best) and length < best:
            best = length
    return best


def bleu_statistics(hypotheses, references, preprocess, order=BLEU_ORDER, budget=None):
    """``(n, 2 + 2 order)`` int64 BLEU statistics; ``references[i]`` is a tuple of strings, ``preprocess`` tokenizes.

    ``budget`` (a :class:`~.budget.WorkBudget`; a hypothesis word is a unit of work) raises
    :class:`~.budget.WorkExceeded` once spent; None: no bound.
    """
    budget = budget if budget is not None else WorkBudget()
    out = np.zeros((len(hypotheses), 2 + 2 * order), dtype=np.int64)
    cache = {}
    for i, (hypothesis, refs) in enumerate(zip(hypotheses, references)):
        info = cache.get(refs)
        if info is None:
            merged, lengths = {}, []
            for ref in refs:
                tokens = preprocess(ref).split()
                lengths.append(len(tokens))
                for gram, count in _all_word_ngrams(tokens, order).items():
                    if count > merged.get(gram, 0):
                        merged[gram] = count
            info = cache[refs] = (merged, lengths)
        merged, lengths = info
        tokens = preprocess(hypothesis).split()
        row = out[i]
        row[0] = len(tokens)
        row[1] = _closest(len(tokens), lengths) if lengths else 0
        counts = _all_word_ngrams(tokens, order)
        matched = [0] * (order + 1)
        for gram in counts.keys() & merged.keys():  # only the shared n-grams, found by a set intersection in C
            matched[len(gram)] += min(counts[gram], merged[gram])
        row[2 : 2 + order] = matched[1:]
        row[2 + order :] = [max(0, len(tokens) - n + 1) for n in range(1, order + 1)]  # every n-gram, once each
        budget.spend(i, len(tokens))
    return out


def _my_log(values):
    with np.errstate(divide="ignore"):
        return np.where(values == 0.0, _LOG_ZERO, np.log(np.where(values == 0.0, 1.0, values)))


def bleu_scores(sums, smooth="exp", smooth_value=None, effective_order=False, order=BLEU_ORDER):
    """Corpus BLEU (0-100) of each row of ``(N, 2 + 2 order)`` summed statistics, as sacrebleu computes it."""
    sums = np.asarray(sums, dtype=np.float64).reshape(-1, 2 + 2 * order)
    if smooth_value is None:
        smooth_value = SMOOTHING[smooth]
    sys_len, ref_len = sums[:, 0], sums[:, 1]
    correct = sums[:, 2 : 2 + order].copy()
    total = sums[:, 2 + order :].copy()
    with np.errstate(divide="ignore", invalid="ignore"):
        bp = np.where(
            sys_len < ref_len, np.where(sys_len > 0, np.exp(1.0 - ref_len / np.maximum(sys_len, 1)), 0.0), 1.0
        )
    matched = np.any(correct != 0, axis=1)
    if smooth == "add-k":
        correct[:, 1:] += smooth_value
        total[:, 1:] += smooth_value
    precisions = np.zeros_like(correct)
    alive = np.ones(sums.shape[0], dtype=bool)  # no order so far without n-grams (sacrebleu's loop breaks there)
    eff_order = np.full(sums.shape[0], float(order))
    if effective_order:
        eff_order[:] = 0.0
    doubling = np.ones(sums.shape[0])  # sacrebleu's smooth_mteval
    for n in range(order):
        alive &= total[:, n] != 0
        if effective_order:
            eff_order[alive] = n + 1
        safe_total = np.where(alive, total[:, n], 1.0)
        zero = alive & (correct[:, n] == 0)
        if smooth == "exp":
            doubling = np.where(zero, doubling * 2.0, doubling)
            p_zero = 100.0 / (doubling * safe_total)
        elif smooth == "floor":
            p_zero = 100.0 * smooth_value / safe_total
        else:
            p_zero = np.zeros_like(safe_total)
        p = np.where(zero, p_zero, 100.0 * correct[:, n] / safe_total)
        precisions[:, n] = np.where(alive, p, 0.0)
    logs = _my_log(precisions)
    used = np.arange(order)[None, :] < eff_order[:, None]
    log_sum = np.zeros(sums.shape[0])
    for n in range(order):  # in sacrebleu's order, left to right
        log_sum = log_sum + np.where(used[:, n], logs[:, n], 0.0)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        score = bp * np.exp(log_sum / np.maximum(eff_order, 1.0))
    return np.where(matched & (eff_order > 0), score, 0.0)


# ---------------------------------------------------------------------------
# chrF
# ---------------------------------------------------------------------------
def _chrf_f(stats, orders, eps_smoothing, beta=BETA):
    """sacrebleu's ``CHRF._compute_f_score`` of one segment's statistics (plain Python floats)."""
    eps = 1e-16
    factor = beta**2
    score = avg_prec = avg_rec = 0.0
    effective = 0
    for i in range(orders):
        n_hyp, n_ref, n_match = stats[3 * i : 3 * i + 3]
        prec = n_match / n_hyp if n_hyp > 0 else eps
        rec = n_match / n_ref if n_ref > 0 else eps
        denom = factor * prec + rec
        score += ((1 + factor) * prec * rec / denom) if denom > 0 else eps
        if n_hyp > 0 and n_ref > 0:
            avg_prec += prec
            avg_rec += rec
            effective += 1
    if eps_smoothing:
        return 100 * score / orders
    if effective == 0:
        return 0.0
    avg_prec /= effective
    avg_rec /= effective
    if avg_prec + avg_rec:
        return 100 * (1 + factor) * avg_prec * avg_rec / (factor * avg_prec + avg_rec)
    return 0.0


def _chrf_ngrams(text, word_order, whitespace, char_order=CHAR_ORDER):
    chars = text if whitespace else "".join(text.split())
    grams = [char_ngrams(chars, n) for n in range(1, char_order + 1)]
    if word_order:
        words = chrf_words(text)
        grams.extend(word_ngrams(words, n) for n in range(1, word_order + 1))
    return grams


def chrf_statistics(
    hypotheses,
    references,
    word_order=0,
    lowercase=False,
    whitespace=False,
    eps_smoothing=False,
    char_order=CHAR_ORDER,
    beta=BETA,
    budget=None,
):
    """``(n, 3 * orders)`` int64 chrF statistics: per order hypothesis, reference and matched n-grams.

    ``budget`` (a :class:`~.budget.WorkBudget`; four characters of a hypothesis are a unit of work) raises
    :class:`~.budget.WorkExceeded` once spent; None: no bound.
    """
    budget = budget if budget is not None else WorkBudget()
    orders = char_order + word_order
    out = np.zeros((len(hypotheses), 3 * orders), dtype=np.int64)
    cache = {}
    for i, (hypothesis, refs) in enumerate(zip(hypotheses, references)):
        ref_grams = cache.get(refs)
        if ref_grams is None:
            ref_grams = cache[refs] = [
                [
                    (g, sum(g.values()))
                    for g in _chrf_ngrams(r.lower() if lowercase else r, word_order, whitespace, char_order)
                ]
                for r in refs
            ]
        hyp_grams = _chrf_ngrams(hypothesis.lower() if lowercase else hypothesis, word_order, whitespace, char_order)
        hyp_totals = [sum(g.values()) for g in hyp_grams]
        best, best_f = None, -1.0
        for grams in ref_grams:
            stats = []
            for h, h_total, (r, r_total) in zip(hyp_grams, hyp_totals, grams):
                match = sum([min(h[gram], r[gram]) for gram in h.keys() & r.keys()])  # the shared n-grams only
                stats.extend((h_total if r else 0, r_total, match))
            f = _chrf_f(stats, orders, eps_smoothing, beta)
            if f > best_f:
                best, best_f = stats, f
        if best is not None:
            out[i] = best
        budget.spend(i, len(hypothesis) // 4)
    return out


def chrf_scores(sums, word_order=0, eps_smoothing=False, beta=BETA, char_order=CHAR_ORDER):
    """Corpus chrF (0-100) of each row of ``(N, 3 * orders)`` summed statistics, as sacrebleu computes it."""
    orders = char_order + word_order
    sums = np.asarray(sums, dtype=np.float64).reshape(-1, 3 * orders)
    eps = 1e-16
    factor = float(beta**2)
    rows = sums.shape[0]
    score = np.zeros(rows)
    avg_prec = np.zeros(rows)
    avg_rec = np.zeros(rows)
    effective = np.zeros(rows)
    with np.errstate(divide="ignore", invalid="ignore"):
        for i in range(orders):
            n_hyp, n_ref, n_match = sums[:, 3 * i], sums[:, 3 * i + 1], sums[:, 3 * i + 2]
            prec = np.where(n_hyp > 0, n_match / np.where(n_hyp > 0, n_hyp, 1.0), eps)
            rec = np.where(n_ref > 0, n_match / np.where(n_ref > 0, n_ref, 1.0), eps)
            denom = factor * prec + rec
            score = score + np.where(denom > 0, (1 + factor) * prec * rec / np.where(denom > 0, denom, 1.0), eps)
            both = (n_hyp > 0) & (n_ref > 0)
            avg_prec = avg_prec + np.where(both, prec, 0.0)
            avg_rec = avg_rec + np.where(both, rec, 0.0)
            effective = effective + both
        if eps_smoothing:
            return 100 * score / orders
        avg_prec = np.where(effective > 0, avg_prec / np.maximum(effective, 1.0), 0.0)
        avg_rec = np.where(effective > 0, avg_rec / np.maximum(effective, 1.0), 0.0)
        denom = factor * avg_prec + avg_rec
        f = (1 + factor) * avg_prec * avg_rec / np.where(denom > 0, denom, 1.0)
        return np.where(avg_prec + avg_rec > 0, 100 * f, 0.0)


# ---------------------------------------------------------------------------
# WER, CER, TER
# ---------------------------------------------------------------------------
def edit_statistics(hypotheses, references, unit, best=False, budget=None):
    """``(n, 2)`` int64 ``[edits, reference length]`` per segment; ``unit`` words or chars.

    Against the first reference (jiwer's one reference per segment), or with ``best`` against the
    reference with the fewest edits (the first of those on a tie), whose own length is the denominator.
    ``budget`` (a :class:`~.budget.WorkBudget`; a hypothesis word or character a unit) raises
    :class:`~.budget.WorkExceeded` once spent; None: no bound.
    """
    budget = budget if budget is not None else WorkBudget()
    split = jiwer_words if unit == "words" else jiwer_chars
    out = np.zeros((len(hypotheses), 2), dtype=np.int64)
    for i, (hypothesis, refs) in enumerate(zip(hypotheses, references)):
        hyp = split(hypothesis)
        chosen = None
        for ref in refs if best else refs[:1]:
            tokens = split(ref)
            edits = edit_distance(tokens, hyp)
            if chosen is None or edits < chosen[0]:
                chosen = (edits, len(tokens))
        out[i] = chosen if chosen is not None else (len(hyp), 0)
        budget.spend(i, len(hyp))
    return out


def edit_rates(sums):
    """jiwer's corpus rate: summed edits over summed reference length, the edits when that length is 0."""
    sums = np.asarray(sums, dtype=np.float64).reshape(-1, 2)
    edits, length = sums[:, 0], sums[:, 1]
    return np.where(length > 0, edits / np.where(length > 0, length, 1.0), edits)


def ter_scores(sums):
    """sacrebleu's corpus TER (0-100): summed edits over summed mean reference lengths (see its rules at 0)."""
    sums = np.asarray(sums, dtype=np.float64).reshape(-1, 2)
    edits, length = sums[:, 0], sums[:, 1]
    return np.where(length > 0, 100.0 * edits / np.where(length > 0, length, 1.0), np.where(edits > 0, 100.0, 0.0))
