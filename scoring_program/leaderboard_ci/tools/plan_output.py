"""A test-set plan (:class:`~leaderboard_ci.tools.plan.Plan`) in words, as a figure and as files.

:func:`plan_paragraph` is the short paragraph an organizer pastes into a call
for participation; :func:`plan_markdown` adds the pairs and the scaling check;
:func:`plan_figure_png` draws the MDE against the test-set size with the
current size marked; :func:`write_plan` writes ``plan.md``, ``plan.png`` and
``plan.json``; :func:`readme_section` is what ``leaderboard-ci init`` appends to
the competition's README, and :func:`readme_plan_section` makes it from the default assumed rates.
"""

from __future__ import annotations

import json
import math
import os

import numpy as np

from .plan import DEFAULT_ASSUMPTIONS, assumed_plan, can_simulate

__all__ = [
    "plan_paragraph",
    "plan_markdown",
    "plan_figure_png",
    "write_plan",
    "readme_section",
    "readme_plan_section",
    "SECTION_TITLE",
]

#: The README heading ``init`` writes.
SECTION_TITLE = "## What this test set can detect"


def _g(value, digits=3):
    """A number with ``digits`` significant digits, no exponent for usual values."""
    if value == 0 or not np.isfinite(value):
        return "%g" % value
    places = max(0, digits - 1 - int(math.floor(math.log10(abs(value)))))
    return "%.*f" % (places, value)


def _items(n):
    return "{:,}".format(int(n))


def _basis(plan):
    if plan.source == "pilot":
        pairs = len(plan.pairs)
        systems = len(set([p.a for p in plan.pairs] + [p.b for p in plan.pairs]))
        return "the paired bootstrap of the pilot predictions of %d systems (%s)" % (
            systems,
            "their one pair"
            if pairs == 1
            else "the median over the %d pairs of neighbours in their ranking" % (systems - 1),
        )
    values = dict(plan.assumptions)
    return (
        "a simulated pair of systems, assumed to be each right on %g %% of the items and to give the same "
        "prediction on %g %% of them, with the gold's class distribution (paired bootstrap)"
        % (100 * values["accuracy"], 100 * values["agreement"])
    )


def plan_paragraph(plan):
    """The plan in a short paragraph of plain words."""
    family = (
        "one comparison"
        if plan.family_size == 1
        else "a family of %d comparisons, Bonferroni/Holm-corrected" % plan.family_size
    )
    text = (
        "With %s test items, a paired comparison of two systems on %s (%s) at alpha = %g (two-sided, %s) "
        "detects a true difference of %s or more with %g %% power: the minimal detectable difference (MDE). "
        "Smaller true differences may be real but will often be reported as ties. The standard error of a "
        "paired difference, %s, comes from %s (B = %d, seed %d); it shrinks like 1/sqrt(n), so halving the "
        "MDE takes four times as many items."
        % (
            _items(plan.n),
            plan.metric_title,
            plan.better,
            plan.alpha,
            family,
            _g(plan.mde),
            100 * plan.power,
            _g(plan.se),
            _basis(plan),
            plan.n_resamples,
            plan.seed,
        )
    )
    if plan.cluster_column is not None:
        used = [p.design_effect for p in plan.pairs if np.isfinite(p.design_effect)]
        text += (
            " The items are clustered by %s (%s clusters): each SE includes its design effect (median %s over "
            "the pairs), and sizes count items with clusters of the same sizes."
            % (plan.cluster_column, _items(plan.n_clusters), _g(float(np.median(used))) if used else "n/a")
        )
    if plan.difference is not None:
        needed = plan.n_needed
        text += " Detecting a difference of %g needs about %s items%s." % (
            plan.difference,
            _items(needed),
            " (the test set has enough)" if needed <= plan.n else "",
        )
    return text


def plan_markdown(plan, figure=None):
    """``plan.md``: the paragraph, a table of MDE by size, the pairs and the scaling check."""
    lines = ["# Test-set plan: %s" % plan.metric_title, "", plan_paragraph(plan), ""]
    if figure:
        lines += ["![MDE against the test-set size](%s)" % figure, ""]
    lines += ["| test items | MDE |", "| ---: | ---: |"]
    for factor in (0.25, 0.5, 1, 2, 4):
        n = max(1, int(round(factor * plan.n)))
        lines.append("| %s%s | %s |" % (_items(n), " (this test set)" if factor == 1 else "", _g(plan.mde_at(n))))
    lines.append("")
    if plan.source == "pilot":
        lines += ["Pilot pairs (difference oriented: positive = the first is better):", ""]
        lines += ["| pair | observed difference | SE | design effect | MDE |", "| --- | ---: | ---: | ---: | ---: |"]
        for p in plan.pairs:
            lines.append(
                "| %s - %s | %s | %s | %s | %s |"
                % (p.a, p.b, _g(p.difference), _g(p.se), _g(p.design_effect), _g(plan.z * p.se))
                if np.isfinite(p.se)
                else "| %s - %s | %s | - | - | - |" % (p.a, p.b, _g(p.difference))
            )
        lines.append("")
    if plan.scaling:
        lines += [
            "The 1/sqrt(n) scaling, checked (%s):"
            % (
                "the pilots on random subsets of the items"
                if plan.source == "pilot"
                else "simulated pairs on test sets of each size"
            ),
            "",
            "| items | measured SE | sigma/sqrt(n) | ratio |",
            "| ---: | ---: | ---: | ---: |",
        ]
        for k, measured, predicted in plan.scaling:
            lines.append("| %s | %s | %s | %.2f |" % (_items(k), _g(measured), _g(predicted), measured / predicted))
        lines.append("")
    return "\n".join(lines)


def _sizes(plan):
    top = max(8 * plan.n, int(1.5 * plan.n_needed) if plan.difference is not None else 0)
    low = max(10, plan.n // 8)
    return np.unique(np.geomspace(low, top, 200).astype(int))


def plan_figure_png(plan):
    """PNG bytes of the MDE against the test-set size (log x), the current size marked."""
    # lazy: matplotlib (imported by report.plots) is heavy, and the plan's text does without it
    # lazy: matplotlib (report.plots), loaded only when figures are drawn
    from ..report.plots import _figure, figure_png

    sizes = _sizes(plan)
    fig = _figure(5.6, 3.4)
    ax = fig.add_subplot(1, 1, 1)
    ax.plot(sizes, [plan.mde_at(n) for n in sizes], color="#1f77b4", label="MDE (power %g %%)" % (100 * plan.power))
    ax.plot([plan.n], [plan.mde], "o", color="#d62728", zorder=3)
    ax.annotate(
        "this test set: n = %s, MDE = %s" % (_items(plan.n), _g(plan.mde)),
        (plan.n, plan.mde),
        textcoords="offset points",
        xytext=(8, 8),
        fontsize=8,
        color="#d62728",
    )
    if plan.scaling:
        ax.plot(
            [k for k, _, _ in plan.scaling],
            [plan.z * s for _, s, _ in plan.scaling],
            "x",
            color="0.3",
            label="measured SE x z (scaling check)",
        )
    if plan.difference is not None:
        ax.axhline(plan.difference, color="0.5", linestyle="--", linewidth=0.8)
        ax.axvline(plan.n_needed, color="0.5", linestyle="--", linewidth=0.8)
        ax.annotate(
            "difference %g: n = %s" % (plan.difference, _items(plan.n_needed)),
            (plan.n_needed, plan.difference),
            textcoords="offset points",
            xytext=(6, -12),
            fontsize=8,
            color="0.3",
        )
    ax.set_xscale("log")
    ax.set_xlabel("test items (n)")
    ax.set_ylabel("minimal detectable difference\n(%s)" % plan.metric_title)
    ax.set_title(
        "alpha = %g, %s, power %g %%"
        % (plan.alpha, "m = %d" % plan.family_size if plan.family_size > 1 else "one comparison", 100 * plan.power),
        fontsize=9,
    )
    ax.grid(True, which="both", color="0.9", linewidth=0.6)
    ax.legend(fontsize=8, loc="upper right")
    return figure_png(fig, dpi=110)


def write_plan(plan, folder):
    """Write ``plan.md``, ``plan.png`` and ``plan.json`` into ``folder``; returns their paths."""
    if not os.path.isdir(folder):
        os.makedirs(folder)
    paths = [os.path.join(folder, name) for name in ("plan.md", "plan.png", "plan.json")]
    with open(paths[1], "wb") as handle:
        handle.write(plan_figure_png(plan))
    with open(paths[0], "w", encoding="utf-8") as handle:
        handle.write(plan_markdown(plan, figure="plan.png"))
    data = plan.as_dict()
    data["paragraph"] = plan_paragraph(plan)
    with open(paths[2], "w", encoding="utf-8") as handle:
        json.dump(data, handle, indent=2, allow_nan=False, default=float)
        handle.write("\n")
    return paths


def readme_section(plan, folder_name, reason=None, prediction_name="predictions.csv"):
    """The README section ``init`` writes: the plan's paragraph (or ``reason`` there is none) and how to refine it.

    The pilots of the example command are named like the competition's prediction file (``A.json`` for a
    JSON task), and submission zips work for every task.
    """
    extension = os.path.splitext(prediction_name)[1] or ".zip"
    rerun = (
        "Refine it with pilot predictions of two or more systems (prediction files like `%s`, or submission "
        "zips):\n\n    leaderboard-ci plan %s --pilot A%s B%s --difference 0.01 --output plan\n"
        % (prediction_name, folder_name, extension, extension)
    )
    if plan is None:
        return "\n%s\n\n%s\n\n%s" % (SECTION_TITLE, reason, rerun)
    return "\n%s\n\n%s\n\n%s" % (SECTION_TITLE, plan_paragraph(plan), rerun)


#: Resamples behind the plan ``init`` writes (an SE to about 2 %; the plan command uses the config's).
INIT_RESAMPLES = 2000


def readme_plan_section(config, gold, folder_name, prediction_name="predictions.csv"):
    """The README section ``init`` appends: the plan from the default assumed rates, or why there is none."""
    if not can_simulate(gold):
        return readme_section(
            None,
            folder_name,
            reason="The gold holds values other than one label per item, so no plan can be made from assumed rates.",
            prediction_name=prediction_name,
        )
    try:
        plan = assumed_plan(config, gold, DEFAULT_ASSUMPTIONS, n_resamples=INIT_RESAMPLES, check_scaling=False)
    except ValueError as exc:
        return readme_section(
            None,
            folder_name,
            reason="No plan could be made: %s." % str(exc).rstrip("."),
            prediction_name=prediction_name,
        )
    return readme_section(plan, folder_name, prediction_name=prediction_name)
