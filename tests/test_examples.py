"""Every example competition (``examples/*/competition.yaml``) end to end, one parametrized module.

For each example found under ``examples/``:

* the bundle builds (with ``public_data.zip`` when the example has ``public_data/``) and passes the
  checker, which scores every sample submission with the bundle's own program and configuration;
* every sample submission scores through ``score.py`` exactly as the worker runs it: exit code 0,
  nothing on stderr, every leaderboard column written, a ``detailed_results.html``;
* its scores equal a reference implementation on the same files (the example's hook in ``CHECKS``:
  the official SQuAD v1.1 script, seqeval, pytrec_eval, scikit-learn...);
* the end-of-phase command (``python -m leaderboard_ci.cli.end_of_phase``, the console script's ``main``)
  writes ``report.json`` (with the example's metrics) and ``report.html``;
* marked ``image``, with ``LEADERBOARD_CI_PY37`` / ``LEADERBOARD_CI_PY312`` set (``.ci/run`` does): every
  sample scores in the py37 and py312 image environments with the same ``scores.json`` bytes.

A new example is picked up by its ``competition.yaml``; it must add its reference check to
``CHECKS`` (``test_every_example_is_found_and_has_a_reference_check``) and may add an ``Example`` entry in ``SPECS``.
Example-specific tests that are not about the shared steps follow at the end.
"""

import glob
import io
import json
import os
import shutil
import subprocess
import sys
import warnings
import zipfile
from dataclasses import dataclass, field
from typing import Callable, Dict, Optional, Tuple

import numpy as np
import pytest
import yaml

from leaderboard_ci.tools.bundle import build_bundle
from leaderboard_ci.tools.bundle_check import check_bundle
from leaderboard_ci.tools.local_worker import run_scoring

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROGRAM = os.path.join(ROOT, "scoring_program")
EXAMPLES_DIR = os.path.join(ROOT, "examples")
IMAGES = {"py37": "LEADERBOARD_CI_PY37", "py312": "LEADERBOARD_CI_PY312"}
#: Every example competition: a folder of examples/ with a competition.yaml.
EXAMPLES = sorted(
    name for name in os.listdir(EXAMPLES_DIR) if os.path.isfile(os.path.join(EXAMPLES_DIR, name, "competition.yaml"))
)


@dataclass(frozen=True)
class Example:
    """What differs between the examples' runs (the steps are the same)."""

    samples: Optional[int] = None  # the exact number of sample submissions, where it is fixed
    scoring_resamples: Optional[int] = None  # B of the per-submission runs (None: the shipped config's); set
    # wherever the shipped B makes a run take seconds (every example scores its samples three times: on the host and
    # in both images): the runs here check columns, reference values and identical bytes in the images, which B
    # does not change (the bundle check runs the shipped config)
    phase_config: Dict[str, object] = field(default_factory=dict)  # end-of-phase overrides, per section or key
    phase_keys: Tuple[str, ...] = ()  # what report.json must name
    slow: Tuple[str, ...] = ()  # steps marked slow ("bundle", "phase"): another example's run
    # of the same step is their fast representative


FAST_PHASE = {"bootstrap": {"n_resamples": 200}}
#: The end-of-phase run (15-60 s each on 2 cores) stays in the default run for QA only. The bundle check (every
#: sample scored again at the shipped B) stays for qa, ranking and odesia (clusters, a run file, a soft-label
#: hierarchy); competition_bundle's own is in tests/test_bundle.py; the others are in the slow selection.
SPECS = {
    "multilabel": Example(
        samples=5,
        phase_config={"bootstrap": {"n_resamples": 300}, "analysis": {"test": "permutation", "n_permutations": 200}},
        scoring_resamples=1000,
        phase_keys=("f1_macro", "hamming_loss", "coarse_f1_macro", "classifier_chain"),
        slow=("bundle", "phase"),
    ),
    "odesia": Example(
        samples=4, scoring_resamples=500, phase_config=FAST_PHASE, phase_keys=("icm_soft_norm",), slow=("phase",)
    ),
    "generation": Example(
        samples=6, scoring_resamples=200, phase_config=FAST_PHASE, phase_keys=("bleu", "ter"), slow=("bundle", "phase")
    ),
    "qa": Example(samples=4, scoring_resamples=1000, phase_keys=("exact_match",)),
    "ranking": Example(scoring_resamples=500, phase_keys=("ndcg_10",), slow=("phase",)),
    "forecasting": Example(
        samples=6, scoring_resamples=300, phase_config=FAST_PHASE, phase_keys=("owa",), slow=("bundle", "phase")
    ),
    "preference": Example(samples=6, scoring_resamples=50, phase_keys=("elo", "style_elo"), slow=("bundle", "phase")),
    "scores": Example(
        scoring_resamples=1000, phase_config=FAST_PHASE, phase_keys=("roc_auc",), slow=("bundle", "phase")
    ),
    "scores_multiclass": Example(
        scoring_resamples=1000, phase_config=FAST_PHASE, phase_keys=("roc_auc_ovr",), slow=("bundle", "phase")
    ),
    "sequence": Example(samples=5, scoring_resamples=1000, phase_keys=("f1_macro",), slow=("bundle", "phase")),
    "detection": Example(
        samples=6, scoring_resamples=50, phase_config=FAST_PHASE, phase_keys=("map",), slow=("bundle", "phase")
    ),
    "segmentation": Example(
        samples=6,
        scoring_resamples=200,
        phase_config=FAST_PHASE,
        phase_keys=("miou", "image_dice"),
        slow=("bundle", "phase"),
    ),
}


def _params(step):
    """The examples as parameters, marked slow where SPECS says so for ``step``."""
    return [
        pytest.param(name, marks=[pytest.mark.slow] if step in SPECS.get(name, Example()).slow else [])
        for name in EXAMPLES
    ]


def _folder(name):
    return os.path.join(EXAMPLES_DIR, name)


def _submissions(name):
    return sorted(glob.glob(os.path.join(_folder(name), "sample_submissions", "*.zip")))


def _read_yaml(path):
    with open(path, "rb") as handle:
        return yaml.safe_load(handle) or {}


def _leaderboard_keys(name):
    return [c["key"] for c in _read_yaml(os.path.join(_folder(name), "competition.yaml"))["leaderboards"][0]["columns"]]


@dataclass
class Scored:
    """One example's sample submissions, scored as the worker runs them: ``{zip name: run}``."""

    name: str
    reference: str  # the reference data the runs used (a copy with fewer resamples where SPECS says so)
    runs: dict


def _reference(name, tmp_path_factory):
    """The example's reference data: a copy with fewer resamples where SPECS says so."""
    spec = SPECS.get(name, Example())
    reference = os.path.join(_folder(name), "reference_data")
    if spec.scoring_resamples is None:
        return reference
    copy = str(tmp_path_factory.mktemp("ref-" + name) / "reference_data")
    shutil.copytree(reference, copy)
    config = _read_yaml(os.path.join(copy, "config.yaml"))
    config["bootstrap"] = dict(config.get("bootstrap") or {}, n_resamples=spec.scoring_resamples)
    with open(os.path.join(copy, "config.yaml"), "w") as handle:
        yaml.safe_dump(config, handle)
    return copy


@pytest.fixture(scope="module", params=EXAMPLES)
def scored(request, tmp_path_factory):
    name = request.param
    reference = _reference(name, tmp_path_factory)
    work = tmp_path_factory.mktemp("runs-" + name)
    runs = {}
    for path in _submissions(name):
        runs[os.path.basename(path)] = run_scoring(str(work / os.path.basename(path)), PROGRAM, reference, path)
    return Scored(name, reference, runs)


# ---------------------------------------------------------------------------
# The shared steps, for every example
# ---------------------------------------------------------------------------
def test_every_example_is_found_and_has_a_reference_check():
    assert {"multilabel", "qa", "ranking", "scores", "scores_multiclass", "sequence"} <= set(EXAMPLES)
    assert sorted(CHECKS) == EXAMPLES, "add the new example's reference check to CHECKS"
    assert set(SPECS) <= set(EXAMPLES)


@pytest.mark.parametrize("name", _params("bundle"))
def test_bundle_builds_and_passes_the_check(name, tmp_path):
    submissions = _submissions(name)
    assert submissions
    out = str(tmp_path / (name + ".zip"))
    names = build_bundle(out, bundle_dir=_folder(name))
    expected = {"competition.yaml", "scoring_program.zip", "reference_data.zip"}
    if os.path.isdir(os.path.join(_folder(name), "public_data")):
        expected.add("public_data.zip")
    assert expected <= set(names)
    problems = check_bundle(out, submissions=submissions, workdir=str(tmp_path / "work"))
    assert [str(p) for p in problems] == []


def test_every_sample_scores_with_every_leaderboard_column_and_like_the_reference(scored):
    spec = SPECS.get(scored.name, Example())
    assert scored.runs
    if spec.samples is not None:
        assert len(scored.runs) == spec.samples
    columns = _leaderboard_keys(scored.name)
    for zip_name, run in scored.runs.items():
        assert run.returncode == 0, (zip_name, run.stderr)
        assert run.stderr == "", zip_name
        assert set(columns) <= set(run.scores), zip_name
        assert os.path.exists(os.path.join(run.output_dir, "detailed_results.html")), zip_name
    CHECKS[scored.name](scored)


@pytest.mark.image
@pytest.mark.parametrize("image", sorted(IMAGES))
# every sample in the slow selection; the first and the last of each example (the same task code on other data)
# represent the rest in CI, where each example's samples already run three times (host, py37, py312)
@pytest.mark.parametrize("every", [False, pytest.param(True, marks=pytest.mark.slow)], ids=["first_last", "every"])
def test_the_samples_score_identically_in_the_image(image, every, scored, tmp_path, program_compiled_by):
    python = os.environ.get(IMAGES[image])
    if not python:
        pytest.skip("set %s to the %s image's interpreter (.ci/run does)" % (IMAGES[image], image))
    paths = _submissions(scored.name)
    for path in paths if every else sorted(set([paths[0], paths[-1]])):
        zip_name = os.path.basename(path)
        program = program_compiled_by(python)
        there = run_scoring(str(tmp_path / zip_name), program, scored.reference, path, python=python)
        assert there.returncode == 0, "%s in %s: %s" % (zip_name, image, there.stderr)
        assert there.stderr == ""
        assert there.scores_json_bytes == scored.runs[zip_name].scores_json_bytes, "%s differs in %s" % (
            zip_name,
            image,
        )
        assert os.path.exists(os.path.join(there.output_dir, "detailed_results.html"))


def _phase_config(reference, overrides, path):
    """The program's config.yaml updated with the example's reference config.yaml and the overrides."""
    merged = _read_yaml(os.path.join(PROGRAM, "config.yaml"))
    merged.update(_read_yaml(os.path.join(reference, "config.yaml")))
    for section, values in overrides.items():
        merged[section] = dict(merged.get(section) or {}, **values) if isinstance(values, dict) else values
    with open(path, "w") as handle:
        yaml.safe_dump(merged, handle)
    return path


@pytest.mark.parametrize("name", _params("phase"))
def test_end_of_phase_command_writes_the_report(name, tmp_path, tmp_path_factory):
    spec = SPECS.get(name, Example(phase_config=FAST_PHASE))
    reference = _reference(name, tmp_path_factory)
    out = str(tmp_path / "report")
    command = [
        sys.executable,
        "-m",
        "leaderboard_ci.cli.end_of_phase",
        "--reference",
        reference,
        "--submissions",
        os.path.join(_folder(name), "sample_submissions"),
        "--out",
        out,
        "--no-progress",
        "--figure-files",
        "none",  # the page still draws every figure; the files are test_report_files.py's
        "--jobs",
        "1",
    ]
    if spec.phase_config:
        command += ["--config", _phase_config(reference, spec.phase_config, str(tmp_path / "config.yaml"))]
    env = dict(os.environ, PYTHONPATH=PROGRAM + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, env=env, timeout=600
    )
    assert proc.returncode == 0, proc.stderr
    with open(os.path.join(out, "report.json"), encoding="utf-8") as handle:
        text = json.dumps(json.load(handle))
    for key in spec.phase_keys or (_leaderboard_keys(name)[0],):
        assert key in text, key
    assert os.path.exists(os.path.join(out, "report.html"))


# ---------------------------------------------------------------------------
# Reference checks, one per example: the scores equal a trusted implementation on the same files
# ---------------------------------------------------------------------------
def check_multilabel(scored):
    for zip_name, run in scored.runs.items():
        with open(os.path.join(run.output_dir, "detailed_results.html"), encoding="utf-8") as handle:
            page = handle.read()
        # No per-label table by default (an item oracle: tests/test_probes.py shows it with per_class: true)
        assert "Per-label" not in page and "Documentary" not in page, zip_name
    # The real models beat the trivial baseline (every film a drama) on macro-F1.
    scores = dict((name, run.scores) for name, run in scored.runs.items())
    base = scores["most_frequent_set.zip"]["f1_macro"]
    assert all(s["f1_macro"] > base for n, s in scores.items() if n != "most_frequent_set.zip")
    assert scores["most_frequent_set.zip"]["f1_macro_vs_base"] == 0.0


def check_qa(scored):
    from test_qa import official_evaluate

    with io.open(os.path.join(scored.reference, "gold.json"), encoding="utf-8") as handle:
        dataset = json.load(handle)["data"]
    for zip_name, run in scored.runs.items():
        with zipfile.ZipFile(os.path.join(_folder("qa"), "sample_submissions", zip_name)) as z:
            predictions = json.loads(z.read("predictions.json").decode("utf-8"))
        expected = official_evaluate(dataset, predictions)
        for key in ("f1", "exact_match"):
            assert abs(run.scores[key] - expected[key] / 100.0) <= 1e-12, (zip_name, key)
            assert run.scores[key + "_ci_low"] <= run.scores[key] <= run.scores[key + "_ci_high"]


def check_generation(scored):
    import jiwer
    import sacrebleu

    with io.open(os.path.join(scored.reference, "references.jsonl"), encoding="utf-8") as handle:
        segments = [json.loads(line) for line in handle if line.strip()]
    streams = [[s["references"][k] for s in segments] for k in range(2)]
    for zip_name, run in scored.runs.items():
        with zipfile.ZipFile(os.path.join(_folder("generation"), "sample_submissions", zip_name)) as z:
            hypotheses = z.read("hypotheses.txt").decode("utf-8").split("\n")[: len(segments)]
        expected = {
            "bleu": sacrebleu.corpus_bleu(hypotheses, streams).score,
            "chrf_pp": sacrebleu.corpus_chrf(hypotheses, streams, word_order=2).score,
            "ter": sacrebleu.corpus_ter(hypotheses, streams).score,
            "wer": jiwer.wer(streams[0], hypotheses),
        }
        for key, value in expected.items():
            assert abs(run.scores[key] - value) <= 1e-9, (zip_name, key, run.scores[key], value)
            assert run.scores[key + "_ci_low"] <= run.scores[key] <= run.scores[key + "_ci_high"]


def _read_run(zip_path):
    with zipfile.ZipFile(zip_path) as archive:
        name = archive.namelist()[0]
        text = archive.read(name).decode("utf-8")
    if name.endswith(".json"):
        return json.loads(text)
    run = {}
    for line in text.splitlines():
        qid, _, doc, _, score, _ = line.split()
        run.setdefault(qid, {})[doc] = float(score)
    return run


def _read_qrels():
    qrels = {}
    with open(os.path.join(_folder("ranking"), "reference_data", "qrels.txt")) as handle:
        for line in handle:
            qid, _, doc, rel = line.split()
            qrels.setdefault(qid, {})[doc] = int(rel)
    return qrels


def check_ranking(scored):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels = _read_qrels()
    for zip_name, run in scored.runs.items():
        path = os.path.join(_folder("ranking"), "sample_submissions", zip_name)
        per_query = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut_10", "map"}).evaluate(_read_run(path))
        for key, measure in (("ndcg_10", "ndcg_cut_10"), ("map", "map")):
            expected = sum(per_query[q][measure] if q in per_query else 0.0 for q in qrels) / len(qrels)
            assert abs(run.scores[key] - expected) < 1e-12, (zip_name, key)


def _predictions_csv(name, zip_name):
    import csv

    path = os.path.join(_folder(name), "sample_submissions", zip_name)
    with zipfile.ZipFile(path) as archive:
        return list(csv.DictReader(io.StringIO(archive.read("predictions.csv").decode())))


def _gold_csv(scored):
    import csv

    with open(os.path.join(scored.reference, "gold.csv"), newline="") as handle:
        return dict((r["id"], r["label"]) for r in csv.DictReader(handle))


def check_scores(scored):
    metrics = pytest.importorskip("sklearn.metrics")
    gold = dict((k, v == "malignant") for k, v in _gold_csv(scored).items())
    rows = _predictions_csv("scores", "gradient_boosting.zip")
    y = np.array([gold[r["id"]] for r in rows])
    p = np.array([float(r["score"]) for r in rows])
    result = scored.runs["gradient_boosting.zip"].scores
    assert abs(result["roc_auc"] - metrics.roc_auc_score(y, p)) < 1e-12
    assert abs(result["log_loss"] - metrics.log_loss(y, p)) < 1e-12
    assert result["roc_auc_ci_low"] < result["roc_auc"] < result["roc_auc_ci_high"]


def check_scores_multiclass(scored):
    metrics = pytest.importorskip("sklearn.metrics")
    gold = dict((k, int(v)) for k, v in _gold_csv(scored).items())
    rows = _predictions_csv("scores_multiclass", "gaussian_nb.zip")
    y = np.array([gold[r["id"]] for r in rows])
    p = np.array([[float(r[str(k)]) for k in range(10)] for r in rows])
    result = scored.runs["gaussian_nb.zip"].scores
    assert abs(result["roc_auc_ovr"] - metrics.roc_auc_score(y, p, multi_class="ovr")) < 1e-12
    assert abs(result["roc_auc_ovo"] - metrics.roc_auc_score(y, p, multi_class="ovo")) < 1e-12
    assert abs(result["log_loss"] - metrics.log_loss(y, p)) < 1e-12
    assert abs(result["top_2_accuracy"] - metrics.top_k_accuracy_score(y, p, k=2)) < 1e-12


def _documents(lines):
    """Sentences of (token, tag) per line, and each sentence's document number."""
    sentences, documents, current, doc = [], [], [], -1
    for line in lines:
        fields = line.split()
        if not fields:
            if current:
                sentences.append(current)
                documents.append(doc)
                current = []
            continue
        if fields[0] == "-DOCSTART-":
            doc += 1
            continue
        current.append(fields[-1])
    if current:
        sentences.append(current)
        documents.append(doc)
    return sentences, documents


def check_sequence(scored):
    pytest.importorskip("seqeval")
    from seqeval.metrics import accuracy_score
    from seqeval.metrics.v1 import precision_recall_fscore_support
    from seqeval.scheme import IOB2

    with io.open(os.path.join(scored.reference, "gold.conll"), encoding="utf-8") as handle:
        gold, _ = _documents(handle)
    for zip_name, run in scored.runs.items():
        with zipfile.ZipFile(os.path.join(_folder("sequence"), "sample_submissions", zip_name)) as z:
            pred = _documents(io.TextIOWrapper(z.open("predictions.conll"), encoding="utf-8"))[0]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = {
                "f1_macro": precision_recall_fscore_support(gold, pred, average="macro", scheme=IOB2)[2],
                "f1_micro": precision_recall_fscore_support(gold, pred, average="micro", scheme=IOB2)[2],
                "accuracy": accuracy_score(gold, pred),
            }
        for key, value in expected.items():
            assert abs(run.scores[key] - value) <= 1e-12, (zip_name, key)
            assert run.scores[key + "_ci_low"] <= value <= run.scores[key + "_ci_high"]
        with io.open(os.path.join(run.output_dir, "detailed_results.html"), encoding="utf-8") as handle:
            page = handle.read()
        # No per-entity-type table by default (an item oracle: tests/test_probes.py shows it with per_class: true)
        assert "Per-entity type" not in page and "PER" not in page, zip_name


def check_preference(scored):
    """Each model's score is FastChat's compute_mle_elo (scikit-learn, fitted tightly) on the battle log, to 1e-6."""
    pytest.importorskip("sklearn")
    import csv

    from _fastchat_reference import mle_elo

    with open(os.path.join(scored.reference, "battles.csv"), newline="") as handle:
        rows = list(csv.DictReader(handle))
    expected = mle_elo(
        [r["model_a"] for r in rows],
        [r["model_b"] for r in rows],
        [r["winner"] for r in rows],
        tol=1e-12,
        max_iter=10000,
        solver="newton-cg",
    )
    for zip_name, run in scored.runs.items():
        model = zip_name[: -len(".zip")]
        assert abs(run.scores["elo"] - expected[model]) < 1e-6, (zip_name, run.scores["elo"], expected[model])
        assert run.scores["elo_ci_low"] < run.scores["elo"] < run.scores["elo_ci_high"]
        assert abs(run.scores["elo_vs_base"] - (expected[model] - expected["mistral-like-7b"])) < 1e-6
    # style_elo: LMArena's style control, FastChat's objective fitted by scikit-learn (tests/_fastchat_reference.py)
    from _fastchat_reference import OUTCOMES, style_control_elo

    from leaderboard_ci.tasks.preference.style import style_features

    names = sorted(set(r["model_a"] for r in rows) | set(r["model_b"] for r in rows))
    index = dict((name, k) for k, name in enumerate(names))
    a = np.array([index[r["model_a"]] for r in rows])
    b = np.array([index[r["model_b"]] for r in rows])
    o = np.array([OUTCOMES.index(r["winner"]) for r in rows])
    values = dict(
        (side, np.array([[float(r["tokens_" + side]), float(r["bold_" + side])] for r in rows])) for side in "ab"
    )
    style, _ = style_control_elo(a, b, o, style_features(values["a"], values["b"]), len(names))
    for zip_name, run in scored.runs.items():
        model = index[zip_name[: -len(".zip")]]
        assert abs(run.scores["style_elo"] - style[model]) < 1e-6, (zip_name, run.scores["style_elo"], style[model])
        assert run.scores["style_elo_ci_low"] < run.scores["style_elo"] < run.scores["style_elo_ci_high"]


def check_forecasting(scored):
    """sMAPE, MASE and MAE equal utilsforecast's; OWA equals M4's formula with Naive2 from M4's R steps."""
    test_forecasting = pytest.importorskip("test_forecasting")
    import pandas as pd

    reference = os.path.join(_folder("forecasting"), "reference_data")
    gold = pd.read_csv(os.path.join(reference, "gold.csv"))
    history = pd.read_csv(os.path.join(reference, "history.csv"))
    naive2 = []
    for ident, part in gold.groupby("unique_id", sort=False):
        z = history[history.unique_id == ident].y.to_numpy(float)
        naive2.append(test_forecasting.naive2_reference(z, test_forecasting.SEASON[part.frequency.iloc[0]], len(part)))
    gold = gold.assign(n2=np.concatenate(naive2))
    for zip_name, run in scored.runs.items():
        with zipfile.ZipFile(os.path.join(_folder("forecasting"), "sample_submissions", zip_name)) as z:
            forecasts = pd.read_csv(io.BytesIO(z.read("forecasts.csv")))
        df = gold.merge(forecasts.rename(columns={"yhat": "m"}), on=["unique_id", "ds"])
        values = dict((key, test_forecasting.utils_value(key, df, history)) for key in ("smape", "mase", "mae"))
        for key, value in values.items():
            assert run.scores[key] == pytest.approx(value, rel=1e-9), (zip_name, key)
        n2 = df.assign(m=df.n2)
        owa = 0.5 * (
            values["smape"] / test_forecasting.utils_value("smape", n2, history)
            + values["mase"] / test_forecasting.utils_value("mase", n2, history)
        )
        assert run.scores["owa"] == pytest.approx(owa, rel=1e-9), zip_name
        assert run.scores["owa_ci_low"] <= run.scores["owa"] <= run.scores["owa_ci_high"]


#: The reference check of each example: ``check(scored)``.
def check_odesia(scored):
    """EXIST 2023 task 1 (soft labels): every soft metric equals PyEvALL 0.2.11 on the same files."""
    test_icm = pytest.importorskip("test_icm")
    with io.open(os.path.join(scored.reference, "gold.json"), encoding="utf-8") as handle:
        gold = [(r["id"], r["value"]) for r in json.load(handle)]
    for zip_name, run in scored.runs.items():
        with zipfile.ZipFile(os.path.join(_folder("odesia"), "sample_submissions", zip_name)) as z:
            pred = [(r["id"], r["value"]) for r in json.loads(z.read("run.json").decode("utf-8"))]
        for key, metric in (
            ("icm_soft_norm", "ICMSoftNorm"),
            ("icm_soft", "ICMSoft"),
            ("cross_entropy", "CrossEntropy"),
        ):
            assert abs(run.scores[key] - test_icm.pyevall(metric, gold, pred)) <= 1e-9, (zip_name, key)
            assert run.scores[key + "_ci_low"] <= run.scores[key] <= run.scores[key + "_ci_high"]


def check_detection(scored):
    """pycocotools' COCOeval on the same files (one system with tied scores here; all seven, on resampled
    data sets too, and VOC's AP50 against the devkit in tests/test_detection_parity.py)."""
    import test_detection_parity as parity

    gold, systems = parity._example_systems()
    keys = ("map", "ap50", "ap75", "ap_small", "ap_medium", "ap_large", "ar100")
    for zip_name, run in scored.runs.items():
        for key in keys + ("voc_ap50",):
            assert run.scores[key + "_ci_low"] <= run.scores[key] <= run.scores[key + "_ci_high"], (zip_name, key)
    stats = parity.pycocotools_stats(gold, systems["dino_r50"])  # its scores have two decimals: many ties
    run = scored.runs["dino_r50.zip"]
    for key in keys:
        assert abs(run.scores[key] - stats[list(parity.COCO_NAMES).index(key)]) <= 1e-9, key
    # graded quality: the best detector ranks first, the worst last
    order = sorted(scored.runs, key=lambda z: -scored.runs[z].scores["map"])
    assert order[0] == "cascade_swin.zip" and order[-1] == "ssd_mobile.zip"


def segmentation_masks(path):
    """``{image id: mask}`` of a folder or zip of masks, read by Pillow and numpy (not the program's readers)."""
    from PIL import Image

    def load(name, data):
        if name.endswith(".png"):
            return np.asarray(Image.open(io.BytesIO(data)))
        if name.endswith(".npz"):
            with np.load(io.BytesIO(data)) as archive:
                return archive[archive.files[0]]
        return np.load(io.BytesIO(data))

    if os.path.isdir(path):
        names = sorted(os.listdir(path))
        return dict((n[:-4], load(n, open(os.path.join(path, n), "rb").read())) for n in names)
    with zipfile.ZipFile(path) as archive:
        return dict((os.path.basename(n)[:-4], load(n, archive.read(n))) for n in archive.namelist())


def check_segmentation(scored):
    """mIoU and pixel accuracy equal scikit-learn over the pixels of the 200 images (two samples: PNG and .npy).

    The slow ``test_the_example_equals_scikit_learn_on_three_resamples_of_videos`` (tests/test_segmentation.py)
    checks every metric of every sample on the full sample and three resamples of videos.
    """
    metrics = pytest.importorskip("sklearn.metrics")
    gold = segmentation_masks(os.path.join(scored.reference, "masks"))
    ids = sorted(gold)
    true = np.concatenate([gold[i].ravel() for i in ids])
    keep = true != 255
    classes = list(range(6))
    for zip_name in ("sharp.zip", "fair.zip"):
        run = scored.runs[zip_name]
        masks = segmentation_masks(os.path.join(_folder("segmentation"), "sample_submissions", zip_name))
        guess = np.concatenate([np.asarray(masks[i]).ravel() for i in ids])[keep]
        iou = metrics.jaccard_score(true[keep], guess, labels=classes, average=None, zero_division=0)
        present = [np.any(true[keep] == c) or np.any(guess == c) for c in classes]
        assert abs(run.scores["miou"] - iou[present].mean()) <= 1e-12, zip_name
        assert abs(run.scores["pixel_accuracy"] - metrics.accuracy_score(true[keep], guess)) <= 1e-12, zip_name
    for zip_name, run in scored.runs.items():
        assert run.scores["miou_ci_low"] < run.scores["miou"] < run.scores["miou_ci_high"]
        with io.open(os.path.join(run.output_dir, "detailed_results.html"), encoding="utf-8") as handle:
            page = handle.read()
        # No per-class table by default (tests/test_probes.py shows it with per_class: true)
        assert "Per-class" not in page and "vegetation" not in page, zip_name
    scores = dict((name[:-4], run.scores["miou"]) for name, run in scored.runs.items())
    assert sorted(scores, key=scores.get, reverse=True) == ["sharp", "strong", "good", "fair", "coarse", "blocky"]
    assert all(run.scores["miou_vs_base"] > 0 for run in scored.runs.values())


CHECKS: Dict[str, Callable[[Scored], None]] = {
    "detection": check_detection,
    "forecasting": check_forecasting,
    "generation": check_generation,
    "multilabel": check_multilabel,
    "odesia": check_odesia,
    "qa": check_qa,
    "ranking": check_ranking,
    "preference": check_preference,
    "scores": check_scores,
    "scores_multiclass": check_scores_multiclass,
    "sequence": check_sequence,
    "segmentation": check_segmentation,
}


# ---------------------------------------------------------------------------
# Example-specific tests beyond the shared steps
# ---------------------------------------------------------------------------
def test_qa_a_missing_answer_exits_1_with_one_line(tmp_path):
    reference = os.path.join(_folder("qa"), "reference_data")
    with zipfile.ZipFile(_submissions("qa")[0]) as z:
        predictions = json.loads(z.read("predictions.json").decode("utf-8"))
    predictions.pop(sorted(predictions)[5])
    bad = str(tmp_path / "bad.zip")
    with zipfile.ZipFile(bad, "w") as z:
        z.writestr("predictions.json", json.dumps(predictions))
    result = run_scoring(str(tmp_path / "run"), PROGRAM, reference, bad)
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("predictions.json has no answer for 1 of")


def test_scores_analyze_through_encode_values():
    from leaderboard_ci.phase.analysis import analyze

    rng = np.random.default_rng(0)
    y = np.where(rng.random(300) < 0.4, "pos", "neg")
    truth = (y == "pos").astype(float)
    systems = {
        "good": truth + rng.normal(0, 0.6, 300),
        "weak": truth + rng.normal(0, 1.5, 300),
        "noise": rng.normal(size=300),
    }
    result = analyze(list(y), systems, metric="roc_auc", extra_metrics=["average_precision"], n_resamples=300, seed=1)
    assert result is not None


def test_ranking_analyze_on_the_in_memory_runs():
    from leaderboard_ci.phase.analysis import Execution, analyze

    qrels = _read_qrels()
    runs = dict((os.path.basename(p)[:-4], _read_run(p)) for p in _submissions("ranking"))
    runs["bm25_again"] = runs["bm25"]
    fast = SPECS["ranking"].scoring_resamples
    result = analyze(
        list(qrels.items()),
        runs,
        metric="ndcg@10",
        extra_metrics=["map", "p@10"],
        n_resamples=fast,
        test="permutation",
        n_permutations=fast,
        execution=Execution(n_jobs=1),
    )
    table = result.official.systems.set_index("name")
    assert table.loc["bm25", "score"] == table.loc["bm25_again", "score"]
    assert table.loc["bm25", "score"] > table.loc["random", "score"]
    pairs = result.official.pairs
    same = pairs[
        ((pairs["a"] == "bm25") & (pairs["b"] == "bm25_again"))
        | ((pairs["a"] == "bm25_again") & (pairs["b"] == "bm25"))
    ]
    assert len(same) == 1 and same["p_value"].iloc[0] == 1.0 and same["p_permutation"].iloc[0] == 1.0
    differs = pairs[(pairs["a"] == "bm25") & (pairs["b"] == "random")]
    assert differs["p_permutation"].iloc[0] < 0.01
