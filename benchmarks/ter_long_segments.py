"""TER on long segments: the scoring program (this checkout, optionally an older one) against sacrebleu's CLI.

Three workloads, written to a temporary folder as Codabench lays out a run
(``input/ref`` with ``references.txt`` and a ``config.yaml``: ``task:
generation``, ``metric: ter``, B = 1,000; ``input/res/hypotheses.txt``):

* **long**: 800 segments of 1,000 words (a Zipf-like vocabulary of 5,000
  words); each hypothesis is its reference with 10% of the words substituted
  and 30 blocks of 1-8 words moved up to 40 positions: tercom's shift search
  finds work in every segment.
* **hostile-1**: one segment whose reference and hypothesis are 1,000 words
  drawn at random from the same 50 words (every word matches dozens of
  reference positions: the search evaluates its 1,000 candidate shifts).
* **hostile-800**: the long workload's references, each hypothesis its own
  reference's words shuffled (a bag of the right words in a random order).
* **hostile-short**: 800 segments of 32 words drawn from 3 words, each
  hypothesis its reference shuffled: the costliest search per row (the
  word-by-word path of sentence-length segments), stopped by the CPU budget
  (``budget.MAX_SECONDS``, the generation setting ``max_seconds``) with one
  sentence.
* **worst-allowed**: the generation example's test set and configuration
  (``examples/generation/reference_data``: BLEU, chrF++, TER and WER, two
  references, 800 segments), each hypothesis 1,000 words (the longest TER
  takes): its first reference's words repeated and shuffled.  Every metric's
  n-gram counts and TER's search share the budget; the file is refused within it.

Every row is one whole process started here (``whole_process.run_process``:
wall, CPU of the child, peak RSS, load before/after).  sacrebleu's CLI
(``sacrebleu references.txt -i hypotheses.txt -m ter``) and an older scoring
program (``--base DIR``, a ``scoring_program`` folder, e.g. from ``git
archive``) take hours on the full long workload, so they run on its first
``--peer-segments`` segments, as does this checkout (row "prefix") for the
ratio.  Run (quote the load)::

    nice -n 15 python3 benchmarks/ter_long_segments.py [--base /tmp/main/scoring_program] [--peer-segments 20]
"""

import argparse
import json
import os
import random
import shutil
import sys
import tempfile

from whole_process import PROGRAM, append_jsonl, format_row, run_process

CONFIG = "task: generation\nmetric: ter\nfiles:\n  gold: references.txt\n  predictions: hypotheses.txt\n"
CONFIG += "bootstrap:\n  n_resamples: 1000\n  seed: 1\n"


def _zipf_words(rng, n, vocabulary):
    weights = [1.0 / (rank + 1) for rank in range(vocabulary)]
    return ["w%d" % k for k in rng.choices(range(vocabulary), weights=weights, k=n)]


def _damaged(rng, ref, vocabulary):
    hyp = [("s%d" % rng.randrange(vocabulary)) if rng.random() < 0.1 else w for w in ref]
    for _ in range(30):
        length = rng.randint(1, 8)
        start = rng.randrange(len(hyp) - length)
        block = hyp[start : start + length]
        del hyp[start : start + length]
        target = min(max(0, start + rng.randint(-40, 40)), len(hyp))
        hyp[target:target] = block
    return hyp


def workloads(segments, words, seed=1):
    """``{name: (references, hypotheses)}``, lines of words."""
    rng = random.Random(seed)
    refs = [_zipf_words(rng, words, 5000) for _ in range(segments)]
    long = [_damaged(rng, ref, 5000) for ref in refs]
    shuffled = [rng.sample(ref, len(ref)) for ref in refs]
    small = ["v%d" % k for k in range(50)]
    one_ref = [[rng.choice(small) for _ in range(words)]]
    one_hyp = [[rng.choice(small) for _ in range(words)]]
    tiny = ["t%d" % k for k in range(3)]
    short_refs = [[rng.choice(tiny) for _ in range(32)] for _ in range(segments)]
    short_hyps = [rng.sample(ref, len(ref)) for ref in short_refs]
    return {
        "long": (refs, long),
        "hostile-1": (one_ref, one_hyp),
        "hostile-800": (refs, shuffled),
        "hostile-short": (short_refs, short_hyps),
    }


EXAMPLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples", "generation", "reference_data")


def example_hypotheses(words=1000, seed=1):
    """The worst-allowed workload's hypotheses: per segment of the example, ``words`` words of its first
    reference, repeated and shuffled (tests/test_hostile_limits.py scores the same file in both images)."""
    rng = random.Random(seed)
    out = []
    with open(os.path.join(EXAMPLE, "references.jsonl"), encoding="utf-8") as lines:
        for line in lines:
            ref = json.loads(line)["references"][0].split() or ["x"]
            out.append([rng.choice(ref) for _ in range(words)])
    return out


def _write_example_run(folder, hyps):
    shutil.copytree(EXAMPLE, os.path.join(folder, "input", "ref"))
    os.makedirs(os.path.join(folder, "input", "res"))
    with open(os.path.join(folder, "input", "res", "hypotheses.txt"), "w") as out:
        out.write("".join(" ".join(line) + "\n" for line in hyps))
    return folder


def _write_run(folder, refs, hyps):
    os.makedirs(os.path.join(folder, "input", "ref"))
    os.makedirs(os.path.join(folder, "input", "res"))
    with open(os.path.join(folder, "input", "ref", "references.txt"), "w") as out:
        out.write("".join(" ".join(line) + "\n" for line in refs))
    with open(os.path.join(folder, "input", "ref", "config.yaml"), "w") as out:
        out.write(CONFIG)
    with open(os.path.join(folder, "input", "res", "hypotheses.txt"), "w") as out:
        out.write("".join(" ".join(line) + "\n" for line in hyps))
    return folder


def _program(label, program, folder, python=None):
    env = dict(os.environ, PYTHONPATH=program)
    output = os.path.join(folder, "output-" + label.split()[0])
    command = [python or sys.executable, os.path.join(program, "score.py"), os.path.join(folder, "input"), output]
    return run_process(label, command, env=env)


def _sacrebleu(label, folder):
    ref = os.path.join(folder, "input", "ref", "references.txt")
    hyp = os.path.join(folder, "input", "res", "hypotheses.txt")
    return run_process(label, [shutil.which("sacrebleu"), ref, "-i", hyp, "-m", "ter", "-b"])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", help="an older scoring_program folder to time beside this one")
    parser.add_argument("--peer-segments", type=int, default=20, help="segments of the long workload for peers")
    parser.add_argument("--segments", type=int, default=800)
    parser.add_argument("--words", type=int, default=1000)
    parser.add_argument("--only", default="long,hostile-1,hostile-800,hostile-short,worst-allowed")
    parser.add_argument("--python", help="also run this checkout's program with this interpreter (an image's)")
    parser.add_argument("--results", default=os.path.join(os.path.dirname(__file__), "results", "ter_long.jsonl"))
    args = parser.parse_args(argv)
    data = workloads(args.segments, args.words)
    root = tempfile.mkdtemp(prefix="ter-long-")
    for name in args.only.split(","):
        if name == "worst-allowed":
            refs = hyps = example_hypotheses(args.words)
            runs = [(name, _write_example_run(os.path.join(root, name), hyps))]
        else:
            refs, hyps = data[name]
            runs = [(name, _write_run(os.path.join(root, name), refs, hyps))]
        if name == "long":
            k = args.peer_segments
            runs.append(("long-prefix-%d" % k, _write_run(os.path.join(root, "prefix"), refs[:k], hyps[:k])))
        for label, folder in runs:
            rows = [_program("ours " + label, PROGRAM, folder)]
            if args.python:
                rows.append(
                    _program("ours(%s) %s" % (os.path.basename(args.python), label), PROGRAM, folder, args.python)
                )
            if label not in ("long", "hostile-800", "hostile-short", "worst-allowed"):
                rows.append(_sacrebleu("sacrebleu -m ter " + label, folder))
                if args.base:
                    rows.append(_program("base " + label, args.base, folder))
            for row in rows:
                print(format_row(row, rows[0]), flush=True)
                if row["returncode"]:
                    print("   stderr:", row.get("stderr_tail", "")[-400:].strip(), flush=True)
                else:
                    print("   stdout:", row["stdout_tail"][-200:].strip().replace("\n", " | "), flush=True)
            append_jsonl(args.results, rows, workload=label, segments=len(refs), words=args.words)
    shutil.rmtree(root)


if __name__ == "__main__":
    main()
