"""Text generation: our end of phase against ``sacrebleu --paired-bs``, whole processes, in the same run.

The data: 5 systems x 2,000 segments of a synthetic translation-like corpus
(one reference per segment, 10-30 words; systems are the references damaged at
rates from 5% to 50%), written to a temporary folder as a phase would be: a
reference folder (``references.txt`` and a ``config.yaml`` with ``task:
generation``, ``metric: bleu``, ``bootstrap.n_resamples: B``) and one zip per
submission (``hypotheses.txt``).

Every row is one whole process started here (interpreter start-up, imports,
reading the files, the statistics, the resampling and the output), timed with
``os.wait4``: wall time, CPU time (user + system, all threads) and peak RSS of
that child, with the 1-minute load average before and after it.

* **ours, CLI**: ``leaderboard-ci-end-of-phase --reference REF --submissions
  SUBS --out OUT --no-progress``: every system's interval, all m(m-1)/2 = 10
  pairs with differences, intervals, corrected p-values, ranks, and the report
  (HTML, JSON, CSV, Markdown, LaTeX and figures).
* **ours, no figures**: the same command with the report written by
  ``PhaseResult.write(out, figures=False)`` (the Python API's switch; the
  command line has none): a three-line driver around the same ``main``.
* **sacrebleu CLI**: ``sacrebleu references.txt -i sys0 sys1 ... sys4 -m bleu
  --paired-bs --paired-bs-n B``: the first system is its baseline, so 4
  comparisons (baseline against each other system), each with its p-value,
  and every system's mean and 95% interval.  ``--paired-jobs`` is left at its
  default (1 worker); ``--peer-jobs 2`` adds a row with 2 workers.
* **start-up**: ``leaderboard-ci-end-of-phase --version`` and ``sacrebleu
  --version`` (interpreter + imports of each command).

Ratio = sacrebleu's wall time / ours (above 1: ours is faster).  Run (say the
load when quoting the figures)::

    nice -n 15 python3 benchmarks/task_generation.py [--n 2000] [--systems 5] [--b 1000,10000]
"""

import argparse
import os
import random
import sys
import tempfile
import zipfile

from whole_process import append_jsonl, format_row, ours_command, ours_env, run_process

WORDS = (
    "the a of and to in is was for on that with as by at from it his her their this city river year people "
    "government said new first two more after also many which would about other when than over only into "
    "Paris 1998 U.S. “quoted” — e.g. 3.5 1,000 don't"
).split()

NO_FIGURES = (
    "import sys\n"
    "from leaderboard_ci.phase import cli\n"
    "from leaderboard_ci.phase.analysis.results import PhaseResult\n"
    "write = PhaseResult.write\n"
    "PhaseResult.write = lambda self, out, **options: write(self, out, **dict(options, figures=False))\n"
    "sys.exit(cli.main(sys.argv[1:]))\n"
)


def make_data(n, n_systems, seed=1):
    """References and damaged copies; deterministic in ``seed``."""
    rng = random.Random(seed)
    refs = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(10, 30))) + "." for _ in range(n)]
    systems = {}
    for s in range(n_systems):
        r = random.Random(seed * 1000 + s)
        rate = 0.05 + 0.45 * s / max(1, n_systems - 1)
        outs = []
        for ref in refs:
            words = [w if r.random() >= rate else r.choice(WORDS) for w in ref.split() if r.random() >= rate / 3]
            outs.append(" ".join(words))
        systems["sys%02d" % s] = outs
    return refs, systems


def write_text(path, lines):
    with open(path, "w", encoding="utf-8") as handle:
        handle.write("\n".join(lines) + "\n")


def write_phase(root, refs, systems, b):
    """The phase on disk: ``ref/`` (gold + config), ``subs/*.zip`` and ``plain/`` (sacrebleu's inputs)."""
    ref, subs, plain = (os.path.join(root, name) for name in ("ref", "subs", "plain"))
    for folder in (ref, subs, plain):
        os.makedirs(folder)
    write_text(os.path.join(ref, "references.txt"), refs)
    write_text(os.path.join(plain, "references.txt"), refs)
    with open(os.path.join(ref, "config.yaml"), "w", encoding="utf-8") as handle:
        handle.write(
            "task: generation\nmetric: bleu\nfiles: {gold: references.txt, predictions: hypotheses.txt}\n"
            "bootstrap: {n_resamples: %d, seed: 12345}\n" % b
        )
    for name, outs in sorted(systems.items()):
        write_text(os.path.join(plain, name + ".txt"), outs)
        with zipfile.ZipFile(os.path.join(subs, name + ".zip"), "w") as archive:
            archive.writestr("hypotheses.txt", "\n".join(outs) + "\n")
    return ref, subs, plain


def sacrebleu_command(plain, names, b, jobs=None):
    command = ["sacrebleu", os.path.join(plain, "references.txt"), "-i"]
    command += [os.path.join(plain, name + ".txt") for name in names]
    command += ["-m", "bleu", "--paired-bs", "--paired-bs-n", str(b)]
    return command + (["--paired-jobs", str(jobs)] if jobs else [])


def run_case(root, refs, systems, b, peer_jobs):
    """The rows of one B: ours (CLI, no figures) and sacrebleu, each a whole process."""
    case = os.path.join(root, "B%d" % b)
    ref, subs, plain = write_phase(case, refs, systems, b)
    env = ours_env()
    phase_args = ["--reference", ref, "--submissions", subs, "--no-progress", "--out"]
    rows = [
        run_process("ours, CLI, B = %d" % b, ours_command("leaderboard_ci.phase.cli", *phase_args, case + "/o1"), env),
        run_process(
            "ours, no figures, B = %d" % b, [sys.executable, "-c", NO_FIGURES] + phase_args + [case + "/o2"], env
        ),
        run_process("sacrebleu --paired-bs, B = %d" % b, sacrebleu_command(plain, sorted(systems), b)),
    ]
    if peer_jobs:
        label = "sacrebleu --paired-bs --paired-jobs %d, B = %d" % (peer_jobs, b)
        rows.append(run_process(label, sacrebleu_command(plain, sorted(systems), b, peer_jobs)))
    return rows


def startup_rows():
    return [
        run_process(
            "start-up: leaderboard-ci-end-of-phase --version",
            ours_command("leaderboard_ci.phase.cli", "--version"),
            ours_env(),
        ),
        run_process("start-up: sacrebleu --version", ["sacrebleu", "--version"]),
    ]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=2000, help="segments")
    parser.add_argument("--systems", type=int, default=5)
    parser.add_argument("--b", default="1000,10000", help="comma-separated resample counts")
    parser.add_argument("--peer-jobs", type=int, default=0, help="also run sacrebleu with this many workers")
    parser.add_argument("--out", help="append every row as a JSON line to this file")
    args = parser.parse_args(argv)
    refs, systems = make_data(args.n, args.systems)
    m = len(systems)
    print(
        "%d systems x %d segments, BLEU; ours: all %d pairs + report; sacrebleu: %d comparisons to its baseline"
        % (m, args.n, m * (m - 1) // 2, m - 1)
    )
    print("cores %d, load average before: %s" % (os.cpu_count(), " ".join("%.2f" % x for x in os.getloadavg())))
    rows = startup_rows()
    for row in rows:
        print(format_row(row))
    with tempfile.TemporaryDirectory(prefix="bench-generation-") as root:
        for b in (int(x) for x in args.b.split(",")):
            case = run_case(root, refs, systems, b, args.peer_jobs)
            for row in case:
                print(format_row(row))
            for row in case[2:]:
                for mine in case[:2]:
                    print("  %s / %s: %s" % (row["label"], mine["label"], faster(row, mine)))
            rows += case
    if args.out:
        append_jsonl(args.out, rows, script="task_generation", n=args.n, systems=m)
    return 0 if all(row["returncode"] == 0 for row in rows) else 1


def faster(row, ours):
    ratio = row["wall"] / ours["wall"]
    text = "ours %.2fx faster" % ratio if ratio >= 1 else "ours %.2fx slower" % (1 / ratio)
    return "wall %.2f / %.2f s: %s; CPU %.2f / %.2f s" % (row["wall"], ours["wall"], text, row["cpu"], ours["cpu"])


if __name__ == "__main__":
    sys.exit(main())
