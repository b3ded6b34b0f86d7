"""The replicates drawn ahead (core/replicates.DrawAhead) give the same bytes as the plain path.

The scoring program starts drawing the first replicates' counts in a thread once the gold's ``n`` is
known (ICM-Soft's set-up then takes about a second of one core); :func:`compute_replicates` scores the
rows drawn so far first, the rest as usual.  Checked here: any number of rows drawn ahead (none, some,
all), seeds, ``n``, threads and block sizes give the plain path's bytes; counts above a byte; an
accumulator that raises and a draw that raises surface their error and leave no thread behind; the
program end to end (n_jobs 2 == n_jobs 1, scores.json bytes) and a participant error while drawing.
"""

import io
import json
import os
import threading

import numpy as np
import pytest

from leaderboard_ci.core import replicates
from leaderboard_ci.core.replicates import DrawAhead, compute_replicates, draw_ahead
from leaderboard_ci.core.resampling import Resampling, counts_from_indices, replicate_indices

THREAD = "leaderboard-ci draws ahead"


class _Weighted(object):
    """A counts-only accumulator: ``counts @ values`` of integer values (exact in any block layout)."""

    needs_counts = True
    counts_only = True
    dtype = np.float64

    def __init__(self, n, seed=0, fail_at=None):
        self.values = np.random.RandomState(seed).randint(0, 50, size=(n, 3)).astype(np.float64)
        self.n_features = 3
        self.fail_at = fail_at
        self.blocks = 0

    def full(self):
        return self.values.sum(axis=0)

    def block(self, indices, counts):
        self.blocks += 1
        if self.fail_at is not None and self.blocks >= self.fail_at:
            raise ValueError("a participant's value is not a number")
        return np.dot(counts(), self.values)


def _drawn(ahead):
    """``ahead`` once its thread has drawn every row it may (deterministic for the tests)."""
    ahead._thread.join()
    return ahead


def _plain(n, seed, b, n_jobs=1, block_rows=None):
    return compute_replicates([_Weighted(n)], n, seed, b, n_jobs=n_jobs, block_rows=block_rows)[0]


def _no_thread_left():
    return not [t for t in threading.enumerate() if t.name == THREAD]


@pytest.mark.parametrize(
    "n, seed, b, n_jobs, block_rows, ahead_rows",
    [
        (37, 0, 90, 2, 16, None),  # every replicate drawn ahead
        (37, 12345, 90, 2, 16, 41),  # some: the rest drawn as usual
        (200, 7, 64, 3, 5, 9),
        (1000, 2**100, 30, 2, None, 7),
        (5, 3, 50, 4, 128, 50),
    ],
)
def test_rows_drawn_ahead_give_the_plain_bytes(monkeypatch, n, seed, b, n_jobs, block_rows, ahead_rows):
    expected = _plain(n, seed, b, block_rows=block_rows)
    if ahead_rows is not None:
        monkeypatch.setattr(replicates, "AHEAD_BYTES", ahead_rows * n)
    ahead = _drawn(DrawAhead(n, seed, b))
    assert ahead._done == min(b, ahead_rows or b)
    got = compute_replicates([_Weighted(n)], n, seed, b, n_jobs=n_jobs, block_rows=block_rows, ahead=ahead)[0]
    assert got.tobytes() == expected.tobytes()
    assert _no_thread_left()


def test_rows_taken_while_the_thread_draws_give_the_plain_bytes():
    """No join first: whatever the thread has drawn when compute_replicates stops it."""
    n, b = 400, 3000
    expected = _plain(n, 99, b, block_rows=64)
    for _ in range(3):
        got = compute_replicates([_Weighted(n)], n, 99, b, n_jobs=2, block_rows=64, ahead=DrawAhead(n, 99, b))[0]
        assert got.tobytes() == expected.tobytes()
    assert _no_thread_left()


def test_counts_above_a_byte_drawn_ahead_are_kept_whole(monkeypatch):
    """Draws that pick one item 300 times (a stand-in stream: no real replicate gets there): the thread keeps
    those rows whole, and the scores equal the plain path's on the same stream."""
    n = 300

    def skewed(seed, n, start, stop, block_rows=None):
        for r0 in range(start, stop, 4):
            r1 = min(stop, r0 + 4)
            indices = np.zeros((r1 - r0, n), dtype=np.intp)
            indices[:, ::2] = np.arange(r0, r1)[:, None] % n  # item 0 drawn 150 (r > 0) or 300 (r = 0) times
            yield r0, r1, indices

    monkeypatch.setattr(replicates, "iter_index_blocks", skewed)
    ahead = _drawn(DrawAhead(n, 1, 10))
    assert sorted(ahead._wide) == [0]
    got = compute_replicates([_Weighted(n)], n, 1, 10, n_jobs=2, block_rows=3, ahead=ahead)[0]
    assert got.tobytes() == _plain(n, 1, 10, block_rows=3).tobytes()


def test_counts_above_a_byte_are_kept_whole():
    """A count above 255 (a row of ``wide``) is scored whole, not modulo 256 (made here: no real draw gets there)."""
    n, rows = 6, 5
    counts = counts_from_indices(replicate_indices(4, n, 0, rows), n)
    counts[2, 1] += 300
    counts[4, 5] += 256
    small = np.empty((rows, n), dtype=np.uint8)
    np.copyto(small, counts, casting="unsafe")
    wide = {2: counts[2].astype(np.intp), 4: counts[4].astype(np.intp)}
    acc = _Weighted(n)
    out = [np.empty((rows, 3))]
    replicates._ready_span([acc], out, small, wide, 0, 2, None, (0, rows))
    assert out[0].tobytes() == np.dot(counts, acc.values).tobytes()


@pytest.mark.parametrize("change", ["seed", "n", "start", "indices", "clusters", "one_per_block"])
def test_rows_that_do_not_serve_the_call_are_left_and_stopped(change):
    """Another seed, n or start, an accumulator that reads the indices, clusters, one replicate a block:
    the rows are not used (and the thread is stopped), the bytes are the plain path's."""
    n, seed, b = 40, 5, 60
    ahead = _drawn(DrawAhead(n + 1 if change == "n" else n, seed + 1 if change == "seed" else seed, b))
    acc = _Weighted(n)
    if change == "indices":
        acc.counts_only = False
    kwargs = dict(n_jobs=2, block_rows=1 if change == "one_per_block" else 8, ahead=ahead)
    if change == "start":
        kwargs["start"] = 3
    if change == "clusters":
        kwargs["resampling"] = Resampling(n, clusters=np.arange(n) // 2)
    got = compute_replicates([acc], n, seed, b, **kwargs)[0]
    plain = dict(kwargs, ahead=None)
    assert got.tobytes() == compute_replicates([_Weighted(n)], n, seed, b, **plain)[0].tobytes()
    assert _no_thread_left()


def test_an_accumulator_that_raises_surfaces_its_error():
    n = 30
    ahead = _drawn(DrawAhead(n, 1, 100))
    with pytest.raises(ValueError, match="not a number"):
        compute_replicates([_Weighted(n, fail_at=3)], n, 1, 100, n_jobs=2, block_rows=8, ahead=ahead)
    assert _no_thread_left()


def test_a_draw_that_raises_is_raised_again_by_take(monkeypatch):
    def broken(*args, **kwargs):
        raise MemoryError("no room for the draws")
        yield  # pragma: no cover  (a generator, as the real one)

    monkeypatch.setattr(replicates, "iter_index_blocks", broken)
    ahead = DrawAhead(10, 1, 20)
    with pytest.raises(MemoryError, match="no room"):
        compute_replicates([_Weighted(10)], 10, 1, 20, n_jobs=2, block_rows=4, ahead=ahead)
    assert _no_thread_left()


def test_no_thread_for_one_job_nor_clusters():
    assert draw_ahead(100, 1, 10, 1) is None
    assert draw_ahead(100, 1, 10, 2, resampling=Resampling(100, clusters=np.arange(100) // 4)) is None
    assert draw_ahead(replicates.BLOCK_BYTES // 32 + 1, 1, 10, 2) is None  # one replicate a block: rows unused
    ahead = draw_ahead(100, 1, 10, 2)
    assert isinstance(ahead, DrawAhead)
    ahead.stop()
    assert _no_thread_left()


LABELS = ("NO", "A", "B", "C")


def _write_task(folder, n, n_jobs, run_text=None):
    rng = np.random.RandomState(3)
    gold = rng.dirichlet(np.ones(len(LABELS)), size=n).round(3)
    predicted = np.clip(gold + rng.normal(0, 0.2, gold.shape), 0, 1).round(3)

    def records(rows):
        return json.dumps(
            [
                {"test_case": "EXIST2023", "id": "%05d" % i, "value": dict(zip(LABELS, map(float, row)))}
                for i, row in enumerate(rows)
            ]
        )

    for name in ("ref", "res"):
        os.makedirs(os.path.join(folder, name))
    with open(os.path.join(folder, "ref", "gold.json"), "w") as handle:
        handle.write(records(gold))
    with open(os.path.join(folder, "res", "run.json"), "w") as handle:
        handle.write(records(predicted) if run_text is None else run_text)
    with open(os.path.join(folder, "ref", "config.yaml"), "w") as handle:
        handle.write(
            "task: soft_labels\nlabels: %s\nhard_labels: multi\nhard_threshold: 0.25\n"
            'hierarchy: {"A": "YES", "B": "YES", "C": "YES"}\nmetric: icm_soft_norm\nextra_metrics: [icm_soft]\n'
            "files: {gold: gold.json, predictions: run.json}\nbootstrap: {n_resamples: 300, n_jobs: %d}\n"
            % (json.dumps(list(LABELS)), n_jobs)
        )


def _program():
    return os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scoring_program")


def test_the_program_with_rows_drawn_ahead_writes_the_same_scores(tmp_path, monkeypatch):
    """ICM-Soft over a tree end to end: n_jobs 2 with every replicate drawn ahead == n_jobs 1 (no thread)."""
    from leaderboard_ci.scoring import codabench, evaluation

    taken = []
    original = evaluation.draws_ahead

    def joined(config, gold):
        ahead = original(config, gold)
        taken.append(ahead)
        return _drawn(ahead) if ahead is not None else None

    monkeypatch.setattr(codabench, "draws_ahead", joined)
    scored = []
    ready_span = replicates._ready_span

    def counted(accumulators, outputs, rows, wide, start, block_rows, progress, span):
        scored.append(span[1] - span[0])
        return ready_span(accumulators, outputs, rows, wide, start, block_rows, progress, span)

    monkeypatch.setattr(replicates, "_ready_span", counted)
    written = []
    for n_jobs in (2, 1):
        folder = str(tmp_path / str(n_jobs))
        _write_task(folder, 150, n_jobs)
        err = io.StringIO()
        code = codabench.run(folder, os.path.join(folder, "out"), _program(), stdout=io.StringIO(), stderr=err)
        assert code == 0, err.getvalue()
        with open(os.path.join(folder, "out", "scores.json"), "rb") as handle:
            written.append(handle.read())
    assert written[0] == written[1]
    assert isinstance(taken[0], DrawAhead) and taken[0]._done == 300 and taken[1] is None
    assert sum(scored) == 300  # every replicate of the n_jobs 2 run scored from the rows drawn ahead
    assert _no_thread_left()


def test_a_participant_error_while_drawing_exits_1_with_its_sentence(tmp_path):
    from leaderboard_ci.scoring import codabench

    folder = str(tmp_path)
    _write_task(folder, 150, 2, run_text="[{]")
    err = io.StringIO()
    code = codabench.run(folder, os.path.join(folder, "out"), _program(), stdout=io.StringIO(), stderr=err)
    assert code == 1
    message = err.getvalue()
    assert message.count("\n") == 1 and "run.json" in message and "Traceback" not in message
    assert _no_thread_left()


def test_score_py_with_a_bad_submission_while_drawing_exits_1_and_ends(tmp_path):
    """The worker's command in a fresh process: the thread drawing ahead neither hangs nor hides the exit code."""
    import subprocess
    import sys

    folder = str(tmp_path)
    _write_task(folder, 2000, 2, run_text='[{"test_case": "EXIST2023", "id": "00000", "value": {"NO": "x"}}]')
    done = subprocess.run(
        [sys.executable, os.path.join(_program(), "score.py"), folder, os.path.join(folder, "out")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        universal_newlines=True,
        timeout=120,
    )
    assert done.returncode == 1, done.stderr
    assert done.stderr.count("\n") == 1 and "run.json" in done.stderr and "Traceback" not in done.stderr
