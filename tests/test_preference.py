"""The preference task (Bradley-Terry arenas): parity with FastChat's definition, the bootstrap, inputs.

The reference is FastChat's ``compute_mle_elo`` (``tests/_fastchat_reference.py``: pandas pivot
tables and scikit-learn's logistic regression with FastChat's sample weights), on the example's
battle log and on bootstrap replicates given to it as battles repeated by their counts.
"""

import csv
import io
import os
import zipfile

import numpy as np
import pytest

from leaderboard_ci.core.resampling import counts_from_indices, replicate_indices
from leaderboard_ci.scoring.errors import ConfigError, SubmissionError
from leaderboard_ci.scoring.text_files import Source, TextFile, iter_lines
from leaderboard_ci.tasks.preference import battles
from leaderboard_ci.tasks.preference import fit as preference_fit
from leaderboard_ci.tasks.preference import metrics as preference
from leaderboard_ci.tasks.preference.fit import OUTCOMES
from leaderboard_ci.tasks.preference.settings import PreferenceSettings
from leaderboard_ci.tasks.shared.base import GoldStandard

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLE = os.path.join(ROOT, "examples", "preference")
BATTLES = os.path.join(EXAMPLE, "reference_data", "battles.csv")
#: A Newton solver of scikit-learn on FastChat's regression: it reaches the maximum (L-BFGS stops ~1e-4 short).
TIGHT = {"tol": 1e-12, "max_iter": 10000, "solver": "newton-cg"}


PROGRAM = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "scoring_program")


def _example_rows():
    with io.open(BATTLES, newline="", encoding="utf-8") as handle:
        return [(r["model_a"], r["model_b"], r["winner"]) for r in csv.DictReader(handle)]


def _gold(rows, settings=()):
    values, models, _ = battles.encode_values(rows, {})
    return GoldStandard(values=values, labels=models, task="preference", settings=tuple(settings))


def _reference(rows, counts=None, **fit):
    """FastChat's scores of the battles, each repeated ``counts[i]`` times, in the gold's model order."""
    from _fastchat_reference import mle_elo

    if counts is not None:
        rows = [row for row, c in zip(rows, counts) for _ in range(int(c))]
    a, b, w = zip(*rows)
    scores = mle_elo(a, b, w, **fit)
    return np.array([scores[m] for m in sorted(scores)])


def _simulate(strengths, n, rng, ties=0.0):
    """Battles of uniformly drawn pairs; the winner by Bradley-Terry; a share of ``ties`` (each kind half) tied."""
    m = len(strengths)
    a = rng.integers(0, m, n)
    b = (a + rng.integers(1, m, n)) % m
    d = np.asarray(strengths)[a] - np.asarray(strengths)[b]
    o = np.where(rng.random(n) < 1.0 / (1.0 + 10.0 ** (-d / 400.0)), 0, 1)
    tied = rng.random(n) < ties
    o = np.where(tied, np.where(rng.random(n) < 0.5, 2, 3), o)
    return a, b, o


def _adder(slots):
    def add(accumulator):
        slots.append(accumulator)
        return len(slots) - 1

    return add


# -- the fit ---------------------------------------------------------------------------------------------------------
def test_example_scores_equal_fastchat_to_1e6():
    pytest.importorskip("sklearn")
    rows = _example_rows()
    gold = _gold(rows)
    ours = preference_fit.elo_scores(preference.battle_cells(gold))
    np.testing.assert_allclose(ours, _reference(rows, **TIGHT), rtol=0, atol=1e-6)
    # FastChat's own settings (L-BFGS, tol 1e-6, 100 iterations) stop short of the maximum by less than 0.01
    np.testing.assert_allclose(ours, _reference(rows), rtol=0, atol=1e-2)
    assert abs(ours.mean() - 1000.0) < 1e-6  # mean 0 in log units, then rounded to 1e-7 Elo points


def test_replicates_of_the_task_equal_fastchat_on_the_resampled_battles():
    """The task's replicates (core's resample stream over battles) = FastChat on battles repeated by their counts."""
    pytest.importorskip("sklearn")
    rng = np.random.default_rng(3)
    strengths = [1100.0, 1050.0, 1000.0, 980.0, 900.0, 1020.0]
    a, b, o = _simulate(strengths, 1500, rng, ties=0.2)
    names = ["m%d" % k for k in range(len(strengths))]
    rows = [(names[i], names[j], OUTCOMES[k]) for i, j, k in zip(a, b, o)]
    gold = _gold(rows)
    seed, n_rep = 777, 6
    indices = replicate_indices(seed, gold.n, 0, n_rep)
    counts = counts_from_indices(indices, gold.n)
    cells = preference.battle_cells(gold)
    stats = np.stack([np.bincount(cells.codes[idx], minlength=cells.n_cells) for idx in indices])
    for model in range(len(names)):
        slots = []
        statistics = preference.Statistics(_adder(slots), gold, np.full(gold.n, model), [], None, 0)
        got = statistics.score(statistics.prepare([stats]), None, 0)
        want = [_reference(rows, counts[r], **TIGHT)[model] for r in range(n_rep)] if model < 2 else None
        if want is not None:
            np.testing.assert_allclose(got, want, rtol=0, atol=1e-6)
        assert len(slots) == 1 and np.array_equal(slots[0].codes, cells.codes)


def test_bootstrap_elo_replicates_equal_fastchat_on_their_cell_counts():
    pytest.importorskip("sklearn")
    rows = _example_rows()
    gold = _gold(rows)
    cells = preference.battle_cells(gold)
    full, reps, converged = preference_fit.bootstrap_elo(cells, 12345, 3)
    assert converged.all()
    counts = preference_fit.resample_cell_counts(12345, cells.counts, 3)
    # one battle per cell stands for its cell: repeating it by the replicate's count is a resample of the log
    first = np.zeros(cells.n_cells, dtype=np.intp)
    first[cells.codes[::-1]] = np.arange(gold.n)[::-1]
    present = cells.counts > 0
    cell_rows = [rows[i] for i in first[present]]
    for r in range(3):
        np.testing.assert_allclose(reps[r], _reference(cell_rows, counts[r][present], **TIGHT), rtol=0, atol=1e-6)
    np.testing.assert_allclose(full, _reference(rows, **TIGHT), rtol=0, atol=1e-6)


def test_anchor_fixes_one_model_and_keeps_the_differences():
    rows = _example_rows()
    cells = preference.battle_cells(_gold(rows))
    plain = preference_fit.elo_scores(cells)
    anchored = preference_fit.elo_scores(cells, anchor=3, anchor_rating=1114.0)
    assert anchored[3] == pytest.approx(1114.0, abs=1e-9)
    np.testing.assert_allclose(anchored - anchored[0], plain - plain[0], atol=1e-9)


def test_a_score_with_no_maximum_is_a_documented_stand_in_and_the_others_keep_their_limit():
    """Model 0 wins every battle: its score is +inf.  The others' scores are their fit without its battles
    (the limit of the likelihood), centred among themselves; model 0 is written UNBOUNDED log-10 units above
    their average (not wherever an iteration cap left it), and the fit converges."""
    a = np.array([0, 0, 1, 2, 1, 2, 1, 3, 3])
    b = np.array([1, 2, 2, 1, 0, 0, 3, 2, 1])
    o = np.array([0, 0, 0, 0, 1, 1, 0, 0, 2])  # model 0 wins all its battles
    cells = preference_fit.cells_from_battles(a, b, o, 4)
    assert preference_fit.unbounded_models(cells, cells.counts).tolist() == [1, 0, 0, 0]
    theta, converged = preference_fit.fit_bradley_terry(cells)
    keep = (a != 0) & (b != 0)
    rest, ok = preference_fit.fit_bradley_terry(preference_fit.cells_from_battles(a[keep], b[keep], o[keep], 4))
    assert converged and ok and np.all(np.isfinite(theta))
    np.testing.assert_allclose(theta[1:] - theta[1:].mean(), rest[1:] - rest[1:].mean(), atol=1e-9)
    assert theta[1:].sum() == pytest.approx(0.0, abs=1e-9) and theta[0] == preference_fit.UNBOUNDED
    # one level further for a model set aside earlier: 3 never lost but to none; 2's only wins were over 0
    a2, b2, o2 = np.array([3, 2, 0, 1]), np.array([2, 0, 1, 0]), np.array([0, 0, 0, 0])
    cells = preference_fit.cells_from_battles(a2, b2, o2, 4)
    theta, _ = preference_fit.fit_bradley_terry(cells)
    assert preference_fit.unbounded_models(cells, cells.counts).tolist() == [0, 0, 1, 1]
    assert theta[3] == theta[2] + 1 == preference_fit.UNBOUNDED + 1
    a, b, o = _simulate([1000.0, 1010.0, 990.0], 300, np.random.default_rng(0))
    theta, converged = preference_fit.fit_bradley_terry(preference_fit.cells_from_battles(a, b, o, 3))
    assert converged


def test_a_model_that_never_wins_is_told_and_scores_json_stays_finite(tmp_path):
    """Through the scoring program as the worker runs it: a finite score, and the note on the page."""
    import json

    from leaderboard_ci.tools.local_worker import run_scoring

    rows = _example_rows() + [("never-wins", m, "model_b") for m in ("atlas-70b-chat", "ion-3b", "gale-2-9b")] * 20
    ref = tmp_path / "ref"
    ref.mkdir()
    with io.open(str(ref / "battles.csv"), "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["model_a", "model_b", "winner"])
        writer.writerows(rows)
    (ref / "config.yaml").write_text(
        "task: preference\nmetric: elo\nfiles: {gold: battles.csv, predictions: model.txt}\n"
        "bootstrap: {n_resamples: 40, seed: 3}\n",
        encoding="utf-8",
    )
    submission = tmp_path / "sub.zip"
    with zipfile.ZipFile(str(submission), "w") as archive:
        archive.writestr("model.txt", "never-wins\n")
    result = run_scoring(str(tmp_path / "run"), PROGRAM, str(ref), str(submission))
    assert result.returncode == 0, result.stderr
    scores = json.loads(result.scores_json_bytes.decode("utf-8"))
    assert all(np.isfinite(v) for v in scores.values())
    others = preference_fit.elo_scores(preference.battle_cells(_gold(rows)))
    assert scores["elo"] == pytest.approx(1000.0 - 4000.0, abs=1e-6) and others.min() == scores["elo"]
    with io.open(os.path.join(result.output_dir, "detailed_results.html"), encoding="utf-8") as handle:
        page = handle.read()
    assert "never won nor tied any of its 60 battles" in page and "has no maximum" in page


def test_fit_is_the_same_in_chunks_and_alone():
    rows = _example_rows()
    cells = preference.battle_cells(_gold(rows))
    counts = preference_fit.resample_cell_counts(1, cells.counts, 5)
    together, _ = preference_fit.fit_bradley_terry(cells, counts)
    for r in range(5):
        alone, _ = preference_fit.fit_bradley_terry(cells, counts[r])
        np.testing.assert_allclose(together[r], alone, rtol=0, atol=1e-9)


# -- the resampling --------------------------------------------------------------------------------------------------
def test_resampled_cell_counts_are_a_multinomial_of_the_battles():
    counts = np.array([5, 0, 3, 12, 0, 30], dtype=np.int64)
    draws = preference_fit.resample_cell_counts(42, counts, 20000)
    assert draws.dtype == np.int64 and np.all(draws.sum(axis=1) == counts.sum())
    assert np.all(draws[:, counts == 0] == 0)
    n = counts.sum()
    p = counts / n
    np.testing.assert_allclose(draws.mean(axis=0), n * p, atol=0.1)
    cov = n * (np.diag(p) - np.outer(p, p))
    np.testing.assert_allclose(np.cov(draws.T), cov, atol=0.25)
    assert np.array_equal(draws, preference_fit.resample_cell_counts(42, counts, 20000))
    assert not np.array_equal(draws, preference_fit.resample_cell_counts(43, counts, 20000))


# -- win fractions and battle counts ---------------------------------------------------------------------------------
def test_win_fraction_and_battle_count_matrices_count_the_log():
    rows = [("x", "y", "model_a"), ("y", "x", "model_a"), ("x", "y", "tie"), ("x", "z", "tie (bothbad)")]
    cells = preference.battle_cells(_gold(rows))
    counts = preference_fit.battle_count_matrix(cells)
    assert counts.tolist() == [[0, 3, 1], [3, 0, 0], [1, 0, 0]]
    assert preference_fit.battle_count_matrix(cells, ties="exclude").tolist() == [[0, 2, 0], [2, 0, 0], [0, 0, 0]]
    wins = preference_fit.win_fraction_matrix(cells, ties="count")
    assert wins[0, 1] == pytest.approx(1 / 3) and wins[1, 0] == pytest.approx(1 / 3)
    assert wins[0, 2] == 0.0 and np.isnan(wins[1, 2]) and np.isnan(wins[0, 0])
    wins = preference_fit.win_fraction_matrix(cells)  # LMArena's: the decisive battles only
    assert wins[0, 1] == 0.5 and wins[1, 0] == 0.5 and np.isnan(wins[0, 2])
    with pytest.raises(ValueError, match="ties must be one of: exclude, count"):
        preference_fit.win_fraction_matrix(cells, ties="half")


def _fastchat_win_fraction(rows, models):
    """FastChat's ``compute_pairwise_win_fraction`` (pandas pivot tables) on the battles LMArena draws it from,
    ``battles_no_ties``; and ``visualize_battle_count``'s counts on the same battles."""
    pd = pytest.importorskip("pandas")
    battles = pd.DataFrame(rows, columns=["model_a", "model_b", "winner"])
    battles = battles[~battles["winner"].str.contains("tie")]

    def pivot(frame):
        table = pd.pivot_table(frame, index="model_a", columns="model_b", aggfunc="size", fill_value=0)
        return table.reindex(index=models, columns=models, fill_value=0)

    a_win, b_win = pivot(battles[battles["winner"] == "model_a"]), pivot(battles[battles["winner"] == "model_b"])
    played = pivot(battles)
    row_beats_col = (a_win + b_win.T) / (played + played.T)
    return row_beats_col.to_numpy(dtype=float), (played + played.T).to_numpy()


def test_the_matrices_equal_lmarenas_on_the_example():
    """LMArena's heatmaps drop ties: up to 0.15 apart from counting them as battles on this log."""
    rows = _example_rows()
    gold = _gold(rows)
    cells = preference.battle_cells(gold)
    wins, counts = _fastchat_win_fraction(rows, list(gold.labels))
    ours = preference_fit.win_fraction_matrix(cells)
    assert np.array_equal(np.isnan(ours), np.isnan(wins))
    np.testing.assert_allclose(ours[~np.isnan(ours)], wins[~np.isnan(wins)], rtol=0, atol=1e-12)
    assert np.array_equal(preference_fit.battle_count_matrix(cells, ties="exclude"), counts)
    with_ties = preference_fit.win_fraction_matrix(cells, ties="count")
    assert np.nanmax(np.abs(with_ties - ours)) > 0.05


# -- coverage --------------------------------------------------------------------------------------------------------
def _coverage(n_sims, n_battles, n_resamples, seed):
    """Share of 95% percentile intervals (centred scores) that hold the true centred strengths."""
    strengths = np.array([1150.0, 1100.0, 1060.0, 1040.0, 1000.0, 980.0, 950.0, 900.0])
    truth = strengths - strengths.mean() + 1000.0
    rng = np.random.default_rng(seed)
    hits = []
    for s in range(n_sims):
        a, b, o = _simulate(strengths, n_battles, rng)
        cells = preference_fit.cells_from_battles(a, b, o, len(strengths))
        _, reps, _ = preference_fit.bootstrap_elo(cells, 1000 + s, n_resamples)
        low, high = np.percentile(reps, [2.5, 97.5], axis=0)
        hits.append((low <= truth) & (truth <= high))
    return np.mean(hits)


def test_score_intervals_cover_the_true_strengths_fast():
    assert 0.88 <= _coverage(30, 2000, 200, 5) <= 0.99


@pytest.mark.slow
def test_score_intervals_cover_the_true_strengths():
    """95 +- 2 over 400 simulated logs of 2,000 battles among 8 models (3,200 intervals), B = 1,000."""
    assert 0.93 <= _coverage(400, 2000, 1000, 11) <= 0.97


# -- inputs ----------------------------------------------------------------------------------------------------------
def _read_gold(tmp_path, text, name="battles.csv", settings=None):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    source = Source(str(path), "ref/" + name, error=ConfigError, may_quote=False)
    return battles.read_battles(source, TextFile(source), PreferenceSettings.parse(settings or {}))


def test_the_three_log_formats_read_alike(tmp_path):
    rows = [("x", "y", "model_a"), ("y", "z", "tie"), ("z", "x", "tie (bothbad)"), ("x", "z", "model_b")]
    csv_text = "model_a,model_b,winner,judge\n" + "".join("%s,%s,%s,u1\n" % r for r in rows)
    jsonl = "".join('{"model_a": "%s", "model_b": "%s", "winner": "%s", "turn": 1}\n' % r for r in rows)
    array = "[" + ",".join('{"model_a": "%s", "model_b": "%s", "winner": "%s"}' % r for r in rows) + "]"
    read = [_read_gold(tmp_path, t, n) for t, n in ((csv_text, "b.csv"), (jsonl, "b.jsonl"), (array, "b.json"))]
    for units in read:
        assert units.labels == ("x", "y", "z")
        assert units.values.tolist() == read[0].values.tolist() == [[0, 1, 0], [1, 2, 2], [2, 0, 3], [0, 2, 1]]


@pytest.mark.parametrize(
    "text, expected",
    [
        ("model_a,model_b\nx,y\n", "ref/battles.csv line 1: has no column winner"),
        ("model_a,model_b,winner\nx,y,model_a\nx,y,draw\n", "ref/battles.csv line 3: has a winner that is none of"),
        ("model_a,model_b,winner\nx,x,tie\n", "ref/battles.csv line 2: is a battle of a model against itself"),
        ("model_a,model_b,winner\nx,y\n", "ref/battles.csv line 2: has 2 fields; the header has 3"),
        ('{"model_a": "x", "model_b": "y"}\n', "ref/battles.csv line 1: has no text value for winner"),
        ("model_a,model_b,winner\n", "ref/battles.csv has no battles"),
    ],
)
def test_a_bad_battle_log_is_one_sentence_naming_the_line(tmp_path, text, expected):
    with pytest.raises(ConfigError) as caught:
        _read_gold(tmp_path, text)
    assert str(caught.value).startswith(expected), str(caught.value)
    assert "draw" not in str(caught.value)


def test_an_anchor_the_log_lacks_is_refused(tmp_path):
    with pytest.raises(ConfigError, match="has no battle of the anchor model"):
        _read_gold(tmp_path, "model_a,model_b,winner\nx,y,tie\n", settings={"anchor_model": "w"})


@pytest.mark.parametrize(
    "text, expected",
    [
        ("", "model.txt is empty"),
        ("x\ny\n", "model.txt line 2: is a second line"),
        ("secret-model\n", "model.txt line 1: names no model of the arena's battles"),
    ],
)
def test_a_bad_submission_is_one_sentence_that_lists_no_model(tmp_path, text, expected):
    gold = _gold([("x", "y", "model_a"), ("y", "z", "tie")])
    path = tmp_path / "model.txt"
    path.write_text(text, encoding="utf-8")
    source = Source(str(path), "model.txt")
    with pytest.raises(SubmissionError) as caught:
        battles.read_model(source, iter_lines(source), gold)
    message = str(caught.value)
    assert message.startswith(expected) and "z" not in message.replace("arena", ""), message


def test_a_submission_names_its_model(tmp_path):
    gold = _gold([("x", "y", "model_a"), ("y", "z", "tie")])
    path = tmp_path / "model.txt"
    path.write_text("\ufeffz \n\n", encoding="utf-8")
    source = Source(str(path), "model.txt")
    assert battles.read_model(source, iter_lines(source), gold).tolist() == [2, 2]


def test_settings_are_validated():
    assert PreferenceSettings.parse({}) == PreferenceSettings(None, 1000.0, ())
    assert PreferenceSettings.parse({"anchor_model": " m ", "anchor_rating": 1114}) == PreferenceSettings(
        "m", 1114.0, ()
    )
    for bad in ({"anchor_model": 3}, {"anchor_rating": "high"}, {"anchor_rating": True}):
        with pytest.raises(ValueError):
            PreferenceSettings.parse(bad)


def test_sample_submissions_name_models_of_the_log():
    models = set(m for row in _example_rows() for m in row[:2])
    for name in os.listdir(os.path.join(EXAMPLE, "sample_submissions")):
        with zipfile.ZipFile(os.path.join(EXAMPLE, "sample_submissions", name)) as archive:
            assert archive.read("model.txt").decode().strip() in models


def test_style_elo_needs_style_columns_and_numbers(tmp_path):
    class Spec:
        name = "style_elo"

    with pytest.raises(ValueError, match="style_elo needs style_columns"):
        PreferenceSettings(style_columns=()).check([Spec()], None)
    assert PreferenceSettings(style_columns=("tokens",)).check([Spec()], None) is None
    text = "model_a,model_b,winner,tokens_a,tokens_b\nx,y,tie,10,20\ny,x,model_a,5,many\n"
    with pytest.raises(ConfigError) as caught:
        _read_gold(tmp_path, text, settings={"style_columns": ("tokens",)})
    assert str(caught.value) == "ref/battles.csv line 3: the style column tokens_b is not a finite number"
    with pytest.raises(ConfigError, match="line 1: has no column bold_a"):
        _read_gold(tmp_path, text, settings={"style_columns": ("tokens", "bold")})
    units = _read_gold(tmp_path, text.replace("many", "7"), settings={"style_columns": ("tokens",)})
    assert units.values.tolist() == [[0, 1, 2, 10, 20], [1, 0, 0, 5, 7]]
