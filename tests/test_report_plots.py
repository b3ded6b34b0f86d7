"""Figures: they build for every kind of competition, and what they draw matches the analysis."""

import dataclasses
import functools
import os
import re
import subprocess
import sys

import _report_examples as E
import numpy as np
import pytest
from matplotlib.colors import to_hex
from matplotlib.figure import Figure

from leaderboard_ci.report.figure_layout import TIED
from leaderboard_ci.report.formatting import format_p
from leaderboard_ci.report.json_report import sides_of
from leaderboard_ci.report.plots import (
    BASELINE,
    GREEN,
    RED,
    WINNER,
    bootstrap_difference_plot,
    ci_contains_zero,
    difference_plot,
    figure_png,
    ordered_ci_plot,
    pair_heatmap,
    save_figure,
    target_figures,
)

#: The shared report examples (lru-cached analyses and pages) are built once: these modules run on one xdist worker.
pytestmark = pytest.mark.xdist_group("report_examples")

PACKAGE = os.path.join(os.path.dirname(__file__), os.pardir, "scoring_program", "leaderboard_ci")


def _artists(fig, prefix):
    ax = fig.axes[0]
    return {a.get_gid()[len(prefix) :]: a for a in ax.get_children() if (a.get_gid() or "").startswith(prefix)}


def _texts(fig):
    return [t.get_text() for ax in fig.axes for t in ax.texts]


@pytest.mark.parametrize(
    "name,expected",
    [
        ("classification", ["ordered_ci", "vs_winner", "pair_heatmap", "bootstrap_difference"]),
        ("regression", ["ordered_ci", "vs_winner", "pair_heatmap", "bootstrap_difference"]),
        ("groups", ["ordered_ci", "vs_winner", "pair_heatmap", "bootstrap_difference"]),
        ("two", ["ordered_ci", "vs_winner", "pair_heatmap", "bootstrap_difference"]),
        ("one", ["ordered_ci"]),
    ],
)
def test_figures_build_for_every_target(name, expected):
    result = E.ALL[name]()
    for target in result.targets.values():
        figures = target_figures(target, baseline=result.baseline)
        assert list(figures) == expected
        assert all(isinstance(fig, Figure) for fig in figures.values())
    for fig in figures.values():  # drawing catches layout errors; one target is enough
        assert figure_png(fig, dpi=40)[:8] == b"\x89PNG\r\n\x1a\n"


def test_figures_save_as_png_pdf_and_svg(tmp_path):
    target = E.classification().official
    paths = save_figure(difference_plot(target), str(tmp_path / "diff"), formats=("png", "pdf", "svg"), dpi=50)
    assert [os.path.basename(p) for p in paths] == ["diff.png", "diff.pdf", "diff.svg"]
    assert open(paths[0], "rb").read(4) == b"\x89PNG"
    assert open(paths[1], "rb").read(5) == b"%PDF-"
    svg = open(paths[2], encoding="utf-8").read()
    assert "<svg" in svg and "a_b &amp; c%" in svg  # names are escaped in the SVG text


@pytest.mark.parametrize("name", ["classification", "regression", "groups"])
def test_difference_colours_follow_the_decision_in_the_row(name):
    result = E.ALL[name]()
    seen = set()
    for target in result.targets.values():
        fig = difference_plot(target, decision="Holm")
        lines = _artists(fig, "ci:")
        points = _artists(fig, "point:")
        assert set(lines) == set(target.vs_winner["name"]) == set(points)
        for row in target.vs_winner.itertuples(index=False):
            # red = tied with the winner, the same list the tables and the API use
            expected = RED if row.name in target.tied_with_winner else GREEN
            assert (expected == GREEN) == bool(row.significant)
            assert to_hex(lines[row.name].get_color()) == expected
            assert to_hex(points[row.name].get_color()) == expected
            assert list(lines[row.name].get_xdata()) == [row.ci_low, row.ci_high]
            seen.add(expected)
    if name == "classification":
        assert seen == {RED, GREEN}  # the example has both kinds
    # the vertical line at 0 and a legend in words that names the decision
    ax = fig.axes[0]
    assert any(list(l.get_xdata()) == [0, 0] for l in ax.get_lines())
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert "tied with the winner: not significant (Holm)" in labels
    assert "differs from the winner: significant (Holm)" in labels
    assert any("each pair alone" in l for l in labels)  # Holm has no interval: the bars are the pairs' own


def test_a_significant_interval_is_green_even_when_the_decision_says_tied():
    """An unadjusted CI that excludes 0 beside a corrected p-value that does not reject: the row's decision wins."""
    target = E.classification().official
    frame = target.vs_winner.copy()
    row = frame.index[-1]
    frame.loc[row, "ci_low"], frame.loc[row, "ci_high"] = 0.01, 0.05  # excludes 0
    frame.loc[row, "significant"] = False
    import dataclasses

    fig = difference_plot(dataclasses.replace(target, vs_winner=frame))
    assert to_hex(_artists(fig, "ci:")[frame.loc[row, "name"]].get_color()) == RED


def test_ci_contains_zero():
    assert ci_contains_zero(-0.1, 0.2) and ci_contains_zero(0.0, 0.3)
    assert not ci_contains_zero(0.01, 0.2) and not ci_contains_zero(-0.3, -0.1)
    assert not ci_contains_zero(float("nan"), 1.0)


def test_ordered_ci_plot_ranks_highlights_winner_and_baseline():
    result = E.classification()
    target = result.official
    fig = ordered_ci_plot(target, baseline=result.baseline)
    ax = fig.axes[0]
    points = _artists(fig, "point:")
    for y, row in enumerate(target.systems.itertuples(index=False)):
        assert list(points[row.name].get_ydata()) == [y]  # best at the top (y axis inverted)
        assert list(points[row.name].get_xdata()) == [row.score]
    assert ax.get_ylim()[0] > ax.get_ylim()[1]
    assert to_hex(points[target.winner].get_color()) == WINNER
    assert to_hex(points["baseline"].get_color()) == BASELINE
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == [n.replace("$", "\\$") for n in target.systems["name"]]  # "$" escaped: no mathtext
    assert r"\$x\$" in labels[3]
    assert "higher is better" in ax.get_xlabel()


def test_a_far_baseline_goes_off_scale():
    result = E.with_groups()  # the majority baseline's macro-F1 is far below the other systems'
    target = result.official
    b = target.systems.set_index("name").loc["majority"]
    fig = ordered_ci_plot(target, baseline="majority")
    ax = fig.axes[0]
    low, high = ax.get_xlim()
    assert b["ci_high"] < low  # the axis covers the other systems only
    others = target.systems[target.systems["name"] != "majority"]
    assert low <= others["ci_low"].min() and others["ci_high"].max() <= high
    arrows = [l for l in ax.get_lines() if (l.get_gid() or "").startswith("offscale")]
    assert len(arrows) == 1 and arrows[0].get_marker() == "<"
    assert any("%.4f (off scale)" % b["score"] in t.get_text() for t in ax.texts)
    fig = difference_plot(target, baseline="majority")
    ax = fig.axes[0]
    arrows = [l for l in ax.get_lines() if (l.get_gid() or "").startswith("offscale")]
    assert len(arrows) == 1 and arrows[0].get_marker() == ">"
    assert to_hex(arrows[0].get_color()) == GREEN
    assert ax.get_xlim()[0] < 0  # 0 stays visible
    # a baseline among the others stays on the scale
    near = E.regression()  # the mean predictor's MAE interval overlaps the others' range
    assert not [
        l
        for l in ordered_ci_plot(near.official, baseline="mean").axes[0].get_lines()
        if (l.get_gid() or "").startswith("offscale")
    ]


def _shaded(fig):
    """(shaded count, total count) of the bootstrap histogram's bars."""
    bars = [p for p in fig.axes[0].patches if p.get_gid() in ("replicates", "beyond")]
    return (sum(p.get_height() for p in bars if p.get_gid() == "beyond"), sum(p.get_height() for p in bars))


def _legend(fig):
    return [t.get_text() for t in fig.legends[0].get_texts()]


def _check_difference_figure(result, fig):
    """What every bootstrap-difference figure must show of ``result``'s winner-vs-runner-up row."""
    target = result.official
    ax = fig.axes[0]
    first = target.vs_winner.iloc[0]
    delta = float(first["diff"])
    method = result.signature.method
    marks = {l.get_gid(): l.get_xdata()[0] for l in ax.get_lines() if (l.get_gid() or "").startswith("mark:")}
    expected = {"mark:0": 0.0, "mark:\u03b4": delta}
    if method == "basic":
        expected["mark:2\u03b4"] = 2 * delta
    assert marks == expected
    ci = [l for l in ax.get_lines() if l.get_gid() == "ci"]
    assert len(ci) == 1 and list(ci[0].get_xdata()) == [first["ci_low"], first["ci_high"]]
    assert "%g%% %s interval" % (100 * result.signature.confidence_level, method) in " ".join(_legend(fig))
    d = target.metric.sign * (target.replicates[:, 0] - target.replicates[:, 1])
    d = d[np.isfinite(d)]
    shaded, total = _shaded(fig)
    assert total == d.size  # every replicate drawn once
    two = sides_of(result) == "two"
    p = float(first["p_bootstrap"])
    title = ax.get_title(loc="left")
    assert ("two-sided" if two else "one-sided") + " p = " + format_p(p) in title and method in title
    p_one = p / 2 if two else p  # min(1, 2 * p_greater) away from the floor and the cap
    assert 1 / (d.size + 1) < p_one < 0.5
    text = _legend(fig)[1]
    if two:
        assert "p (two-sided) = 2 \u00d7 %s = %s" % (format_p(p_one, 4), format_p(p)) in text
    else:
        assert "p (one-sided) = %s" % format_p(p) in text
    return d, delta, shaded, p_one, text


@pytest.mark.parametrize("example", ["classification", "regression", "two", "one_sided"])
def test_bootstrap_difference_plot_shades_the_replicates_its_p_value_reads(example):
    """Percentile (the default): the one-sided p is the share of replicates <= 0, interpolated."""
    result = E.two_systems() if example == "two" else getattr(E, example)()
    assert result.signature.method == "percentile"
    fig = bootstrap_difference_plot(
        result.official, sides=sides_of(result), method="percentile", confidence_level=result.signature.confidence_level
    )
    d, delta, shaded, p_one, text = _check_difference_figure(result, fig)
    assert delta > 0 and shaded == (d <= 0).sum()
    assert abs(shaded / d.size - p_one) <= 1 / (d.size + 1)  # interpolation moves it by less than 1/(B+1)
    assert "replicates \u2264 0: %s of %s" % ("{:,}".format(int(shaded)), "{:,}".format(d.size)) in text
    # the old rule (d* >= 2δ) gives another count here: the figure would not show the printed p
    assert (d >= 2 * delta).sum() != shaded


@functools.lru_cache(maxsize=None)
def _method_example(method, sides):
    from leaderboard_ci.phase.analysis import analyze

    rng = np.random.default_rng(5)
    gold = rng.integers(0, 2, 200)
    first, second = E._noisy(rng, gold, 0.8, 2), E._noisy(rng, gold, 0.74, 2)
    return analyze(
        [str(g) for g in gold],
        {"first": [str(x) for x in first], "second": [str(x) for x in second]},
        metric="accuracy",
        n_resamples=500,
        method=method,
        sides=sides,
    )


@pytest.mark.parametrize("sides", ["two", "one"])
@pytest.mark.parametrize("method", ["percentile", "basic", "bca", "normal"])
def test_bootstrap_difference_plot_follows_the_configured_method(method, sides):
    from scipy.stats import norm

    result = _method_example(method, sides)
    figures = target_figures(
        result.official,
        confidence_level=result.signature.confidence_level,
        sides=sides_of(result),
        method=result.signature.method,
    )
    fig = figures["bootstrap_difference"]
    d, delta, shaded, p_one, text = _check_difference_figure(result, fig)
    assert delta > 0
    if method == "normal":  # the normal curve's tail below 0 is the p-value; no replicate is counted
        assert shaded == 0
        assert [a for a in fig.axes[0].get_children() if a.get_gid() == "tail:normal"]
        assert p_one == pytest.approx(norm.cdf(-delta / np.std(d, ddof=1)), rel=1e-9)
        assert "\u03a6(\u2212\u03b4/SE)" in text and "normal approx" in text
        return
    tail = d >= 2 * delta if method == "basic" else d <= 0
    assert shaded == tail.sum()
    if method == "bca":  # the share goes through the level map: only the tail is the same as percentile's
        assert "BCa level map" in text
        percentile = _method_example("percentile", sides).official.vs_winner.iloc[0]["p_bootstrap"]
        assert p_one != pytest.approx(percentile / (2 if sides == "two" else 1))
    else:
        assert abs(shaded / d.size - p_one) <= 1 / (d.size + 1)
        assert "the shaded share" in text


def test_heatmap_orientation_and_annotations():
    target = E.classification().official
    fig = pair_heatmap(target)
    image = [a for a in fig.axes[0].get_images() if a.get_gid() == "heatmap"][0]
    data = image.get_array()
    names = list(target.systems["name"])
    for row in target.pairs.itertuples(index=False):
        i, j = names.index(row.b) - 1, names.index(row.a)  # row = lower-ranked, column = higher-ranked
        assert data[i, j] == pytest.approx(row.diff)
    assert data.mask[0, 1]  # upper triangle empty
    norm = image.norm
    finite = data.compressed()
    if finite.min() >= 0:  # every difference >= 0 (rank order): one hue from 0, no unused negative half
        assert norm.vmin == 0
    else:
        assert norm.vmin == -norm.vmax  # diverging, centred at 0
    # the scale covers the systems that are not far off; a far-off system's cells beyond it are hatched
    hatched = [p for p in fig.axes[0].patches if p.get_gid() == "clipped"]
    assert len(hatched) == int((np.abs(finite) > norm.vmax * (1 + 1e-9)).sum())
    assert norm.vmax == pytest.approx(finite.max()) or len(hatched) > 0
    texts = _texts(fig)
    assert len(texts) == len(target.pairs)  # one annotation per pair: its difference, then its stars
    assert sorted(t.split("\n")[1] if "\n" in t else "" for t in texts) == sorted(target.pairs["stars"])
    assert sorted(float(t.split("\n")[0]) for t in texts) == pytest.approx(sorted(target.pairs["diff"]), abs=6e-4)
    assert any(t.endswith("*") for t in texts)


def test_heatmap_scale_is_sequential_when_nothing_is_negative_and_robust_to_a_far_off_system():
    from leaderboard_ci.report.figure_layout import heatmap_scale

    nan = float("nan")
    values = [[0.02, nan, nan], [0.05, 0.01, nan], [0.90, 0.85, 0.80]]  # the last row: a broken run
    rows, cols = ["b", "c", "broken"], ["a", "b", "c"]
    scale = heatmap_scale(values, rows, cols, far={"broken"})
    assert scale.sequential and scale.vmax == pytest.approx(0.05) and scale.extend == "max"
    assert scale.clipped.tolist() == [[False] * 3, [False] * 3, [True] * 3]
    signed = heatmap_scale([[-0.02, nan], [0.05, 0.01]], ["b", "c"], ["a", "b"])
    assert not signed.sequential and signed.vmax == pytest.approx(0.05) and not signed.clipped.any()


def test_heatmap_stays_readable_with_40_systems():
    target = E.many_systems().official
    fig = pair_heatmap(target)
    ax = fig.axes[0]
    assert len(ax.get_xticklabels()) == 39
    assert max(t.get_fontsize() for t in ax.get_yticklabels()) < 10
    assert all(not any(c.isdigit() for c in t) for t in _texts(fig))  # stars only, no numbers
    width, height = fig.get_size_inches()
    assert width < 20 and height < 20
    for fig in target_figures(target).values():
        assert figure_png(fig, dpi=30)


def test_one_system_figures_refuse_clearly():
    target = E.one_system().official
    for draw in (difference_plot, pair_heatmap, bootstrap_difference_plot):
        with pytest.raises(ValueError, match="two systems"):
            draw(target)


def test_only_report_plots_imports_matplotlib():
    for name in sorted(os.listdir(PACKAGE)):
        if name.endswith(".py") and name != "report_plots.py":
            with open(os.path.join(PACKAGE, name), encoding="utf-8") as handle:
                source = handle.read()
            assert "import matplotlib" not in source and "from matplotlib" not in source, name
    code = (
        "import sys, leaderboard_ci.report.html_report, leaderboard_ci.report.json_report, "
        "leaderboard_ci.report.tables, "
        "leaderboard_ci.report.compare, leaderboard_ci.cli.compare; print('matplotlib' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        stdout=subprocess.PIPE,
        check=True,
        env=dict(os.environ, PYTHONPATH=os.path.dirname(PACKAGE)),
    )
    assert out.stdout.strip() == b"False"


@pytest.mark.parametrize("method", ["percentile", "basic"])
@pytest.mark.parametrize("two", [True, False])
def test_histogram_shades_exactly_the_tail_the_p_value_inverts_on_a_lattice(two, method):
    """Accuracy-like differences on a lattice, many exactly at 0 and at 2δ: ties at the inversion point are shaded."""
    from leaderboard_ci.core.pairs import pair_statistics

    target = E.classification().official
    rng = np.random.default_rng(7)
    n = 64  # a power of 2: the lattice is exact in binary, so ties at 0 and 2δ are exact ties
    runner = rng.integers(26, 38, size=4000) / n
    winner = runner + rng.choice([-2, -1, 0, 0, 1, 2, 2, 3, 4, 5], size=4000) / n  # δ = 2/n: many at 0 and 2δ
    full = np.array([0.5 + 2.0 / n, 0.5])
    reps = np.column_stack([winner, runner] + [runner - 0.1] * (target.replicates.shape[1] - 2))
    stats = pair_statistics(reps[:, :2], full, np.array([[0, 1]]), 1.0, method, 0.95)
    p = (stats.p_two_sided if two else stats.p_value)[0]
    vs = target.vs_winner.copy()
    vs.loc[0, "diff"], vs.loc[0, "p_bootstrap"] = full[0] - full[1], p
    vs.loc[0, "ci_low"], vs.loc[0, "ci_high"] = stats.ci_low[0], stats.ci_high[0]
    systems = target.systems.copy()
    systems.loc[0, "score"], systems.loc[1, "score"] = full
    crafted = dataclasses.replace(target, replicates=reps, vs_winner=vs, systems=systems)
    d = winner - runner
    delta = full[0] - full[1]
    assert (d == 0).sum() > 300 and (d == 2 * delta).sum() > 300 and (d > 2 * delta).sum() > 300
    fig = bootstrap_difference_plot(crafted, sides="two" if two else "one", method=method)
    shaded, total = _shaded(fig)
    tail = d >= 2 * delta if method == "basic" else d <= 0
    assert total == d.size and shaded == tail.sum()
    p_one = stats.p_value[0]
    assert abs(shaded / d.size - p_one) <= 1 / (d.size + 1)
    if two:
        assert p == pytest.approx(2 * p_one, abs=1e-15)
    where = "\u2265 2\u03b4" if method == "basic" else "\u2264 0"
    assert "replicates %s: %s of 4,000" % (where, "{:,}".format(int(shaded))) in _legend(fig)[1]


# ---------------------------------------------------------------------------
# Rank sets and the family-wise intervals
# ---------------------------------------------------------------------------
def _span(text):
    low, high = (int(x) for x in text.strip("[]").split(", "))
    return [low, high]


@pytest.mark.parametrize("name", ["classification", "regression", "groups", "two"])
def test_the_rank_set_figure_draws_the_tables_rank_sets(name):
    """Every system's point rank and both rank sets in the figure are those of the systems table, in its order."""
    from leaderboard_ci.report.rank_plots import rank_set_plot
    from leaderboard_ci.report.tables import systems_table

    result = E.ALL[name]()
    for target in result.targets.values():
        fig = rank_set_plot(target, baseline=result.baseline)
        wide = _artists(fig, "rankset:simultaneous:")
        thin = _artists(fig, "rankset:marginal:")
        points = _artists(fig, "rank:")
        table = systems_table(result, target)
        column = {h: j for j, h in enumerate(table.header)}
        assert len(table.rows) == len(wide) == len(thin) == len(points) == len(target.systems)
        for y, row in enumerate(table.rows):
            system = row[column["System"]]
            assert list(wide[system].get_xdata()) == _span(row[column["Rank set, simultaneous"]])
            assert list(thin[system].get_xdata()) == _span(row[column["Rank set, marginal"]])
            assert list(points[system].get_xdata()) == [int(row[column["Rank"]])]
            assert list(wide[system].get_ydata()) == list(thin[system].get_ydata()) == [y, y]  # table order
            low, high = _span(row[column["Rank set, simultaneous"]])
            if system not in (target.winner, result.baseline):  # blue: 1 in the simultaneous set (tied)
                assert (to_hex(points[system].get_color()) == TIED) == (row[column["Tied"]] == "yes") == (low == 1)
        labels = [t.get_text() for t in fig.legends[0].get_texts()]
        assert any("simultaneous" in l for l in labels) and any("marginal" in l for l in labels)


def test_the_rank_set_figure_needs_rank_sets():
    from leaderboard_ci.report.rank_plots import rank_set_plot

    target = E.classification().official
    bare = target.systems.drop(columns=["rank_set_low"])
    with pytest.raises(ValueError, match="rank_set_low"):
        rank_set_plot(dataclasses.replace(target, systems=bare))


@pytest.mark.parametrize("name", ["classification", "regression", "groups", "direction_only"])
def test_with_max_t_the_differences_figure_draws_the_family_wise_interval(name):
    """The bar beside each verdict is its simultaneous interval: green when the row is significant, dashed when only
    its direction is decided (then the bar holds 0), and it excludes 0 exactly when the row is green and solid."""
    result = E.ALL[name]() if name in E.ALL else getattr(E, name)()
    seen = set()
    for target in result.targets.values():
        fig = difference_plot(target, decision="max-t", primary="maxt")
        lines = _artists(fig, "ci:")
        for row in target.vs_winner.itertuples(index=False):
            assert list(lines[row.name].get_xdata()) == [row.fw_low, row.fw_high]
            excludes = not ci_contains_zero(row.fw_low, row.fw_high)
            assert excludes == (bool(row.significant) and not row.direction_only)
            assert to_hex(lines[row.name].get_color()) == (GREEN if row.significant else RED)
            assert (lines[row.name].get_linestyle() == "--") == bool(row.direction_only)
            seen.add((excludes, bool(row.direction_only)))
        labels = [t.get_text() for t in fig.legends[0].get_texts()]
        assert any("simultaneous" in l for l in labels)
        assert any("dashed" in l for l in labels) == bool(target.vs_winner["direction_only"].any())
        assert "simultaneous interval" in fig.axes[0].get_xlabel()
    if name == "direction_only":
        assert (False, True) in seen  # a dashed green bar over 0
    else:
        assert {(True, False), (False, False)} <= seen


def test_the_legend_does_not_relate_a_p_value_to_itself():
    """p and the shaded share printed with the same digits: said once, not "0.2569 ≈ 0.2569" (issue 37)."""
    import types

    import pandas as pd

    from leaderboard_ci.report.figure_layout import p_value_tail

    rng = np.random.default_rng(5)
    d = rng.normal(0.01, 0.02, 9999)
    share = float(np.mean(d <= 0))
    reps = np.column_stack([d, np.zeros_like(d)])
    for p, expected in ((share + 2e-7, "the shaded share"), (share + 5e-5, "\u2248")):
        target = types.SimpleNamespace(
            replicates=reps,
            metric=types.SimpleNamespace(sign=1.0),
            vs_winner=pd.DataFrame({"diff": [0.01], "p_bootstrap": [p]}),
        )
        relation = p_value_tail(target, "percentile", two=False).relation
        assert expected in relation, relation
        shown = re.findall(r"\d\.\d+", relation)
        assert len(shown) == len(set(shown)), relation


def test_a_small_matrix_with_a_far_off_system_keeps_its_key_on_the_figure():
    """Three systems, one far off (the hatching's second line): the vertical key's label used to be taller than
    the figure, and constrained layout gave up (warning; a collapsed, unreadable heatmap)."""
    import warnings

    rng = np.random.default_rng(11)
    gold = rng.integers(0, 3, 540)
    systems = {
        "user101": [str(x) for x in E._noisy(rng, gold, 0.99, 3)],
        "user2": [str(x) for x in E._noisy(rng, gold, 0.86, 3)],
        "majority class": ["0"] * gold.size,
    }
    from leaderboard_ci.phase.analysis import analyze

    target = analyze([str(g) for g in gold], systems, metric="accuracy", n_resamples=200).official
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # "constrained_layout not applied because axes sizes collapsed to zero"
        fig = pair_heatmap(target)
        fig.canvas.draw()
    assert [p for p in fig.axes[0].patches if p.get_gid() == "clipped"]  # the case: a far-off system, hatched
    renderer = fig.canvas.get_renderer()
    canvas = fig.bbox
    for ax in fig.axes:
        box = ax.get_tightbbox(renderer)
        assert canvas.x0 - 1 <= box.x0 and box.x1 <= canvas.x1 + 1 and canvas.y0 - 1 <= box.y0, ax
        assert box.y1 <= canvas.y1 + 1, ax
