"""Compact letter display: sharing a letter <=> not significantly different."""

import itertools

import numpy as np
import pytest

from leaderboard_ci.core.letters import MAX_SYSTEMS, letter_groups


def check_display(order, different, letters):
    for a, b in itertools.combinations(order, 2):
        share = bool(set(letters[a]) & set(letters[b]))
        assert share == (frozenset((a, b)) not in different), (a, b, letters)


def test_hand_made_case():
    different = {frozenset(p) for p in ("AC", "AD", "AE", "BE", "BD")}
    letters = letter_groups("ABCDE", different)
    assert letters == {"A": "a", "B": "ab", "C": "bc", "D": "c", "E": "c"}


def test_extremes():
    assert letter_groups("ABC", set()) == {"A": "a", "B": "a", "C": "a"}
    all_pairs = {frozenset(p) for p in itertools.combinations("ABC", 2)}
    assert letter_groups("ABC", all_pairs) == {"A": "a", "B": "b", "C": "c"}
    assert letter_groups(range(MAX_SYSTEMS + 1), set()) is None


@pytest.mark.parametrize("seed", range(30))
def test_random_patterns_are_represented_exactly(seed):
    rng = np.random.default_rng(seed)
    order = ["s%d" % i for i in range(rng.integers(2, 9))]
    different = {frozenset(p) for p in itertools.combinations(order, 2) if rng.random() < 0.5}
    check_display(order, different, letter_groups(order, different))


def test_more_than_26_letters():
    order = list(range(30))
    different = {frozenset(p) for p in itertools.combinations(order, 2)}
    letters = letter_groups(order, different)
    assert len(set(letters.values())) == 30 and letters[29] == "ad"
