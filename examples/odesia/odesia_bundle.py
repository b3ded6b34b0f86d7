"""Any of the ODESIA example's 10 core tasks, in English or Spanish, as its own Codabench competition folder.

    python3 examples/odesia/make_odesia.py --bundle exist_2023_t2 --lang es --out odesia_exist_2023_t2_es
    leaderboard-ci bundle odesia_exist_2023_t2_es      # builds odesia_exist_2023_t2_es_bundle.zip, checks it

Nothing is checked in per task: the folder is generated from the test set under ``en/`` or
``es/`` (its gold, its ``config.yaml``, its six systems and its baseline) by the repository's
own scaffold (``leaderboard-ci init``: leaderboard columns from the keys the program writes,
the drop-in scoring program, logo, starting kit), then given the campaign's pages: the task,
its official metric, the participants' file format.  The config is the benchmark's (same task
type, same metrics, same B) plus the participants' file name, the baseline and a fixed seed,
so a bundle's leaderboard scores are the benchmark table's cells.  The six systems and the
non-linguistic baseline become the sample submissions, zipped as participants would.
"""

import argparse
import io
import json
import os
import re
import shutil
import sys
import tempfile

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
LANGUAGE_NAMES = {"en": "English", "es": "Spanish"}
START = "2025-01-01 00:00:00"
BOOTSTRAP = {"n_resamples": 1000, "confidence_level": 0.95, "method": "percentile", "seed": 12345}

_PYEVALL = "PyEvALL 0.2.11's definition, re-implemented and checked against it to 1e-9"
_DIPROMATS_RUN = (
    "PyEvALL's / DIPROMATS 2023's run format: a JSON list with one record per test tweet, "
    '`{"test_case": "DIPROMATS2023", "id": ..., "value": ...}`, in any order.'
)
_EXIST23_RUN = (
    "EXIST 2023's soft run format (PyEvALL's): a JSON list with one record per test tweet, "
    '`{"test_case": "EXIST2023", "id": ..., "value": {label: probability, ...}}`, in any order.'
)

#: What the campaign calls the task, its official metric, and the participants' format.
CAMPAIGNS = {
    "diann_2023": {
        "title": "DIANN 2023: disability mentions",
        "campaign": "DIANN 2023 (IberLEF 2023)",
        "goal": "Find the mentions of disabilities in biomedical sentences (entity type DIS).",
        "official": "macro F1 over entity types, as ODESIA computes it (Hugging Face `evaluate`'s seqeval "
        "adaptation: the mean over entity types of seqeval's per-type F1, strict IOB2 spans)",
        "prediction": "predictions.conll",
        "format": "CoNLL: one token per line, `token<TAB>tag`, a blank line between sentences, the test "
        "sentences' tokens in their order; tags in IOB2 (`B-DIS`, `I-DIS`, `O`).",
        "baseline": ("baseline_no_entity", "no entity (every token O)"),
        "items": "sentences",
    },
    "dipromats_2023_t1": {
        "title": "DIPROMATS 2023 task 1: propaganda identification",
        "campaign": "DIPROMATS 2023 (IberLEF 2023), task 1",
        "goal": "Say whether each diplomats' tweet uses propaganda techniques (binary).",
        "official": "ICM-Norm, the normalized information contrast model (%s)" % _PYEVALL,
        "prediction": "run.json",
        "format": _DIPROMATS_RUN + ' The value is `"true"` (propaganda) or `"false"`.',
        "baseline": ("baseline_majority", "majority class (false)"),
        "items": "tweets",
    },
    "dipromats_2023_t2": {
        "title": "DIPROMATS 2023 task 2: coarse propaganda techniques",
        "campaign": "DIPROMATS 2023 (IberLEF 2023), task 2",
        "goal": "Give the propaganda techniques (4 coarse groups, multi-label) each tweet uses.",
        "official": "ICM-Norm over the techniques' tree, hard multi-label (%s)" % _PYEVALL,
        "prediction": "run.json",
        "format": _DIPROMATS_RUN + ' The value is a list of techniques, or `["false"]` for no propaganda.',
        "baseline": ("baseline_majority", 'majority class (["false"])'),
        "items": "tweets",
    },
    "dipromats_2023_t3": {
        "title": "DIPROMATS 2023 task 3: fine propaganda techniques",
        "campaign": "DIPROMATS 2023 (IberLEF 2023), task 3",
        "goal": "Give the propaganda techniques (15 fine techniques under the 4 groups, multi-label) each tweet uses.",
        "official": "ICM-Norm over the techniques' tree, hard multi-label (%s)" % _PYEVALL,
        "prediction": "run.json",
        "format": _DIPROMATS_RUN + ' The value is a list of techniques, or `["false"]` for no propaganda.',
        "baseline": ("baseline_majority", 'majority class (["false"])'),
        "items": "tweets",
    },
    "exist_2022_t1": {
        "title": "EXIST 2022 task 1: sexism identification",
        "campaign": "EXIST 2022 (IberLEF 2022), task 1",
        "goal": "Say whether each tweet is sexist or not.",
        "official": "accuracy",
        "prediction": "run.tsv",
        "format": "EXIST 2022's run format: a TSV file with the header `test_case<TAB>id<TAB>label` and "
        "one row per test tweet, `EXIST2022<TAB>id<TAB>label`; the label is `sexist` or `non-sexist`.",
        "baseline": ("baseline_majority", "majority class (non-sexist)"),
        "items": "tweets",
    },
    "exist_2022_t2": {
        "title": "EXIST 2022 task 2: sexism categorization",
        "campaign": "EXIST 2022 (IberLEF 2022), task 2",
        "goal": "Give the type of sexism of each tweet (5 categories, or non-sexist).",
        "official": "macro F1 over the 6 classes",
        "prediction": "run.tsv",
        "format": "EXIST 2022's run format: a TSV file with the header `test_case<TAB>id<TAB>label` and "
        "one row per test tweet, `EXIST2022<TAB>id<TAB>label`; the label is one of the 6 classes.",
        "baseline": ("baseline_majority", "majority class (non-sexist)"),
        "items": "tweets",
    },
    "exist_2023_t1": {
        "title": "EXIST 2023 task 1: sexism identification (soft)",
        "campaign": "EXIST 2023 (CLEF 2023), task 1, soft evaluation",
        "goal": "Give the probability of YES (sexist) and NO for each tweet, learning with disagreement: the "
        "gold is the share of six annotators who gave each label.",
        "official": "ICM-Soft-Norm (%s)" % _PYEVALL,
        "prediction": "run.json",
        "format": _EXIST23_RUN + " The labels are `YES` and `NO`.",
        "baseline": ("baseline_prior", "prior distribution"),
        "items": "tweets",
    },
    "exist_2023_t2": {
        "title": "EXIST 2023 task 2: source intention (soft)",
        "campaign": "EXIST 2023 (CLEF 2023), task 2, soft evaluation",
        "goal": "Give the probability of each intention (NO, DIRECT, REPORTED, JUDGEMENTAL) for each tweet, "
        "learning with disagreement: the gold is the share of six annotators who gave each label.",
        "official": "ICM-Soft-Norm (%s)" % _PYEVALL,
        "prediction": "run.json",
        "format": _EXIST23_RUN + " The labels are `NO`, `DIRECT`, `REPORTED` and `JUDGEMENTAL`.",
        "baseline": ("baseline_prior", "prior distribution"),
        "items": "tweets",
    },
    "exist_2023_t3": {
        "title": "EXIST 2023 task 3: sexism categorization (soft)",
        "campaign": "EXIST 2023 (CLEF 2023), task 3, soft evaluation",
        "goal": "Give the probability of each sexism category (multi-label) for each tweet, learning with "
        "disagreement: the gold is the share of six annotators who gave each label.",
        "official": "ICM-Soft-Norm (%s)" % _PYEVALL,
        "prediction": "run.json",
        "format": _EXIST23_RUN + " The labels are `NO` and the 5 categories; the probabilities of one tweet "
        "need not sum to 1 (multi-label).",
        "baseline": ("baseline_prior", "prior distribution"),
        "items": "tweets",
    },
    "sqac_squad_2024": {
        "title": "SQuAD / SQAC 2024: extractive question answering",
        "campaign": "SQuAD v1.1 (English) / SQAC (Spanish), ODESIA 2024",
        "goal": "Answer each question with a span of its paragraph.",
        "official": "token F1 (the SQuAD v1.1 evaluation script's, with {lang} answer normalization)",
        "prediction": "predictions.json",
        "format": "SQuAD v1.1's prediction format: one JSON object `{question id: answer text, ...}`.",
        "baseline": ("baseline_first_words", "the first three words of the paragraph"),
        "items": "questions",
    },
}
TASKS = tuple(CAMPAIGNS)


def _import_leaderboard_ci():
    """The package, from the installed distribution or from this repository's scoring_program/."""
    try:
        import leaderboard_ci  # noqa: F401
    except ImportError:
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "scoring_program"))
    from leaderboard_ci.tools import bundle, scaffold

    return bundle, scaffold


def _read(path):
    with io.open(path, encoding="utf-8") as handle:
        return handle.read()


def _write(path, text):
    folder = os.path.dirname(path)
    if not os.path.isdir(folder):
        os.makedirs(folder)
    with io.open(path, "w", encoding="utf-8", newline="\n") as handle:
        handle.write(text)


def _source(task, language):
    folder = os.path.join(HERE, language, task)
    reference = os.path.join(folder, "reference_data")
    gold = [n for n in sorted(os.listdir(reference)) if n.startswith("gold.")][0]
    return folder, reference, gold


def bundle_config(task, language):
    """The task's benchmark config, plus the participants' file name, the baseline and a fixed seed."""
    _, reference, _ = _source(task, language)
    with io.open(os.path.join(reference, "config.yaml"), encoding="utf-8") as handle:
        config = yaml.safe_load(handle)
    info = CAMPAIGNS[task]
    stem, name = info["baseline"]
    baseline = [n for n in os.listdir(reference) if n.startswith(stem + ".")][0]
    config["files"] = dict(config["files"], predictions=info["prediction"])
    config["baseline"] = {"file": baseline, "name": name}
    config["bootstrap"] = dict(BOOTSTRAP, n_resamples=config.get("bootstrap", {}).get("n_resamples", 1000))
    return config, os.path.join(reference, baseline)


def _pages(task, language, init_pages, n_items, metric_titles):
    info = CAMPAIGNS[task]
    official = info["official"].format(lang=LANGUAGE_NAMES[language])
    title = "%s (%s)" % (info["title"], LANGUAGE_NAMES[language])
    overview = (
        "# %s\n\n**%s.** %s\n\nThe official metric is **%s**; the leaderboard ranks by it (`%s`) and shows "
        "every score with its 95%% bootstrap confidence interval, so you can see which differences between "
        "submissions are real and which are ties, and how far each submission is above the non-linguistic "
        "baseline (%s).\n\nThis is one task of the ODESIA leaderboard's core set "
        "(https://leaderboard.odesia.uned.es), from the leaderboard-ci ODESIA example: the %d test %s are "
        "**synthetic**, written in the campaign's file format by `examples/odesia/make_odesia.py`, and the "
        "sample submissions are six simulated systems. See the Data page for the format, the Evaluation page "
        "for the scores and the Terms page for the rules.\n"
        % (
            title,
            info["campaign"],
            info["goal"],
            official,
            metric_titles[0],
            info["baseline"][1],
            n_items,
            info["items"],
        )
    )
    evaluation = init_pages["evaluation.md"]
    head, rest = evaluation.split("## The scores", 1)
    evaluation = (
        "# Evaluation\n\n## What you submit\n\nA zip file holding one file, `%s` (any name works when it is the "
        "only file in the zip), in the campaign's format:\n%s\n\nAny mistake in the file is reported in the "
        "submission's error log in one sentence naming the line, and the submission is not scored. The "
        "starting kit holds the baseline's run in this format.\n\n## The official metric\n\n%s: **%s**. The "
        "other columns are the benchmark's secondary metrics.\n\n## The scores%s"
        % (info["prediction"], info["format"], info["campaign"], official, rest)
    )
    data = (
        "# Data\n\n%s\n\n* **Public data** (`public_data.zip`): what you predict from. The items are synthetic "
        "(made-up tokens, or only ids where the campaign's input is a tweet).\n"
        "* **Starting kit** (`starting_kit.zip`): `%s`, the baseline's run (%s) in the campaign's format, and a "
        "README. Zip your own file the same way:\n\n      zip submission.zip %s\n\n"
        "The test set has %d %s (%s); the gold stays private (only the scoring program sees it).\n"
        % (
            info["format"],
            info["prediction"],
            info["baseline"][1],
            info["prediction"],
            n_items,
            info["items"],
            LANGUAGE_NAMES[language],
        )
    )
    terms = init_pages["terms.md"].rstrip("\n") + (
        "\n\nThe data are synthetic (leaderboard-ci's ODESIA example) and free to use; they say nothing about "
        "real systems.\n"
    )
    return {"overview.md": overview, "evaluation.md": evaluation, "data.md": data, "terms.md": terms}


def _public_inputs(task, reference, gold):
    """What participants predict from, where the synthetic test set has more than ids."""
    if task == "diann_2023":
        sentences = _read(os.path.join(reference, gold)).strip("\n").split("\n\n")
        tokens = ["\n".join(line.split("\t")[0] for line in s.split("\n")) for s in sentences]
        return {"test.conll": "\n\n".join(tokens) + "\n"}
    if task == "sqac_squad_2024":
        data = json.loads(_read(os.path.join(reference, gold)))
        for article in data["data"]:
            for paragraph in article["paragraphs"]:
                for qa in paragraph["qas"]:
                    qa.pop("answers", None)
        return {"test.json": json.dumps(data, ensure_ascii=False) + "\n"}
    return {}


def build_folder(task, language, out):
    """Write the competition folder ``out`` (absent or empty) for one task and language; returns ``out``."""
    if task not in CAMPAIGNS:
        raise SystemExit("unknown task %r: one of %s" % (task, ", ".join(TASKS)))
    if language not in LANGUAGE_NAMES:
        raise SystemExit("unknown language %r: en or es" % language)
    bundle, scaffold = _import_leaderboard_ci()
    folder, reference, gold = _source(task, language)
    info = CAMPAIGNS[task]
    config, baseline = bundle_config(task, language)
    staging = tempfile.mkdtemp(prefix="odesia-bundle-")
    try:
        config_path = os.path.join(staging, "config.yaml")
        _write(
            config_path,
            "# %s (%s), ODESIA example: the benchmark's config (../%s/%s/reference_data/config.yaml) plus the "
            "participants' file, the baseline and a fixed seed. Written by make_odesia.py --bundle.\n"
            % (task, language, language, task)
            + yaml.safe_dump(config, sort_keys=False, allow_unicode=True, default_flow_style=None),
        )
        title = "%s (%s)" % (info["title"], LANGUAGE_NAMES[language])
        try:
            scaffold.init_competition(out, os.path.join(reference, gold), config_path, baseline=baseline, title=title)
        except scaffold.SetupError as exc:
            raise SystemExit("make_odesia.py --bundle: %s" % exc)
    finally:
        shutil.rmtree(staging, ignore_errors=True)

    competition_path = os.path.join(out, "competition.yaml")
    with io.open(competition_path, encoding="utf-8") as handle:
        competition = yaml.safe_load(handle)
    columns = competition["leaderboards"][0]["columns"]
    n_items = int(
        re.search(r"\d+", competition["tasks"][0]["description"]).group()
    )  # init's "Predict each of the N ..."
    official = info["official"].format(lang=LANGUAGE_NAMES[language])
    competition["description"] = "%s The official metric: %s, with its 95%% bootstrap confidence interval." % (
        info["goal"],
        official.split(" (")[0],
    )
    competition["tasks"][0]["description"] = "Predict each of the %d test %s (%s)." % (
        n_items,
        info["items"],
        LANGUAGE_NAMES[language],
    )
    phase = competition["phases"][0]
    phase["start"] = START
    phase["description"] = "Submit %s in the campaign's format, zipped. Scored with %s, with intervals." % (
        info["prediction"],
        official.split(" (")[0],
    )
    _write(
        competition_path,
        "# Codabench v2 bundle of the ODESIA example's %s (%s), written by make_odesia.py --bundle.\n"
        "# Build and check the uploadable zip with:  leaderboard-ci bundle %s\n"
        % (task, language, os.path.basename(os.path.abspath(out)))
        + yaml.safe_dump(competition, sort_keys=False, allow_unicode=True, default_flow_style=False),
    )

    init_pages = dict(
        (name, _read(os.path.join(out, "pages", name))) for name in os.listdir(os.path.join(out, "pages"))
    )
    titles = [c["title"] for c in columns]
    for name, text in _pages(task, language, init_pages, n_items, titles).items():
        _write(os.path.join(out, "pages", name), text)

    for name, text in _public_inputs(task, reference, gold).items():
        _write(os.path.join(out, "public_data", name), text)

    kit = os.path.join(out, "starting_kit")
    shutil.rmtree(kit)
    os.makedirs(kit)
    shutil.copy(baseline, os.path.join(kit, info["prediction"]))
    _write(
        os.path.join(kit, "README.md"),
        "# Starting kit: %s\n\n`%s` is the non-linguistic baseline's run (%s), in the campaign's format:\n\n%s\n\n"
        "Put your predictions in a file of the same format and zip it alone:\n\n    zip submission.zip %s\n\n"
        "then upload `submission.zip` on the My Submissions page.\n"
        % (title, info["prediction"], info["baseline"][1], info["format"], info["prediction"]),
    )

    samples = os.path.join(out, "sample_submissions")
    shutil.rmtree(samples)
    runs = [(info["baseline"][0], baseline)] + [
        (os.path.splitext(n)[0], os.path.join(folder, "submissions", n))
        for n in sorted(os.listdir(os.path.join(folder, "submissions")))
    ]
    for name, path in runs:
        with open(path, "rb") as handle:
            bundle.write_zip(os.path.join(samples, name + ".zip"), {info["prediction"]: handle.read()})

    _write(
        os.path.join(out, "README.md"),
        "# %s\n\nThe ODESIA example's %s test set (%s) as a Codabench competition, written by "
        "`examples/odesia/make_odesia.py --bundle %s --lang %s`.\n\n"
        "    leaderboard-ci bundle %s      # build the uploadable zip and check it (0 problems)\n\n"
        "then upload the zip on Codabench (Benchmarks > Management > Upload). `sample_submissions/` holds the "
        "baseline and the six systems in the participants' format; `reference_data/config.yaml` and "
        "`scoring_program/config.yaml` are the same file.\n"
        % (title, task, LANGUAGE_NAMES[language], task, language, os.path.basename(os.path.abspath(out))),
    )
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="make_odesia.py --bundle",
        description="Write one ODESIA task, in one language, as a Codabench competition folder; "
        "then build and check its zip with: leaderboard-ci bundle DIR",
    )
    parser.add_argument("--bundle", required=True, metavar="TASK", choices=TASKS, help="one of: " + ", ".join(TASKS))
    parser.add_argument("--lang", default="en", choices=sorted(LANGUAGE_NAMES), help="the test set's language")
    parser.add_argument("--out", metavar="DIR", help="the new folder (absent or empty; default: odesia_TASK_LANG)")
    args = parser.parse_args(argv)
    out = args.out or "odesia_%s_%s" % (args.bundle, args.lang)
    build_folder(args.bundle, args.lang, out)
    sys.stdout.write("wrote %s\nnext: leaderboard-ci bundle %s\n" % (out, out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
