"""The forecasting task at M5 and M4 scale: one submission through ``score.py``, whole process, B = 10,000.

    python benchmarks/task_forecasting.py                 # both scales, the utilsforecast loop peer
    python benchmarks/task_forecasting.py --only m5 --resamples 1000
    python benchmarks/task_forecasting.py --python ~/.cache/leaderboard-ci/py37/bin/python
    python benchmarks/task_forecasting.py --no-peer --base /tmp/old/scoring_program   # an older commit beside

* **M5 scale**: 30,490 bottom series x 28 days (``unique_id, ds, yhat``: 853,720 lines), the 12
  WRMSSE levels of M5 (total, state, store, category, department, state x category, state x
  department, store x category, store x department, item, item x state, item x store) over 3 states,
  10 stores, 3 categories, 7 departments and 3,049 items, sales weights; the levels' scales come in
  ``series_file`` (``level_scale_1..12``, computed here once from a 1,913-day synthetic history, as an
  organizer who does not ship the 58 million history lines would).  Metrics: WRMSSE, RMSSE, MAE.
* **M4 scale**: 100,000 series of six frequencies with M4's counts and horizons (23,000 yearly h 6,
  24,000 quarterly h 8, 48,000 monthly h 18, 359 weekly h 13, 4,227 daily h 14, 414 hourly h 48:
  1,335,870 forecast lines with the 95 % interval's quantiles), a history of 9.6 million lines read
  by the program, Naive2 computed from it; metrics OWA, sMAPE, MASE, MSIS; strata by frequency.

Each run is ``score.py`` in a fresh process as the Codabench worker starts it: wall time, CPU time
(user + system of the child) and peak resident memory (``ru_maxrss``), with the load average beside.
The peer is a loop of utilsforecast (its ``mase``/``smape``/``rmsse``/``mae``) over resampled data
sets rebuilt with pandas, each drawn series once per draw: a few replicates are timed and the time is
scaled to B (said in the output).  Data are written once in ``--dir``.
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PROGRAM = os.path.join(ROOT, "scoring_program")
sys.path.insert(0, PROGRAM)

M4 = (  # frequency, count, period, horizon, history length
    ("yearly", 23000, 1, 6, 30),
    ("quarterly", 24000, 4, 8, 60),
    ("monthly", 48000, 12, 18, 120),
    ("weekly", 359, 1, 13, 300),
    ("daily", 4227, 1, 14, 300),
    ("hourly", 414, 24, 48, 700),
)
M5_LEVELS = [
    [],
    ["state_id"],
    ["store_id"],
    ["cat_id"],
    ["dept_id"],
    ["state_id", "cat_id"],
    ["state_id", "dept_id"],
    ["store_id", "cat_id"],
    ["store_id", "dept_id"],
    ["item_id"],
    ["item_id", "state_id"],
    ["unique_id"],
]


def write_lines(path, header, columns, formats):
    """A CSV from numpy columns, written in chunks (no pandas)."""
    with open(path, "w") as handle:
        handle.write(header + "\n")
        n = len(columns[0])
        for start in range(0, n, 200000):
            part = [c[start : start + 200000] for c in columns]
            rows = zip(*[p.tolist() for p in part])
            handle.write("".join((formats % row) + "\n" for row in rows))


def make_m5(folder, history_days=1913, horizon=28, seed=5):
    from leaderboard_ci.tasks.forecasting import hierarchy

    os.makedirs(folder, exist_ok=True)
    done = os.path.join(folder, "done")
    if os.path.exists(done):
        return
    rng = np.random.RandomState(seed)
    stores = [("CA", 4), ("TX", 3), ("WI", 3)]
    depts = [("FOODS", 3, (216, 398, 823)), ("HOBBIES", 2, (416, 149)), ("HOUSEHOLD", 2, (532, 515))]
    items = []
    for cat, n_dept, sizes in depts:
        for d in range(n_dept):
            items.extend(("%s_%d_%03d" % (cat, d + 1, k + 1), cat, "%s_%d" % (cat, d + 1)) for k in range(sizes[d]))
    rows = []
    for state, count in stores:
        for s in range(count):
            store = "%s_%d" % (state, s + 1)
            rows.extend((item + "_" + store, item, dept, cat, store, state) for item, cat, dept in items)
    n = len(rows)  # 30,490
    attrs = dict(zip(("unique_id", "item_id", "dept_id", "cat_id", "store_id", "state_id"), zip(*rows)))
    rate = np.exp(rng.normal(0.0, 1.0, n))
    weekly = 1.0 + 0.3 * np.sin(2 * np.pi * np.arange(history_days + horizon) / 7.0)
    start = rng.randint(0, history_days // 2, n)
    sales = rng.poisson(rate[:, None] * weekly[None, :]).astype(np.float64)
    sales[np.arange(history_days + horizon)[None, :] < start[:, None]] = 0.0
    history, future = sales[:, :history_days], sales[:, history_days:]
    codes = hierarchy.level_codes(M5_LEVELS, dict((k, list(v)) for k, v in attrs.items()), n)
    series = np.repeat(np.arange(n), history_days)
    dates = np.tile(np.arange(history_days), n)
    level_scale = hierarchy.aggregate_scales(codes, series, dates, history.ravel(), True)
    price = np.exp(rng.normal(1.0, 0.5, n))
    weight = (history[:, -28:] * price[:, None]).sum(axis=1)
    ids = np.array(attrs["unique_id"])
    days = np.tile(np.arange(history_days + 1, history_days + horizon + 1), n)
    write_lines(
        os.path.join(folder, "gold.csv"), "unique_id,ds,y", [np.repeat(ids, horizon), days, future.ravel()], "%s,%d,%g"
    )
    forecast = rate[:, None] * weekly[None, history_days:] * np.exp(rng.normal(0.0, 0.3, (n, horizon)))
    write_lines(
        os.path.join(folder, "forecast.csv"),
        "unique_id,ds,yhat",
        [np.repeat(ids, horizon), days, forecast.ravel()],
        "%s,%d,%.4f",
    )
    names = ["level_scale_%d" % (k + 1) for k in range(len(M5_LEVELS))]
    with open(os.path.join(folder, "series.csv"), "w") as handle:
        handle.write(
            ",".join(
                ["unique_id", "item_id", "dept_id", "cat_id", "store_id", "state_id", "weight", "scale_rmsse"] + names
            )
            + "\n"
        )
        for i in range(n):
            values = [attrs[k][i] for k in ("unique_id", "item_id", "dept_id", "cat_id", "store_id", "state_id")]
            scales = ["%.17g" % v for v in level_scale[i]]
            handle.write(",".join(values + ["%.6f" % weight[i], scales[-1]] + scales) + "\n")
    config = {
        "task": "forecasting",
        "metric": "wrmsse",
        "extra_metrics": ["rmsse", "mae"],
        "series_file": "series.csv",
        "hierarchy_levels": M5_LEVELS,
        "history_start": "first_nonzero",
        "files": {"gold": "gold.csv"},
        "bootstrap": {"n_resamples": 10000, "seed": 12345},
    }
    with open(os.path.join(folder, "config.json"), "w") as handle:
        json.dump(config, handle)
    open(done, "w").close()


def make_m4(folder, seed=4):
    os.makedirs(folder, exist_ok=True)
    done = os.path.join(folder, "done")
    if os.path.exists(done):
        return
    rng = np.random.RandomState(seed)
    gold_parts, hist_parts, fc_parts = [], [], []
    for name, count, period, horizon, length in M4:
        total = length + horizon
        t = np.arange(total)
        level = np.exp(rng.uniform(np.log(50), np.log(20000), count))[:, None]
        trend = np.exp(rng.uniform(-0.01, 0.02, count)[:, None] * t[None, :])
        amplitude = rng.uniform(0, 0.3, count)[:, None] if period > 1 else 0.0
        season = 1.0 + amplitude * np.sin(2 * np.pi * t[None, :] / period)
        values = np.round(level * trend * season * np.exp(rng.normal(0, 0.08, (count, total))), 2)
        ids = np.array(["%s%d" % (name[0].upper(), k + 1) for k in range(count)])
        hist_parts.append((np.repeat(ids, length), np.tile(t[:length] + 1, count), values[:, :length].ravel()))
        gold_parts.append(
            (
                np.repeat(ids, horizon),
                np.tile(t[length:] + 1, count),
                values[:, length:].ravel(),
                np.repeat(np.array([name] * count), horizon),
            )
        )
        point = np.repeat(values[:, length - 1 : length], horizon, axis=1) * np.exp(
            rng.normal(0, 0.05, (count, horizon))
        )
        spread = 0.1 * point
        fc_parts.append(
            (
                np.repeat(ids, horizon),
                np.tile(t[length:] + 1, count),
                point.ravel(),
                (point - 2 * spread).ravel(),
                (point + 2 * spread).ravel(),
            )
        )
    join = lambda parts, k: np.concatenate([p[k] for p in parts])  # noqa: E731
    write_lines(
        os.path.join(folder, "history.csv"),
        "unique_id,ds,y",
        [join(hist_parts, 0), join(hist_parts, 1), join(hist_parts, 2)],
        "%s,%d,%.2f",
    )
    write_lines(
        os.path.join(folder, "gold.csv"),
        "unique_id,ds,y,frequency",
        [join(gold_parts, k) for k in range(4)],
        "%s,%d,%.2f,%s",
    )
    write_lines(
        os.path.join(folder, "forecast.csv"),
        "unique_id,ds,yhat,q0.025,q0.975",
        [join(fc_parts, k) for k in range(5)],
        "%s,%d,%.3f,%.3f,%.3f",
    )
    config = {
        "task": "forecasting",
        "metric": "owa",
        "extra_metrics": ["smape", "mase", {"name": "msis", "level": 95}],
        "history": "history.csv",
        "seasonality": dict((name, period) for name, _, period, _, _ in M4),
        "quantiles": [0.025, 0.975],
        "files": {"gold": "gold.csv", "max_megabytes": 400},
        "bootstrap": {"n_resamples": 10000, "seed": 12345, "strata": "frequency"},
    }
    with open(os.path.join(folder, "config.json"), "w") as handle:
        json.dump(config, handle)
    open(done, "w").close()


def run_program(python, folder, resamples, program=PROGRAM):
    """``score.py`` on the folder's gold and forecast, as the worker runs it: (wall s, CPU s, peak MB, stdout)."""
    import shutil
    import tempfile

    import yaml

    work = tempfile.mkdtemp(prefix="lbci-forecast-")
    ref, res, out = (
        os.path.join(work, "input", "ref"),
        os.path.join(work, "input", "res"),
        os.path.join(work, "output"),
    )
    for path in (ref, res, out):
        os.makedirs(path)
    for name in os.listdir(folder):
        if name.endswith(".csv") and name != "forecast.csv":
            os.symlink(os.path.join(folder, name), os.path.join(ref, name))
    with open(os.path.join(folder, "config.json")) as handle:
        config = json.load(handle)
    config["bootstrap"]["n_resamples"] = resamples
    with open(os.path.join(ref, "config.yaml"), "w") as handle:
        yaml.safe_dump(config, handle)
    shutil.copy(os.path.join(folder, "forecast.csv"), os.path.join(res, "forecast.csv"))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        [python, "score.py", os.path.join(work, "input"), out], cwd=program, capture_output=True, text=True
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    shutil.rmtree(work, ignore_errors=True)
    if done.returncode != 0:
        raise SystemExit("score.py failed: %s" % done.stderr[-2000:])
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, after.ru_maxrss / 1024.0, done.stdout


def utilsforecast_loop(folder, replicates, scale):
    """Seconds for ``replicates`` resampled data sets through utilsforecast, and that time scaled to ``scale``."""
    import pandas as pd
    from utilsforecast import losses

    from leaderboard_ci.core.resampling import counts_from_indices, replicate_indices

    gold = pd.read_csv(os.path.join(folder, "gold.csv"))
    forecast = pd.read_csv(os.path.join(folder, "forecast.csv"))
    df = gold.merge(forecast, on=["unique_id", "ds"])
    history = os.path.join(folder, "history.csv")
    train = pd.read_csv(history) if os.path.exists(history) else None
    ids = list(dict.fromkeys(df["unique_id"]))
    counts = counts_from_indices(replicate_indices(12345, len(ids), 0, replicates), len(ids)).astype(int)
    where = df.groupby("unique_id", sort=False).indices
    train_where = train.groupby("unique_id", sort=False).indices if train is not None else None
    start = time.perf_counter()
    for r in range(replicates):
        take, names, take_train, names_train = [], [], [], []
        for i, c in enumerate(counts[r]):
            for k in range(c):
                rows = where[ids[i]]
                take.append(rows)
                names.append(np.repeat("%d#%d" % (i, k), len(rows)))
                if train_where is not None:
                    t_rows = train_where[ids[i]]
                    take_train.append(t_rows)
                    names_train.append(np.repeat("%d#%d" % (i, k), len(t_rows)))
        rdf = df.iloc[np.concatenate(take)].assign(unique_id=np.concatenate(names))
        losses.mae(rdf, ["yhat"])["yhat"].mean()
        losses.smape(rdf, ["yhat"])["yhat"].mean()
        if train_where is not None:
            rtrain = train.iloc[np.concatenate(take_train)].assign(unique_id=np.concatenate(names_train))
            losses.mase(rdf, ["yhat"], seasonality=1, train_df=rtrain)["yhat"].mean()
            losses.rmsse(rdf, ["yhat"], seasonality=1, train_df=rtrain)["yhat"].mean()
    seconds = time.perf_counter() - start
    return seconds, seconds / replicates * scale


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dir", default="/tmp/leaderboard_ci_forecasting_scale")
    parser.add_argument("--only", choices=("m5", "m4"), default=None)
    parser.add_argument("--resamples", type=int, default=10000)
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--peer-replicates", type=int, default=3)
    parser.add_argument("--no-peer", action="store_true")
    parser.add_argument("--base", help="another scoring_program folder (an older commit's) run beside ours, same data")
    args = parser.parse_args(argv)
    limits = {"m5": (30.0, 1536.0), "m4": (60.0, 1536.0)}
    for scale in ("m5", "m4"):
        if args.only not in (None, scale):
            continue
        folder = os.path.join(args.dir, scale)
        (make_m5 if scale == "m5" else make_m4)(folder)
        load = os.getloadavg()
        wall, cpu, peak, stdout = run_program(args.python, folder, args.resamples)
        first = stdout.splitlines()[0] if stdout else ""
        print("%s: B = %d, %s" % (scale.upper(), args.resamples, os.path.basename(args.python)))
        print(
            "  score.py: wall %.1f s, CPU %.1f s, peak %.0f MB (limits %.0f s, %.0f MB; ratios %.2f, %.2f); "
            "load %.2f %.2f %.2f"
            % ((wall, cpu, peak) + limits[scale] + (wall / limits[scale][0], peak / limits[scale][1]) + load)
        )
        print("  " + first)
        if args.base:
            load = os.getloadavg()
            b_wall, b_cpu, b_peak, b_out = run_program(args.python, folder, args.resamples, args.base)
            print(
                "  base %s: wall %.1f s, CPU %.1f s, peak %.0f MB (ours/base CPU %.2f); same first line: %s; "
                "load %.2f %.2f %.2f"
                % (
                    (args.base, b_wall, b_cpu, b_peak, cpu / b_cpu, b_out.splitlines()[:1] == stdout.splitlines()[:1])
                    + load
                )
            )
        if not args.no_peer:
            seconds, scaled = utilsforecast_loop(folder, args.peer_replicates, args.resamples)
            print(
                "  utilsforecast loop: %d replicates in %.1f s, scaled to B = %d: %.0f s (%.0fx ours, wall); "
                "load %.2f %.2f %.2f"
                % ((args.peer_replicates, seconds, args.resamples, scaled, scaled / wall) + os.getloadavg())
            )


if __name__ == "__main__":
    main()
