"""One benchmark case in its own process: ``python child.py SPEC.json``.

The parent (``run.py``) starts one child per (workload, n, B, implementation)
with the implementation's interpreter, and reads this process's peak RSS from
``os.wait4``.  The child:

1. for our implementations, calls ``leaderboard_ci.core.replicates.keep_freed_memory()``
   first, as ``scoring_program/score.py`` and the end-of-phase command do at
   start (glibc keeps freed block buffers instead of trimming and
   re-faulting them);
2. loads the data (not timed) and builds the implementation (imports: timed
   separately as ``import_seconds``; for the end of phase this includes
   turning the data into the GoldStandard and coded prediction arrays);
3. for scalable peers, probes the cost per resample with a doubling number of
   resamples (until a probe takes >= ``probe_seconds``) and, if the full B is
   predicted to take more than ``max_seconds`` (or the implementation always
   runs scaled), picks a smaller ``B_run`` so that a run takes about
   ``scaled_seconds``;
4. times ``repeats`` runs at ``B_run`` (``time.perf_counter``) and writes the
   result JSON to ``spec["out"]``.
"""

from __future__ import annotations

import json
import math
import os
import platform
import sys
import time

T_PROCESS = time.perf_counter()
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def _rss_mb(field="VmRSS"):
    try:
        with open("/proc/self/status") as handle:
            for line in handle:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return None


def _machine_busy_seconds():
    """CPU seconds all processes have used since boot (user+nice+system+irq+softirq+steal)."""
    try:
        with open("/proc/stat") as handle:
            fields = handle.readline().split()[1:]
        user, nice, system, idle, iowait, irq, softirq, steal = (int(x) for x in fields[:8])
        return (user + nice + system + irq + softirq + steal) / float(os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError):
        return None


def _nice(b):
    """Round down to two significant digits, or to a multiple of 5 (for readable scaled B)."""
    if b < 100:
        return max(5, int(b) // 5 * 5) if b >= 5 else int(b)
    digits = 10 ** (int(math.log10(b)) - 1)
    return int(b // digits * digits)


def _versions(requires):
    import numpy

    out = {"python": platform.python_version(), "numpy": numpy.__version__}
    for mod in requires:
        try:
            m = sys.modules.get(mod) or __import__(mod)
            out[mod] = getattr(m, "__version__", "installed")
        except Exception:  # noqa: BLE001
            out[mod] = None
    if "CompStats" in requires or "BootCI" in requires:
        for mod in ("sklearn", "scipy"):
            if mod in sys.modules:
                out[mod] = sys.modules[mod].__version__
    return out


def main(spec_path):
    with open(spec_path) as handle:
        spec = json.load(handle)
    sys.path.insert(0, HERE)
    import impls  # noqa: E402  (numpy only)

    impl = impls.IMPLEMENTATIONS[spec["impl"]]
    if impl.path:
        sys.path.insert(0, os.path.join(ROOT, impl.path))
    import datasets  # noqa: E402

    out = {"impl": impl.name, "pid": os.getpid(), "startup_seconds": time.perf_counter() - T_PROCESS}
    t0 = time.perf_counter()
    if impl.env == "project":
        # As the real entry points do (scoring_program/score.py, the end-of-phase command): once, at start.
        from leaderboard_ci.core.parallel import keep_freed_memory

        out["keep_freed_memory"] = keep_freed_memory()
    for mod in impl.requires:
        try:
            __import__(mod)
        except ImportError as exc:
            out.update(status="skipped", reason="%s is not importable here (%s)" % (mod, exc))
            return _write(spec, out)

    data = datasets.load(spec["data_path"])
    n = int(spec["n"])
    B = int(spec["n_resamples"])
    ctx = {"data": data, "workload": spec["workload"], "n": n, "m": int(spec.get("m") or 1)}
    run = impl.build(ctx)
    out["import_seconds"] = time.perf_counter() - t0
    if impl.env == "project":
        import leaderboard_ci

        out["leaderboard_ci_file"] = leaderboard_ci.__file__
    out["rss_before_mb"] = _rss_mb()

    # --- how many resamples to run -------------------------------------------------
    B_run, probe = B, None
    if impl.scalable:
        budget = float(spec["max_seconds"])
        b, spent = 2, 0.0
        while True:
            b = min(b, B)
            t = time.perf_counter()
            run(b)
            dt = time.perf_counter() - t
            spent += dt
            if dt >= float(spec["probe_seconds"]) or b >= B:
                break
            b *= 4 if dt < float(spec["probe_seconds"]) / 8 else 2
        per = dt / b
        predicted = per * B
        probe = {
            "n_resamples": b,
            "seconds": dt,
            "per_resample": per,
            "predicted_full_seconds": predicted,
            "probe_total_seconds": spent,
        }
        limit = B
        if impl.index_matrix:  # keep the (B, n) int64 index matrix within max_index_gb
            limit = min(limit, max(2, int(float(spec["max_index_gb"]) * 1e9 / (8.0 * n))))
        always = bool(spec.get("always_scale"))
        if always or predicted > budget or limit < B:
            target = float(spec["scaled_seconds"])
            B_run = max(int(spec["min_resamples"]), min(int(target / per), limit))
            if always:
                B_run = min(B_run, max(int(spec["min_resamples"]), B // 10))
            B_run = _nice(min(B_run, B))
    else:  # one untimed warm-up run at a small B (imports, thread pool, first-touch memory)
        t = time.perf_counter()
        run(min(B, 64))
        probe = {"warmup_n_resamples": min(B, 64), "warmup_seconds": time.perf_counter() - t}
    out["probe"] = probe
    out["n_resamples_run"] = B_run
    out["scaled"] = B_run != B
    out["scale"] = B / float(B_run)

    # --- timed runs ---------------------------------------------------------------
    times, cpu_times, loads, others, stages = [], [], [], [], []
    result = None
    for _ in range(int(spec["repeats"])):
        m = _machine_busy_seconds()
        c = time.process_time()  # CPU time of all this process's threads
        t = time.perf_counter()
        result = run(B_run)
        wall = time.perf_counter() - t
        cpu = time.process_time() - c
        m2 = _machine_busy_seconds()
        times.append(wall)
        cpu_times.append(cpu)
        if isinstance(result, dict) and result.get("stages"):
            stages.append(result.pop("stages"))
        loads.append(os.getloadavg()[0])
        # other processes' CPU use during this run, in cores (1 jiffy = 10 ms resolution)
        others.append(max(0.0, (m2 - m - cpu) / wall) if m is not None and wall > 0.05 else None)
    if B_run != B and probe and probe.get("n_resamples") and probe["n_resamples"] != B_run:
        # Cross-check of the linear scaling: t(B) = a + k*B through the probe and the timed median
        # (a > 0 is a fixed cost that proportional scaling multiplies by B / B_run).
        b0, t0_ = float(probe["n_resamples"]), float(probe["seconds"])
        t1 = sorted(times)[len(times) // 2]
        k = (t1 - t0_) / (B_run - b0)
        out["affine"] = {"fixed_seconds": t1 - k * B_run, "per_resample": k, "full_seconds": t1 + k * (B - B_run)}
    out.update(
        status="ok",
        times=times,
        cpu_times=cpu_times,
        load_1min=loads,
        other_cores=others,
        result=result,
        stages=stages or None,
        rss_after_mb=_rss_mb(),
        peak_rss_self_mb=_rss_mb("VmHWM"),
        versions=_versions(impl.requires),
    )
    return _write(spec, out)


def _write(spec, out):
    tmp = spec["out"] + ".tmp"
    with open(tmp, "w") as handle:
        json.dump(out, handle)
    os.replace(tmp, spec["out"])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
