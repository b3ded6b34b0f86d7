"""Text generation (``task: generation``): ours against sacrebleu's paired bootstrap, in the same run.

The data: 10 systems x 2,000 segments of a synthetic translation-like corpus
(one reference per segment, 10-30 words; systems are references damaged at
rates from 5% to 50%).  The comparison is every pair of systems (45 pairs).

* **ours, end of phase**: ``analyze()`` of the 10 systems with B = 10,000
  (corpus BLEU from per-segment statistics under the resample counts, every
  system's interval, every pair's difference, p-values and the rest of the
  end-of-phase analysis), the statistics' extraction included.
* **sacrebleu**: its paired bootstrap (``sacrebleu.significance._paired_bs_test``,
  what ``sacrebleu --paired-bs`` runs) at its default B = 1,000 for a few
  pairs, the per-pair time scaled to 45 pairs and to B = 10,000 (x 10); the
  statistics of every system are extracted once, as its ``PairedTest`` does for
  the baseline (the system's own extraction, which sacrebleu repeats per pair,
  is left out: that favours sacrebleu).

The ratio printed is sacrebleu's scaled time over ours.  Run (the machine's
load matters: say so when quoting the figures):

    python3 benchmarks/task_generation.py [--n 2000] [--systems 10] [--b 10000] [--peer-b 1000] [--peer-pairs 3]
"""

import argparse
import os
import random
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, os.pardir, "scoring_program"))

from leaderboard_ci.phase.analysis import analyze  # noqa: E402
from leaderboard_ci.scoring.config import parse_config  # noqa: E402

WORDS = (
    "the a of and to in is was for on that with as by at from it his her their this city river year people "
    "government said new first two more after also many which would about other when than over only into "
    "Paris 1998 U.S. “quoted” — e.g. 3.5 1,000 don't"
).split()


def make_data(n, n_systems, seed=1):
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


def time_ours(refs, systems, b):
    config = parse_config(
        {
            "task": "generation",
            "metric": "bleu",
            "bootstrap": {"n_resamples": b, "seed": 12345},
            "files": {"gold": "references.txt"},
        }
    )
    start = time.perf_counter()
    phase = analyze(refs, systems, config=config)
    elapsed = time.perf_counter() - start
    return elapsed, phase


def time_sacrebleu(refs, systems, peer_b, peer_pairs):
    import sacrebleu
    from sacrebleu.significance import _paired_bs_test

    metric = sacrebleu.BLEU()
    streams = [refs]
    names = sorted(systems)
    start = time.perf_counter()
    info = {}
    for name in names:  # every system's statistics once (sacrebleu's baseline extraction)
        stats = metric._extract_corpus_statistics(systems[name], streams)
        info[name] = (stats, metric._aggregate_and_compute(stats))
    extraction = time.perf_counter() - start
    pairs = [(names[i], names[j]) for i in range(len(names)) for j in range(i + 1, len(names))]
    per_pair = []
    for a, b in pairs[:peer_pairs]:
        start = time.perf_counter()
        _paired_bs_test({"BLEU": info[a]}, b, systems[b], streams, {"BLEU": metric}, n_samples=peer_b, seed=12345)
        per_pair.append(time.perf_counter() - start)
    return extraction, sorted(per_pair)[len(per_pair) // 2], len(pairs)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=2000)
    parser.add_argument("--systems", type=int, default=10)
    parser.add_argument("--b", type=int, default=10000)
    parser.add_argument("--peer-b", type=int, default=1000)
    parser.add_argument("--peer-pairs", type=int, default=3)
    args = parser.parse_args(argv)
    refs, systems = make_data(args.n, args.systems)
    ours, phase = time_ours(refs, systems, args.b)
    extraction, per_pair, n_pairs = time_sacrebleu(refs, systems, args.peer_b, args.peer_pairs)
    scale = args.b / float(args.peer_b)
    theirs = extraction + per_pair * n_pairs * scale
    print("%d systems x %d segments, %d pairs, B = %d" % (args.systems, args.n, n_pairs, args.b))
    print("ours (analyze, end of phase, all pairs, B = %d): %.1f s" % (args.b, ours))
    print(
        "sacrebleu paired bootstrap: extraction %.1f s + %.2f s per pair at B = %d -> x %d pairs x %g = %.1f s"
        % (extraction, per_pair, args.peer_b, n_pairs, scale, theirs)
    )
    print("ratio (sacrebleu scaled / ours): %.1f x" % (theirs / ours))
    table = phase.targets["bleu"].systems
    print("BLEU: " + ", ".join("%s %.2f" % (n, s) for n, s in zip(table["name"], table["score"])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
