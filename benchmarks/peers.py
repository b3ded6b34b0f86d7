"""Every peer ratio the documentation quotes, the command that reproduces it, and a way to rerun it.

    python3 benchmarks/peers.py                  # the list: claim, page, command, how the peer is run
    python3 benchmarks/peers.py generation       # rerun one (or several) by name, under nice -n 15 (--nice N)
    python3 benchmarks/peers.py --all            # every one, one after another (hours: see "minutes")
    python3 benchmarks/run.py --peers [NAME...]  # the same, from the suite's command

Each command is run as it is listed, from the repository's root, one after
another (never two at once: the figures are timings), with the 1-minute load
average printed before and after.  The scripts print their own workload, load
average, wall and CPU time and the ratio.  ``benchmarks/README.md`` (*Peer
ratios*) holds the same inventory as a table, with what each script measures.
"""

import argparse
import os
import subprocess
import sys
import time
from collections import namedtuple

from whole_process import format_row, ours_env, run_process

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, os.pardir))

Claim = namedtuple("Claim", "name page claim peer how command minutes")

PY = "python3"

CLAIMS = [
    Claim(
        "generation",
        "docs/tasks/generation.md (Coverage and speed)",
        "end of phase against sacrebleu --paired-bs, B = 1,000 and 10,000",
        "sacrebleu 2.6 (its command line)",
        "whole processes: our end-of-phase command (with and without figures) and sacrebleu's CLI; "
        "start-up (--version) apart",
        [PY, "benchmarks/task_generation.py", "--peer-jobs", "2", "--out", "benchmarks/results/peers.jsonl"],
        3,
    ),
    Claim(
        "per_submission",
        "docs/performance.md (One submission), README.md",
        "macro-F1/accuracy/MAE/Pearson, CPU: scipy.stats.bootstrap 1.2-3.0x, scikit-learn loop 5.0-387x, "
        "CompStats 3.1-399x, BootCI 72x (2026-11-28, load 5.4-11.8)",
        "SciPy, scikit-learn, CompStats 0.1.15, BootCI 1.0.1 (libraries, no command line)",
        "one fresh process per case (the library's Python API), timed after its imports, start-up printed "
        "apart; wall and CPU ratios, load per case; slow peers on fewer resamples, scaled (*)",
        [PY, "benchmarks/run.py", "--ratios", "--only", "per_submission"],
        10,
    ),
    Claim(
        "per_submission_full",
        "docs/performance.md (One submission: the quiet full suite)",
        "quiet machine, wall: scipy.stats.bootstrap 2.4-9.7x, scikit-learn loop 5-455x, CompStats 3-460x, BootCI 136x",
        "SciPy, scikit-learn, CompStats 0.1.15, BootCI 1.0.1 (libraries, no command line)",
        "as per_submission, every size up to n = 10^6 and ours with one thread too",
        [PY, "benchmarks/run.py", "--only", "per_submission"],
        40,
    ),
    Claim(
        "end_of_phase",
        "docs/performance.md (End of phase)",
        "CPU: CompStats 802-2,748x, scikit-learn loop 458-1,319x (m = 10-100), 1,438x at the paper's size "
        "(2026-11-28, load 12-18)",
        "CompStats 0.1.15 + statsmodels, scikit-learn loop (libraries)",
        "one fresh process per case (the library's Python API), timed after its imports, start-up printed "
        "apart; wall and CPU ratios, load per case; peers on 10+ resamples, scaled (*)",
        [PY, "benchmarks/run.py", "--ratios", "--only", "end_of_phase"],
        10,
    ),
    Claim(
        "end_of_phase_full",
        "docs/performance.md (End of phase: the quiet full suite)",
        "quiet machine, wall: CompStats 966-6,500x, scikit-learn loop 425-2,594x, 2,016x at the paper's size",
        "CompStats 0.1.15 + statsmodels, scikit-learn loop (libraries)",
        "as end_of_phase, m up to 1,000 for ours, one thread and Dask too",
        [PY, "benchmarks/run.py", "--only", "end_of_phase"],
        40,
    ),
    Claim(
        "scores",
        "docs/performance.md (Scored predictions, ROC-AUC; Task types on a quiet machine)",
        "ROC-AUC: scipy.stats.bootstrap 9.4-14x, scikit-learn loop 21-53x, CompStats 18-49x, "
        "confidenceinterval 20-60x; end of phase 284x (scikit-learn loop)",
        "SciPy, scikit-learn, CompStats, confidenceinterval 1.0.5 (libraries)",
        "one child process per case, timed inside it; loop peers at B/10 and scaled",
        [PY, "benchmarks/task_scores.py"],
        60,
    ),
    Claim(
        "multilabel",
        "docs/performance.md (Multi-label)",
        "scikit-learn loop, CPU: 79x (macro-F1), 732x (12 metrics) (2026-11-28, load 16-19)",
        "scikit-learn f1_score etc. with sample_weight (library, no command line)",
        "whole processes: ours score.py as the worker runs it (B = 1 shown apart); the peer's Python API in a "
        "fresh process, its imports timed apart, the loop on 100 replicates scaled to B",
        [PY, "benchmarks/task_multilabel.py"],
        5,
    ),
    Claim(
        "ranking",
        "docs/performance.md (Ranking)",
        "ranx per-query + loop 5.9x, ranx evaluate per resample 25,600x (CPU)",
        "ranx 0.3.21 (library, no command line)",
        "in one process after imports; the per-resample loop on 10 resamples, scaled",
        [PY, "benchmarks/task_ranking.py"],
        10,
    ),
    Claim(
        "sequence",
        "docs/performance.md (Sequence labelling and extractive QA)",
        "seqeval loop 3,526x in CPU (one submission), 14,167x (50 systems, the loop x 50, estimated)",
        "seqeval 1.2.2 f1_score (library, no command line)",
        "in one process after parsing; the loop on 20 replicates, scaled",
        [PY, "benchmarks/task_sequence.py"],
        10,
    ),
    Claim(
        "qa",
        "docs/performance.md (Sequence labelling and extractive QA)",
        "official SQuAD v1.1 evaluate loop 15,760x in CPU, 70,975x (50 systems, estimated)",
        "the SQuAD v1.1 script's functions (copied into the script; its CLI reads one JSON pair)",
        "in one process after normalization; the loop on 20 replicates, scaled",
        [PY, "benchmarks/task_qa.py"],
        10,
    ),
    Claim(
        "detection",
        "docs/tasks/detection.md",
        "pycocotools 6,740x, faster-coco-eval 1,081x (B = 1,000; 2026-11-28 08:19, quiet, the peers' replicates "
        "alone; the whole-process command below not yet run)",
        "pycocotools 2.0.11, faster-coco-eval 1.8.0 (COCO/COCOeval API, no command line)",
        "whole processes: ours score.py as the worker runs it (B = 1 apart); each peer's API in a fresh process "
        "(imports timed apart, the full sample, up to 3 resampled data sets or 100 s of them), replicates scaled to B",
        [PY, "benchmarks/task_detection.py", "--b", "1000", "--peer-b", "3", "--peer-seconds", "100"],
        10,
    ),
    Claim(
        "forecasting",
        "docs/tasks/forecasting.md",
        "utilsforecast loop about 300x (294x M5, 295x M4)",
        "utilsforecast 0.2.17 losses (library)",
        "ours: score.py whole process; peer: 2 rebuilt resampled data sets, scaled",
        [PY, "benchmarks/task_forecasting.py"],
        40,
    ),
    Claim(
        "preference",
        "docs/tasks/preference.md",
        "FastChat's per-round bootstrap 375x and 1,130x (cells), 110x and 257x (the task's path), two runs",
        "FastChat's get_bootstrap_result/compute_mle_elo, transcribed (fschat not installed)",
        "in one process; 3 rounds timed and scaled",
        [PY, "benchmarks/task_preference.py"],
        10,
    ),
    Claim(
        "icm_soft",
        "docs/tasks/soft_labels.md",
        "PyEvALL ICMSoft loop 2.5 x 10^4 (one submission), 1.2 x 10^6 (50 systems)",
        "PyEvALL 0.2.11 (its own site under ~/.cache/leaderboard-ci/pyevall-site)",
        "in one process; 3 replicates at n = 500 and 1,000, scaled in n and B",
        [PY, "benchmarks/task_icm.py"],
        20,
    ),
    Claim(
        "icm_tasks",
        "docs/tasks/classification.md",
        "a PyEvALL ICMNorm loop about 2 x 10^6 times ours",
        "PyEvALL 0.2.11",
        "in one process; one evaluation at n = 1,000, scaled by B and (n / 1,000)^2",
        [PY, "benchmarks/task_icm_tasks.py"],
        5,
    ),
]


STARTUP = {
    "per_submission": ("leaderboard_ci.scoring.evaluation", "scipy.stats", "sklearn.metrics"),
    "per_submission_full": ("leaderboard_ci.scoring.evaluation", "scipy.stats", "sklearn.metrics"),
    "end_of_phase": ("leaderboard_ci.phase.analysis", "sklearn.metrics", "statsmodels.stats.multitest"),
    "end_of_phase_full": ("leaderboard_ci.phase.analysis", "sklearn.metrics", "statsmodels.stats.multitest"),
    "scores": ("leaderboard_ci.scoring.evaluation", "scipy.stats", "sklearn.metrics", "confidenceinterval"),
    "multilabel": ("leaderboard_ci.scoring.evaluation", "sklearn.metrics"),
    "ranking": ("leaderboard_ci.scoring.evaluation", "ranx"),
    "sequence": ("leaderboard_ci.scoring.evaluation", "seqeval.metrics"),
    "qa": ("leaderboard_ci.scoring.evaluation",),
    "detection": ("leaderboard_ci.scoring.codabench", "pycocotools.cocoeval", "faster_coco_eval"),
    "forecasting": ("leaderboard_ci.scoring.codabench", "utilsforecast.losses"),
    "preference": ("leaderboard_ci.scoring.evaluation", "pandas", "sklearn.linear_model"),
    "icm_soft": ("leaderboard_ci.scoring.evaluation",),
    "icm_tasks": ("leaderboard_ci.scoring.evaluation",),
}  # generation times its own start-up (both commands' --version)


def startup_rows(name):
    """Each side's start-up as a whole process: ``python -c 'import MODULE'``, this checkout's package."""
    rows = []
    for module in STARTUP.get(name, ()):
        command = [sys.executable, "-c", "import " + module]
        rows.append(run_process("start-up: import %s" % module, command, ours_env()))
    return rows


def print_list(claims):
    for claim in claims:
        print("%s  (~%d min)" % (claim.name, claim.minutes))
        print("  page:    %s" % claim.page)
        print("  claim:   %s" % claim.claim)
        print("  peer:    %s" % claim.peer)
        print("  how:     %s" % claim.how)
        print("  command: nice -n 15 %s" % " ".join(claim.command))
        if claim.name in STARTUP:
            print("  start-up: import %s (each a whole process, timed first)" % ", ".join(STARTUP[claim.name]))


def run_claims(claims, niceness=15):
    """Run each claim's command under ``nice -n NICENESS`` from the root, one after another; the worst exit code."""
    worst = 0
    for claim in claims:
        print("== %s: %s (load average %s)" % (claim.name, " ".join(claim.command), _load()), flush=True)
        for row in startup_rows(claim.name):
            print(format_row(row), flush=True)
        start = time.perf_counter()
        code = subprocess.call(["nice", "-n", str(niceness)] + claim.command, cwd=ROOT)
        print(
            "== %s: exit %d after %.0f s (load average %s)" % (claim.name, code, time.perf_counter() - start, _load())
        )
        worst = max(worst, code)
    return worst


def _load():
    return " ".join("%.2f" % x for x in os.getloadavg())


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("names", nargs="*", help="claims to rerun (default: list them)")
    parser.add_argument("--all", action="store_true", help="rerun every claim, one after another")
    parser.add_argument("--nice", type=int, default=15, help="niceness of the reruns (default %(default)s)")
    args = parser.parse_args(argv)
    by_name = {claim.name: claim for claim in CLAIMS}
    unknown = [name for name in args.names if name not in by_name]
    if unknown:
        parser.error("unknown claim %s; known: %s" % (", ".join(unknown), ", ".join(by_name)))
    if args.all:
        return run_claims(CLAIMS, args.nice)
    if args.names:
        return run_claims([by_name[name] for name in args.names], args.nice)
    print_list(CLAIMS)
    return 0


if __name__ == "__main__":
    sys.exit(main())
