"""tests/_forked_runs.py, which the image corpus tests use, gives what a fresh interpreter gives."""

import os
import shutil
import sys

from _forked_runs import ForkedScoring

from leaderboard_ci.tools.local_worker import run_scoring

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROGRAM = os.path.join(ROOT, "scoring_program")
REFERENCE = os.path.join(ROOT, "competition_bundle", "reference_data")
SAMPLE = os.path.join(ROOT, "competition_bundle", "sample_submissions", "knn.zip")


def test_a_forked_run_equals_a_fresh_process(tmp_path):
    program = PROGRAM
    reference = tmp_path / "reference"
    shutil.copytree(REFERENCE, str(reference))
    config = (reference / "config.yaml").read_text().replace("n_resamples: 10000", "n_resamples: 200")
    (reference / "config.yaml").write_text(config)
    reference = str(reference)
    bad = tmp_path / "predictions.csv"
    bad.write_text("id,label\nx,1\n")
    crash = tmp_path / "crash"  # a program whose score.py raises: the interpreter's own traceback and exit 1
    crash.mkdir()
    (crash / "metadata.yaml").write_text("command: python3 $program/score.py $input $output\n")
    (crash / "score.py").write_text("import sys\nprint('to stdout')\nsys.stderr.write('to stderr\\n')\n1 / 0\n")
    quits = tmp_path / "quits"  # sys.exit with a code, after a thread that is joined at exit
    quits.mkdir()
    (quits / "metadata.yaml").write_text("command: python3 $program/score.py $input $output\n")
    (quits / "score.py").write_text(
        "import sys, threading, time\n"
        "threading.Thread(target=lambda: (time.sleep(0.2), print('joined'))).start()\n"
        "sys.exit(3)\n"
    )
    cases = [(program, SAMPLE), (program, str(bad)), (str(crash), str(bad)), (str(quits), str(bad))]
    fresh = [
        run_scoring(str(tmp_path / ("fresh%d" % k)), p, reference, s, python=sys.executable)
        for k, (p, s) in enumerate(cases)
    ]
    with ForkedScoring(sys.executable, preload=program) as scoring:
        forked = scoring.map([(str(tmp_path / ("forked%d" % k)), p, reference, s) for k, (p, s) in enumerate(cases)])
    for one, other in zip(fresh, forked):
        assert (one.returncode, one.stdout, one.scores_json_bytes) == (
            other.returncode,
            other.stdout,
            other.scores_json_bytes,
        )
        assert one.stderr.splitlines()[-1:] == other.stderr.splitlines()[-1:]
    assert [run.returncode for run in forked] == [0, 1, 1, 3]
    assert forked[0].scores_json_bytes and forked[0].stderr == "" == fresh[0].stderr
    assert forked[1].stderr == fresh[1].stderr and "predictions.csv line 2" in forked[1].stderr
    assert "Traceback" in forked[2].stderr and forked[2].stdout == "to stdout\n"
    assert forked[3].stdout == "joined\n"
