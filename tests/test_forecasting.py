"""The forecasting task against its references, on the example and on resampled series sets.

* utilsforecast's losses (Nixtla) on the example's seven forecast files and on three bootstrap
  replicates: the replicate's data set is rebuilt (each drawn series once per draw, under a new id)
  and fed to utilsforecast, whose per-series values, averaged over the drawn series, must equal our
  replicate to 1e-9 (relative);
* the M4 formulas (sMAPE, MASE, OWA with Naive2) and M5's WRMSSE, written as the competitions' code
  computes them, on a hand-made case whose numbers are derived in ``docs/tasks/forecasting.md``;
* Naive2 against statsmodels' ACF and classical decomposition (the R code's steps);
* GluonTS's evaluator lives in ``tests/test_forecasting_gluonts.py`` (its own environment).
"""

import os

import numpy as np
import pandas as pd
import pytest
import yaml

from leaderboard_ci.core.resampling import counts_from_indices, replicate_indices
from leaderboard_ci.scoring.config import parse_config
from leaderboard_ci.scoring.evaluation import evaluate
from leaderboard_ci.scoring.readers import read_gold, read_predictions
from leaderboard_ci.tasks.forecasting import scales

losses = pytest.importorskip("utilsforecast.losses")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLE = os.path.join(ROOT, "examples", "forecasting")
REF = os.path.join(EXAMPLE, "reference_data")
LEVELS = (0.025, 0.1, 0.25, 0.5, 0.75, 0.9, 0.975)
SEASON = {"yearly": 1, "quarterly": 4, "monthly": 12}
REL = 1e-9
N_REPLICATES = 3


def example_config(metrics, **extra):
    data = {
        "task": "forecasting",
        "metric": metrics[0],
        "extra_metrics": list(metrics[1:]),
        "history": "history.csv",
        "seasonality": dict(SEASON),
        "quantiles": list(LEVELS),
        "files": {"gold": "gold.csv"},
        "bootstrap": {"n_resamples": N_REPLICATES, "seed": 12345, "n_jobs": 1},
    }
    data.update(extra)
    return parse_config(data)


def example_frames():
    gold = pd.read_csv(os.path.join(REF, "gold.csv"))
    history = pd.read_csv(os.path.join(REF, "history.csv"))
    return gold, history


def forecast_files():
    """The example's forecast files: the six samples (unzipped) and the Naive2 baseline."""
    import zipfile

    out = {"naive2": os.path.join(REF, "baseline.csv")}
    folder = os.path.join(EXAMPLE, "sample_submissions")
    for name in sorted(os.listdir(folder)):
        with zipfile.ZipFile(os.path.join(folder, name)) as archive:
            out[name[:-4]] = archive
            out[name[:-4]] = (os.path.join(folder, name), archive.read("forecasts.csv"))
    return out


@pytest.fixture(scope="module")
def example(tmp_path_factory):
    folder = tmp_path_factory.mktemp("forecasts")
    paths = {}
    for name, value in forecast_files().items():
        if isinstance(value, tuple):
            path = str(folder / (name + ".csv"))
            with open(path, "wb") as handle:
                handle.write(value[1])
            paths[name] = path
        else:
            paths[name] = value
    gold, history = example_frames()
    return gold, history, paths


def resampled(frame, counts, ids):
    """The data set of one replicate: series ``ids[i]`` ``counts[i]`` times, each copy under its own id."""
    where = frame.groupby("unique_id", sort=False).indices
    positions, names = [], []
    for i, c in enumerate(counts.astype(int)):
        rows = where[ids[i]]
        for k in range(c):
            positions.append(rows)
            names.append(np.repeat("%s#%d" % (ids[i], k), len(rows)))
    out = frame.iloc[np.concatenate(positions)].reset_index(drop=True)
    return out.assign(unique_id=np.concatenate(names))


def utils_value(metric, df, train, model="m"):
    """The mean over series of utilsforecast's per-series value of ``metric`` (our units: percent for *APE)."""
    season = df.groupby("unique_id")["frequency"].first().map(SEASON)
    df = df.assign(**{"m-lo-95": df["q0.025"], "m-hi-95": df["q0.975"]})
    if metric in ("mase", "msis_95"):
        parts = []
        for m in sorted(set(season)):
            ids = season.index[season == m]
            sub, sub_train = df[df.unique_id.isin(ids)], train[train.unique_id.isin(ids)]
            if metric == "mase":
                parts.append(losses.mase(sub, [model], seasonality=m, train_df=sub_train))
            else:
                wink = losses.winkler_score(sub, [model], level=95)
                scale = losses.mae(
                    sub_train.assign(m=sub_train.groupby("unique_id")["y"].shift(m)).dropna(), ["m"]
                ).rename(columns={"m": "scale"})
                merged = wink.merge(scale, on="unique_id")
                parts.append(merged.assign(**{model: merged[model] / merged["scale"]})[["unique_id", model]])
        return float(pd.concat(parts)[model].mean())
    quantile_models = {model: ["q%g" % q for q in LEVELS]}
    if metric == "mae":
        values = losses.mae(df, [model])
    elif metric == "mse":
        values = losses.mse(df, [model])
    elif metric == "rmse":
        values = losses.rmse(df, [model])
    elif metric == "smape":
        values = losses.smape(df, [model])
        values[model] *= 200.0
    elif metric == "mape":
        values = losses.mape(df, [model])
        values[model] *= 100.0
    elif metric == "rmsse":
        values = losses.rmsse(df, [model], seasonality=1, train_df=train)
    elif metric == "pinball_q09":
        values = losses.quantile_loss(df, {model: "q0.9"}, q=0.9)
    elif metric == "pinball":
        values = losses.mqloss(df, quantile_models, quantiles=np.array(LEVELS))
    elif metric == "scaled_crps":
        values = losses.scaled_crps(df, quantile_models, quantiles=np.array(LEVELS))
    elif metric == "cov_95":
        values = losses.coverage(df, [model], level=95)
    else:
        raise AssertionError(metric)
    return float(values[model].astype(float).mean())


UTILS_METRICS = (
    "mae",
    "mse",
    "rmse",
    "smape",
    "mape",
    "mase",
    "rmsse",
    "pinball_q09",
    "pinball",
    "scaled_crps",
    "cov_95",
    "msis_95",
)
CONFIG_METRICS = (
    "mae",
    "mse",
    "rmse",
    "smape",
    "mape",
    "mase",
    "rmsse",
    {"name": "pinball", "q": 0.9},
    "pinball",
    "scaled_crps",
    {"name": "coverage", "level": 95},
    {"name": "msis", "level": 95},
)


@pytest.mark.parametrize(
    "systems, replicates",
    [
        (("theta",), 1),
        pytest.param(("naive2", "snaive", "naive", "drift", "ses", "comb"), N_REPLICATES, marks=pytest.mark.slow),
    ],
)
def test_every_system_and_replicate_equals_utilsforecast_on_the_rebuilt_data_set(example, systems, replicates):
    gold_df, history, paths = example
    cfg = example_config(CONFIG_METRICS)
    gold = read_gold(REF, cfg)
    assert [m.key for m in cfg.metrics] == list(UTILS_METRICS)
    counts = counts_from_indices(replicate_indices(12345, gold.n, 0, N_REPLICATES), gold.n)
    for name in systems:
        path = paths[name]
        forecasts = pd.read_csv(path)
        df = gold_df.merge(forecasts.rename(columns={"yhat": "m"}), on=["unique_id", "ds"])
        result = evaluate(cfg, gold, read_predictions(path, cfg, gold))
        for score in result.scores:
            full = utils_value(score.key, df, history)
            assert score.score == pytest.approx(full, rel=REL, abs=1e-12), (name, score.key)
        for r in range(replicates):
            rdf = resampled(df, counts[r], gold.ids)
            rtrain = resampled(history, counts[r], gold.ids)
            for score in result.scores:
                reference = utils_value(score.key, rdf, rtrain)
                assert score.replicates[r] == pytest.approx(reference, rel=REL, abs=1e-12), (name, r, score.key)


def test_strata_by_frequency_keep_each_frequency_and_groups_score_within_it(example):
    _, _, paths = example
    cfg = example_config(
        ("mase",), groups="frequency", bootstrap={"n_resamples": 50, "seed": 5, "strata": "frequency", "n_jobs": 1}
    )
    gold = read_gold(REF, cfg)
    result = evaluate(cfg, gold, read_predictions(paths["theta"], cfg, gold))
    counts = counts_from_indices(gold.resampling().unit_indices(5, 0, 50), gold.n)
    frequency = np.array([gold.group_values[g] for g in gold.groups])
    for value in SEASON:
        kept = counts[:, frequency == value].sum(axis=1)
        assert np.all(kept == np.sum(frequency == value))
    per_series = result.scores[0]
    assert per_series.group is None and len(result.scores) == 4


# ---------------------------------------------------------------------------
# Naive2: M4's R code, step by step, with statsmodels
# ---------------------------------------------------------------------------
def naive2_reference(z, m, h):
    """M4's ``Benchmarks and Evaluation.R``: SeasonalityTest, decompose(multiplicative), naive * SIout."""
    from statsmodels.tsa.seasonal import seasonal_decompose
    from statsmodels.tsa.stattools import acf

    n = len(z)
    seasonal = False
    lag_max = min(int(np.floor(10 * np.log10(n))), n - 1)
    if m > 1 and n >= 3 * m and m <= lag_max:
        r = acf(z, nlags=m, fft=False)[1:]
        limit = 1.645 / np.sqrt(n) * np.sqrt(np.cumsum(np.concatenate(([1.0], 2.0 * r**2))))
        seasonal = abs(r[m - 1]) > limit[m - 1]
    if not seasonal:
        return np.repeat(z[-1], h)
    figure = seasonal_decompose(z, model="multiplicative", period=m, two_sided=True).seasonal
    si = np.resize(figure[-m:], h)
    return z[-1] / figure[-1] * si


@pytest.mark.parametrize("seed", range(6))
def test_naive2_follows_m4s_seasonality_test_and_decomposition(seed):
    rng = np.random.RandomState(seed)
    series, horizon, expected = [], [], []
    for k in range(12):
        m = (1, 4, 12, 7)[k % 4]
        n = int(rng.randint(2 * m + 3, 80))
        t = np.arange(n)
        z = 100 + t * rng.uniform(-1, 2) + rng.uniform(0, 30) * np.sin(2 * np.pi * t / m) + rng.normal(0, 5, n)
        series.append((z, m))
        horizon.append(int(rng.randint(1, 20)))
        expected.append(naive2_reference(z, m, horizon[-1]))
    flat = np.concatenate([z for z, _ in series])
    index = np.repeat(np.arange(len(series)), [len(z) for z, _ in series])
    got = scales.naive2(scales.History(index, flat, len(series)), [m for _, m in series], horizon)
    for i, want in enumerate(expected):
        np.testing.assert_allclose(got[i, : horizon[i]], want, rtol=1e-12)
        assert np.all(np.isnan(got[i, horizon[i] :]))


def test_the_seasonality_test_is_false_beyond_rs_lag_max():
    # N = 30: R's acf stops at lag floor(10 log10 30) = 14, so a period of 15 is never seasonal
    z = np.tile(np.arange(15.0), 2) + 1.0
    history = scales.History(np.zeros(30, dtype=int), z, 1)
    assert not scales.seasonality_test(history, 15)[0]
    assert scales.seasonality_test(history, 5)[0] == naive2_reference_seasonal(z, 5)


def naive2_reference_seasonal(z, m):
    return not np.allclose(naive2_reference(z, m, 1), z[-1])


def loop_scale(z, m):
    """The seasonal naive scale of one series, a Python loop adding in time order (NaN under 2 points)."""
    n = len(z)
    m = m if m < n else 1
    if n < 2:
        return float("nan")
    total = 0.0
    for u in range(m, n):
        total += abs(z[u] - z[u - m])
    return total / (n - m)


def loop_seasonal(z, m):
    """M4's seasonality test on one series (see scales.py), a Python loop over points and lags."""
    n = len(z)
    lag_max = min(int(np.floor(10 * np.log10(n))) if n else 0, n - 1)
    if not (m > 1 and n >= 3 * m and m <= lag_max):
        return False
    mean = 0.0
    for value in z:
        mean += value
    centred = [value - mean / n for value in z]
    sums = []
    for k in range(m + 1):
        total = 0.0
        for t in range(k, n):
            total += centred[t] * centred[t - k]
        sums.append(total)
    if not sums[0] > 0:
        return False
    squares = 0.0
    for k in range(1, m):
        squares += (sums[k] / sums[0]) ** 2
    return abs(sums[m] / sums[0]) > 1.645 / np.sqrt(n) * np.sqrt(1.0 + 2.0 * squares)


def test_scales_equal_the_per_series_loop_and_blocks_change_no_byte(monkeypatch):
    """The blocked matrices of scales.py against a loop over series, bit for bit; any block size, same bytes."""
    rng = np.random.RandomState(3)
    n = 60
    period = rng.choice([1, 2, 4, 7, 12], n)
    length = rng.choice([0, 1, 2, 5, 13, 40, 90], n) + rng.randint(0, 30, n)
    series = np.repeat(np.arange(n), length)
    t = np.arange(len(series)) - np.repeat(np.cumsum(length) - length, length)
    z = np.round(50 + 20 * np.sin(2 * np.pi * t / np.repeat(period, length)) + rng.normal(0, 8, len(series)), 1)
    z[rng.rand(len(z)) < 0.1] = 0.0
    z[series % 7 == 0] = 3.0  # constant histories: no autocorrelation
    history = scales.History(series, z, n)
    parts = np.split(z, np.cumsum(length)[:-1])
    want = np.array([loop_scale(part.tolist(), m) for part, m in zip(parts, period.tolist())])
    assert scales.seasonal_scale(history, period).tobytes() == want.tobytes()
    seasonal = scales.seasonality_test(history, period)
    assert seasonal.tolist() == [loop_seasonal(part.tolist(), m) for part, m in zip(parts, period.tolist())]
    assert 0 < seasonal.sum() < n
    horizon = rng.randint(1, 25, n)
    default = [scales.seasonal_scale(history, period, 2), scales.naive2(history, period, horizon)]
    monkeypatch.setattr(scales, "_CELLS", 37)  # blocks of one or a few series
    small = [scales.seasonal_scale(history, period, 2), scales.naive2(history, period, horizon)]
    assert [a.tobytes() for a in default] == [b.tobytes() for b in small]


# ---------------------------------------------------------------------------
# The hand case of docs/tasks/forecasting.md: M4's and M5's own formulas
# ---------------------------------------------------------------------------
HAND_DIR = os.path.join(ROOT, "tests", "fixtures", "forecasting_hand")


def hand_files(tmp_path):
    """The docs' hand case: two stores, two items each (four bottom series), horizon 3, history 6."""
    gold = "unique_id,ds,y,store,item\n" + "".join(
        "%s,%d,%s,%s,%s\n" % (i, t, y, s, it)
        for i, s, it, ys in (
            ("a1", "A", "x", (3, 4, 2)),
            ("a2", "A", "y", (0, 1, 1)),
            ("b1", "B", "x", (5, 5, 6)),
            ("b2", "B", "y", (2, 0, 2)),
        )
        for t, y in zip((7, 8, 9), ys)
    )
    history = "unique_id,ds,y\n" + "".join(
        "%s,%d,%s\n" % (i, t, z)
        for i, zs in (
            ("a1", (2, 3, 3, 4, 2, 3)),
            ("a2", (0, 0, 1, 0, 2, 1)),
            ("b1", (4, 6, 5, 5, 7, 6)),
            ("b2", (1, 2, 2, 3, 1, 2)),
        )
        for t, z in zip(range(1, 7), zs)
    )
    forecast = "unique_id,ds,yhat\n" + "".join(
        "%s,%d,%s\n" % (i, t, f)
        for i, fs in (("a1", (4, 4, 4)), ("a2", (1, 1, 1)), ("b1", (5, 5, 5)), ("b2", (2, 1, 2)))
        for t, f in zip((7, 8, 9), fs)
    )
    series = "unique_id,weight\na1,10\na2,2\nb1,30\nb2,8\n"
    for name, text in (
        ("gold.csv", gold),
        ("history.csv", history),
        ("forecast.csv", forecast),
        ("series.csv", series),
    ):
        (tmp_path / name).write_text(text)
    return str(tmp_path)


def m4_smape(y, f):
    """M4's ``smape_cal`` (Benchmarks and Evaluation.R), in percent."""
    return np.mean(2.0 * np.abs(y - f) / (np.abs(y) + np.abs(f))) * 100


def m4_mase(insample, y, f, m):
    """M4's ``mase_cal``: the in-sample seasonal naive MAE scales the out-of-sample MAE."""
    masep = np.mean(np.abs(insample[m:] - insample[:-m]))
    return np.mean(np.abs(y - f)) / masep


def m5_wrmsse(gold, history, forecast, weights, levels):
    """M5's WRMSSE as its evaluator computes it: aggregate each level, scale from the first non-zero, weight."""
    total = 0.0
    for level in levels:

        def key(frame, level=level):
            return frame[list(level)].astype(str).agg("|".join, axis=1) if level else "all"

        g = gold.assign(key=key(gold)).groupby(["key", "ds"])[["y", "yhat"]].sum().reset_index()
        h = history.assign(key=key(history)).groupby(["key", "ds"])["y"].sum().reset_index()
        w = weights.assign(key=key(weights)).groupby("key")["weight"].sum()
        w = w / w.sum()
        level_sum = 0.0
        for name, part in g.groupby("key"):
            z = h[h.key == name].sort_values("ds")["y"].to_numpy(float)
            z = z[np.flatnonzero(z)[0] :]
            scale = np.mean(np.diff(z) ** 2)
            level_sum += w[name] * np.sqrt(np.mean((part.y - part.yhat) ** 2) / scale)
        total += level_sum / len(levels)
    return total


def test_the_hand_case_equals_m4s_and_m5s_own_formulas(tmp_path):
    folder = hand_files(tmp_path)
    levels = [[], ["store"], ["item"], ["unique_id"]]
    cfg = parse_config(
        {
            "task": "forecasting",
            "metric": "wrmsse",
            "extra_metrics": ["smape", "mase"],
            "history": "history.csv",
            "series_file": "series.csv",
            "seasonality": 1,
            "hierarchy_levels": levels,
            "history_start": "first_nonzero",
            "files": {"gold": "gold.csv"},
            "bootstrap": {"n_resamples": 20, "n_jobs": 1},
        }
    )
    gold = read_gold(folder, cfg)
    result = evaluate(cfg, gold, read_predictions(os.path.join(folder, "forecast.csv"), cfg, gold))
    scores = dict((s.key, s.score) for s in result.scores)
    g = pd.read_csv(os.path.join(folder, "gold.csv")).merge(pd.read_csv(os.path.join(folder, "forecast.csv")))
    h = pd.read_csv(os.path.join(folder, "history.csv")).merge(g[["unique_id", "store", "item"]].drop_duplicates())
    w = pd.read_csv(os.path.join(folder, "series.csv")).merge(g[["unique_id", "store", "item"]].drop_duplicates())
    smape = np.mean([m4_smape(p.y.to_numpy(float), p.yhat.to_numpy(float)) for _, p in g.groupby("unique_id")])
    # MASE with the full history (history_start applies to the scales: a2's history starts at its first 1)
    assert scores["smape"] == pytest.approx(smape, rel=1e-12)
    assert scores["wrmsse"] == pytest.approx(m5_wrmsse(g, h, None, w, levels), rel=1e-12)
    # the numbers derived by hand in docs/tasks/forecasting.md
    assert round(scores["smape"], 4) == pytest.approx(HAND["smape"])
    assert round(scores["wrmsse"], 4) == pytest.approx(HAND["wrmsse"])


def test_the_hand_case_owa_equals_m4s_definition(tmp_path):
    folder = hand_files(tmp_path)
    cfg = parse_config(
        {
            "task": "forecasting",
            "metric": "owa",
            "extra_metrics": ["smape", "mase"],
            "history": "history.csv",
            "seasonality": 1,
            "files": {"gold": "gold.csv"},
            "bootstrap": {"n_resamples": 20, "n_jobs": 1},
        }
    )
    gold = read_gold(folder, cfg)
    result = evaluate(cfg, gold, read_predictions(os.path.join(folder, "forecast.csv"), cfg, gold))
    scores = dict((s.key, s.score) for s in result.scores)
    g = pd.read_csv(os.path.join(folder, "gold.csv")).merge(pd.read_csv(os.path.join(folder, "forecast.csv")))
    h = pd.read_csv(os.path.join(folder, "history.csv"))
    smape, mase, smape2, mase2 = [], [], [], []
    for ident, part in g.groupby("unique_id"):
        y, f = part.y.to_numpy(float), part.yhat.to_numpy(float)
        z = h[h.unique_id == ident].sort_values("ds").y.to_numpy(float)
        naive2 = np.repeat(z[-1], len(y))  # period 1: Naive2 is the naive forecast
        smape.append(m4_smape(y, f))
        mase.append(m4_mase(z, y, f, 1))
        smape2.append(m4_smape(y, naive2))
        mase2.append(m4_mase(z, y, naive2, 1))
    owa = 0.5 * (np.mean(smape) / np.mean(smape2) + np.mean(mase) / np.mean(mase2))
    assert scores["owa"] == pytest.approx(owa, rel=1e-12)
    assert scores["mase"] == pytest.approx(np.mean(mase), rel=1e-12)
    assert round(scores["owa"], 4) == pytest.approx(HAND["owa"])
    assert round(scores["mase"], 4) == pytest.approx(HAND["mase"])


#: The hand case's values, derived step by step in docs/tasks/forecasting.md (4 decimals).
HAND = {"smape": 42.785, "mase": 0.4861, "owa": 0.9459, "wrmsse": 0.7653}


def test_example_config_is_the_shipped_one():
    with open(os.path.join(REF, "config.yaml")) as handle:
        shipped = yaml.safe_load(handle)
    assert shipped["task"] == "forecasting" and shipped["quantiles"] == list(LEVELS)
    assert shipped["seasonality"] == SEASON


# ---------------------------------------------------------------------------
# The end of phase: blocks, threads and Dask change nothing; the report's CI is the leaderboard's
# ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def phase_inputs(example):
    _, _, paths = example
    cfg = example_config(
        ("owa", "smape", "mase", "wql"),
        groups="frequency",
        bootstrap={"n_resamples": 120, "seed": 12345, "strata": "frequency", "n_jobs": 1},
    )
    gold = read_gold(REF, cfg)
    names = ["theta", "naive", "comb", "naive2"]
    return cfg, gold, [read_predictions(paths[name], cfg, gold) for name in names], names


def test_blocks_threads_and_the_leaderboard_agree(phase_inputs):
    from leaderboard_ci.phase.analysis.systems import score_systems

    cfg, gold, preds, names = phase_inputs
    one = score_systems(cfg, gold, preds, names, n_jobs=1)
    two = score_systems(cfg, gold, preds, names, n_jobs=2)
    assert two.replicates.tobytes() == one.replicates.tobytes() and two.full.tobytes() == one.full.tobytes()
    for j, predictions in enumerate(preds):  # each system's replicates are its leaderboard replicates
        result = evaluate(cfg, gold, predictions)
        assert np.array_equal(one.replicates[:, j, 0], result.scores[0].replicates)


def test_dask_gives_identical_results(phase_inputs):
    pytest.importorskip("distributed")
    from leaderboard_ci.phase.analysis.systems import score_systems
    from leaderboard_ci.phase.execution.distributed import dask_executor

    cfg, gold, preds, names = phase_inputs
    single = score_systems(cfg, gold, preds, names, n_jobs=1)
    spread = score_systems(cfg, gold, preds, names, executor=dask_executor("local", n_workers=2))
    assert spread.replicates.tobytes() == single.replicates.tobytes()


def test_the_end_of_phase_has_max_t_and_rank_sets(phase_inputs):
    from leaderboard_ci.phase import Execution, analyze

    cfg, gold, preds, names = phase_inputs
    systems = dict(zip(names, preds))
    base = analyze(gold, systems, config=cfg, execution=Execution(n_jobs=1))
    blocks = analyze(gold, systems, config=cfg, execution=Execution(block_size=2))
    table = base.official.systems
    assert table[["name", "score", "ci_low", "ci_high"]].to_numpy().tolist() == (
        blocks.official.systems[["name", "score", "ci_low", "ci_high"]].to_numpy().tolist()
    )
    assert {"rank_set_low", "rank_set_high"} <= set(table.columns)
    assert "p_adjusted" in base.official.pairs.columns or "p_maxt" in base.official.pairs.columns
    theta = evaluate(cfg, gold, preds[0]).scores[0]
    row = table[table.name == "theta"].iloc[0]
    assert row.score == theta.score
