"""task: generation: TER's vectorized search against sacrebleu 2.6, its exact shortcuts, and its work bound.

The reference is sacrebleu's own ``translation_edit_rate`` (and ``sacrebleu.TER`` for the tokenizer
options) on the same words: long repetitive segments, small vocabularies, empty sides.  The engine's
shortcuts (rows reused before a shift, rows stopped once parallel to the current ones) are checked
against computing every row of every candidate; the work bound against its sentence.
"""

import random

import numpy as np
import pytest

from leaderboard_ci.tasks.generation import ter
from leaderboard_ci.tasks.generation.budget import WorkExceeded
from leaderboard_ci.tasks.generation.ter_beam import Band, distance_of, full_rows, shifted_distances, shifted_rows

sacrebleu = pytest.importorskip("sacrebleu")
from sacrebleu.metrics.lib_ter import translation_edit_rate  # noqa: E402


def _shuffled_blocks(rng, words, moves, vocabulary, substitutions):
    """``words`` with ``moves`` blocks of 1-8 words moved up to 40 places and some words substituted."""
    out = list(words)
    for _ in range(moves):
        length = rng.randint(1, 8)
        start = rng.randrange(max(1, len(out) - length))
        block = out[start : start + length]
        del out[start : start + length]
        target = min(max(0, start + rng.randint(-40, 40)), len(out))
        out[target:target] = block
    for _ in range(substitutions):
        out[rng.randrange(len(out))] = "w%d" % rng.randrange(vocabulary)
    return out


def _cases(seed, lengths, vocabularies):
    """A reference over a small vocabulary against a damaged copy of it and against random words."""
    rng = random.Random(seed)
    for n in lengths:
        for vocabulary in vocabularies:
            ref = ["w%d" % rng.randrange(vocabulary) for _ in range(n)]
            yield _shuffled_blocks(rng, ref, n // 10, vocabulary, n // 20), ref
            yield ["w%d" % rng.randrange(vocabulary) for _ in range(n)], ref


def test_ter_equals_sacrebleus_on_repetitive_segments_and_empty_sides():
    cases = list(_cases(1, [40], [3])) + [([], ["a", "b"]), (["a", "b"], []), ([], []), (["a"] * 30, ["a"])]
    cases.append((["a", "b"] * 20, ["b", "a"] * 20))  # one long run of one pair, shifted by one
    for hyp, ref in cases:
        assert ter.segment_ter(hyp, ref) == translation_edit_rate(hyp, ref), (hyp, ref)


@pytest.mark.slow  # the fast representative: test_ter_equals_sacrebleus_on_repetitive_segments_and_empty_sides
@pytest.mark.parametrize("lengths, vocabularies", [([80, 150], [3, 10, 50]), ([300], [5, 50]), ([1000], [50])])
def test_ter_equals_sacrebleus_on_long_segments(lengths, vocabularies):
    for hyp, ref in _cases(len(lengths) + lengths[0], lengths, vocabularies):
        assert ter.segment_ter(hyp, ref) == translation_edit_rate(hyp, ref), (len(hyp), len(ref))


def test_ter_statistics_equal_sacrebleus_with_every_tokenizer_option():
    hypotheses = ["The cat, the cat sat on the mat.", "東京は「雨」です。 A b a b", "", "a&amp;b c-d e's f."]
    references = [("the mat sat on the cat , the cat .", "cat cat"), ("A b 東京 雨 です", ""), ("x y",), ("c-d a&b",)]
    for options in (
        {},
        {"case_sensitive": True},
        {"normalized": True},
        {"no_punct": True, "asian_support": True},
        {"normalized": True, "no_punct": True, "asian_support": True, "case_sensitive": True},
    ):
        ours = ter.ter_statistics(hypotheses, references, options)
        metric = sacrebleu.TER(**options)
        for i, (hyp, refs) in enumerate(zip(hypotheses, references)):
            theirs = metric._extract_corpus_statistics([hyp], [[r] for r in refs])[0]
            assert ours[i].tolist() == [float(x) for x in theirs], (options, i)


def _words(rng, n, vocabulary):
    return np.array([rng.randrange(vocabulary) for _ in range(n)], dtype=np.int64)


def test_candidate_distances_equal_every_row_computed_from_scratch():
    """The shortcuts (start where the shift starts, stop once the rows run parallel) change no distance."""
    rng = random.Random(3)
    for n, m, vocabulary in ((60, 60, 4), (90, 40, 6), (30, 200, 3), (1, 5, 2)):
        ref, hyp = _words(rng, m, vocabulary), _words(rng, n, vocabulary)
        band = Band(n, ref)
        cost, ops = full_rows(band, hyp)
        shifts = [(rng.randrange(n), rng.randint(1, 10), rng.randrange(n + 1)) for _ in range(40)]
        candidates = np.stack([ter._moved(hyp, s, min(k, n - s), t) for s, k, t in shifts])
        distances, rows = shifted_distances(band, hyp, cost, candidates)
        naive = [distance_of(band, full_rows(band, c)[0]) for c in candidates]
        assert distances.tolist() == naive and rows <= len(candidates) * n
        distance, new_cost, new_ops, _ = shifted_rows(band, hyp, cost, ops, candidates[0])
        scratch_cost, scratch_ops = full_rows(band, candidates[0])
        assert distance == naive[0]
        assert np.array_equal(new_cost, scratch_cost) and np.array_equal(new_ops, scratch_ops)


def test_the_row_bound_names_the_segment():
    hypotheses = ["a b c d e f " * 5, "b a " * 30, "a"]
    references = [("a b c d e f " * 5,), ("a b " * 30,), ("a",)]
    assert ter.ter_statistics(hypotheses, references, {}, max_rows=None)[1, 0] > 0
    with pytest.raises(WorkExceeded) as info:
        ter.ter_statistics(hypotheses, references, {}, max_rows=100)
    assert (info.value.segment, info.value.limit, info.value.seconds) == (1, 100, False)


def test_the_short_segment_search_and_the_engine_agree_on_every_short_case():
    """ter_statistics sends segments of at most SHORT_WORDS words to the word-by-word search (faster there) and
    longer ones to the numpy engine: on every short case both give the same edits and length, and sacrebleu's."""
    from leaderboard_ci.tasks.generation.ter_short import SHORT_WORDS, short_segment_ter

    cases = list(_cases(11, (1, 5, 12, 30, SHORT_WORDS), (2, 4, 12)))
    assert cases
    for hyp, ref in cases:
        edits, length, work = short_segment_ter(hyp, ref)
        assert (edits, length) == ter.segment_ter(hyp, ref) == translation_edit_rate(hyp, ref), (hyp, ref)
        assert work >= len(hyp) or not ref
