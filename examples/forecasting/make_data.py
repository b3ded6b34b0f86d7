"""Build the forecasting example: M4-like synthetic series, Naive2, and six forecasting systems.

The data (seeded, numpy only):

* 200 series of three frequencies, as M4 reports them: 60 yearly (period 1,
  horizon 6, 20-40 years of history), 60 quarterly (period 4, horizon 8, 40-80
  quarters), 80 monthly (period 12, horizon 18, 72-144 months);
* each series is ``level * trend * season * noise``: a level drawn on a log
  scale, a multiplicative trend (-1 % to +2 % a period, with a random walk on
  it), a multiplicative seasonal pattern for quarterly and monthly series
  (amplitude 0 to 30 %: some are not seasonal) and log-normal noise (3 % to 12 %);
* the last ``horizon`` values are the gold (``reference_data/gold.csv``), the
  rest the history (``reference_data/history.csv``, also in ``public_data/``).

Forecasts (``unique_id, ds, yhat`` and the quantiles ``q0.025 ... q0.975``):

* ``reference_data/baseline.csv``: Naive2 (M4's benchmark, computed by the
  scoring program's own :func:`~leaderboard_ci.tasks.forecasting.scales.naive2`),
  the baseline of the difference columns;
* six sample submissions: ``snaive`` (seasonal naive), ``naive``, ``drift``
  (random walk with drift on the seasonally adjusted series), ``ses``
  (simple exponential smoothing, alpha 0.3, seasonally adjusted), ``theta``
  (SES plus half the drift, the Theta method's combination) and ``comb``
  (the mean of ses, drift and naive2), each with normal quantiles around the
  point forecast from its in-sample one-step errors, widening with sqrt(h).

Usage::

    python examples/forecasting/make_data.py     # rewrites the files below
"""

import io
import os
import sys
import zipfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, os.pardir, os.pardir, "scoring_program"))

from leaderboard_ci.tasks.forecasting import scales  # noqa: E402

SEED = 20260417
FREQUENCIES = (  # name, count, period, horizon, history lengths, months per step
    ("yearly", 60, 1, 6, (20, 40), 12),
    ("quarterly", 60, 4, 8, (40, 80), 3),
    ("monthly", 80, 12, 18, (72, 144), 1),
)
QUANTILES = (0.025, 0.1, 0.25, 0.5, 0.75, 0.9, 0.975)
#: The standard normal quantiles of QUANTILES (scipy.stats.norm.ppf, to 10 digits).
Z = (-1.959963985, -1.2815515655, -0.6744897502, 0.0, 0.6744897502, 1.2815515655, 1.959963985)


def month_date(start_year, months):
    year = start_year + months // 12
    return "%04d-%02d-01" % (year, months % 12 + 1)


def simulate(rng):
    """``[(id, frequency, period, horizon, dates, values)]``: the whole series (history then horizon)."""
    out = []
    for name, count, period, horizon, (low, high), step in FREQUENCIES:
        for k in range(count):
            length = int(rng.randint(low, high + 1)) + horizon
            level = float(np.exp(rng.uniform(np.log(50.0), np.log(20000.0))))
            growth = rng.uniform(-0.01, 0.02) + np.cumsum(rng.normal(0.0, 0.002, length))
            trend = np.exp(np.cumsum(growth))
            amplitude = rng.uniform(0.0, 0.3) if period > 1 else 0.0
            phase = rng.uniform(0.0, 2.0 * np.pi)
            season = 1.0 + amplitude * np.sin(2.0 * np.pi * np.arange(length) / period + phase) if period > 1 else 1.0
            noise = np.exp(rng.normal(0.0, rng.uniform(0.03, 0.12), length))
            values = np.round(level * trend * season * noise, 2)
            start_year = 2024 - (length * step) // 12 - 1
            dates = [month_date(start_year, j * step) for j in range(length)]
            out.append(("%s%d" % (name[0].upper(), k + 1), name, period, horizon, dates, values))
    return out


def seasonal_adjustment(history, period, horizon):
    """``(adjusted history, seasonal factors of the horizon)`` with M4's test and decomposition."""
    n = len(history)
    hist = scales.History(np.zeros(n, dtype=int), history, 1)
    seasonal = bool(scales.seasonality_test(hist, period)[0])
    if not seasonal:
        return history, np.ones(horizon)
    figures = scales.seasonal_figures(hist, period, np.array([0]))[0]
    position = np.arange(n) % period
    future = figures[(n - period + np.arange(horizon) % period) % period]
    return history / figures[position], future


def forecasts(history, period, horizon):
    """Point forecasts of the six systems and Naive2, and each one's in-sample one-step error spread."""
    hist = scales.History(np.zeros(len(history), dtype=int), history, 1)
    naive2 = scales.naive2(hist, period, horizon)[0]
    snaive = scales.seasonal_naive(hist, period, horizon)[0]
    naive = np.repeat(history[-1], horizon)
    adjusted, future = seasonal_adjustment(history, period, horizon)
    steps = np.arange(1, horizon + 1)
    slope = (adjusted[-1] - adjusted[0]) / (len(adjusted) - 1)
    drift = (adjusted[-1] + slope * steps) * future
    level = adjusted[0]
    for value in adjusted[1:]:
        level = 0.3 * value + 0.7 * level
    ses = np.repeat(level, horizon) * future
    theta = (level + 0.5 * slope * steps) * future
    comb = (ses + drift + naive2) / 3.0
    points = {"snaive": snaive, "naive": naive, "drift": drift, "ses": ses, "theta": theta, "comb": comb}
    spread = float(np.std(np.diff(history))) or 1.0
    return points, naive2, spread


def write_csv(rows, header, quantiles=False):
    lines = [",".join(header)]
    for ident, date, value, spread, h in rows:
        cells = [ident, date, "%.4f" % value]
        if quantiles:
            cells += ["%.4f" % (value + z * spread * np.sqrt(h)) for z in Z]
        lines.append(",".join(cells))
    return "\n".join(lines) + "\n"


def main():
    rng = np.random.RandomState(SEED)
    series = simulate(rng)
    gold, history = ["unique_id,ds,y,frequency"], ["unique_id,ds,y"]
    systems = dict((name, []) for name in ("snaive", "naive", "drift", "ses", "theta", "comb"))
    baseline = []
    for ident, frequency, period, horizon, dates, values in series:
        cut = len(values) - horizon
        history.extend("%s,%s,%.2f" % (ident, d, v) for d, v in zip(dates[:cut], values[:cut]))
        gold.extend("%s,%s,%.2f,%s" % (ident, d, v, frequency) for d, v in zip(dates[cut:], values[cut:]))
        points, naive2, spread = forecasts(values[:cut], period, horizon)
        for name, forecast in points.items():
            systems[name].extend((ident, d, f, spread, h + 1) for h, (d, f) in enumerate(zip(dates[cut:], forecast)))
        baseline.extend((ident, d, f, spread, h + 1) for h, (d, f) in enumerate(zip(dates[cut:], naive2)))
    header = ["unique_id", "ds", "yhat"] + ["q%g" % q for q in QUANTILES]
    files = {
        "reference_data/gold.csv": "\n".join(gold) + "\n",
        "reference_data/history.csv": "\n".join(history) + "\n",
        "reference_data/baseline.csv": write_csv(baseline, header, quantiles=True),
        "public_data/history.csv": "\n".join(history) + "\n",
        "public_data/horizon.csv": "unique_id,ds\n" + "".join(",".join(g.split(",")[:2]) + "\n" for g in gold[1:]),
    }
    for path, text in files.items():
        full = os.path.join(HERE, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w", newline="\n") as handle:
            handle.write(text)
    folder = os.path.join(HERE, "sample_submissions")
    os.makedirs(folder, exist_ok=True)
    for name, rows in systems.items():
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
            info = zipfile.ZipInfo("forecasts.csv", date_time=(2026, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, write_csv(rows, header, quantiles=True))
        with open(os.path.join(folder, name + ".zip"), "wb") as handle:
            handle.write(buffer.getvalue())
    print("wrote %d series, %d systems" % (len(series), len(systems)))


if __name__ == "__main__":
    main()
