#!/usr/bin/env python3
"""leaderboard-ci benchmark suite: ours vs peers, one case per child process.

    python benchmarks/setup_peers.py                 # once: peers into benchmarks/.venv-peers
    python benchmarks/run.py --quick                 # smoke run (about two minutes)
    python benchmarks/run.py --only per_submission   # a group or workload names (comma-separated)
    python benchmarks/run.py --only end_of_phase --wait-quiet 40
    python benchmarks/run.py --only f1_macro --impls ours,scipy
    python benchmarks/run.py --peers [NAME...]       # every peer ratio the docs quote (benchmarks/peers.py)

Every (workload, m, n, B, implementation) runs in its own child process, one
after another (``child.py``); the parent reads the child's peak RSS from
``os.wait4``.  Wall time is the median of ``--repeats`` (>= 3) timed runs
inside the child, after imports and data loading.  Results: a table on
stdout, JSON (+ a Markdown table) and a PNG plot in ``benchmarks/results/``
(full runs) or ``benchmarks/.cache/results/`` (quick runs).  Benchmarks are
not tests and never run in CI.
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import platform
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

import datasets  # noqa: E402
import impls as impls_mod  # noqa: E402
import peers  # noqa: E402
import workloads as workloads_mod  # noqa: E402

PEERS_PYTHON = os.path.join(HERE, ".venv-peers", "bin", "python")
RESULTS = os.path.join(HERE, "results")
QUICK_RESULTS = os.path.join(HERE, ".cache", "results")

MODES = {
    # max_seconds: a peer predicted to need more than this for the full B runs at a smaller B
    # (scaled_seconds per run) and is scaled linearly; probe_seconds: length of the cost probe.
    # The brief's rule is "over 3 minutes -> scaled"; the default 60 s is stricter and keeps the full
    # per-submission run near 40 minutes.  --max-seconds 180 applies the brief's threshold exactly.
    "full": dict(
        repeats=3,
        max_seconds=60.0,
        scaled_seconds=8.0,
        probe_seconds=0.5,
        min_resamples=20,
        max_index_gb=12.0,
        timeout=1800.0,
    ),
    # ratios: the cases whose peer ratios the docs quote, ours (n_jobs="auto") and the peers only, about
    # ten minutes per group on 2 cores (benchmarks/peers.py): a peer predicted over 10 s runs at a B that
    # takes about 2 s (at least 10 resamples) and is scaled linearly, as printed.
    "ratios": dict(
        repeats=3,
        max_seconds=10.0,
        scaled_seconds=2.0,
        probe_seconds=0.3,
        min_resamples=10,
        max_index_gb=4.0,
        timeout=900.0,
    ),
    "quick": dict(
        repeats=3,
        max_seconds=0.3,
        scaled_seconds=0.1,
        probe_seconds=0.03,
        min_resamples=20,
        max_index_gb=1.0,
        timeout=300.0,
    ),
}


# ---------------------------------------------------------------------------
# Machine and environment
# ---------------------------------------------------------------------------
def machine_info():
    info = {"platform": platform.platform(), "python": platform.python_version(), "cpu_count": os.cpu_count()}
    try:
        info["cpus_available"] = len(os.sched_getaffinity(0))
    except AttributeError:
        pass
    try:
        with open("/proc/cpuinfo") as handle:
            text = handle.read()
        for line in text.splitlines():
            key, _, value = line.partition(":")
            key = key.strip()
            if key in ("model name", "cpu family", "model", "stepping", "cpu MHz", "cache size") and key not in info:
                info[key.replace(" ", "_")] = value.strip()
    except OSError:
        pass
    try:
        out = subprocess.run(["lscpu"], stdout=subprocess.PIPE, universal_newlines=True).stdout
        for line in out.splitlines():
            key, _, value = line.partition(":")
            if key.strip() in ("Thread(s) per core", "Core(s) per socket", "L2 cache", "L3 cache", "Hypervisor vendor"):
                info["lscpu_" + key.strip().split("(")[0].strip().replace(" ", "_").lower()] = value.strip()
    except OSError:
        pass
    try:
        with open("/proc/meminfo") as handle:
            for line in handle:
                if line.startswith("MemTotal:"):
                    info["memory_gib"] = round(int(line.split()[1]) / 1024.0**2, 1)
    except OSError:
        pass
    import numpy

    info["numpy"] = numpy.__version__
    info["load_average_at_start"] = list(os.getloadavg())
    info["env_threads"] = {
        k: os.environ[k] for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS") if k in os.environ
    }
    return info


def top_processes(count=6):
    """The busiest processes right now (``ps``), for the record."""
    try:
        out = subprocess.run(
            ["ps", "-eo", "pid,pcpu,rss,etime,args", "--sort=-pcpu"], stdout=subprocess.PIPE, universal_newlines=True
        ).stdout.splitlines()
    except OSError:
        return []
    return [line[:160] for line in out[1 : count + 1]]


def cpu_busy_fraction(seconds=5.0):
    """Share of all cores busy over ``seconds`` (from /proc/stat), 0..1."""

    def sample():
        with open("/proc/stat") as handle:
            f = [int(x) for x in handle.readline().split()[1:9]]
        return f[0] + f[1] + f[2] + f[5] + f[6] + f[7], sum(f)

    try:
        b0, t0 = sample()
        time.sleep(seconds)
        b1, t1 = sample()
        return (b1 - b0) / float(max(1, t1 - t0))
    except OSError:
        return None


def wait_quiet(max_minutes, load_limit, poll_seconds=120.0):
    """Wait until the 1-minute load average is below ``load_limit`` and the cores are idle.

    Polls every ``poll_seconds`` for at most ``max_minutes``; returns a record
    of the polls (the benchmark runs anyway after the deadline, and says so).
    """
    polls = []
    deadline = time.time() + 60.0 * max_minutes
    while True:
        load = os.getloadavg()[0]
        busy = cpu_busy_fraction(5.0)
        quiet = load < load_limit and (busy is None or busy < 0.15)
        polls.append(
            {
                "time": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
                "load_1min": load,
                "busy_fraction_5s": busy,
                "quiet": quiet,
            }
        )
        print(
            "machine: load %.2f, %.0f%% of the cores busy over 5 s%s"
            % (load, 100 * (busy or 0), " - quiet" if quiet else " - waiting (limit: load < %.2f)" % load_limit),
            flush=True,
        )
        if quiet or time.time() + poll_seconds > deadline:
            if not quiet:
                print(
                    "machine: still busy after %.0f minutes; running anyway (cases will be flagged BUSY)" % max_minutes,
                    flush=True,
                )
                for line in top_processes():
                    print("  " + line, flush=True)
            return {"waited_minutes": max_minutes, "load_limit": load_limit, "polls": polls, "quiet": quiet}
        time.sleep(poll_seconds)


def pause_while_busy(budget_seconds, threshold=0.25, sample_seconds=2.0, poll_seconds=30.0):
    """Before a case: while other processes use more than ``threshold`` cores, wait.

    Our own children are not running at this point, so /proc/stat's busy
    share is other people's work.  Spends at most ``budget_seconds`` (shared by
    the whole run); returns (remaining budget, seconds waited, cores busy at the end).
    """
    waited = 0.0
    cpus = os.cpu_count() or 1
    while True:
        frac = cpu_busy_fraction(sample_seconds)
        cores = None if frac is None else frac * cpus
        if cores is None or cores <= threshold or budget_seconds <= 0:
            return budget_seconds, waited, cores
        print(
            "    (others use %.1f cores: waiting %.0f s, %.0f s of pause budget left)"
            % (cores, poll_seconds, budget_seconds),
            flush=True,
        )
        time.sleep(poll_seconds)
        waited += poll_seconds
        budget_seconds -= poll_seconds


def git_info():
    def git(*args):
        try:
            return subprocess.run(
                ["git", "-C", ROOT] + list(args),
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                universal_newlines=True,
            ).stdout.strip()
        except OSError:
            return ""

    return {
        "commit": git("rev-parse", "HEAD"),
        "scoring_program_dirty": bool(git("status", "--porcelain", "--", "scoring_program")),
    }


def code_hash():
    """sha1 of scoring_program/leaderboard_ci/*.py: which code each "ours" case measured
    (other engineers may change the tree while a long run is going on)."""
    import hashlib

    h = hashlib.sha1()
    pkg = os.path.join(ROOT, "scoring_program", "leaderboard_ci")
    for name in sorted(os.listdir(pkg)):
        if name.endswith(".py"):
            with open(os.path.join(pkg, name), "rb") as handle:
                h.update(name.encode() + handle.read())
    return h.hexdigest()[:12]


def peers_status():
    """(python or None, reason, versions, per-peer install status)."""
    if not os.path.exists(PEERS_PYTHON):
        return None, "benchmarks/.venv-peers is missing: run `python benchmarks/setup_peers.py`", {}, {}
    status_file = os.path.join(HERE, ".venv-peers", "peers.json")
    status = {}
    if os.path.exists(status_file):
        with open(status_file) as handle:
            status = json.load(handle)
    return PEERS_PYTHON, "", status.get("versions") or {}, status.get("peers") or {}


def measure_startup(python, code, repeats=3):
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        subprocess.run([python, "-c", code], cwd=ROOT, check=True)
        times.append(time.perf_counter() - t)
    return _median(times)


# ---------------------------------------------------------------------------
# Running one case
# ---------------------------------------------------------------------------
def _self_rss_mb():
    try:
        with open("/proc/self/status") as handle:
            for line in handle:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        return None


def run_child(python, spec, timeout, log_path):
    """Run child.py on ``spec``; return (result dict, peak RSS MB, wall seconds).

    The peak RSS is the child's ``ru_maxrss`` from ``os.wait4`` (this child
    only, not the cumulative RUSAGE_CHILDREN maximum).  On Linux it is at
    least the parent's RSS at fork time, so the parent keeps itself small
    (data are made in a subprocess, matplotlib is imported at the very end).
    """
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False, dir=os.path.join(HERE, ".cache")) as handle:
        spec_path = handle.name
        out_path = spec_path[:-5] + ".out.json"
        spec = dict(spec, out=out_path)
        json.dump(spec, handle)
    parent_rss = _self_rss_mb()
    try:
        with open(log_path, "w") as log:
            t0 = time.perf_counter()
            proc = subprocess.Popen(
                [python, os.path.join(HERE, "child.py"), spec_path],
                cwd=ROOT,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
            )
            status, usage, killed = None, None, False
            while True:
                pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
                if pid:
                    break
                if time.perf_counter() - t0 > timeout and not killed:
                    proc.kill()
                    killed = True
                time.sleep(0.02)
            wall = time.perf_counter() - t0
            proc.returncode = os.waitstatus_to_exitcode(status)
        peak_mb = usage.ru_maxrss / 1024.0  # Linux: KiB
        if os.path.exists(out_path):
            with open(out_path) as handle:
                result = json.load(handle)
        else:
            with open(log_path) as handle:
                tail = handle.read()[-2000:]
            reason = "timed out after %.0f s" % timeout if killed else "exit code %s" % proc.returncode
            result = {"status": "error", "reason": reason, "log_tail": tail}
        result["parent_rss_at_spawn_mb"] = parent_rss
        return result, peak_mb, wall
    finally:
        for path in (spec_path, spec_path[:-5] + ".out.json"):
            if os.path.exists(path):
                os.unlink(path)


def _median(values):
    values = sorted(values)
    m = len(values)
    return values[m // 2] if m % 2 else 0.5 * (values[m // 2 - 1] + values[m // 2])


def _workload_dict(w):
    return {"name": w.name, "metric": w.metric, "baseline": w.baseline, "data": w.data, "kind": w.kind}


# ---------------------------------------------------------------------------
# Reporting
# ---------------------------------------------------------------------------
def fmt_n(x):
    return workloads_mod._human(int(x))


def fmt_time(t):
    if t is None:
        return "-"
    if t >= 100:
        return "%.0f" % t
    if t >= 10:
        return "%.1f" % t
    if t >= 1:
        return "%.2f" % t
    return "%.3f" % t


def fmt_ratio(r):
    if r is None:
        return "-"
    return ("%.0fx" % r) if r >= 100 else ("%.1fx" % r if r >= 10 else "%.2fx" % r)


def add_ratios(cases):
    """Wall and CPU ratios to ours on the same case (CPU: the steadier one on a shared machine)."""
    ours = {(c["workload"], c["m"], c["n"], c["B"], c["impl"]): c for c in cases if c["status"] == "ok"}
    for c in cases:
        c["ratio_vs_ours"] = c["ratio_vs_ours_1job"] = c["cpu_ratio_vs_ours"] = None
        if c["status"] != "ok":
            continue
        for ref, key in (("ours", "ratio_vs_ours"), ("ours-1job", "ratio_vs_ours_1job")):
            r = ours.get((c["workload"], c["m"], c["n"], c["B"], ref))
            if r is not None and r["time"] > 0:
                c[key] = c["time"] / r["time"]
        r = ours.get((c["workload"], c["m"], c["n"], c["B"], "ours"))
        if r is not None and r.get("cpu_time") and c.get("cpu_time"):
            c["cpu_ratio_vs_ours"] = c["cpu_time"] / r["cpu_time"]


def table_rows(cases):
    with_m = any(c["m"] > 1 for c in cases)
    header = (
        ["workload"]
        + (["m"] if with_m else [])
        + [
            "n",
            "B",
            "implementation",
            "time s (median)",
            "min-max (as run)",
            "CPU s",
            "peak RSS MB",
            "dRSS MB",
            "x ours",
            "x ours CPU",
            "x ours 1job",
            "load 1-min",
            "notes",
        ]
    )
    rows = []
    for c in cases:
        where = [c["workload"]] + ([fmt_n(c["m"])] if with_m else []) + [fmt_n(c["n"]), fmt_n(c["B"]), c["label"]]
        if c["status"] != "ok":
            rows.append(
                where
                + ["-", "-", "-", "-", "-", "-", "-", "-", "-", "%s: %s" % (c["status"].upper(), c.get("reason", ""))]
            )
            continue
        notes = []
        if c["scaled"]:
            notes.append("scaled x%.3g from B=%s (RSS at that B)" % (c["scale"], fmt_n(c["B_run"])))
            if c.get("affine_full_seconds"):
                notes.append("affine fit a+kB: %s s" % fmt_time(c["affine_full_seconds"]))
        if c.get("busy"):
            notes.append("BUSY: other processes used %.1f cores" % max(x for x in c["other_cores"] if x is not None))
        if c.get("check"):
            notes.append(c["check"])
        rows.append(
            where
            + [
                fmt_time(c["time"]) + ("*" if c["scaled"] else ""),
                "%s-%s" % (fmt_time(min(c["times"])), fmt_time(max(c["times"]))),
                fmt_time(c.get("cpu_time")),
                "%.0f" % c["peak_rss_mb"],
                "%.0f" % c["delta_rss_mb"] if c.get("delta_rss_mb") is not None else "-",
                fmt_ratio(c["ratio_vs_ours"]),
                fmt_ratio(c.get("cpu_ratio_vs_ours")),
                fmt_ratio(c["ratio_vs_ours_1job"]),
                _load_range(c.get("load_1min")),
                "; ".join(notes),
            ]
        )
    return header, rows


def _load_range(loads):
    loads = [x for x in (loads or []) if x is not None]
    if not loads:
        return "-"
    return "%.1f" % loads[0] if min(loads) == max(loads) else "%.1f-%.1f" % (min(loads), max(loads))


def render_text(header, rows):
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    line = "  ".join(h.ljust(w) for h, w in zip(header, widths))
    out = [line, "-" * len(line)]
    for row in rows:
        out.append("  ".join(str(x).ljust(w) for x, w in zip(row, widths)).rstrip())
    return "\n".join(out)


def render_markdown(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for row in rows:
        out.append("| " + " | ".join(str(x).replace("|", "/") for x in row) + " |")
    return "\n".join(out)


def fit_exponent(xs, ys):
    """Least-squares slope of log(y) on log(x)."""
    if len(xs) < 2:
        return None
    lx = [math.log(x) for x in xs]
    ly = [math.log(y) for y in ys]
    mx, my = sum(lx) / len(lx), sum(ly) / len(ly)
    sxx = sum((a - mx) ** 2 for a in lx)
    if sxx == 0:
        return None
    return sum((a - mx) * (b - my) for a, b in zip(lx, ly)) / sxx


AXIS_KEY = {"m": "m", "n": "n", "B": "B"}


def exponents(cases, selected):
    """Growth exponents along each workload's fit axes, one fit per group of the other sizes."""
    out = []
    for w in selected:
        for axis in w.axes:
            others = [a for a in ("m", "n", "B") if a != axis]
            for impl in w.impls:
                pts = [c for c in cases if c["workload"] == w.name and c["impl"] == impl and c["status"] == "ok"]
                groups = {}
                for c in pts:
                    groups.setdefault(tuple(c[a] for a in others), []).append(c)
                for fixed, group in sorted(groups.items()):
                    group = sorted(group, key=lambda c: c[axis])
                    xs = [c[axis] for c in group]
                    if len(set(xs)) < 2:
                        continue
                    k = fit_exponent(xs, [c["time"] for c in group])
                    label = ", ".join(
                        "%s=%s" % (a, fmt_n(v)) for a, v in zip(others, fixed) if not (a == "m" and v == 1)
                    )
                    out.append(
                        {
                            "workload": w.name,
                            "impl": impl,
                            "axis": axis,
                            "exponent": k,
                            "points": [[x, c["time"]] for x, c in zip(xs, group)],
                            "any_scaled": any(c["scaled"] for c in group),
                            "fixed": label,
                        }
                    )
    return out


def check_targets(cases, selected, mode):
    out = []
    for w in selected:
        for t in w.targets:
            if mode not in t.modes:
                continue
            m = t.m or 1

            def find(impl):
                return next(
                    (
                        c
                        for c in cases
                        if c["workload"] == w.name
                        and c["impl"] == impl
                        and c["m"] == m
                        and c["n"] == t.n
                        and c["B"] == t.n_resamples
                    ),
                    None,
                )

            row = find("ours")
            entry = {
                "workload": w.name,
                "target": t.describe(),
                "m": t.m,
                "n": t.n,
                "B": t.n_resamples,
                "seconds_limit": t.seconds,
                "rss_mb_limit": t.rss_mb,
                "peer": t.peer,
                "min_ratio": t.min_ratio,
            }
            if row is None or row["status"] != "ok":
                entry.update(verdict="NOT RUN" if row is None else "ERROR")
            elif t.peer is not None:
                peer = find(t.peer)
                if peer is None or peer["status"] != "ok":
                    entry.update(verdict="NOT RUN" if peer is None else "ERROR")
                else:
                    ratio = peer["time"] / row["time"]
                    entry.update(
                        verdict="PASS" if ratio >= t.min_ratio else "FAIL",
                        ratio=ratio,
                        time=row["time"],
                        peer_time=peer["time"],
                        peer_scaled=peer["scaled"],
                        peak_rss_mb=row["peak_rss_mb"],
                    )
                    one = find("ours-1job")
                    if one is not None and one["status"] == "ok":
                        entry["ratio_1job"] = peer["time"] / one["time"]
                        entry["verdict_1job"] = "PASS" if entry["ratio_1job"] >= t.min_ratio else "FAIL"
            else:
                ok_time = row["time"] < t.seconds
                ok_rss = t.rss_mb is None or row["peak_rss_mb"] < t.rss_mb
                entry.update(
                    verdict="PASS" if ok_time and ok_rss else "FAIL",
                    time=row["time"],
                    peak_rss_mb=row["peak_rss_mb"],
                    time_ok=ok_time,
                    rss_ok=ok_rss,
                    busy=bool(row.get("busy")),
                )
                one = find("ours-1job")
                if one is not None and one["status"] == "ok":
                    entry["time_1job"] = one["time"]
                    entry["peak_rss_mb_1job"] = one["peak_rss_mb"]
                    entry["verdict_1job"] = (
                        "PASS"
                        if (one["time"] < t.seconds and (t.rss_mb is None or one["peak_rss_mb"] < t.rss_mb))
                        else "FAIL"
                    )
            out.append(entry)
    return out


def same_resample_checks(cases, heads):
    """Peers on our resamples must reproduce our replicate values exactly."""
    for c in cases:
        if c["status"] != "ok" or c["impl"] == "ours":
            continue
        ref = heads.get((c["workload"], c["m"], c["n"], "ours"))
        mine = heads.get((c["workload"], c["m"], c["n"], c["impl"]))
        if ref is not None and mine is not None:
            m = min(len(ref), len(mine))
            diff = max(abs(a - b) for a, b in zip(ref[:m], mine[:m])) if m else float("nan")
            c["replicates_max_abs_diff_vs_ours"] = diff
            c["check"] = (
                ("first %d replicates = ours" % m)
                if diff <= 1e-12
                else ("REPLICATES DIFFER from ours: max |diff| %.3g" % diff)
            )


STYLES = {
    "ours": ("C0", "o"),
    "ours-1job": ("C0", "s"),
    "ours-dask1": ("C3", "o"),
    "ours-dask2": ("C3", "s"),
    "scipy": ("C1", "^"),
    "sklearn-loop": ("C2", "v"),
    "compstats": ("C4", "D"),
    "bootci": ("C5", "P"),
}


def _panel(ax, cases, w, axis, mode, split=None):
    """Time vs ``axis`` for each implementation of ``w`` (one line per value of ``split``)."""
    for impl in w.impls:
        pts = [c for c in cases if c["workload"] == w.name and c["impl"] == impl and c["status"] == "ok"]
        groups = {}
        for c in pts:
            groups.setdefault(c[split] if split else None, []).append(c)
        for key, group in sorted(groups.items(), key=lambda kv: (kv[0] is None, kv[0])):
            group = sorted(group, key=lambda c: c[axis])
            color, marker = STYLES.get(impl, ("k", "x"))
            xs = [c[axis] for c in group]
            ys = [c["time"] for c in group]
            ls = "--" if impl.endswith("1job") else (":" if split and key == min(groups) and len(groups) > 1 else "-")
            label = impls_mod.IMPLEMENTATIONS[impl].label + ("" if key is None else " (%s=%s)" % (split, fmt_n(key)))
            ax.plot(xs, ys, ls, color=color, lw=1.2, label=label)
            for x, y, c in zip(xs, ys, group):
                ax.plot([x], [y], marker, color=color, mfc="white" if c["scaled"] else color, ms=6)
    for t in w.targets:
        if mode in t.modes and t.seconds is not None:
            x = {"m": t.m or 1, "n": t.n, "B": t.n_resamples}[axis]
            ax.plot([x], [t.seconds], "_", color="red", ms=18, mew=2)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel({"m": "m (systems)", "n": "n (items)", "B": "B (resamples)"}[axis])
    ax.set_ylabel("wall time, s (median)")
    sizes = w.cases_run
    fixed = [
        a
        for a in ("m", "n", "B")
        if a != axis
        and a != split
        and len(set(s[("m", "n", "B").index(a)] for s in sizes)) == 1
        and not (a == "m" and sizes[0][0] == 1)
    ]
    text = ", ".join("%s=%s" % (a, fmt_n(sizes[0][("m", "n", "B").index(a)])) for a in fixed)
    ax.set_title(
        "%s (%s)" % (w.title.split(":")[0] if axis == "n" and w.kind == "per_submission" else w.title, text), fontsize=8
    )
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=6, loc="upper left")


def plot(cases, selected, path, title, mode):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = []  # (workload, axis, split)
    per = [w for w in selected if w.kind == "per_submission"]
    eop = [w for w in selected if w.kind == "end_of_phase"]
    panels += [(w, "n", None) for w in per if w.axis == "n" and len(w.cases_run) > 1][:1]
    panels += [(w, "B", None) for w in per if w.axis == "B" and len(w.cases_run) > 1][:1]
    for w in eop:
        sizes = w.cases_run
        if len(sizes) < 2:
            continue
        if w.axis == "m":
            split = "n" if len(set(s[1] for s in sizes)) > 1 else None
            panels.append((w, "m", split))
        else:
            panels.append((w, w.axis, None))
    bars = [w for w in eop if len(w.cases_run) == 1]  # one case: a bar per implementation (paper, Dask)
    if not panels and not bars:
        return False
    count = len(panels) + len(bars)
    cols = min(count, 3)
    rows = -(-count // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(5.4 * cols, 4.2 * rows), squeeze=False)
    flat = list(axes.ravel())
    for ax, (w, axis, split) in zip(flat, panels):
        _panel(ax, cases, w, axis, mode, split)
    for ax, w in zip(flat[len(panels) :], bars):
        pts = [c for c in cases if c["workload"] == w.name and c["status"] == "ok"]
        labels = [impls_mod.IMPLEMENTATIONS[c["impl"]].label + ("*" if c["scaled"] else "") for c in pts]
        ys = [c["time"] for c in pts]
        ax.bar(
            range(len(pts)),
            ys,
            color=[STYLES.get(c["impl"], ("k",))[0] for c in pts],
            hatch=None,
            edgecolor="k",
            linewidth=0.5,
        )
        for i, (y, c) in enumerate(zip(ys, pts)):
            ax.text(i, y, fmt_time(y) + ("*" if c["scaled"] else ""), ha="center", va="bottom", fontsize=7)
        if ys and max(ys) / max(1e-9, min(ys)) > 30:
            ax.set_yscale("log")
        ax.set_xticks(range(len(pts)))
        ax.set_xticklabels(labels, fontsize=6, rotation=15)
        ax.set_ylabel("wall time, s (median; * scaled)")
        if pts:
            ax.set_title(
                "%s (m=%s, n=%s, B=%s)"
                % (w.title.split(":")[0], fmt_n(pts[0]["m"]), fmt_n(pts[0]["n"]), fmt_n(pts[0]["B"])),
                fontsize=8,
            )
        ax.grid(True, axis="y", alpha=0.3)
    for ax in flat[count:]:
        ax.axis("off")
    fig.suptitle(title + "   (hollow = scaled from a smaller B; red bars = targets)", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    plt.close(fig)
    return True


def dask_summary(cases):
    """Dask 1 -> 2 local workers, and both against the threaded run, per case."""
    out = []
    keys = sorted(
        set(
            (c["workload"], c["m"], c["n"], c["B"])
            for c in cases
            if c["impl"].startswith("ours-dask") and c["status"] == "ok"
        )
    )
    for key in keys:
        row = {c["impl"]: c for c in cases if (c["workload"], c["m"], c["n"], c["B"]) == key and c["status"] == "ok"}
        entry = {"workload": key[0], "m": key[1], "n": key[2], "B": key[3]}
        for impl in ("ours", "ours-1job", "ours-dask1", "ours-dask2"):
            if impl in row:
                entry[impl] = row[impl]["time"]
                st = row[impl].get("stages") or {}
                if st:
                    entry[impl + "_score_systems"] = st.get("score_systems")
                    if "cluster_start" in st:
                        entry[impl + "_cluster"] = st.get("cluster_start", 0.0) + st.get("cluster_close", 0.0)
        if "ours-dask1" in entry and "ours-dask2" in entry:
            entry["speedup_1_to_2_workers"] = entry["ours-dask1"] / entry["ours-dask2"]
            if entry.get("ours-dask1_score_systems") and entry.get("ours-dask2_score_systems"):
                entry["speedup_bootstrap_stage"] = entry["ours-dask1_score_systems"] / entry["ours-dask2_score_systems"]
        if "ours" in entry and "ours-1job" in entry:
            entry["speedup_threads_1_to_auto"] = entry["ours-1job"] / entry["ours"]
        out.append(entry)
    return out


def load_text(s):
    if not s.get("cases"):
        return ""
    return (
        "during the timed runs: 1-min load %.2f-%.2f (includes this benchmark), other processes used at most "
        "%.2f cores (median %.2f); %d of %d cases flagged BUSY (> 0.25 core)."
        % (
            s["load_1min_min"] or 0,
            s["load_1min_max"] or 0,
            s["other_cores_max"] or 0,
            s["other_cores_median"] or 0,
            s["busy_cases"],
            s["cases"],
        )
    )


def summary_lines(cases, exps, targets, dask, mode, load_summary):
    lines = []
    staged = [c for c in cases if c["status"] == "ok" and c.get("stages")]
    if staged:
        lines.append(
            "Stages of analyze() (ours; median seconds over the timed runs; 'other' = pandas tables, "
            "ranking, encoding):"
        )
        for c in staged:
            lines.append(
                "  %-13s m=%-5s n=%-6s B=%-6s %-27s %s"
                % (
                    c["workload"],
                    fmt_n(c["m"]),
                    fmt_n(c["n"]),
                    fmt_n(c["B"]),
                    c["label"],
                    ", ".join(
                        "%s %s" % (k, fmt_time(v))
                        for k, v in sorted(c["stages"].items(), key=lambda kv: -kv[1])
                        if v >= 0.0005
                    ),
                )
            )
        lines.append("")
    if exps:
        lines.append("Growth exponents (least squares of log time on log m, log n or log B):")
        for e in exps:
            if e["exponent"] is None:
                continue
            lines.append(
                "  %-22s %-27s time ~ %s^%.2f  (%s; %d points%s)"
                % (
                    e["workload"],
                    impls_mod.IMPLEMENTATIONS[e["impl"]].label,
                    e["axis"],
                    e["exponent"],
                    e["fixed"],
                    len(e["points"]),
                    ", includes scaled points" if e["any_scaled"] else "",
                )
            )
        lines.append("")
    if targets:
        lines.append("Targets (ours, n_jobs='auto'; peak RSS of the whole process):")
        for t in targets:
            extra = ""
            if "ratio" in t:
                extra = ": %s / ours %.2f s = %.0fx%s" % (
                    t["peer"],
                    t["time"],
                    t["ratio"],
                    " (peer scaled)" if t["peer_scaled"] else "",
                )
                if "ratio_1job" in t:
                    extra += "   (vs n_jobs=1: %.0fx, %s)" % (t["ratio_1job"], t["verdict_1job"])
            elif "time" in t:
                extra = ": %.2f s, %.0f MB" % (t["time"], t["peak_rss_mb"])
                if "time_1job" in t:
                    extra += "   (n_jobs=1: %.2f s, %.0f MB, %s)" % (
                        t["time_1job"],
                        t["peak_rss_mb_1job"],
                        t["verdict_1job"],
                    )
                if t.get("busy"):
                    extra += "  [BUSY]"
            lines.append("  %-7s %-14s %s%s" % (t["verdict"], t["workload"], t["target"], extra))
        lines.append("")
    elif mode == "quick":
        lines.append("Targets: checked in the full run only (quick mode uses smaller sizes).")
        lines.append("")
    ratios = [c for c in cases if c["status"] == "ok" and not c["impl"].startswith("ours")]
    if ratios:
        lines.append("Peers relative to ours (ratio peer / ours, wall and CPU time):")
        for c in ratios:
            lines.append(
                "  %-22s %sn=%-6s %-22s %8s wall, %8s CPU vs n_jobs=auto, %8s vs n_jobs=1%s"
                % (
                    c["workload"],
                    ("m=%-5s " % fmt_n(c["m"])) if c["m"] > 1 else "",
                    fmt_n(c["n"]),
                    c["label"],
                    fmt_ratio(c["ratio_vs_ours"]),
                    fmt_ratio(c.get("cpu_ratio_vs_ours")),
                    fmt_ratio(c["ratio_vs_ours_1job"]),
                    "  (scaled from B=%s)" % fmt_n(c["B_run"]) if c["scaled"] else "",
                )
            )
        lines.append("")
    for d in dask:
        parts = ["%s %s s" % (k, fmt_time(d[k])) for k in ("ours-1job", "ours", "ours-dask1", "ours-dask2") if k in d]
        lines.append("Dask (m=%s, n=%s, B=%s): %s" % (fmt_n(d["m"]), fmt_n(d["n"]), fmt_n(d["B"]), "; ".join(parts)))
        if "speedup_1_to_2_workers" in d:
            lines.append(
                "  1 -> 2 local workers: %.2fx end to end%s; threads 1 -> auto: %s"
                % (
                    d["speedup_1_to_2_workers"],
                    (
                        ", %.2fx on the bootstrap stage alone (score_systems without cluster start/close)"
                        % d["speedup_bootstrap_stage"]
                    )
                    if d.get("speedup_bootstrap_stage")
                    else "",
                    ("%.2fx" % d["speedup_threads_1_to_auto"]) if d.get("speedup_threads_1_to_auto") else "-",
                )
            )
            parts = [
                "%s %s s" % (k, fmt_time(d.get(k + "_score_systems")))
                for k in ("ours-1job", "ours", "ours-dask1", "ours-dask2")
                if d.get(k + "_score_systems") is not None
            ]
            lines.append(
                "  bootstrap stage: %s; LocalCluster start + close: %s"
                % (
                    "; ".join(parts),
                    "; ".join(
                        "%s %s s" % (k, fmt_time(d[k + "_cluster"]))
                        for k in ("ours-dask1", "ours-dask2")
                        if d.get(k + "_cluster")
                    ),
                )
            )
            lines.append(
                "  (2 workers on this 2-core machine is the ceiling: each worker is one single-threaded process)"
            )
        lines.append("")
    text = load_text(load_summary)
    if text:
        lines.append("Load: " + text)
    return lines


# ---------------------------------------------------------------------------
# Main
# ---------------------------------------------------------------------------
def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="smoke run: small n and B")
    p.add_argument(
        "--ratios",
        action="store_true",
        help="only the cases whose peer ratios the docs quote, ours and the peers (about 10 minutes per group)",
    )
    p.add_argument("--only", default="", help="comma-separated workload names or groups (e.g. per_submission)")
    p.add_argument("--impls", default="", help="comma-separated implementations to run (default: each workload's)")
    p.add_argument("--no-peers", action="store_true", help="run only our implementation(s)")
    p.add_argument("--repeats", type=int, help="timed runs per case (median; at least 3)")
    p.add_argument(
        "--max-seconds", type=float, help="a peer predicted slower than this for the full B runs at a smaller B, scaled"
    )
    p.add_argument("--scaled-seconds", type=float, help="target seconds of one scaled run")
    p.add_argument("--max-index-gb", type=float, help="cap on a peer's (B, n) index matrix")
    p.add_argument("--out", help="output stem (default: results/<selection>[-quick])")
    p.add_argument("--max-n", type=int, help="skip cases with more items than this")
    p.add_argument("--max-m", type=int, help="skip end-of-phase cases with more systems than this")
    p.add_argument(
        "--wait-quiet",
        type=float,
        default=0.0,
        metavar="MINUTES",
        help="before measuring, wait up to MINUTES for a quiet machine (polls every 2 minutes)",
    )
    p.add_argument("--quiet-load", type=float, default=0.5, help="1-minute load average that counts as quiet")
    p.add_argument(
        "--pause-when-busy",
        type=float,
        default=0.0,
        metavar="MINUTES",
        help="before each case, wait while other processes use > 0.25 core (total budget MINUTES)",
    )
    p.add_argument("--no-plot", action="store_true")
    return p.parse_args(argv)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["--peers"]:  # the docs' peer ratios, one command each: benchmarks/peers.py
        return peers.main(argv[1:])
    args = parse_args(argv)
    mode = "quick" if args.quick else "ratios" if args.ratios else "full"
    settings = dict(MODES[mode])
    for key in ("repeats", "max_seconds", "scaled_seconds", "max_index_gb"):
        if getattr(args, key) is not None:
            settings[key] = getattr(args, key)
    if settings["repeats"] < 3:
        raise SystemExit("--repeats must be at least 3 (the table reports a median of >= 3 runs)")
    only = [s.strip() for s in args.only.split(",") if s.strip()]
    selected = workloads_mod.select(only)
    impl_filter = set(s.strip() for s in args.impls.split(",") if s.strip())
    os.makedirs(os.path.join(HERE, ".cache", "logs"), exist_ok=True)

    peers_python, peers_reason, peer_versions, peer_install = peers_status()
    machine = machine_info()
    print(
        "leaderboard-ci benchmarks (%s) on %s, %s CPUs, %s GiB, Python %s, numpy %s"
        % (
            mode,
            machine.get("model_name", "?"),
            machine.get("cpus_available", machine["cpu_count"]),
            machine.get("memory_gib"),
            machine["python"],
            machine["numpy"],
        ),
        flush=True,
    )
    if peers_reason:
        print("peers: SKIPPED - " + peers_reason, flush=True)
    for name, st in peer_install.items():
        if not st.get("installed"):
            print("peer %s: SKIPPED - not installable: %s" % (name, st.get("reason")), flush=True)

    startup = {
        "python_bare_seconds": measure_startup(sys.executable, "pass"),
        "ours_imports_seconds": measure_startup(
            sys.executable,
            "import sys; sys.path.insert(0, 'scoring_program'); "
            "import leaderboard_ci.scoring.evaluation, leaderboard_ci.scoring.config, "
            "leaderboard_ci.tasks.shared.scorer",
        ),
    }
    print(
        "start-up (not in the timings): bare interpreter %.3f s; interpreter + leaderboard_ci imports %.3f s"
        % (startup["python_bare_seconds"], startup["ours_imports_seconds"]),
        flush=True,
    )

    quiet = None
    if args.wait_quiet > 0:
        quiet = wait_quiet(args.wait_quiet, args.quiet_load)
    machine["load_average_before_measuring"] = list(os.getloadavg())
    machine["top_processes_before_measuring"] = top_processes()
    pause_budget = 60.0 * args.pause_when_busy
    paused_total = 0.0
    git_at_start = git_info()
    cases, heads, data_desc = [], {}, {}
    t_all = time.perf_counter()
    for w in selected:
        candidates = list(w.impls_for(mode))
        w_impls = [i for i in candidates if (not impl_filter or i in impl_filter)]
        if args.no_peers:
            w_impls = [i for i in w_impls if impls_mod.IMPLEMENTATIONS[i].env == "project"]
        object.__setattr__(w, "cases_run", w.cases(mode))
        for m, n, B in w.cases(mode):
            if args.max_n and n > args.max_n:
                continue
            if args.max_m and m > args.max_m:
                continue
            multi = w.data in datasets.MULTI
            path, desc = datasets.ensure(w.data, n, m=m if multi else None)
            data_desc["%s-m%d-n%d" % (w.data, m, n) if multi else w.data] = desc
            where = ("m=%-5s " % fmt_n(m) if multi else "") + "n=%-7s B=%-6s" % (fmt_n(n), fmt_n(B))
            for impl_name in w_impls:
                impl = impls_mod.IMPLEMENTATIONS[impl_name]
                case = {
                    "workload": w.name,
                    "group": w.group,
                    "m": m,
                    "n": n,
                    "B": B,
                    "impl": impl_name,
                    "scoring_program_sha1": code_hash(),
                    "label": impl.label,
                    "env": impl.env,
                    "same_resamples": impl.same_resamples,
                    "impl_notes": impl.notes,
                }
                if impl.env == "peers" and peers_python is None:
                    case.update(status="skipped", reason=peers_reason)
                    cases.append(case)
                    continue
                if impl.env == "peers" and w.peer_max_m is not None and m > w.peer_max_m:
                    case.update(
                        status="not run",
                        reason="peers run up to m=%d (at m=%s their per-pair Python "
                        "work does not scale linearly with B)" % (w.peer_max_m, fmt_n(m)),
                    )
                    cases.append(case)
                    continue
                python = sys.executable if impl.env == "project" else peers_python
                spec = dict(
                    settings,
                    impl=impl_name,
                    workload=_workload_dict(w),
                    m=m,
                    n=n,
                    n_resamples=B,
                    data_path=path,
                    mode=mode,
                    always_scale=impl_name in w.always_scale,
                )
                log = os.path.join(HERE, ".cache", "logs", "%s-%d-%d-%d-%s.log" % (w.name, m, n, B, impl_name))
                if args.pause_when_busy > 0:
                    pause_budget, waited, cores = pause_while_busy(pause_budget)
                    paused_total += waited
                    case["others_cores_before"] = cores
                    case["paused_seconds"] = waited
                result, peak_mb, wall = run_child(python, spec, settings["timeout"], log)
                case["status"] = result.get("status", "error")
                case["process_seconds"] = wall
                if case["status"] != "ok":
                    case["reason"] = result.get("reason", "")
                    if result.get("log_tail"):
                        case["log_tail"] = result["log_tail"]
                    print(
                        "  %-22s %s %-34s %s: %s"
                        % (w.name, where, impl.label, case["status"].upper(), case.get("reason", "")),
                        flush=True,
                    )
                    cases.append(case)
                    continue
                times = result["times"]
                scale = result["scale"]
                median = _median(times)
                if result.get("cpu_times"):
                    case["cpu_times"] = result["cpu_times"]
                    case["cpu_time"] = _median(result["cpu_times"]) * scale
                    case["load_1min"] = result.get("load_1min")
                    # other processes' CPU use during the timed runs (cores, from /proc/stat minus our CPU time)
                    others = [x for x in (result.get("other_cores") or []) if x is not None]
                    case["other_cores"] = result.get("other_cores")
                    case["busy"] = bool(others) and max(others) > 0.25
                case.update(
                    times=times,
                    time_as_run=median,
                    time=median * scale,
                    scaled=result["scaled"],
                    scale=scale,
                    B_run=result["n_resamples_run"],
                    peak_rss_mb=peak_mb,
                    rss_before_mb=result.get("rss_before_mb"),
                    delta_rss_mb=(peak_mb - result["rss_before_mb"]) if result.get("rss_before_mb") else None,
                    peak_rss_self_mb=result.get("peak_rss_self_mb"),
                    parent_rss_at_spawn_mb=result.get("parent_rss_at_spawn_mb"),
                    import_seconds=result.get("import_seconds"),
                    startup_seconds=result.get("startup_seconds"),
                    probe=result.get("probe"),
                    versions=result.get("versions"),
                    score=result["result"].get("score"),
                    ci=result["result"].get("ci"),
                    summary=result["result"].get("summary"),
                    keep_freed_memory=result.get("keep_freed_memory"),
                )
                if result.get("affine"):
                    case["affine_full_seconds"] = result["affine"]["full_seconds"]
                    case["affine"] = result["affine"]
                if result.get("stages"):
                    case["stages_runs"] = result["stages"]
                    case["stages"] = {
                        k: _median([s.get(k, 0.0) for s in result["stages"]]) for k in result["stages"][0]
                    }
                if result["result"].get("head") is not None:
                    heads[(w.name, m, n, impl_name)] = result["result"]["head"]
                cases.append(case)
                print(
                    "  %-22s %s %-34s %9s s%s  CPU %s s  peak RSS %6.0f MB  [%.0f s in child]  load %s%s"
                    % (
                        w.name,
                        where,
                        impl.label,
                        fmt_time(case["time"]),
                        " (scaled x%.3g from B=%s)" % (scale, fmt_n(case["B_run"])) if case["scaled"] else "",
                        fmt_time(case.get("cpu_time")),
                        peak_mb,
                        wall,
                        _load_range(case.get("load_1min")),
                        "  BUSY" if case.get("busy") else "",
                    ),
                    flush=True,
                )

    add_ratios(cases)
    same_resample_checks(cases, heads)
    header, rows = table_rows(cases)
    print()
    print(
        "Wall time = median of %d runs (s); * = run at a smaller B and scaled linearly to B; CPU s = "
        "median CPU time of the process (all threads; scaled like the time). "
        "x ours = time / ours(n_jobs=auto) time (>1: slower than ours); x ours CPU = the same with CPU times."
        % settings["repeats"]
    )
    busy = [c for c in cases if c.get("busy")]
    if busy:
        print(
            "WARNING: %d case(s) ran while other processes used > 0.25 of the machine's cores (from /proc/stat "
            "minus our CPU time); their wall times are inflated. CPU time is less affected." % len(busy)
        )
    print(render_text(header, rows))

    exps = exponents(cases, selected)
    targets = check_targets(cases, selected, mode)
    dask = dask_summary(cases)
    loads = [x for c in cases for x in (c.get("load_1min") or [])]
    others = [x for c in cases for x in (c.get("other_cores") or []) if x is not None]
    load_summary = {
        "load_1min_min": min(loads) if loads else None,
        "load_1min_max": max(loads) if loads else None,
        "other_cores_max": max(others) if others else None,
        "other_cores_median": _median(others) if others else None,
        "busy_cases": len(busy),
        "cases": len([c for c in cases if c["status"] == "ok"]),
    }
    report = summary_lines(cases, exps, targets, dask, mode, load_summary)
    print("\n" + "\n".join(report))

    total = time.perf_counter() - t_all
    print("\ntotal benchmark time: %.0f s" % total)

    # --- save -------------------------------------------------------------------------
    stem = args.out
    if not stem:
        name = "+".join(only) if only else "all"
        base = QUICK_RESULTS if mode == "quick" else RESULTS
        stem = os.path.join(base, name.replace("/", "_") + ("" if mode == "full" else "-" + mode))
    os.makedirs(os.path.dirname(os.path.abspath(stem)), exist_ok=True)
    now = datetime.datetime.now(datetime.timezone.utc)
    doc = {
        "schema": 1,
        "date": now.isoformat(timespec="seconds"),
        "mode": mode,
        "command": " ".join(["python", "benchmarks/run.py"] + (sys.argv[1:] if argv is None else list(argv))),
        "machine": machine,
        "git": {"at_start": git_at_start, "at_end": git_info()},
        "peers": {
            "python": peers_python,
            "skipped_reason": peers_reason or None,
            "versions": peer_versions,
            "install": peer_install,
        },
        "settings": settings,
        "datasets": data_desc,
        "startup": startup,
        "workloads": {
            w.name: {
                "group": w.group,
                "title": w.title,
                "metric": w.metric,
                "data": w.data,
                "axis": w.axis,
                "notes": w.notes,
                "sizes": w.cases(mode),
            }
            for w in selected
        },
        "implementations": {
            k: {"label": v.label, "env": v.env, "same_resamples": v.same_resamples, "notes": v.notes}
            for k, v in impls_mod.IMPLEMENTATIONS.items()
        },
        "cases": cases,
        "exponents": exps,
        "targets": targets,
        "dask": dask,
        "load_during_measurement": load_summary,
        "quiet_wait": quiet,
        "paused_while_busy_seconds": paused_total,
        "total_seconds": total,
    }
    doc["machine"]["load_average_at_end"] = list(os.getloadavg())
    with open(stem + ".json", "w") as handle:
        json.dump(doc, handle, indent=1, sort_keys=False)
    with open(stem + ".md", "w") as handle:
        handle.write(
            "Benchmark %s, %s, %s (%s CPUs, %s GiB), Python %s, numpy %s\n\n"
            % (
                mode,
                doc["date"],
                machine.get("model_name", "?"),
                machine.get("cpus_available"),
                machine.get("memory_gib"),
                machine["python"],
                machine["numpy"],
            )
        )
        handle.write(
            "Command: `%s`; load average before measuring: %s; %s\n\n"
            % (
                doc["command"],
                ", ".join("%.2f" % x for x in machine["load_average_before_measuring"]),
                load_text(load_summary),
            )
        )
        handle.write(
            "Wall time = median of %d runs (s); * = run at a smaller B and scaled linearly to B. "
            "x ours = time / ours (n_jobs=auto); x ours CPU = the same with CPU times (all threads).\n\n"
            % settings["repeats"]
        )
        handle.write(render_markdown(header, rows) + "\n\n```\n" + "\n".join(report) + "\n```\n")
    written = [stem + ".json", stem + ".md"]
    if not args.no_plot:
        try:
            if plot(
                cases, selected, stem + ".png", "leaderboard-ci benchmark, %s, %s" % (mode, doc["date"][:10]), mode
            ):
                written.append(stem + ".png")
        except ImportError as exc:
            print("no plot: %s" % exc)
    print("wrote " + ", ".join(os.path.relpath(p, ROOT) for p in written))
    failed = [c for c in cases if c["status"] == "error"]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
