"""Build the ODESIA example: its 10 core tasks in English and Spanish, synthetic data in each campaign's file format.

    python3 examples/odesia/make_odesia.py      # rewrites examples/odesia/{en,es}/ and benchmark.yaml
    python3 examples/odesia/make_odesia.py --bundle TASK --lang en|es --out DIR   # one task as a Codabench folder

The tasks of the ODESIA leaderboard (https://leaderboard.odesia.uned.es) and their official
formats: DIANN 2023 (disability mentions, CoNLL IOB2, macro F1 over entity types), DIPROMATS
2023 tasks 1-3 (propaganda: binary, 4 coarse and 15 fine techniques under them, PyEvALL JSON,
ICM-Norm), EXIST 2022 tasks 1-2 (sexism: binary and 6 classes, TSV, accuracy and macro F1),
EXIST 2023 tasks 1-3 (learning with disagreement: six annotators' label shares, PyEvALL JSON,
ICM-Soft-Norm) and SQuAD / SQAC 2024 (extractive QA, SQuAD v1.1 JSON, token F1).  The texts
are not real: items are synthetic, labels are drawn from fixed distributions, and six systems
(the same names in every task) are noisy copies of the gold whose quality is a property of
the system and the language (Spanish a little harder: the gap table has something to show).
Each task has one non-linguistic baseline (majority class, prior distribution, no entity,
the first words of the context).  Deterministic: fixed seeds.
"""

import json
import os
import shutil

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
LANGUAGES = ("en", "es")
N_ITEMS = 240
#: Quality of each system (the probability of getting an item right, roughly); Spanish is 0.05 lower.
SYSTEMS = {
    "mdeberta_v3": 0.86,
    "xlm_roberta_large": 0.82,
    "roberta_bne": 0.78,
    "bert_base": 0.72,
    "distilbert": 0.66,
    "bilstm_crf": 0.58,
}
SPANISH_PENALTY = 0.05

COARSE = {
    "1 appeal to commonality": ["1 ad populum", "1 flag waving"],
    "2 discrediting the opponent": [
        "2 absurdity appeal",
        "2 demonization",
        "2 doubt",
        "2 fear appeals (destructive)",
        "2 name calling",
        "2 propaganda slinging",
        "2 scapegoating",
        "2 undiplomatic assertiveness/whataboutism",
    ],
    "3 loaded language": ["3 loaded language"],
    "4 appeal to authority": ["4 appeal to false authority", "4 bandwagoning", "4 non-sequitur", "4 authority"],
}
FINE = [fine for children in COARSE.values() for fine in children]
EXIST22_T2 = (
    "ideological-inequality",
    "stereotyping-dominance",
    "objectification",
    "sexual-violence",
    "misogyny-non-sexual-violence",
    "non-sexist",
)
EXIST23_T2 = ("NO", "DIRECT", "REPORTED", "JUDGEMENTAL")
EXIST23_T3 = (
    "NO",
    "IDEOLOGICAL-INEQUALITY",
    "STEREOTYPING-DOMINANCE",
    "OBJECTIFICATION",
    "SEXUAL-VIOLENCE",
    "MISOGYNY-NON-SEXUAL-VIOLENCE",
)
WORDS = {
    "en": "the city river prize year university born capital president team league museum painter novel war".split(),
    "es": "la ciudad río premio año universidad nació capital presidente equipo liga museo pintor novela".split(),
}


def _quality(system, language):
    return SYSTEMS[system] - (SPANISH_PENALTY if language == "es" else 0.0)


def _write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)


def _json(path, value):
    """One record (list) or one item (object) per line, so that messages name a useful line."""
    if isinstance(value, list):
        text = "[\n" + ",\n".join(json.dumps(v, ensure_ascii=False) for v in value) + "\n]\n"
    elif "data" in value:
        text = json.dumps(value, ensure_ascii=False) + "\n"
    else:
        text = (
            "{\n"
            + ",\n".join("%s: %s" % (json.dumps(k), json.dumps(v, ensure_ascii=False)) for k, v in value.items())
            + "\n}\n"
        )
    _write(path, text)


def _records(campaign, ids, values):
    """PyEvALL's / the EXIST and DIPROMATS run format."""
    return [{"test_case": campaign, "id": i, "value": v} for i, v in zip(ids, values)]


# ---------------------------------------------------------------------------
# The tasks: each writes gold, config, the systems' runs and its baseline
# ---------------------------------------------------------------------------
def diann(rng, language, folder):
    def sentence():
        n_words = rng.randint(6, 14)
        tokens = [WORDS[language][rng.randint(len(WORDS[language]))] for _ in range(n_words)]
        tags = ["O"] * n_words
        for _ in range(rng.randint(0, 3)):
            start = rng.randint(n_words)
            length = min(rng.randint(1, 4), n_words - start)
            if all(t == "O" for t in tags[start : start + length]):
                tags[start : start + length] = ["B-DIS"] + ["I-DIS"] * (length - 1)
        return tokens, tags

    gold = [sentence() for _ in range(N_ITEMS)]

    def conll(sentences):
        return "\n\n".join("\n".join("%s\t%s" % pair for pair in zip(t, g)) for t, g in sentences) + "\n"

    def system(q):
        out = []
        for tokens, tags in gold:
            pred = list(tags)
            for k, tag in enumerate(tags):
                if tag == "B-DIS" and rng.rand() > q:  # a missed or truncated mention
                    pred[k] = "O"
                    j = k + 1
                    while j < len(tags) and tags[j] == "I-DIS":
                        pred[j] = "O" if rng.rand() < 0.5 else "B-DIS"
                        j += 1
                elif tag == "O" and rng.rand() < (1 - q) * 0.1:
                    pred[k] = "B-DIS"
            for k in range(len(pred)):  # an I- after O opens a mention
                if pred[k] == "I-DIS" and (k == 0 or pred[k - 1] == "O"):
                    pred[k] = "B-DIS"
            out.append((tokens, pred))
        return out

    _write(os.path.join(folder, "reference_data", "gold.conll"), conll(gold))
    _write(
        os.path.join(folder, "reference_data", "baseline_no_entity.conll"),
        conll([(t, ["O"] * len(t)) for t, _ in gold]),
    )
    for name in SYSTEMS:
        _write(os.path.join(folder, "submissions", name + ".conll"), conll(system(_quality(name, language))))
    return ("task: sequence\nscheme: IOB2\nmetric: f1_macro\nextra_metrics: [f1_micro]\nfiles: {gold: gold.conll}\n"), [
        "baseline_no_entity.conll"
    ]


def _mono(rng, labels, prior, q):
    """A system's label per gold label: right with probability q, else another label."""

    def run(gold):
        out = []
        for g in gold:
            if rng.rand() < q:
                out.append(g)
            else:
                out.append(labels[rng.choice(len(labels), p=prior)])
        return out

    return run


def dipromats(rng, language, folder, level):
    ids = ["%s%05d" % (language, i) for i in range(N_ITEMS)]
    propaganda = rng.rand(N_ITEMS) < 0.3
    gold = []
    for is_prop in propaganda:
        if level == 1:
            gold.append("true" if is_prop else "false")
            continue
        if not is_prop:
            gold.append(["false"])
            continue
        fine = sorted(set(FINE[k] for k in rng.choice(len(FINE), size=rng.randint(1, 3))))
        gold.append(fine if level == 3 else sorted(set(c for c, kids in COARSE.items() for f in fine if f in kids)))
    labels = ["true", "false"] if level == 1 else ["false"] + (list(COARSE) if level == 2 else FINE)

    def system(q):
        out = []
        for g in gold:
            if level == 1:
                out.append(g if rng.rand() < q else ("false" if g == "true" else "true"))
                continue
            chosen = set(g)
            if rng.rand() > q:
                chosen = (
                    set([labels[rng.randint(len(labels))]])
                    if rng.rand() < 0.5
                    else chosen | set([labels[rng.randint(1, len(labels))]])
                )
            if len(chosen) > 1:
                chosen.discard("false")
            out.append(sorted(chosen))
        return out

    campaign = "DIPROMATS2023"
    _json(os.path.join(folder, "reference_data", "gold.json"), _records(campaign, ids, gold))
    base = "false" if level == 1 else ["false"]
    _json(os.path.join(folder, "reference_data", "baseline_majority.json"), _records(campaign, ids, [base] * N_ITEMS))
    for name in SYSTEMS:
        _json(
            os.path.join(folder, "submissions", name + ".json"),
            _records(campaign, ids, system(_quality(name, language))),
        )
    config = "task: soft_labels\nlabels: %s\n" % json.dumps(labels, ensure_ascii=False)
    if level == 1:
        config += "metric: icm_norm\nextra_metrics: [f1, icm]\n"
    else:
        tree = (
            dict((c, "true") for c in COARSE)
            if level == 2
            else dict((f, c) for c, kids in COARSE.items() for f in kids)
        )
        if level == 3:
            tree.update((c, "true") for c in COARSE)
        config += "hard_labels: multi\nhierarchy: %s\nmetric: icm_norm\nextra_metrics: [f1, icm]\n" % json.dumps(
            tree, ensure_ascii=False
        )
    return config + "files: {gold: gold.json}\n", ["baseline_majority.json"]


def exist2022(rng, language, folder, task):
    labels = ("sexist", "non-sexist") if task == 1 else EXIST22_T2
    prior = np.array([0.45, 0.55]) if task == 1 else np.array([0.1, 0.1, 0.08, 0.07, 0.1, 0.55])
    ids = ["%06d" % (400000 + i) for i in range(N_ITEMS)]
    gold = [labels[k] for k in rng.choice(len(labels), size=N_ITEMS, p=prior)]

    def tsv(values, column="label"):
        return "test_case\tid\t%s\n" % column + "".join("EXIST2022\t%s\t%s\n" % (i, v) for i, v in zip(ids, values))

    _write(os.path.join(folder, "reference_data", "gold.tsv"), tsv(gold))
    majority = labels[int(np.argmax(prior))]
    _write(os.path.join(folder, "reference_data", "baseline_majority.tsv"), tsv([majority] * N_ITEMS))
    for name in SYSTEMS:
        _write(
            os.path.join(folder, "submissions", name + ".tsv"),
            tsv(_mono(rng, labels, prior, _quality(name, language))(gold)),
        )
    metric = (
        "metric: accuracy\nextra_metrics: [f1_macro]\n"
        if task == 1
        else "metric: f1_macro\nextra_metrics: [accuracy]\n"
    )
    return (
        "task: classification\nlabels: %s\n%sfiles: {gold: gold.tsv, format: tsv, gold_column: label}\n"
        % (json.dumps(list(labels)), metric)
    ), ["baseline_majority.tsv"]


def exist2023(rng, language, folder, task):
    labels = ("YES", "NO") if task == 1 else EXIST23_T2 if task == 2 else EXIST23_T3
    skew = rng.dirichlet(np.ones(len(labels)) * 4.0)
    ids = ["%06d" % (200000 + i) for i in range(N_ITEMS)]
    gold = []
    categories = list(labels[1:])
    category_skew = skew[1:] / skew[1:].sum()
    for _ in ids:
        if task == 3:  # as EXIST's annotators: NO alone, or one to three sexism categories
            no_rate = rng.choice([0.2, 0.5, 0.8])
            votes = [
                {"NO"}
                if rng.rand() < no_rate
                else set(rng.choice(categories, size=rng.randint(1, 4), replace=False, p=category_skew))
                for _ in range(6)
            ]
            shares = dict((label, sum(label in v for v in votes) / 6.0) for label in labels)
        else:
            votes = list(rng.choice(labels, size=6, p=skew))
            shares = dict((label, votes.count(label) / 6.0) for label in labels)
        gold.append(shares)
    truth = np.array([[g[label] for label in labels] for g in gold])

    def system(q):
        noise = rng.dirichlet(np.ones(len(labels)), size=N_ITEMS)
        mix = q * truth + (1 - q) * noise
        if task != 3:
            mix = mix / mix.sum(axis=1, keepdims=True)
        return [dict((label, round(float(v), 4)) for label, v in zip(labels, row)) for row in mix]

    campaign = "EXIST2023"
    _json(os.path.join(folder, "reference_data", "gold.json"), _records(campaign, ids, gold))
    prior = truth.mean(axis=0)
    base = dict((label, round(float(v), 4)) for label, v in zip(labels, prior))
    _json(os.path.join(folder, "reference_data", "baseline_prior.json"), _records(campaign, ids, [base] * N_ITEMS))
    for name in SYSTEMS:
        _json(
            os.path.join(folder, "submissions", name + ".json"),
            _records(campaign, ids, system(_quality(name, language))),
        )
    # EXIST's hard gold: more than 3, 2 and 1 of the six annotators; in task 3 a majority of NO gives only NO
    threshold = {1: "1/2", 2: "1/3", 3: '1/6\nhard_exclusive: "NO"'}[task]  # quoted: bare NO is YAML's false
    return (
        "task: soft_labels\nlabels: %s\nhard_labels: %s\nhard_threshold: %s\n%s"
        "metric: icm_soft_norm\nextra_metrics: [icm_soft, cross_entropy, icm_norm, f1]\nfiles: {gold: gold.json}\n"
        % (json.dumps(list(labels)), "multi" if task == 3 else "mono", threshold, _exist2023_tree(task, labels))
    ), ["baseline_prior.json"]


def _exist2023_tree(task, labels):
    """EXIST 2023 tasks 2 and 3 are hierarchical: every sexism category under YES (quoted: bare YES is a boolean)."""
    if task == 1:
        return ""
    return "hierarchy: %s\n" % json.dumps(dict((label, "YES") for label in labels if label != "NO"))


def squad(rng, language, folder):
    words = WORDS[language]
    paragraphs, answers = [], {}
    for p in range(N_ITEMS // 3):
        context = " ".join(words[rng.randint(len(words))] for _ in range(40))
        tokens = context.split()
        qas = []
        for q in range(3):
            start = rng.randint(0, 35)
            text = " ".join(tokens[start : start + rng.randint(1, 4)])
            ident = "%s-%03d-%d" % (language, p, q)
            qas.append({"id": ident, "question": "?", "answers": [{"text": text, "answer_start": context.find(text)}]})
            answers[ident] = (text, tokens)
        paragraphs.append({"context": context, "qas": qas})
    data = {"version": "1.1", "data": [{"title": "synthetic", "paragraphs": paragraphs}]}
    _json(os.path.join(folder, "reference_data", "gold.json"), data)
    _json(
        os.path.join(folder, "reference_data", "baseline_first_words.json"),
        dict((i, " ".join(t[:3])) for i, (_, t) in answers.items()),
    )

    def system(q):
        out = {}
        for ident, (text, tokens) in answers.items():
            if rng.rand() < q:
                out[ident] = text
            else:
                start = rng.randint(0, 35)
                out[ident] = " ".join(tokens[start : start + rng.randint(1, 5)])
        return out

    for name in SYSTEMS:
        _json(os.path.join(folder, "submissions", name + ".json"), system(_quality(name, language)))
    return (
        "task: qa\nnormalization: %s\nmetric: f1\nextra_metrics: [exact_match]\nfiles: {gold: gold.json}\n" % language
    ), ["baseline_first_words.json"]


TASKS = [
    ("diann_2023", lambda rng, lang, folder: diann(rng, lang, folder)),
    ("dipromats_2023_t1", lambda rng, lang, folder: dipromats(rng, lang, folder, 1)),
    ("dipromats_2023_t2", lambda rng, lang, folder: dipromats(rng, lang, folder, 2)),
    ("dipromats_2023_t3", lambda rng, lang, folder: dipromats(rng, lang, folder, 3)),
    ("exist_2022_t1", lambda rng, lang, folder: exist2022(rng, lang, folder, 1)),
    ("exist_2022_t2", lambda rng, lang, folder: exist2022(rng, lang, folder, 2)),
    ("exist_2023_t1", lambda rng, lang, folder: exist2023(rng, lang, folder, 1)),
    ("exist_2023_t2", lambda rng, lang, folder: exist2023(rng, lang, folder, 2)),
    ("exist_2023_t3", lambda rng, lang, folder: exist2023(rng, lang, folder, 3)),
    ("sqac_squad_2024", lambda rng, lang, folder: squad(rng, lang, folder)),
]


def main():
    entries = []
    for language in LANGUAGES:
        shutil.rmtree(os.path.join(HERE, language), ignore_errors=True)
    for t, (name, build) in enumerate(TASKS):
        for language in LANGUAGES:
            rng = np.random.RandomState(1000 * t + LANGUAGES.index(language))
            folder = os.path.join(HERE, language, name)
            config, baselines = build(rng, language, folder)
            _write(
                os.path.join(folder, "reference_data", "config.yaml"),
                "# %s (%s), synthetic data in the campaign's format: see ../../../make_odesia.py\n%s"
                "bootstrap: {n_resamples: 1000}\n" % (name, language, config),
            )
            entries.append(
                "  - name: %s\n    language: %s\n    reference: %s/%s/reference_data\n"
                "    submissions: %s/%s/submissions\n    baselines: [%s]\n"
                % (name, language, language, name, language, name, ", ".join(baselines))
            )
    _write(
        os.path.join(HERE, "benchmark.yaml"),
        "# The ODESIA example: generated by make_odesia.py (see README.md).\n"
        "title: ODESIA core tasks (synthetic data in the campaigns' formats)\n"
        "seed: 12345\nn_resamples: 1000\ncritical_difference: {test: nemenyi, alpha: 0.05}\ntasks:\n"
        + "".join(entries),
    )


COMPETITION_KEYS = ("icm_soft_norm", "icm_soft", "cross_entropy")


def competition():
    """EXIST 2023 task 1 (English) as a Codabench competition: reference_data/ and sample_submissions/ here."""
    import zipfile

    source = os.path.join(HERE, "en", "exist_2023_t1")
    reference = os.path.join(HERE, "reference_data")
    shutil.rmtree(reference, ignore_errors=True)
    os.makedirs(reference)
    shutil.copy(os.path.join(source, "reference_data", "gold.json"), reference)
    shutil.copy(os.path.join(source, "reference_data", "baseline_prior.json"), reference)
    _write(
        os.path.join(reference, "config.yaml"),
        "# EXIST 2023 task 1 (sexism identification, learning with disagreement), synthetic: see ../make_odesia.py\n"
        'task: soft_labels\nlabels: ["YES", "NO"]\nhard_labels: mono\nhard_threshold: 0.5\n'
        "metric: icm_soft_norm\nextra_metrics: [icm_soft, cross_entropy]\n"
        "files: {gold: gold.json, predictions: run.json}\n"
        "baseline: {file: baseline_prior.json, name: prior distribution}\n"
        "bootstrap: {n_resamples: 2000, confidence_level: 0.95, method: percentile, seed: 12345}\n",
    )
    samples = os.path.join(HERE, "sample_submissions")
    shutil.rmtree(samples, ignore_errors=True)
    os.makedirs(samples)
    for name in sorted(SYSTEMS)[:4]:
        with zipfile.ZipFile(os.path.join(samples, name + ".zip"), "w", zipfile.ZIP_DEFLATED) as archive:
            info = zipfile.ZipInfo("run.json", date_time=(2025, 1, 1, 0, 0, 0))
            with open(os.path.join(source, "submissions", name + ".json"), "rb") as handle:
                archive.writestr(info, handle.read(), zipfile.ZIP_DEFLATED)


if __name__ == "__main__":
    import sys

    if "--bundle" in sys.argv[1:]:  # one task as its own Codabench competition folder: see odesia_bundle.py
        import odesia_bundle

        sys.exit(odesia_bundle.main())
    main()
    competition()
