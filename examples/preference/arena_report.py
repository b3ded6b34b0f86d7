"""The organizer's arena report over a whole battle log: every model's score, CI, rank set and two figures.

    python3 examples/preference/arena_report.py examples/preference/reference_data/battles.csv --out out/arena

Reads the log with the task's own reader (CSV, JSON Lines or a JSON array of
``model_a, model_b, winner``), fits the Bradley-Terry scores on the Elo scale and their bootstrap
replicates (``tasks.preference.fit.arena_leaderboard``: B resamples of the battles, every model
refitted on each), and writes

* ``leaderboard.csv``: model, battles, Elo, 95% interval, rank and simultaneous / marginal rank sets;
* ``win_fraction.png``: the share of the battles between row and column won by the row model
  (FastChat's ``compute_pairwise_win_fraction``), models in leaderboard order;
* ``battle_counts.png``: the battles between every two models;
* ``elo_intervals.png``: the scores with their intervals;
* with ``--style tokens,bold`` (columns ``tokens_a, tokens_b, bold_a, bold_b`` of a CSV or JSON
  Lines log): ``style_control.csv``, every model's style-controlled score (LMArena's
  ``compute_style_control``: ``tasks.preference.style``) with its 95% percentile interval over
  the same number of resamples of the battles (core's resample stream, as weights), and the
  style coefficients.

Matplotlib is needed (the package draws figures only in ``report/plots.py``; this script is the
organizer's, outside the per-submission program).
"""

import argparse
import csv
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir, "scoring_program"))

from leaderboard_ci.core.resampling import counts_from_indices, replicate_indices  # noqa: E402
from leaderboard_ci.scoring.errors import ConfigError  # noqa: E402
from leaderboard_ci.scoring.text_files import Source, TextFile  # noqa: E402
from leaderboard_ci.tasks.preference import battles  # noqa: E402
from leaderboard_ci.tasks.preference import fit as preference_fit
from leaderboard_ci.tasks.preference import metrics as preference
from leaderboard_ci.tasks.preference import style as preference_style  # noqa: E402
from leaderboard_ci.tasks.preference.settings import PreferenceSettings  # noqa: E402
from leaderboard_ci.tasks.shared.base import GoldStandard  # noqa: E402


def read_log(path, settings=None):
    source = Source(path, os.path.basename(path), error=ConfigError, may_quote=False)
    units = battles.read_battles(source, TextFile(source), PreferenceSettings.parse(settings or {}))
    gold = GoldStandard(values=units.values, labels=units.labels, task="preference")
    return gold, preference.battle_cells(gold)


def _heatmap(matrix, names, title, path, fmt, cmap):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    size = max(5.0, 0.45 * len(names) + 2.0)
    fig, ax = plt.subplots(figsize=(size, size * 0.85))
    shown = np.ma.masked_invalid(matrix.astype(float))
    image = ax.imshow(shown, cmap=cmap)
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels(names, rotation=60, ha="right", fontsize=8)
    ax.set_yticks(range(len(names)))
    ax.set_yticklabels(names, fontsize=8)
    ax.set_xlabel("model B")
    ax.set_ylabel("model A")
    if len(names) <= 20:
        for i in range(len(names)):
            for j in range(len(names)):
                if not np.ma.is_masked(shown[i, j]):
                    red, green, blue, _ = image.cmap(image.norm(matrix[i, j]))
                    dark = 0.299 * red + 0.587 * green + 0.114 * blue < 0.5  # white text on dark cells
                    color = "white" if dark else "black"
                    ax.text(j, i, fmt % matrix[i, j], ha="center", va="center", fontsize=6, color=color)
    fig.colorbar(image, ax=ax, shrink=0.8)
    ax.set_title(title)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def _interval_plot(board, names, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    order = np.argsort(-board.elo)
    fig, ax = plt.subplots(figsize=(7, max(3.0, 0.3 * len(names) + 1)))
    y = np.arange(len(order))[::-1]
    elo = board.elo[order]
    ax.errorbar(
        elo, y, xerr=[elo - board.low[order], board.high[order] - elo], fmt="o", color="#1f5fa0", capsize=3, ms=4
    )
    ax.set_yticks(y)
    ax.set_yticklabels(
        ["%s  [%d-%d]" % (names[k], board.rank_set_low[k], board.rank_set_high[k]) for k in order], fontsize=8
    )
    ax.set_xlabel("Bradley-Terry score (Elo scale), 95% CI; [simultaneous rank set]")
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def read_style(path, elements):
    """``(values_a, values_b)`` ``(n, K)`` of the style elements, in the log's order (CSV or JSON Lines)."""
    import json

    with open(path, newline="", encoding="utf-8-sig") as handle:
        text = handle.read()
    if text.lstrip().startswith("{"):
        records = [json.loads(line) for line in text.splitlines() if line.strip()]
    else:
        records = list(csv.DictReader(text.splitlines()))
    values_a = np.array([[float(r[e + "_a"]) for e in elements] for r in records])
    values_b = np.array([[float(r[e + "_b"]) for e in elements] for r in records])
    return values_a, values_b


def style_control(gold, features, names, seed, n_resamples, chunk=100):
    """The style-controlled fit and the percentile interval of each score over resamples of the battles."""
    v = np.asarray(gold.values)
    a, b, o, m = v[:, 0], v[:, 1], v[:, 2], len(names)
    full = preference_style.fit_style_control(a, b, o, features, m)
    reps = []
    for start in range(0, n_resamples, chunk):
        stop = min(start + chunk, n_resamples)
        weights = counts_from_indices(replicate_indices(seed, gold.n, start, stop), gold.n)
        reps.append(preference_style.fit_style_control(a, b, o, features, m, weights=weights).elo)
    reps = np.concatenate(reps)
    low, high = np.percentile(reps, [2.5, 97.5], axis=0)
    return full, low, high


def unbounded_notes(board, names):
    """One sentence per model whose Bradley-Terry score had no maximum on the log or in some replicates."""
    stand_in = int(preference_fit.SCALE * preference_fit.UNBOUNDED)
    out = []
    for k in np.flatnonzero(board.unbounded_replicates):
        count = "%d of %d replicates" % (board.unbounded_replicates[k], len(board.replicates))
        if board.unbounded[k]:
            where = "below" if board.unbounded[k] < 0 else "above"
            out.append(
                "%s: its Bradley-Terry score has no maximum (no %s nor tie against a model with a bounded score); "
                "its Elo is a stand-in %d points %s the bounded models' average (so in %s)"
                % (names[k], "win" if board.unbounded[k] < 0 else "loss", stand_in, where, count)
            )
        else:
            out.append(
                "%s: its score had no maximum in %s, which hold a stand-in: its interval is wider" % (names[k], count)
            )
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("battles")
    parser.add_argument("--out", required=True)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=12345)
    parser.add_argument("--anchor-model")
    parser.add_argument("--anchor-rating", type=float, default=preference_fit.INIT_RATING)
    parser.add_argument("--style", help="style elements, e.g. tokens,bold (columns <element>_a, <element>_b)")
    args = parser.parse_args(argv)
    try:
        gold, cells = read_log(args.battles, {"anchor_model": args.anchor_model})
    except ConfigError as exc:
        print(exc, file=sys.stderr)
        return 1
    names = list(gold.labels)
    anchor = names.index(args.anchor_model) if args.anchor_model else None
    board = preference_fit.arena_leaderboard(
        cells, args.seed, args.resamples, anchor=anchor, anchor_rating=args.anchor_rating
    )
    os.makedirs(args.out, exist_ok=True)
    order = np.argsort(-board.elo)
    with open(os.path.join(args.out, "leaderboard.csv"), "w", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(
            [
                "model",
                "battles",
                "elo",
                "ci_low",
                "ci_high",
                "rank",
                "rank_set_low",
                "rank_set_high",
                "rank_set_marginal_low",
                "rank_set_marginal_high",
            ]
        )
        for k in order:
            writer.writerow(
                [names[k], board.battles[k], "%.2f" % board.elo[k], "%.2f" % board.low[k], "%.2f" % board.high[k]]
                + [
                    board.rank[k],
                    board.rank_set_low[k],
                    board.rank_set_high[k],
                    board.rank_set_marginal_low[k],
                    board.rank_set_marginal_high[k],
                ]
            )
    shown = [names[k] for k in order]
    # LMArena's published heatmaps are drawn from FastChat's battles without ties
    wins = preference_fit.win_fraction_matrix(cells, ties="exclude")[np.ix_(order, order)]
    counts = preference_fit.battle_count_matrix(cells, ties="exclude")[np.ix_(order, order)]
    _heatmap(
        wins,
        shown,
        "Share of decisive battles won, row against column (ties excluded, as LMArena)",
        os.path.join(args.out, "win_fraction.png"),
        "%.2f",
        "RdBu",
    )
    _heatmap(
        counts,
        shown,
        "Decisive battles between two models (ties excluded, as LMArena)",
        os.path.join(args.out, "battle_counts.png"),
        "%d",
        "Blues",
    )
    _interval_plot(board, names, os.path.join(args.out, "elo_intervals.png"))
    if args.style:
        elements = [e.strip() for e in args.style.split(",") if e.strip()]
        features = preference_style.style_features(*read_style(args.battles, elements))
        full, low, high = style_control(gold, features, names, args.seed, args.resamples)
        with open(os.path.join(args.out, "style_control.csv"), "w", newline="") as handle:
            writer = csv.writer(handle, lineterminator="\n")
            writer.writerow(["model", "elo", "style_controlled_elo", "ci_low", "ci_high"])
            for k in np.argsort(-full.elo):
                writer.writerow(
                    [names[k], "%.2f" % board.elo[k], "%.2f" % full.elo[k], "%.2f" % low[k], "%.2f" % high[k]]
                )
            for element, coefficient in zip(elements, full.beta):
                writer.writerow(["coefficient of %s" % element, "", "%.4f" % coefficient, "", ""])
    print(
        "%d models, %d battles, B = %d (%d replicates converged): %s"
        % (len(names), gold.n, args.resamples, board.converged.sum(), args.out)
    )
    for note in unbounded_notes(board, names):
        print("note: " + note)
    return 0


if __name__ == "__main__":
    sys.exit(main())
