"""The forecasting task against GluonTS's ``Evaluator``, on the example and on resampled series sets.

GluonTS 0.17 pins pandas below 3, so it lives in an environment of its own (never beside the
test extra): ``python3 -m venv ~/.cache/leaderboard-ci/gluonts && ~/.cache/leaderboard-ci/gluonts/bin/pip
install gluonts==0.17.0 "pandas<3" packaging statsmodels`` (or point ``LEADERBOARD_CI_GLUONTS`` at
its python).  The test skips, saying so, when it is absent.

The child process builds GluonTS ``QuantileForecast`` objects from the example's files, runs
``Evaluator`` per frequency (its ``seasonality`` is one number), concatenates the per-series
metrics and aggregates them with ``Evaluator.get_aggregate_metrics`` (GluonTS's own means and
sums); a replicate's data set is rebuilt, each drawn series once per draw.
"""

import json
import os
import subprocess
import textwrap

import numpy as np
import pandas as pd
import pytest
from test_forecasting import LEVELS, REF, SEASON, example_config, forecast_files

from leaderboard_ci.core.resampling import counts_from_indices, replicate_indices
from leaderboard_ci.scoring.evaluation import evaluate
from leaderboard_ci.scoring.readers import read_gold, read_predictions

PYTHON = os.environ.get("LEADERBOARD_CI_GLUONTS", os.path.expanduser("~/.cache/leaderboard-ci/gluonts/bin/python"))
pytestmark = pytest.mark.skipif(
    not os.path.exists(PYTHON), reason="GluonTS's environment is absent (see this module's docstring)"
)
FREQ = {"yearly": "Y", "quarterly": "Q", "monthly": "M"}

CHILD = textwrap.dedent(
    """
    import json, sys, warnings
    warnings.simplefilter("ignore")
    import numpy as np, pandas as pd
    from gluonts.evaluation import Evaluator
    from gluonts.model.forecast import QuantileForecast

    data = json.load(sys.stdin)
    levels = data["levels"]
    import gluonts.ext.naive_2 as naive_module
    theirs = {}
    for group in data["groups"]:
        for s in group["series"]:
            theirs[s["id"]] = naive_module.naive_2(np.array(s["past"]), len(s["target"]), group["m"]).tolist()
    given = dict((s["id"], s["naive2"]) for group in data["groups"] for s in group["series"])
    # OWA's formula is GluonTS's; its Naive2 is M4's (ours), so that the two OWA are comparable
    naive_module.naive_2 = lambda past, h, season_length: np.array(given[current[0]])
    current = [None]
    out = []
    for group in data["groups"]:
        evaluator = Evaluator(quantiles=levels, seasonality=group["m"], calculate_owa=True, num_workers=0)
        series, forecasts = [], []
        for s in group["series"]:
            values = s["past"] + s["target"]
            index = pd.period_range(s["start"], periods=len(values), freq=group["freq"])
            series.append(pd.DataFrame({0: values}, index=index))
            start = index[len(s["past"])]
            arrays = np.array(s["quantiles"] + [s["mean"]])
            keys = [str(q) for q in levels] + ["mean"]
            forecasts.append(QuantileForecast(arrays, start_date=start, forecast_keys=keys, item_id=s["id"]))
        def track(forecasts):
            for f in forecasts:
                current[0] = f.item_id
                yield f

        _, items = evaluator(iter(series), track(forecasts), num_series=len(series))
        out.append(items)
    items = pd.concat(out, ignore_index=True)
    totals, _ = Evaluator(quantiles=levels, calculate_owa=True).get_aggregate_metrics(items)
    print(json.dumps({"totals": {k: float(v) for k, v in totals.items()}, "naive2": theirs}))
    """
)


def gluonts_totals(gold_df, history, forecasts, naive2, counts=None):
    """GluonTS's aggregate metrics of the (resampled) example."""
    merged = gold_df.merge(forecasts, on=["unique_id", "ds"])
    ids = list(dict.fromkeys(gold_df["unique_id"]))
    counts = np.ones(len(ids), dtype=int) if counts is None else counts.astype(int)
    past = history.groupby("unique_id", sort=False)
    horizon = merged.groupby("unique_id", sort=False)
    groups = dict((f, {"m": SEASON[f], "freq": FREQ[f], "series": []}) for f in SEASON)
    for i, ident in enumerate(ids):
        part = horizon.get_group(ident)
        h = past.get_group(ident).sort_values("ds")
        entry = {
            "start": str(h["ds"].iloc[0]),
            "past": h["y"].tolist(),
            "target": part["y"].tolist(),
            "quantiles": [part["q%g" % q].tolist() for q in LEVELS],
            "mean": part["yhat"].tolist(),
            "naive2": naive2[i, : len(part)].tolist(),
        }
        for k in range(counts[i]):
            groups[part["frequency"].iloc[0]]["series"].append(dict(entry, id="%s#%d" % (ident, k)))
    payload = json.dumps({"levels": list(LEVELS), "groups": [g for g in groups.values() if g["series"]]})
    done = subprocess.run([PYTHON, "-c", CHILD], input=payload, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


#: Our key -> (GluonTS's total, factor from GluonTS's units to ours).
PAIRS = {
    "mase": ("MASE", 1.0),
    "smape": ("sMAPE", 100.0),
    "mape": ("MAPE", 100.0),
    "mse": ("MSE", 1.0),
    "msis_95": ("MSIS", 1.0),
    "wql": ("mean_wQuantileLoss", 1.0),
    "wql_q09": ("wQuantileLoss[0.9]", 1.0),
    "owa": ("OWA", 1.0),
}
METRICS = ("mase", "smape", "mape", "mse", {"name": "msis", "level": 95}, "wql", {"name": "wql", "q": 0.9}, "owa")


@pytest.mark.slow  # 30-130 s of GluonTS; the default run's representative is test_forecasting's utilsforecast parity
@pytest.mark.parametrize("replicates", [(None,), (None, 0, 1, 2)])
def test_evaluator_totals_equal_ours_on_the_example_and_three_replicates(tmp_path, replicates):
    gold_df = pd.read_csv(os.path.join(REF, "gold.csv"))
    history = pd.read_csv(os.path.join(REF, "history.csv"))
    cfg = example_config(METRICS)
    gold = read_gold(REF, cfg)
    name, content = "theta", forecast_files()["theta"][1]
    path = tmp_path / (name + ".csv")
    path.write_bytes(content)
    forecasts = pd.read_csv(path)
    result = evaluate(cfg, gold, read_predictions(str(path), cfg, gold))
    scores = dict((s.key, s) for s in result.scores)
    counts = counts_from_indices(replicate_indices(12345, gold.n, 0, 3), gold.n)
    for r in replicates:
        reference = gluonts_totals(gold_df, history, forecasts, gold.values["naive2"], None if r is None else counts[r])
        totals = reference["totals"]
        for key, (theirs, factor) in PAIRS.items():
            ours = scores[key].score if r is None else scores[key].replicates[r]
            assert ours == pytest.approx(factor * totals[theirs], rel=1e-9), (r, key)
        if r is None:
            check_naive2(gold, history, reference["naive2"])


def check_naive2(gold, history, theirs):
    """GluonTS's ``naive_2`` equals M4's Naive2 except where its seasonality test decides otherwise.

    Its test compares ``2 r_m^2`` with a limit that includes lag ``m`` (M4's R code: ``|r_m|`` against the
    limit of lags below ``m``): a series one test finds seasonal and the other not gets the naive forecast
    there.  Every other series agrees to 1e-9; the count of disagreements is printed in the docs.
    """
    last = history.groupby("unique_id", sort=False)["y"].last()
    disagree = 0
    for i, ident in enumerate(gold.ids):
        h = int(gold.values["length"][i])
        ours, other = gold.values["naive2"][i, :h], np.array(theirs["%s#0" % ident])
        if np.allclose(ours, other, rtol=1e-9):
            continue
        disagree += 1
        naive = np.repeat(last[ident], h)
        assert np.allclose(other, naive, rtol=1e-12) or np.allclose(ours, naive, rtol=1e-12), ident
    assert disagree < len(gold.ids)
