"""The CPU budget of a generation submission (tasks/generation/budget.py): one budget for every metric's
statistics of a file, the participant's sentence once it is spent, and the organizer's ``max_seconds``.

The clock is replaced by a counter where a test needs to know when the budget runs out (no timed assertions):
each reading advances it one second.
"""

import pytest

from leaderboard_ci.scoring.config import parse_config
from leaderboard_ci.scoring.errors import ConfigError, SubmissionError
from leaderboard_ci.scoring.evaluation import evaluate
from leaderboard_ci.scoring.readers import read_gold, read_predictions
from leaderboard_ci.tasks.generation import budget, ter

WHAT_TO_DO = (
    "expected shorter hypotheses, closer to their references (long hypotheses, and reordered or repeated words, "
    "make TER's search and the n-gram counts long)"
)


def _config(metric="bleu", extra=(), **settings):
    return parse_config(
        dict(
            {
                "task": "generation",
                "metric": metric,
                "extra_metrics": list(extra),
                "files": {"gold": "refs.txt"},
                "bootstrap": {"n_resamples": 10},
            },
            **settings,
        )
    )


def _files(tmp_path, references, hypotheses):
    ref = tmp_path / "ref"
    ref.mkdir(exist_ok=True)
    (ref / "refs.txt").write_text("".join(r + "\n" for r in references), encoding="utf-8")
    path = tmp_path / "hyp.txt"
    path.write_text("".join(h + "\n" for h in hypotheses), encoding="utf-8")
    return str(ref), str(path)


def _score(config, ref, path):
    gold = read_gold(ref, config)
    return evaluate(config, gold, read_predictions(path, config, gold))


@pytest.fixture
def ticking_clock(monkeypatch):
    """Each reading of the budget's clock is one CPU second later; returns the list of readings."""
    readings = []

    def clock():
        readings.append(float(len(readings)))
        return readings[-1]

    monkeypatch.setattr(budget, "_cpu_seconds", clock)
    return readings


# 1,200 words of 5 letters: a unit of work past CHECK_EVERY for BLEU (words), chrF (4 characters) and WER (words);
# TER takes at most 1,000 words, and its search over 100 reversed words computes more than 1,000 rows
LONG = " ".join("w%04d" % (k % 997) for k in range(1200))
SHORTER = " ".join("w%04d" % k for k in range(100))


@pytest.mark.parametrize("metric", ["bleu", "chrf", "chrf_pp", "wer", "cer", "ter"])
def test_every_metric_spends_the_budget_and_the_sentence_names_the_line(tmp_path, ticking_clock, metric):
    """With max_seconds 2.5 and a clock one second per reading, the third long segment (line 3) is refused."""
    text = SHORTER if metric == "ter" else LONG
    ref, path = _files(tmp_path, [text] * 4, [" ".join(text.split()[::-1])] * 4)
    config = _config(metric, max_seconds=2.5)
    with pytest.raises(SubmissionError) as info:
        _score(config, ref, path)
    assert str(info.value) == (
        "hyp.txt line 3: scoring the hypotheses up to this one takes more than 2.5 CPU seconds, the competition's "
        "bound on the metrics' work; " + WHAT_TO_DO
    )


def test_the_metrics_of_a_file_share_one_budget(tmp_path, ticking_clock):
    """BLEU reads the clock after each of its 3 segments (1, 2, 3 s), chrF++ after each of its own (4, 5, 6 s):
    a 5.5 s budget ends in chrF++'s third segment, though neither metric alone spends it."""
    ref, path = _files(tmp_path, [LONG] * 3, [" ".join(LONG.split()[::-1])] * 3)
    alone = [_score(_config(m, max_seconds=5.5), ref, path).leaderboard_scores() for m in ("bleu", "chrf_pp")]
    assert all(scores for scores in alone)
    del ticking_clock[:]
    with pytest.raises(SubmissionError, match=r"^hyp\.txt line 3: .* more than 5\.5 CPU seconds"):
        _score(_config("bleu", ["chrf_pp"], max_seconds=5.5), ref, path)
    assert len(ticking_clock) == 1 + 3 + 3  # the start, read once for the file, then one reading per segment


def test_the_default_budget_is_not_shown_to_the_participant(tmp_path, ticking_clock, monkeypatch):
    """The default grows with the references' length, so the sentence does not quote it."""
    monkeypatch.setattr(budget, "MAX_SECONDS", 0.5)
    monkeypatch.setattr(budget, "SECONDS_PER_WORD", 0.0)
    ref, path = _files(tmp_path, [LONG] * 2, [LONG] * 2)
    with pytest.raises(SubmissionError) as info:
        _score(_config("bleu"), ref, path)
    assert str(info.value) == (
        "hyp.txt line 1: scoring the hypotheses up to this one takes longer than the scoring program allows for "
        "this test set; " + WHAT_TO_DO
    )
    assert "0.5" not in str(info.value)


def test_a_generous_budget_scores_as_no_budget(tmp_path):
    """The budget decides whether a file is scored, never its numbers; its key is not in any column's name."""
    ref, path = _files(tmp_path, ["a b c d", "zanzibar quartz " * 40], ["a c b d", "quartz zanzibar " * 40])
    default = _score(_config("bleu", ["chrf_pp", "ter", "wer"]), ref, path).leaderboard_scores()
    generous = _score(_config("bleu", ["chrf_pp", "ter", "wer"], max_seconds=600), ref, path).leaderboard_scores()
    assert default == generous and default["ter"] > 0


def test_a_submission_past_the_row_bound_reads_one_sentence_with_its_line(tmp_path, monkeypatch):
    ref, path = _files(tmp_path, ["zanzibar quartz " * 40, "a b"], ["quartz zanzibar " * 40, "b a"])
    monkeypatch.setattr(ter.ter_statistics, "__defaults__", (50, None))
    with pytest.raises(SubmissionError) as info:
        _score(_config("ter"), ref, path)
    assert str(info.value) == (
        "hyp.txt line 1: scoring the hypotheses up to this one needs more than 50 edit-distance rows of TER's "
        "shift search, the scoring program's bound; " + WHAT_TO_DO
    )


@pytest.mark.parametrize("value", [0, -1, "8", True, 1e9])
def test_max_seconds_must_be_a_positive_number_of_seconds(value):
    with pytest.raises(ConfigError, match=r"max_seconds must be a number of seconds from 0 \(excluded\) to 86400"):
        _config("ter", max_seconds=value)


def test_the_default_budget_grows_with_the_references():
    """7 s up to 8,750 reference words (their mean length per segment), then 0.8 ms a word; max_seconds wins."""
    small = [("a b c",)] * 100 + [("a b", "a b c d")] * 100  # 300 + 300 words
    assert budget.time_budget(small) == budget.MAX_SECONDS == 7.0
    large = [("w " * 25, "w " * 35)] * 1000  # 30,000 words (the mean of the two references): 24 s
    assert budget.time_budget(large) == pytest.approx(24.0)
    assert budget.time_budget(large, max_seconds=2.5) == 2.5


def test_max_seconds_is_not_a_metric_option():
    with pytest.raises(ConfigError, match="extra_metrics\\[0\\] has unknown key 'max_seconds'"):
        _config("bleu", [{"name": "ter", "max_seconds": 60}])
