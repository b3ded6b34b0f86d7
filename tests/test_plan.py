"""``leaderboard-ci plan``: the MDE arithmetic, the SE against references, the command and its errors."""

from __future__ import annotations

import io
import json
import math
import os
import zipfile

import numpy as np
import pytest

from leaderboard_ci.cli.main import main as cli_main
from leaderboard_ci.cli.plan import main as plan_main
from leaderboard_ci.core.resampling import replicate_indices
from leaderboard_ci.scoring.config import config_from_options
from leaderboard_ci.tasks.shared.base import GoldStandard
from leaderboard_ci.tools import plan as P
from leaderboard_ci.tools.plan_output import SECTION_TITLE, plan_markdown, plan_paragraph, readme_section

HERE = os.path.dirname(os.path.abspath(__file__))
BUNDLE = os.path.join(os.path.dirname(HERE), "competition_bundle")
SAMPLES = os.path.join(BUNDLE, "sample_submissions")


def run(*argv):
    out = io.StringIO()
    code = plan_main(list(argv), out=out)
    return code, out.getvalue()


def _config(metric="accuracy", labels=None, n_resamples=2000, seed=7):
    return config_from_options(metric, labels=labels, n_resamples=n_resamples, seed=seed)


# ---------------------------------------------------------------------------
# The arithmetic
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("alpha,power,m", [(0.05, 0.8, 1), (0.01, 0.9, 1), (0.05, 0.8, 6)])
def test_mde_in_standard_errors_matches_statsmodels(alpha, power, m):
    """z_{1-alpha/(2m)} + z_power against statsmodels' normal power solver (one sample, ratio 0)."""
    from statsmodels.stats.power import NormalIndPower

    effect = NormalIndPower().solve_power(nobs1=100, alpha=alpha / m, power=power, ratio=0, alternative="two-sided")
    # statsmodels counts the far tail's rejections too (negligible here): its effect is at most ours
    assert P.z_total(alpha, power, m) / math.sqrt(100) == pytest.approx(effect, rel=2e-3)


def _plan(se=0.01, n=400, **kw):
    options = dict(
        metric_key="accuracy",
        metric_title="Accuracy",
        better="higher is better",
        n=n,
        alpha=0.05,
        power=0.8,
        family_size=1,
        z=P.z_total(0.05, 0.8, 1),
        se=se,
        source="assumed",
        pairs=(),
        assumptions=(("accuracy", 0.8), ("agreement", 0.9)),
        scaling=(),
        n_resamples=1000,
        seed=1,
    )
    options.update(kw)
    return P.Plan(**options)


def test_mde_scales_like_one_over_root_n_and_n_for_inverts_it():
    plan = _plan(difference=0.01)
    assert plan.mde_at(4 * plan.n) == pytest.approx(plan.mde / 2)
    n = plan.n_for(plan.mde)
    assert n in (plan.n, plan.n + 1)  # rounded up
    assert plan.mde_at(plan.n_needed) <= 0.01 < plan.mde_at(plan.n_needed - 1)
    with pytest.raises(ValueError):
        plan.n_for(0.0)


# ---------------------------------------------------------------------------
# SEs from the package's machinery against references on the same resamples
# ---------------------------------------------------------------------------
def test_pilot_se_equals_a_naive_loop_with_scikit_learn_on_the_same_resamples():
    from sklearn.metrics import f1_score

    rng = np.random.default_rng(3)
    labels = ("a", "b", "c")
    n = 150
    gold_codes = rng.integers(0, 3, n)
    a = np.where(rng.random(n) < 0.8, gold_codes, rng.integers(0, 3, n))
    b = np.where(rng.random(n) < 0.7, gold_codes, rng.integers(0, 3, n))
    config = _config("f1_macro", labels=list(labels), n_resamples=120)
    gold = GoldStandard(values=gold_codes.astype(np.intp), labels=labels)
    plan = P.pilot_plan(config, gold, [a.astype(np.intp), b.astype(np.intp)], ["a", "b"], n_resamples=120)
    idx = replicate_indices(config.bootstrap.seed, n, 0, 120)
    d = [
        f1_score(gold_codes[i], a[i], average="macro", labels=[0, 1, 2], zero_division=0)
        - f1_score(gold_codes[i], b[i], average="macro", labels=[0, 1, 2], zero_division=0)
        for i in idx
    ]
    assert plan.se == pytest.approx(np.std(d, ddof=1), rel=1e-9)
    observed = f1_score(gold_codes, a, average="macro") - f1_score(gold_codes, b, average="macro")
    assert plan.pairs[0].difference == pytest.approx(observed, rel=1e-9)


def test_assumed_accuracy_se_matches_the_closed_form():
    """Paired accuracy difference of two systems that disagree on a share q of items: SE = sqrt(q / n)."""
    labels = tuple("0123")
    gold = GoldStandard(values=np.repeat(np.arange(4), 100).astype(np.intp), labels=labels)
    config = _config("accuracy", labels=list(labels), n_resamples=2000)
    plan = P.assumed_plan(config, gold, {"accuracy": 0.7, "agreement": 0.8}, simulated_items=40000)
    assert plan.se == pytest.approx(math.sqrt(0.2 / 400), rel=0.05)
    for k, measured, predicted in plan.scaling:  # the 1/sqrt(n) check: pooled simulated test sets
        assert measured == pytest.approx(predicted, rel=0.2), k


def test_simulated_pair_has_the_assumed_rates_and_the_gold_class_distribution_of_errors():
    rng = np.random.default_rng(0)
    weights = np.array([0.7, 0.2, 0.1])
    gold = rng.choice(3, size=200000, p=weights)
    a, b = P.simulate_pair(gold, 3, 0.8, 0.9, rng, difference=0.04, class_weights=weights)
    assert np.mean(a == gold) == pytest.approx(0.82, abs=0.005)
    assert np.mean(b == gold) == pytest.approx(0.78, abs=0.005)
    assert np.mean(a == b) == pytest.approx(0.9, abs=0.005)
    wrong = a[a != gold]
    assert not np.any(wrong == gold[a != gold])
    # items of class 1 answered wrongly go to class 0 with probability 0.7 / 0.8
    sel = (gold == 1) & (a != gold)
    assert np.mean(a[sel] == 0) == pytest.approx(0.875, abs=0.02)


@pytest.mark.parametrize(
    "text,message",
    [
        ("accuracy=1.2", "between 0 and 1"),
        ("accuracy=0.9,agreement=0.5", "impossible"),
        ("precision=0.9", "KEY one of accuracy, agreement"),
        ("accuracy=high", "must be a number"),
        ("accuracy", "KEY=VALUE"),
    ],
)
def test_bad_assumptions_are_one_sentence(text, message):
    with pytest.raises(ValueError, match=message):
        P.parse_assumptions(text)


# ---------------------------------------------------------------------------
# The command
# ---------------------------------------------------------------------------
def test_help_names_the_command():
    out = io.StringIO()
    with pytest.raises(SystemExit):
        import contextlib

        with contextlib.redirect_stdout(out):
            cli_main(["plan", "--help"])
    assert "leaderboard-ci plan" in out.getvalue()
    assert "--family-size" in out.getvalue() and "--difference" in out.getvalue()


def test_sample_with_pilot_zips_writes_the_three_files(tmp_path):
    pilots = [os.path.join(SAMPLES, name + ".zip") for name in ("knn", "rbf_svm", "random_forest")]
    code, text = run("--pilot", *pilots, "--difference", "0.01", "--n-resamples", "500", "--output", str(tmp_path))
    assert code == 0, text
    assert "With 540 test items" in text and "Detecting a difference of 0.01 needs about" in text
    data = json.loads((tmp_path / "plan.json").read_text())
    assert data["n"] == 540 and data["source"] == "pilot" and len(data["pairs"]) == 3
    assert data["mde"] == pytest.approx(data["z"] * data["se"])
    assert data["n_needed"] == math.ceil((data["z"] * data["sigma"] / 0.01) ** 2)
    assert (tmp_path / "plan.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "![MDE against the test-set size](plan.png)" in (tmp_path / "plan.md").read_text()


def test_config_may_be_a_competition_yaml_and_assumptions_apply(tmp_path):
    code, text = run(
        "--config", os.path.join(BUNDLE, "competition.yaml"), "--assume", "accuracy=0.9,agreement=0.95",
        "--n-resamples", "300", "--family-size", "3",
    )  # fmt: skip
    assert code == 0, text
    assert "assumed to be each right on 90 % of the items" in text and "a family of 3 comparisons" in text


def _zip(path, name, text):
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(name, text)
    return str(path)


@pytest.mark.parametrize(
    "argv,message",
    [
        (["--pilot", "missing.csv", "other.csv"], "the pilot file missing.csv does not exist"),
        (["--pilot", "A"], "at least two systems"),
        (["--assume", "accuracy=0.9,agreement=0.5"], "impossible"),
        (["--alpha", "2"], "alpha must be a number between 0 and 1"),
        (["--family-size", "0"], "family size must be an integer >= 1"),
        (["--difference", "-0.1"], "difference must be a number > 0"),
        (["--gold", "nowhere.csv"], "the gold file nowhere.csv does not exist"),
        (["/nonexistent/folder"], "does not exist"),
    ],
)
def test_mistakes_are_one_sentence(argv, message):
    code, text = run(*argv)
    assert code == 2 and text.startswith("error: ") and message in text
    assert text.count("\n") == 1 and "Traceback" not in text


def test_bad_pilot_and_gold_files_are_one_sentence_naming_the_file(tmp_path):
    good = os.path.join(SAMPLES, "knn.zip")
    bad = _zip(tmp_path / "bad.zip", "predictions.csv", "id,label\ndigit_0000,7\n")
    code, text = run("--pilot", good, bad)
    assert code == 2 and text.count("\n") == 1 and "bad.zip" in text and "Traceback" not in text
    gold = tmp_path / "gold.csv"
    gold.write_text("id,label\nx,1\nx,2\n")
    code, text = run("--gold", str(gold))
    assert code == 2 and text.count("\n") == 1 and "gold.csv" in text and "appears again" in text


def test_values_that_are_not_labels_need_pilots(tmp_path):
    gold = tmp_path / "gold.csv"
    gold.write_text("id,value\n" + "".join("i%d,%d.5\n" % (i, i) for i in range(30)))
    config = tmp_path / "config.yaml"
    config.write_text("task: regression\nmetric: mae\nfiles:\n  gold: gold.csv\n  gold_column: value\n")
    code, text = run("--config", str(config))
    assert code == 2 and "give pilot predictions of two or more systems" in text


def test_paragraph_markdown_and_readme_section_say_the_numbers():
    plan = _plan(difference=0.02)
    text = plan_paragraph(plan)
    assert "%.4f" % plan.mde in text or ("%.3g" % plan.mde) in text
    assert "about %s items" % "{:,}".format(plan.n_needed) in text
    assert "| 400 (this test set) |" in plan_markdown(plan)
    section = readme_section(plan, "demo")
    assert section.lstrip().startswith(SECTION_TITLE) and text in section and "leaderboard-ci plan demo" in section


def test_init_writes_the_plan_into_the_competition_readme(tmp_path):
    from leaderboard_ci.tools.scaffold import init_competition

    folder = tmp_path / "digits"
    ref = os.path.join(BUNDLE, "reference_data")
    init_competition(str(folder), os.path.join(ref, "gold.csv"), os.path.join(ref, "config.yaml"),
                     baseline=os.path.join(ref, "baseline.csv"))  # fmt: skip
    readme = (folder / "README.md").read_text()
    assert readme.count(SECTION_TITLE) == 1
    section = readme[readme.index(SECTION_TITLE) :]
    assert "With 540 test items" in section and "macro-F1" in section and "assumed to be each right on 80 %" in section
    assert "leaderboard-ci plan digits --pilot" in section
    # the plan the command makes from the written folder with the same assumptions agrees
    code, text = run(str(folder), "--n-resamples", "2000")
    assert code == 0, text
    mde = lambda s: float(s.split("detects a true difference of ")[1].split(" ")[0])  # noqa: E731
    assert mde(section) == pytest.approx(mde(text), rel=1e-9)


# ---------------------------------------------------------------------------
# Clusters: the design effect
# ---------------------------------------------------------------------------
def _copies(tmp_path, k, pilots=("knn", "rbf_svm", "random_forest")):
    """The sample's 540 items copied ``k`` times, with a column ``passage`` naming the original."""
    with open(os.path.join(BUNDLE, "reference_data", "gold.csv")) as handle:
        rows = [line.strip().split(",") for line in handle.read().splitlines()[1:]]
    gold = tmp_path / "gold.csv"
    gold.write_text("id,label,passage\n" + "".join("%s_%d,%s,%s\n" % (i, c, y, i) for c in range(k) for i, y in rows))
    config = tmp_path / "config.yaml"
    config.write_text('metric: f1_macro\nlabels: ["0","1","2","3","4","5","6","7","8","9"]\nbootstrap:\n  seed: 5\n')
    files = []
    for name in pilots:
        with zipfile.ZipFile(os.path.join(SAMPLES, name + ".zip")) as archive:
            lines = archive.read("predictions.csv").decode().splitlines()[1:]
        path = tmp_path / (name + ".csv")
        path.write_text(
            "id,label\n"
            + "".join("%s_%d,%s\n" % (line.split(",")[0], c, line.split(",")[1]) for c in range(k) for line in lines)
        )
        files.append(str(path))
    return str(config), files


def test_copies_as_clusters_give_the_originals_se(tmp_path):
    """The sample copied 5 times: with --cluster the SE of the 540 originals (+-15 %), without it about 1/sqrt(5)."""
    config, pilots = _copies(tmp_path, 5)
    original = json.loads(_json(tmp_path / "one", "--pilot", *[os.path.join(SAMPLES, p + ".zip") for p in
                                                                 ("knn", "rbf_svm", "random_forest")]))  # fmt: skip
    plain = json.loads(_json(tmp_path / "plain", "--config", config, "--pilot", *pilots))
    clustered = json.loads(_json(tmp_path / "cl", "--config", config, "--pilot", *pilots, "--cluster", "passage"))
    assert plain["n"] == 2700 and clustered["n_clusters"] == 540 and clustered["cluster_column"] == "passage"
    assert clustered["se"] == pytest.approx(original["se"], rel=0.15)
    assert plain["se"] == pytest.approx(original["se"] / math.sqrt(5), rel=0.15)
    for pair in clustered["pairs"]:
        assert pair["design_effect"] == pytest.approx(5.0, rel=0.05)


def test_the_configs_cluster_is_the_default(tmp_path):
    """bootstrap.cluster in the config: the plan uses it as --cluster would, and --cluster still overrides it."""
    config, pilots = _copies(tmp_path, 3)
    with open(config, "a") as handle:
        handle.write("  cluster: passage\n")
    explicit = json.loads(_json(tmp_path / "explicit", "--config", config, "--pilot", *pilots, "--cluster", "passage"))
    default = json.loads(_json(tmp_path / "default", "--config", config, "--pilot", *pilots))
    assert default["cluster_column"] == "passage" and default["n_clusters"] == 540
    assert default["se"] == explicit["se"] and default["mde"] == explicit["mde"]
    for pair in default["pairs"]:
        assert pair["design_effect"] == pytest.approx(3.0, rel=0.05)


def _json(folder, *argv):
    code, text = run(*argv, "--n-resamples", "400", "--output", str(folder))
    assert code == 0, text
    return (folder / "plan.json").read_text()


def test_design_effect_matches_a_naive_cluster_bootstrap():
    """Clusters of 1-8 items with a shared error: deff-corrected SE against resampling whole clusters (numpy)."""
    rng = np.random.default_rng(12)
    sizes = rng.integers(1, 9, 300)
    clusters = np.repeat(np.arange(sizes.size), sizes)
    n = clusters.size
    gold_codes = rng.integers(0, 2, n)
    hard = rng.random(sizes.size) < 0.3  # hard passages: both systems err more there, B much more
    p_a = np.where(hard[clusters], 0.55, 0.9)
    a = np.where(rng.random(n) < p_a, gold_codes, 1 - gold_codes)
    b = np.where(rng.random(n) < p_a - np.where(hard[clusters], 0.3, 0.0), gold_codes, 1 - gold_codes)
    config = _config("accuracy", labels=["0", "1"], n_resamples=1000)
    gold = GoldStandard(values=gold_codes.astype(np.intp), labels=("0", "1"))
    plan = P.pilot_plan(config, gold, [a.astype(np.intp), b.astype(np.intp)], ["a", "b"], clusters=clusters)
    assert plan.pairs[0].design_effect > 1.3
    members = [np.flatnonzero(clusters == c) for c in range(sizes.size)]
    right = (a == gold_codes).astype(float) - (b == gold_codes).astype(float)
    reps = []
    for _ in range(3000):
        items = np.concatenate([members[c] for c in rng.integers(0, sizes.size, sizes.size)])
        reps.append(right[items].mean())
    assert plan.se == pytest.approx(np.std(reps, ddof=1), rel=0.08)


def test_cluster_mistakes_are_one_sentence(tmp_path):
    config, pilots = _copies(tmp_path, 1, pilots=("knn", "rbf_svm"))
    code, text = run("--config", config, "--pilot", *pilots, "--cluster", "document")
    assert code == 2 and "has no column 'document'" in text and text.count("\n") == 1
    code, text = run("--config", config, "--cluster", "passage")
    assert code == 2 and "--cluster needs pilot predictions" in text


def test_the_pilot_plan_runs_through_execution_with_the_same_numbers():
    """Threads, or an out-of-process runner (Dask's path: the plan rebuilt from its recipe), change nothing."""
    from leaderboard_ci.phase.execution.runners import LocalRunner
    from leaderboard_ci.phase.execution.runs import Execution

    class Elsewhere(LocalRunner):
        in_process = False
        spans = 0

        def run(self, function, calls):
            calls = list(calls)
            Elsewhere.spans += len(calls)
            return super().run(function, calls)

    rng = np.random.default_rng(5)
    n = 400
    gold_codes = rng.integers(0, 3, n)
    preds = [np.where(rng.random(n) < p, gold_codes, rng.integers(0, 3, n)).astype(np.intp) for p in (0.8, 0.7, 0.6)]
    config = _config("f1_macro", labels=["a", "b", "c"], n_resamples=100)
    gold = GoldStandard(values=gold_codes.astype(np.intp), labels=("a", "b", "c"))
    plans = [
        P.pilot_plan(config, gold, preds, ["a", "b", "c"], execution=execution)
        for execution in (None, Execution(n_jobs=2), Execution(runner=Elsewhere()))
    ]
    assert plans[0] == plans[1] == plans[2]
    assert Elsewhere.spans >= 2  # the pilot and the scaling subsets went through the runner
