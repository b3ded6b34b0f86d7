"""Whole-process timing shared by the peer scripts: one child per command, its own CPU and peak RSS.

A row is one command run to completion as a child of this process, its output
sent to files (no pipe to fill), and reaped with ``os.wait4`` so that the CPU
time (user + system, all threads) and peak RSS are that child's alone.  The
1-minute load average is read before and after: quote it beside the figures.
"""

import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAM = os.path.abspath(os.path.join(HERE, os.pardir, "scoring_program"))


def ours_env():
    """The environment of a child that must import *this* checkout's ``leaderboard_ci``."""
    env = dict(os.environ)
    env["PYTHONPATH"] = PROGRAM + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def ours_command(module, *args):
    """``python -c 'from <module> import main; main()' args``: a console entry of this checkout."""
    code = "import sys; from %s import main; sys.exit(main())" % module
    return [sys.executable, "-c", code] + list(args)


def run_process(label, command, env=None, cwd=None):
    """Run ``command`` once; a dict with wall/CPU seconds, peak RSS (MB), loads and the output's tail."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        load_before = os.getloadavg()[0]
        start = time.perf_counter()
        child = subprocess.Popen(command, stdout=out, stderr=err, env=env, cwd=cwd)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
        child.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout = out.read().decode("utf-8", "replace")
        stderr = err.read().decode("utf-8", "replace")
    row = {
        "label": label,
        "command": " ".join(command),
        "wall": round(wall, 3),
        "cpu": round(usage.ru_utime + usage.ru_stime, 3),
        "peak_rss_mb": round(usage.ru_maxrss / 1024.0, 1),
        "load_before": round(load_before, 2),
        "load_after": round(os.getloadavg()[0], 2),
        "returncode": child.returncode,
        "stdout_tail": stdout[-800:],
    }
    if child.returncode:
        row["stderr_tail"] = stderr[-2000:]
    return row


def format_row(row, reference=None):
    """One line: label, wall, CPU, RSS, load, and the ratio to ``reference`` (a row) if given."""
    text = "%-58s wall %8.2f s  CPU %8.2f s  peak RSS %7.1f MB  load %.1f -> %.1f" % (
        row["label"],
        row["wall"],
        row["cpu"],
        row["peak_rss_mb"],
        row["load_before"],
        row["load_after"],
    )
    if reference is not None:
        text += "  ratio %.2fx" % (row["wall"] / reference["wall"])
    if row["returncode"]:
        text += "  FAILED (exit %d): %s" % (row["returncode"], row.get("stderr_tail", "")[-300:])
    return text


def append_jsonl(path, rows, **context):
    """Append ``rows`` (with ``context`` merged in) as JSON lines to ``path``."""
    with open(path, "a", encoding="utf-8") as handle:
        for row in rows:
            record = dict(context)
            record.update(row)
            handle.write(json.dumps(record, sort_keys=True) + "\n")
