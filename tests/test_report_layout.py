"""Every text of every figure lies inside its canvas, at 2, 10 and 60 systems with long names;
the ranking axis zooms to the participants and marks far-off systems at the edge with their value."""

import functools

import numpy as np
import pytest
from matplotlib.text import Text

from leaderboard_ci.phase.analysis import analyze
from leaderboard_ci.report.plots import ordered_ci_plot, target_figures
from leaderboard_ci.report.rank_plots import rank_set_plot

LONG = "a_rather_long_team_name_with_a_descriptive_run_label"


def _noisy(rng, gold, accuracy, classes):
    pred = gold.copy()
    flip = rng.random(gold.size) > accuracy
    pred[flip] = rng.integers(0, classes, int(flip.sum()))
    return pred


@functools.lru_cache(maxsize=None)
def competition(m, metric="f1_macro", groups=True):
    """``m`` systems with long names (one near zero), a baseline, two groups (or none)."""
    rng = np.random.default_rng(m)
    n = 240
    gold = rng.integers(0, 3, n)
    groups = np.where(np.arange(n) % 2 == 0, "female", "male") if groups else None
    systems = {}
    for i in range(m - 1):
        systems["%s_%02d" % (LONG if i % 2 == 0 else "team%d" % i, i)] = _noisy(rng, gold, 0.55 + 0.3 * i / m, 3)
    if m >= 10:
        # a broken run: almost everything wrong, far below the others
        systems["broken_run_of_%s" % LONG] = (gold + 1) % 3
    systems["majority baseline"] = np.zeros(n, dtype=int)
    return analyze(
        [str(g) for g in gold],
        {k: [str(x) for x in v] for k, v in systems.items()},
        metric=metric,
        groups=list(groups) if groups is not None else None,
        baseline="majority baseline",
        n_resamples=200,
    )


def _undrawn_tick_labels(fig):
    """Tick labels matplotlib keeps but does not draw: their tick lies outside the axis' view."""
    out = set()
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            low, high = sorted(axis.get_view_interval())
            span = (high - low) or 1.0
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                if not low - 1e-9 * span <= tick.get_loc() <= high + 1e-9 * span:
                    out.update((id(tick.label1), id(tick.label2)))
    return out


def _clipped_texts(fig):
    """Every drawn, non-empty text whose bounding box leaves the canvas (0.5 pixel of slack)."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    canvas = fig.bbox
    undrawn = _undrawn_tick_labels(fig)
    out = []
    for text in fig.findobj(Text):
        if not text.get_visible() or not text.get_text().strip() or id(text) in undrawn:
            continue
        box = text.get_window_extent(renderer)
        if box.x0 < canvas.x0 - 0.5 or box.x1 > canvas.x1 + 0.5 or box.y0 < canvas.y0 - 0.5 or box.y1 > canvas.y1 + 0.5:
            out.append(
                (
                    text.get_text()[:60],
                    [round(v) for v in (box.x0, box.y0, box.x1, box.y1)],
                    [round(v) for v in (canvas.x1, canvas.y1)],
                )
            )
    return out


@pytest.mark.parametrize("m", [2, 10, pytest.param(60, marks=pytest.mark.slow)])  # 60 systems: slow; 2 and 10 stay
def test_no_text_is_clipped(m):
    result = competition(m)
    measured = 0
    for target in list(result.targets.values())[:2]:  # all items and one group
        figures = target_figures(target, baseline=result.baseline, decision="max-t", primary="maxt")
        figures["rank_sets"] = rank_set_plot(target, baseline=result.baseline)
        for name, fig in figures.items():
            assert _clipped_texts(fig) == [], "%s, %d systems, %s" % (name, m, target.key)
            measured += 1
    assert measured >= 2


def test_the_ranking_axis_zooms_to_the_participants():
    result = competition(10)
    target = result.official
    fig = ordered_ci_plot(target, baseline=result.baseline)
    ax = fig.axes[0]
    frame = target.systems
    broken = frame[frame["name"].str.startswith("broken_run")].iloc[0]
    low, high = ax.get_xlim()
    assert not low <= broken["score"] <= high  # far off: not on the axis
    others = frame[~frame["name"].isin([broken["name"], result.baseline])]
    assert low <= others["ci_low"].min() and others["ci_high"].max() <= high
    assert (high - low) < 2.5 * (others["ci_high"].max() - others["ci_low"].min())
    edge = [a for a in ax.get_children() if a.get_gid() == "offscale:%s" % broken["name"]]
    assert edge, "the far-off system is marked at the edge"
    texts = [t.get_text() for t in ax.texts]
    assert any(t.startswith("%.4f" % broken["score"]) for t in texts)


@pytest.mark.slow  # a whole write_report at 60 systems (90 s on 2 cores); test_no_text_is_clipped[10] represents it
def test_the_pages_figures_fit_at_the_resolution_they_are_drawn(tmp_path, monkeypatch):
    """write_report draws each figure for the page (110 dpi) and for the files (150 dpi); a layout frozen at
    150 dpi and reused at 110 pushed the winner's bold name off the canvas at 60 systems."""
    import leaderboard_ci.report.plots as plots
    from leaderboard_ci.report.files import write_report

    result = competition(60, groups=False)  # one target: its four figures
    original = plots.figure_png
    found = []

    def checked(fig, dpi=110, palette=False):
        fig.set_dpi(dpi)
        found.extend(_clipped_texts(fig))  # draws with whatever layout the figure has now
        return original(fig, dpi=dpi, palette=palette)

    monkeypatch.setattr(plots, "figure_png", checked)
    write_report(result, str(tmp_path / "report"), figure_formats=("png",))
    assert found == []


def _name_labels(fig):
    """The drawn tick labels of every axis with more than one (the system names)."""
    undrawn = _undrawn_tick_labels(fig)
    out = []
    for ax in fig.axes:
        for labels in (ax.get_yticklabels(), ax.get_xticklabels()):
            shown = [t for t in labels if t.get_visible() and t.get_text().strip() and id(t) not in undrawn]
            if len(shown) > 1 and not all(_is_number(t.get_text()) for t in shown):
                out.append(shown)
    return out


def _is_number(text):
    try:
        float(text.replace("\u2212", "-"))
        return True
    except ValueError:
        return False


@pytest.mark.parametrize("m", [10, pytest.param(60, marks=pytest.mark.slow)])
def test_name_labels_are_distinct_and_readable(m):
    """Long names shortened to one prefix gave 23 identical labels in one figure, at 5 points."""
    from leaderboard_ci.report.figure_layout import NAME_FONT_MIN

    result = competition(m)
    target = result.official
    figures = target_figures(target, baseline=result.baseline, decision="max-t", primary="maxt")
    figures["rank_sets"] = rank_set_plot(target, baseline=result.baseline)
    checked = 0
    for name, fig in figures.items():
        fig.canvas.draw()
        for labels in _name_labels(fig):
            texts = [t.get_text() for t in labels]
            assert len(set(texts)) == len(texts), (name, sorted(t for t in texts if texts.count(t) > 1)[:4])
            assert min(t.get_fontsize() for t in labels) >= NAME_FONT_MIN, name
            checked += 1
    assert checked >= 4


def test_shortened_names_keep_what_tells_them_apart():
    from leaderboard_ci.report.figure_layout import short_names

    names = ["%s_%02d" % (LONG, i) for i in range(30)] + ["x" * 20 + c + "y" * 30 for c in "AB"] + ["short"]
    labels = short_names(names)
    assert len(set(labels)) == len(names) and max(len(label) for label in labels) <= 32
    assert labels[-1] == "short" and labels[3].endswith("_03") and "\u2026" in labels[3]
    assert short_names(["a $x$ b"]) == [r"a \$x\$ b"]


@pytest.mark.slow  # 60 systems
def test_a_far_off_baseline_does_not_flatten_the_differences():
    """The majority baseline 0.6 beyond the others (whose differences span 0.5) took half of the axis."""
    from leaderboard_ci.report.plots import difference_plot

    result = competition(60, groups=False)
    target = result.official
    fig = difference_plot(target, baseline=result.baseline)
    ax = fig.axes[0]
    frame = target.vs_winner
    base = frame[frame["name"] == result.baseline].iloc[0]
    low, high = ax.get_xlim()
    assert not low <= base["diff"] <= high
    assert [a for a in ax.get_children() if a.get_gid() == "offscale:%s" % result.baseline]
