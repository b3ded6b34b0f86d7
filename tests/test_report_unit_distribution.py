"""The end-of-phase report's per-unit distribution figure (ranking: per-query values).

A task that scores the mean of a value per unit offers the values
(``Statistics.unit_values``); the analysis summarizes them per system and the
report draws them.  Checked: the summaries equal pytrec_eval's per-query values,
the figure's diamonds are the ranking table's scores in its order, no text
leaves the canvas, and in headless Chromium (Playwright) the figure is shown
whole at 2, 10 and 60 systems.
"""

import os
import shutil

import numpy as np
import pytest

pytrec_eval = pytest.importorskip("pytrec_eval")

from leaderboard_ci.phase.analysis import Execution, analyze  # noqa: E402
from leaderboard_ci.report.plots import _figure  # noqa: E402
from leaderboard_ci.report.unit_plots import unit_distribution_plot  # noqa: E402

LONG = "a_rather_long_team_name_with_a_descriptive_run_label"


def _competition(m, n_queries=60, seed=0):
    """Graded qrels and ``m`` runs of increasing quality, one of them broken; long and short names."""
    rng = np.random.default_rng(seed)
    qrels, runs = {}, [dict() for _ in range(m)]
    for q in range(n_queries):
        qid = "q%d" % q
        docs = ["d%d" % d for d in range(30)]
        grades = rng.choice(4, size=30, p=[0.6, 0.2, 0.12, 0.08])
        qrels[qid] = dict((d, int(g)) for d, g in zip(docs, grades))
        for j in range(m):
            skill = -1.0 if (j == m - 1 and m > 2) else 0.2 + 1.5 * j / max(1, m - 1)
            scores = skill * grades + rng.normal(0, 1.2, 30)
            if q % 9 == 0 and j % 3 == 0:
                continue  # some runs leave some queries out (they score 0 there)
            runs[j][qid] = dict((d, float(s)) for d, s in zip(docs, scores))
    names = ["%s_%02d" % (LONG if j % 2 == 0 else "team%d" % j, j) for j in range(m)]
    return qrels, dict(zip(names, runs))


def _analyze(m, n_resamples=200, **kwargs):
    qrels, systems = _competition(m)
    return (
        qrels,
        systems,
        analyze(
            list(qrels.items()),
            systems,
            metric="ndcg@10",
            n_resamples=n_resamples,
            execution=Execution(n_jobs=1),
            **kwargs,
        ),
    )


def _pytrec(qrels, run, measure="ndcg_cut_10"):
    out = pytrec_eval.RelevanceEvaluator(qrels, {measure}).evaluate(run)
    return np.array([out[q][measure] if q in out else 0.0 for q in qrels])


@pytest.mark.parametrize("missing", ["zero", "skip"])
def test_summaries_are_pytrec_evals_per_query_values(missing):
    qrels, systems, result = _analyze(4, missing_queries=missing)
    target = result.official
    frame = target.unit_values
    assert frame.attrs["unit_name"] == "query" and frame.attrs["unit_plural"] == "queries"
    assert list(frame["system"]) == list(target.systems["name"])  # rank order
    scores = target.systems.set_index("name")["score"]
    for row in frame.itertuples(index=False):
        values = _pytrec(qrels, systems[row.system])
        if missing == "skip":
            values = values[[bool(systems[row.system].get(q)) for q in qrels]]
        assert row.n_units == values.size
        assert abs(row.mean - values.mean()) <= 1e-12
        assert abs(row.mean - scores[row.system]) <= 1e-12  # the diamond is the table's score
        expected = np.percentile(values, [5, 25, 50, 75, 95])
        assert np.allclose([row.p05, row.q25, row.median, row.q75, row.p95], expected, rtol=0, atol=1e-12)


def test_group_targets_have_their_queries_only():
    qrels, systems = _competition(3)
    groups = ["even" if i % 2 == 0 else "odd" for i in range(len(qrels))]
    result = analyze(
        list(qrels.items()), systems, metric="ndcg@10", groups=groups, n_resamples=100, execution=Execution(n_jobs=1)
    )
    for key, target in result.targets.items():
        frame = target.unit_values
        assert frame is not None, key
        parity = None if target.group is None else (0 if target.group == "even" else 1)
        for row in frame.itertuples(index=False):
            values = _pytrec(qrels, systems[row.system])
            if parity is not None:
                values = values[parity::2]
            assert row.n_units == values.size and abs(row.mean - values.mean()) <= 1e-12


def test_tasks_without_unit_values_get_no_figure():
    result = analyze(
        ["a", "b", "a", "b"] * 10,
        {"x": ["a", "b", "b", "b"] * 10, "y": ["a", "a", "a", "b"] * 10},
        metric="accuracy",
        n_resamples=50,
        execution=Execution(n_jobs=1),
    )
    assert result.official.unit_values is None
    assert unit_distribution_plot(result.official, _figure) is None


@pytest.mark.parametrize("m", [2, 10, 60])
def test_figure_agrees_with_the_table_and_fits_its_canvas(m):
    _, _, result = _analyze(m, n_resamples=100)
    target = result.official
    fig = unit_distribution_plot(target, _figure)
    fig.canvas.draw()
    means = {}
    for line in fig.axes[0].get_lines():
        gid = line.get_gid() or ""
        if gid.startswith("mean:"):
            means[gid[5:]] = (float(line.get_xdata()[0]), float(line.get_ydata()[0]))
    names = list(target.systems["name"])
    assert list(means) == names  # drawn in rank order, best at the top (row 0)
    for y, (name, score) in enumerate(zip(names, target.systems["score"])):
        assert means[name] == (score, float(y))
    renderer = fig.canvas.get_renderer()
    box = fig.bbox
    ax = fig.axes[0]
    low, high = sorted(ax.get_xlim())
    ticks = [label for loc, label in zip(ax.get_xticks(), ax.get_xticklabels()) if low <= loc <= high]
    texts = (
        [ax.title, ax.xaxis.label]
        + ticks
        + list(ax.get_yticklabels())
        + [t for legend in fig.legends for t in legend.get_texts()]
    )
    assert len(ax.get_yticklabels()) == m and len(ticks) >= 2
    for text in texts:
        extent = text.get_window_extent(renderer)
        assert extent.x0 >= box.x0 - 1 and extent.x1 <= box.x1 + 1, text.get_text()
        assert extent.y0 >= box.y0 - 1 and extent.y1 <= box.y1 + 1, text.get_text()


def _browser():
    sync_api = pytest.importorskip("playwright.sync_api")
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    return sync_api, chromium


@pytest.mark.parametrize(
    "m", [pytest.param(2, marks=pytest.mark.slow), 10, pytest.param(60, marks=pytest.mark.slow)]
)  # 10 stays
def test_report_shows_the_whole_figure_in_chromium(m, tmp_path):
    sync_api, chromium = _browser()
    _, _, result = _analyze(m, n_resamples=100)
    out = str(tmp_path / "report")
    result.write(out, figure_formats=())  # the page embeds its own PNGs: no figure files are read here
    with sync_api.sync_playwright() as p:
        try:
            browser = (
                p.chromium.launch(executable_path=chromium, args=["--no-sandbox"]) if chromium else p.chromium.launch()
            )
        except Exception as exc:  # no browser on this machine
            pytest.skip("no headless Chromium: %s" % str(exc).splitlines()[0])
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto("file://" + os.path.join(out, "report.html"))
        figure = page.locator("#t-ndcg-10-unit_distribution")
        assert figure.count() == 1
        state = figure.evaluate("""f => {
            const img = f.querySelector('img');
            const r = img.getBoundingClientRect();
            return {complete: img.complete, natural: img.naturalWidth, shown: r.width, left: r.left,
                    right: r.right, page: document.documentElement.clientWidth,
                    overflow: f.scrollWidth - f.clientWidth, caption: f.querySelector('figcaption').innerText};
        }""")
        # the figure comes right after the ranking (before the differences to the winner)
        order = page.evaluate("""() => Array.from(document.querySelectorAll('#t-ndcg-10 figure')).map(f => f.id)""")
        browser.close()
    assert state["complete"] and state["natural"] > 0
    assert state["left"] >= 0 and state["right"] <= state["page"]  # nothing cut off at the sides
    assert state["overflow"] <= 0
    assert state["shown"] >= min(state["natural"], 0.5 * state["page"])  # not shrunk to illegibility
    assert "diamond is the mean" in state["caption"] and "queries" in state["caption"]
    assert order.index("t-ndcg-10-unit_distribution") == order.index("t-ndcg-10-ordered_ci") + 1


def test_a_cut_page_draws_the_rows_of_its_table_and_names_queries():
    """61 rows in the per-query figure beside a table of 60: the cut now takes the per-unit values too."""
    from leaderboard_ci.report.formatting import unit_nouns
    from leaderboard_ci.report.scale import top_view

    _, _, result = _analyze(5, n_resamples=50)
    view = top_view(result.official, top=3)
    assert view.truncated and list(view.shown.unit_values["system"]) == view.names
    assert unit_nouns(result.official.metric) == ("query", "queries")
    html = result.to_html()
    assert "n = 60 queries" in html and "test items" not in html
