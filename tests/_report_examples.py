"""Small synthetic competitions shared by the report tests (analysed once per session).

Each function returns a PhaseResult from :func:`leaderboard_ci.phase.analysis.analyze`
on seeded synthetic data, with B <= 1000 so the tests stay fast.  System
names include every character the reports must escape.
"""

import functools

import numpy as np

from leaderboard_ci.phase.analysis import analyze

#: Names with HTML, LaTeX and Markdown special characters.
NASTY = ["a_b & c%", "<script>alert(1)</script>", 'O\'Brien "q" | pipe', "tab\u2020 #1 $x$ {y} ~z^ \\s", "baseline"]
SKIPPED = [
    ("late<b>team</b>", 'predictions.csv line 7: label "x<y" is not one of 0, 1, 2'),
    ("empty & co", "the zip has no predictions file"),
]


def _noisy(rng, gold, accuracy, classes):
    pred = gold.copy()
    flip = rng.random(gold.size) > accuracy
    pred[flip] = rng.integers(0, classes, int(flip.sum()))
    return pred


@functools.lru_cache(maxsize=None)
def classification():
    """5 systems with special-character names, f1_macro + accuracy, a baseline and two skipped submissions.

    The runner-up is close to the winner (its CI of the difference contains 0)
    and the others are far (theirs exclude 0).
    """
    rng = np.random.default_rng(7)
    n = 400
    gold = rng.integers(0, 3, n)
    winner = _noisy(rng, gold, 0.85, 3)
    runner = winner.copy()
    swap = rng.choice(n, 6, replace=False)
    runner[swap] = (runner[swap] + 1) % 3
    systems = {
        NASTY[0]: winner,
        NASTY[1]: runner,
        NASTY[2]: _noisy(rng, gold, 0.6, 3),
        NASTY[3]: _noisy(rng, gold, 0.5, 3),
        NASTY[4]: np.zeros(n, dtype=int),
    }
    return analyze(
        [str(g) for g in gold],
        {k: [str(x) for x in v] for k, v in systems.items()},
        metric="f1_macro",
        extra_metrics=["accuracy"],
        baseline="baseline",
        n_resamples=500,
        skipped=SKIPPED,
    )


@functools.lru_cache(maxsize=None)
def with_groups():
    """4 systems on two groups (one named with specials), a baseline: targets overall and per group."""
    rng = np.random.default_rng(11)
    n = 360
    gold = rng.integers(0, 4, n)
    groups = np.where(np.arange(n) % 3 == 0, "es<&>", "en")
    systems = {"sys_%d" % i: _noisy(rng, gold, acc, 4) for i, acc in enumerate([0.9, 0.8, 0.7])}
    systems["majority"] = np.full(n, int(np.bincount(gold).argmax()))
    return analyze(
        [str(g) for g in gold],
        {k: [str(x) for x in v] for k, v in systems.items()},
        metric="f1_macro",
        groups=list(groups),
        baseline="majority",
        n_resamples=400,
    )


@functools.lru_cache(maxsize=None)
def regression():
    """5 regressors, MAE (lower is better) + Pearson r, a baseline."""
    rng = np.random.default_rng(3)
    n = 250
    y = rng.normal(50, 15, n)
    systems = {
        "ridge": y + rng.normal(0, 8, n),
        "knn": y + rng.normal(0, 9, n),
        "tree": y + rng.normal(0, 12, n),
        "biased": y + 6 + rng.normal(0, 8, n),
        "mean": np.full(n, float(y.mean())),
    }
    return analyze(list(y), systems, metric="mae", extra_metrics=["pearson"], baseline="mean", n_resamples=500)


@functools.lru_cache(maxsize=None)
def two_systems():
    rng = np.random.default_rng(5)
    n = 200
    gold = rng.integers(0, 2, n)
    return analyze(
        [str(g) for g in gold],
        {"first": [str(x) for x in _noisy(rng, gold, 0.8, 2)], "second": [str(x) for x in _noisy(rng, gold, 0.7, 2)]},
        metric="accuracy",
        n_resamples=300,
    )


@functools.lru_cache(maxsize=None)
def direction_only():
    """3 systems where the max-t step-down decides ``close``'s direction at its second step only: p (max-t) < 0.05
    while its simultaneous interval includes 0 (seed found by trying seeds; the tests assert it)."""
    rng = np.random.default_rng(1)
    n = 300
    gold = rng.integers(0, 2, n)
    accuracies = (("top", 0.85), ("close", 0.78), ("far", 0.3))
    systems = {name: [str(x) for x in _noisy(rng, gold, acc, 2)] for name, acc in accuracies}
    return analyze([str(g) for g in gold], systems, metric="accuracy", n_resamples=1000)


@functools.lru_cache(maxsize=None)
def one_system():
    rng = np.random.default_rng(6)
    gold = rng.integers(0, 2, 120)
    return analyze(
        [str(g) for g in gold],
        {"only": [str(x) for x in _noisy(rng, gold, 0.8, 2)]},
        metric="accuracy",
        n_resamples=200,
    )


def many_systems_data(m=40):
    """The gold labels and the ``m`` systems of :func:`many_systems` (to analyse them with other settings)."""
    rng = np.random.default_rng(9)
    n = 300
    gold = rng.integers(0, 4, n)
    systems = {"team_%02d_submission_%s" % (i, "x" * (i % 9)): _noisy(rng, gold, 0.45 + 0.012 * i, 4) for i in range(m)}
    return [str(g) for g in gold], {k: [str(x) for x in v] for k, v in systems.items()}


@functools.lru_cache(maxsize=None)
def many_systems(m=40):
    """``m`` systems with long names, f1_macro, B = 300."""
    gold, systems = many_systems_data(m)
    return analyze(gold, systems, metric="f1_macro", n_resamples=300)


@functools.lru_cache(maxsize=None)
def permutation():
    rng = np.random.default_rng(12)
    n = 150
    gold = rng.integers(0, 2, n)
    systems = {"p%d" % i: [str(x) for x in _noisy(rng, gold, acc, 2)] for i, acc in enumerate([0.85, 0.8, 0.6])}
    return analyze(
        [str(g) for g in gold], systems, metric="accuracy", n_resamples=200, test="permutation", n_permutations=200
    )


@functools.lru_cache(maxsize=None)
def one_sided():
    """3 systems analysed with one-sided p-values (CompStats' convention); skips where unsupported."""
    import pytest

    rng = np.random.default_rng(13)
    n = 200
    gold = rng.integers(0, 2, n)
    systems = {"q%d" % i: [str(x) for x in _noisy(rng, gold, acc, 2)] for i, acc in enumerate([0.85, 0.8, 0.6])}
    try:
        return analyze([str(g) for g in gold], systems, metric="accuracy", n_resamples=300, sides="one")
    except TypeError:
        pytest.skip("this analysis has no 'sides' setting")


ALL = {
    "classification": classification,
    "groups": with_groups,
    "regression": regression,
    "two": two_systems,
    "one": one_system,
    "permutation": permutation,
}
