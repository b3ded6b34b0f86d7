"""Hostile forecast files: one sentence naming the file, the line, the series and date, never an actual.

Each case writes a submission for the hand case (four series, horizon 3) and reads it as the scoring
program does; the message must be one line, start with the file's name, say what is expected, and
quote no gold value.  The whole program (``score.py``) is run on a few, for the exit code and stderr.
A 10^6-line file is read in bounded time (the 10^7-line figure is in the benchmark).
"""

import os
import subprocess
import sys
import time

import numpy as np
import pytest
from test_forecasting import hand_files

from leaderboard_ci.scoring.config import parse_config
from leaderboard_ci.scoring.errors import SubmissionError
from leaderboard_ci.scoring.readers import read_gold, read_predictions

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HEADER = "unique_id,ds,yhat,q0.1,q0.9"
GOOD = [
    "a1,7,4,3,5",
    "a1,8,4,3,5",
    "a1,9,4,3,5",
    "a2,7,1,0,2",
    "a2,8,1,0,2",
    "a2,9,1,0,2",
    "b1,7,5,4,6",
    "b1,8,5,4,6",
    "b1,9,5,4,6",
    "b2,7,2,1,3",
    "b2,8,1,0,2",
    "b2,9,2,1,3",
]


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    folder = hand_files(tmp_path_factory.mktemp("hand"))
    cfg = parse_config(
        {
            "task": "forecasting",
            "metric": "mase",
            "extra_metrics": ["wql"],
            "history": "history.csv",
            "quantiles": [0.1, 0.9],
            "files": {"gold": "gold.csv"},
            "bootstrap": {"n_resamples": 20, "n_jobs": 1},
        }
    )
    return folder, cfg, read_gold(folder, cfg)


def message(setup, text, name="forecasts.csv", mode="w"):
    folder, cfg, gold = setup
    path = os.path.join(folder, "sub", name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, mode) as handle:
        handle.write(text)
    with pytest.raises(SubmissionError) as info:
        read_predictions(path, cfg, gold)
    out = info.value.message
    assert "\n" not in out and out.startswith(name), out
    return out


def lines(*rows, header=HEADER):
    return "\n".join([header] + list(rows)) + "\n"


CASES = [
    ("no yhat", lines(*[r.replace(",4,", ",") for r in GOOD], header="unique_id,ds,q0.1,q0.9"), "no column 'yhat'"),
    ("no q0.9", lines(*[r.rsplit(",", 1)[0] for r in GOOD], header="unique_id,ds,yhat,q0.1"), "'q0.9'"),
    ("unknown series", lines(*(GOOD[:4] + ["zz,7,1,0,2"] + GOOD[4:])), "line 6: series 'zz' is not one of the test"),
    ("date outside", lines(*(GOOD[:2] + ["a1,10,4,3,5"] + GOOD[2:])), "line 4: series 'a1' has no horizon date '10'"),
    ("not a date", lines(*(GOOD[:1] + ["a1,x7,4,3,5"] + GOOD[1:])), "line 3: the ds field 'x7' is not one of"),
    ("repeated", lines(*(GOOD + ["b1,8,5,4,6"])), "line 14: series 'b1' at '8' is forecast again (first on line 9)"),
    ("missing", lines(*GOOD[:-1]), "has no forecast for series 'b2' at 9"),
    ("nan", lines(*(GOOD[:3] + ["a2,7,nan,0,2"] + GOOD[4:])), "line 5: the yhat field 'nan' is not a finite"),
    ("inf", lines(*(GOOD[:3] + ["a2,7,1,0,inf"] + GOOD[4:])), "line 5: the q0.9 field 'inf'"),
    ("empty field", lines(*(GOOD[:3] + ["a2,7,,0,2"] + GOOD[4:])), "line 5: the yhat field (empty)"),
    ("decimal comma", lines(*(GOOD[:3] + ['a2,7,"1,5",0,2'] + GOOD[4:])), "line 5: the yhat field '1,5'"),
    ("extra field", lines(*(GOOD[:3] + ["a2,7,1,0,2,9"] + GOOD[4:])), "line 5: expected 5 fields, found 6"),
    ("blank inside", lines(*(GOOD[:3] + [""] + GOOD[3:])), "line 5: the line is blank"),
    ("empty file", "", "is empty"),
]


@pytest.mark.parametrize("name, text, expected", CASES, ids=[c[0] for c in CASES])
def test_each_mistake_is_one_sentence(setup, name, text, expected):
    out = message(setup, text)
    assert expected in out, out
    for actual in ("y_7", "3 4 2"):  # nothing of the gold's values
        assert actual not in out


def test_r_style_quotes_and_trailing_blank_lines_are_read(setup):
    folder, cfg, gold = setup
    path = os.path.join(folder, "sub", "quoted.csv")
    quoted = ['"%s",%s' % (r.split(",", 1)[0], r.split(",", 1)[1]) for r in GOOD]
    with open(path, "w") as handle:
        handle.write('"unique_id","ds","yhat","q0.1","q0.9"\n' + "\n".join(quoted) + "\n\n\n")
    plain = os.path.join(folder, "sub", "plain.csv")
    with open(plain, "w") as handle:
        handle.write(lines(*GOOD))
    np.testing.assert_array_equal(read_predictions(path, cfg, gold), read_predictions(plain, cfg, gold))


def test_binary_and_utf16_files(setup):
    # a few control bytes in a short file: the NUL byte is named with its line (a longer binary file: "binary")
    out = message(setup, b"unique_id,ds,yhat\x00\x01\x02", name="bin.csv", mode="wb")
    assert "NUL byte" in out and "line 1" in out
    assert "binary" in message(setup, bytes(range(256)) * 8, name="bin2.csv", mode="wb")
    folder, cfg, gold = setup
    path = os.path.join(folder, "sub", "utf16.csv")
    with open(path, "wb") as handle:
        handle.write(lines(*GOOD).encode("utf-16"))
    assert read_predictions(path, cfg, gold).shape == (4,)


def test_a_huge_value_is_refused_before_it_overflows(setup):
    out = message(setup, lines(*(GOOD[:3] + ["a2,7,1e200,0,2"] + GOOD[4:])))
    assert "line 5" in out and "yhat" in out


def test_the_program_exits_1_with_the_sentence(setup, tmp_path):
    folder, _, _ = setup
    import yaml

    ref, res, out = tmp_path / "input" / "ref", tmp_path / "input" / "res", tmp_path / "output"
    for path in (ref, res, out):
        path.mkdir(parents=True)
    for name in ("gold.csv", "history.csv"):
        (ref / name).write_text(open(os.path.join(folder, name)).read())
    config = {"task": "forecasting", "metric": "mase", "extra_metrics": [], "history": "history.csv"}
    config["files"] = {"gold": "gold.csv"}
    (ref / "config.yaml").write_text(yaml.safe_dump(config))
    (res / "forecasts.csv").write_text(lines(*GOOD[:-1]))
    done = subprocess.run(
        [sys.executable, "score.py", str(tmp_path / "input"), str(out)],
        cwd=os.path.join(ROOT, "scoring_program"),
        capture_output=True,
        text=True,
    )
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1 and "has no forecast for series 'b2' at 9" in done.stderr


@pytest.mark.slow  # writing the files takes most of its 30 s
def test_a_million_lines_read_in_bounded_time(tmp_path):
    """10^6 forecast lines (10^5 series x 10 steps) through the reader: seconds, not minutes."""
    n, h = 100000, 10
    ids = np.repeat(np.array(["s%d" % i for i in range(n)]), h)
    steps = np.tile(np.arange(1, h + 1), n)
    (tmp_path / "gold.csv").write_text(
        "unique_id,ds,y\n" + "".join("%s,%d,1.5\n" % (i, t) for i, t in zip(ids.tolist(), steps.tolist()))
    )
    sub = tmp_path / "forecasts.csv"
    sub.write_text(
        "unique_id,ds,yhat\n" + "".join("%s,%d,1.25\n" % (i, t) for i, t in zip(ids.tolist(), steps.tolist()))
    )
    cfg = parse_config({"task": "forecasting", "metric": "mae", "files": {"gold": "gold.csv"}})
    start = time.process_time()
    gold = read_gold(str(tmp_path), cfg)
    print("gold of 10^6 lines: %.1f s of CPU" % (time.process_time() - start))
    start = time.process_time()
    encoded = read_predictions(str(sub), cfg, gold)
    seconds = time.process_time() - start
    assert encoded.shape == (n,) and np.allclose(encoded["mae"][:, 0], 0.25)
    print("10^6 lines: %.1f s of CPU" % seconds)
