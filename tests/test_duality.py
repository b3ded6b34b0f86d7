"""Every verdict agrees with the interval printed beside it (issue 20), in every sample report.

Over every entry of every sample report (the sample competition, each example
competition under ``examples/``, the synthetic report examples of
``tests/_report_examples.py``) and of the 60-system phase (``tests/statistical/_phase60.py``),
in the DataFrames of the analysis and in its report.json, count the disagreements
between

(a) ``p_value < alpha`` and the marginal interval ``[ci_low, ci_high]`` excluding 0
    (with ``analysis.test: permutation`` the bootstrap p-value ``p_bootstrap`` is the
    one that goes with the bootstrap interval; ``p_value`` is then the permutation
    test's);
(b) the simultaneous interval ``[fw_low, fw_high]`` excluding 0 and the max-t verdict
    that it goes with: ``p_maxt < alpha`` and not ``direction_only`` (``significant`` too,
    where max-t decides); a ``direction_only`` row has ``p_maxt < alpha`` and an interval
    that includes 0 (a later step of the step-down decides its direction only, and the
    rendered verdict says so with its mark, :func:`leaderboard_ci.report.verdicts.verdict_mark`);
(c) ``tied_with_winner`` and ``rank_set_low == 1`` (1 in the simultaneous rank set).

Each count must be zero.  The example competitions run as the organizer's command
runs them (the program's config merged with the reference folder's, the submissions
folder, the config's baseline), at B = 1,000 instead of 10,000 to stay fast.
"""

import dataclasses
import glob
import math
import os
import sys
import tempfile
from collections import OrderedDict

import _report_examples
import pytest

#: The shared report examples (lru-cached analyses and pages) are built once: these modules run on one xdist worker.
pytestmark = pytest.mark.xdist_group("report_examples")

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir)
PROGRAM = os.path.join(ROOT, "scoring_program")
STAT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "statistical")
COMPETITIONS = ["competition_bundle"] + sorted(
    os.path.relpath(os.path.dirname(p), ROOT) for p in glob.glob(os.path.join(ROOT, "examples", "*", "reference_data"))
)
B = 1000


def _analyze_competition(folder):
    """What ``leaderboard-ci-end-of-phase --reference REF --submissions SUBS`` computes (without writing)."""
    from leaderboard_ci.cli import end_of_phase as cli
    from leaderboard_ci.phase.analysis import Execution, analyze
    from leaderboard_ci.phase.ingestion.submissions import load_systems
    from leaderboard_ci.scoring.config import load_config
    from leaderboard_ci.scoring.readers import read_gold

    ref = os.path.join(ROOT, folder, "reference_data")
    config = load_config(PROGRAM, ref)
    config = dataclasses.replace(config, bootstrap=dataclasses.replace(config.bootstrap, n_resamples=B))
    gold = read_gold(ref, config)
    with tempfile.TemporaryDirectory() as work:
        coded, skipped, _ = load_systems(
            os.path.join(ROOT, folder, "sample_submissions"), config, gold, os.path.join(work, "submissions")
        )
    baseline = cli._add_baseline(config, ref, gold, coded, None)
    return analyze(
        gold, OrderedDict(coded), config=config, baseline=baseline, execution=Execution(n_jobs="auto"), skipped=skipped
    )


def _phase60(variant):
    if STAT not in sys.path:
        sys.path.insert(0, STAT)
    import _phase60

    with tempfile.TemporaryDirectory() as root:
        return _phase60.analyze_phase(_phase60.make_phase(root, variant, n_resamples=B))


def _excludes_zero(low, high):
    return (low > 0) | (high < 0)


def _missing(value):
    return value is None or (isinstance(value, float) and math.isnan(value))


class Count(object):
    """Disagreements per check, and the number of entries checked."""

    def __init__(self):
        self.bad = OrderedDict(
            (k, [])
            for k in ("interval_vs_p", "fw_vs_maxt", "direction_vs_maxt", "fw_vs_significant", "tied_vs_rank_set")
        )
        self.checked = OrderedDict((k, 0) for k in self.bad)
        self.directions = 0  # rows whose direction only is decided (a later step of the step-down)

    def check(self, kind, agree, where):
        self.checked[kind] += 1
        if not agree:
            self.bad[kind].append(where)

    def __str__(self):
        return (
            "; ".join(
                "%s: %d of %d disagree%s" % (k, len(v), self.checked[k], (" (e.g. %s)" % v[:3]) if v else "")
                for k, v in self.bad.items()
            )
            + "; %d direction-only rows" % self.directions
        )


def _p_column(result):
    return "p_value" if result.settings.get("test", "bootstrap") == "bootstrap" else "p_bootstrap"


def check_frames(result, count, label):
    alpha = result.signature.alpha
    p_col = _p_column(result)
    primary = result.signature.primary
    for key, target in result.targets.items():
        for table_name in ("vs_winner", "pairs"):
            frame = target.vs_winner if table_name == "vs_winner" else target.pairs
            for row in frame.to_dict("records"):
                where = (label, key, table_name, row.get("a"), row.get("b", row.get("name")))
                if not _missing(row.get(p_col)) and not _missing(row.get("ci_low")):
                    count.check(
                        "interval_vs_p",
                        (row[p_col] < alpha) == bool(_excludes_zero(row["ci_low"], row["ci_high"])),
                        where + (row[p_col], row["ci_low"], row["ci_high"]),
                    )
                if "fw_low" in row and not _missing(row.get("p_maxt")):
                    fw = bool(_excludes_zero(row["fw_low"], row["fw_high"]))
                    direction = bool(row["direction_only"])
                    count.check("fw_vs_maxt", (row["p_maxt"] < alpha and not direction) == fw, where)
                    count.check("direction_vs_maxt", not direction or (row["p_maxt"] < alpha and not fw), where)
                    count.directions += direction
                    if primary == "maxt" and "significant" in row:
                        count.check("fw_vs_significant", (bool(row["significant"]) and not direction) == fw, where)
        systems = target.systems
        if "rank_set_low" in systems.columns:
            for row in systems.to_dict("records"):
                count.check(
                    "tied_vs_rank_set",
                    bool(row["tied_with_winner"]) == (int(row["rank_set_low"]) == 1),
                    (label, key, row["name"]),
                )
            assert set(target.tied_with_winner) == set(systems.name[systems.rank_set_low == 1]), (label, key)


def check_json(result, count, label):
    from leaderboard_ci.report.json_report import result_to_dict

    data = result_to_dict(result, top=None)
    alpha = data["signature"].get("alpha", result.signature.alpha)
    p_col = _p_column(result)
    primary = data["settings"].get("primary")
    for key, target in data["metrics"].items():
        for table_name in ("vs_winner", "pairs"):
            for row in target[table_name]:
                where = ("json", label, key, table_name, row.get("a"), row.get("b", row.get("name")))
                p = row.get(p_col)
                if not _missing(p) and not _missing(row.get("ci_low")):
                    count.check(
                        "interval_vs_p", (p < alpha) == bool(_excludes_zero(row["ci_low"], row["ci_high"])), where
                    )
                p_maxt = (row.get("p_adjusted") or {}).get("maxt")
                if "fw_low" in row and not _missing(p_maxt) and not _missing(row["fw_low"]):
                    fw = bool(_excludes_zero(row["fw_low"], row["fw_high"]))
                    direction = bool(row["direction_only"])
                    count.check("fw_vs_maxt", (p_maxt < alpha and not direction) == fw, where)
                    count.check("direction_vs_maxt", not direction or (p_maxt < alpha and not fw), where)
                    if primary == "maxt" and "significant" in row:
                        count.check("fw_vs_significant", (bool(row["significant"]) and not direction) == fw, where)
        for row in target["systems"]:
            low = row.get("rank_set_low")
            if low is None and isinstance(row.get("rank_set"), dict) and row["rank_set"].get("simultaneous"):
                low = row["rank_set"]["simultaneous"][0]
            if low is not None:
                count.check(
                    "tied_vs_rank_set",
                    bool(row["tied_with_winner"]) == (int(low) == 1),
                    ("json", label, key, row["name"]),
                )


#: Sources whose rendered page, Markdown and LaTeX tables are checked too: 2, 10 and 60 systems, and a
#: verdict that is a direction only.
RENDERED = (
    ("examples", "two"),
    ("competition", "competition_bundle"),
    ("phase60", "classification"),
    ("examples", "direction_only"),
)


def check_rendered(result, name):
    """The HTML page, the Markdown and the LaTeX tables: every vs-winner verdict as printed (stars, the
    direction-only mark, "Significant") agrees with the simultaneous interval printed beside it."""
    import json

    from test_report_consistency import _check_rendered, _latex_name, _latex_rows, _markdown_rows, _Tables

    from leaderboard_ci.report.formatting import MINUS
    from leaderboard_ci.report.html_report import render_report, target_anchor
    from leaderboard_ci.report.json_report import result_to_json
    from leaderboard_ci.report.tables import tables_latex, tables_markdown, target_tables

    report = json.loads(result_to_json(result, top=None))
    alpha = result.signature.alpha
    parser = _Tables()
    parser.feed(render_report(result, figures={}, top=None))
    checked = 0
    for key, target in result.targets.items():
        metric = report["metrics"][key]
        rows = [[c.replace(MINUS, "-") for c in r] for r in parser.sections[target_anchor(key)]]
        checked += _check_rendered(rows, metric, alpha)
        tables = target_tables(result, target)
        checked += _check_rendered(_markdown_rows(tables_markdown(tables, title=target.title)), metric, alpha)
        latex = _latex_rows(tables_latex(tables, title=target.title))
        checked += _check_rendered(latex, metric, alpha, _latex_name)
    assert checked >= 3 * sum(2 * len(m["systems"]) - 1 for m in report["metrics"].values())
    if name == "direction_only":  # the mark is printed (the checks above hold it to the interval)
        assert report["metrics"]["accuracy"]["vs_winner"][0]["direction_only"]


SOURCES = (
    [("competition", c) for c in COMPETITIONS]
    + [("examples", name) for name in sorted(_report_examples.ALL)]
    + [("examples", "many"), ("examples", "one_sided"), ("examples", "direction_only")]
    + [("phase60", v) for v in ("classification", "scores", "ranking")]
)


def _result(kind, name):
    if kind == "competition":
        return _analyze_competition(name)
    if kind == "phase60":
        return _phase60(name)
    if name == "many":
        return _report_examples.many_systems()
    if name == "one_sided":
        return _report_examples.one_sided()
    if name == "direction_only":
        return _report_examples.direction_only()
    return _report_examples.ALL[name]()


#: Competitions whose analysis is slow (a fit per replicate, TER; 4-13 s each for forecasting, detection and
#: scores_multiclass): checked in the slow run only; the 60-system phases and the other examples represent them.
SLOW_SOURCES = tuple(
    ("competition", "examples/" + name)
    for name in ("preference", "generation", "forecasting", "detection", "scores_multiclass")
)


@pytest.mark.parametrize(
    "kind,name",
    [pytest.param(*s, marks=pytest.mark.slow) if s in SLOW_SOURCES else s for s in SOURCES],
    ids=["%s-%s" % s for s in SOURCES],
)
def test_every_verdict_agrees_with_its_interval(kind, name):
    result = _result(kind, name)
    count = Count()
    check_frames(result, count, name)
    check_json(result, count, name)
    if (kind, name) in RENDERED:  # the page and the tables as printed, at 2, 10 and 60 systems
        check_rendered(result, name)
    print("%s %s: %s" % (kind, name, count))  # the counts, with pytest -s
    if len(result.names) > 1:
        # max-t is the default (analysis.corrections starts with it): its intervals are in every table
        assert count.checked["interval_vs_p"] > 0 and count.checked["fw_vs_maxt"] > 0, "nothing was checked: %s" % count
    assert all(not v for v in count.bad.values()), "%s %s: %s" % (kind, name, count)
