"""``init`` notes to the organizer: forecasting series whose history is one season or shorter (MASE with m = 1).

:func:`~leaderboard_ci.tasks.forecasting.scales.seasonal_scale` falls back to ``m = 1`` for a history of
``m`` points or fewer, as GluonTS's ``seasonal_error`` does; init says how many series that is, on stdout
and in the README, and says nothing when no series is short or no metric uses the MASE scale.
"""

import io
import os

import pytest

from leaderboard_ci.cli.main import main

SEASON = 4
HISTORY_POINTS = {"a": 3, "b": 4, "c": 5, "d": 12}  # a and b: m = 4 points or fewer; c, d: seasonal scale
NOTE = "note: 2 of the 4 series have a history of one season or less (m points or fewer, m > 1)"


def _write(path, text):
    with io.open(path, "w", encoding="utf-8") as handle:
        handle.write(text)
    return path


def _init(tmp, metric):
    gold = _write(
        os.path.join(tmp, "gold.csv"),
        "unique_id,ds,y\n"
        + "".join("%s,%d,%d\n" % (s, n + k, 10 + k) for s, n in sorted(HISTORY_POINTS.items()) for k in range(2)),
    )
    history = _write(
        os.path.join(tmp, "history.csv"),
        "unique_id,ds,y\n"
        + "".join("%s,%d,%d\n" % (s, k, (k * 7) % 5 + 1) for s, n in sorted(HISTORY_POINTS.items()) for k in range(n)),
    )
    config = _write(
        os.path.join(tmp, "config.yaml"),
        "task: forecasting\nmetric: %s\nhistory: history.csv\nseasonality: %d\nfiles: {gold: gold.csv}\n"
        "bootstrap: {n_resamples: 50}\n" % (metric, SEASON),
    )
    out = io.StringIO()
    folder = os.path.join(tmp, "competition")
    assert main(["init", folder, "--gold", gold, "--config", config, "--data", history], out) == 0
    with io.open(os.path.join(folder, "README.md"), encoding="utf-8") as handle:
        return out.getvalue(), handle.read()


@pytest.mark.parametrize("metric, noted", [("mase", True), ("mae", False)])
def test_init_says_how_many_series_have_a_history_shorter_than_one_season(tmp_path, metric, noted):
    out, readme = _init(str(tmp_path), metric)
    notes = [line for line in out.splitlines() if line.startswith("note:")]
    assert notes == ([notes[0]] if noted else []), out
    if noted:
        assert notes[0].startswith(NOTE) and "MASE scales them by" in notes[0], out
        assert "## Notes on the gold\n\n* " + notes[0][len("note: ") :].rstrip(".") + ".\n" in readme
    else:
        assert "Notes on the gold" not in readme
