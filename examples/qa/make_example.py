"""Generate the extractive-QA example competition (synthetic SQuAD v1.1 data, real answer extractors).

No pip package ships a SQuAD-style data set that works offline, so the data are
generated: short biographies of invented people (birth place and year,
studies, work, awards, a move), written from varied sentence templates, with
one to three questions per fact and, as in SQuAD's development set, up to
three gold answers per question (the span with and without its article or
title).  The systems are real, simple extractors run on the paragraphs:

* ``first_sentence``: the paragraph's first sentence (the baseline);
* ``overlap_sentence``: the sentence sharing most words with the question
  (a lexical-overlap sentence picker);
* ``overlap_trimmed``: that sentence minus the question's words;
* ``typed_span``: in that sentence, the span the question word asks for
  (a year for *when*, a capitalized phrase after *in*/*at* for *where*, ...).

Run from the repository root (deterministic; rewrites the data files):

    python3 examples/qa/make_example.py
"""

import io
import json
import os
import random
import re
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))

FIRST = [
    "Amara",
    "Bruno",
    "Chiara",
    "Dmitri",
    "Elif",
    "Farid",
    "Greta",
    "Hugo",
    "Ines",
    "Jonas",
    "Keiko",
    "Lucia",
    "Mateo",
    "Nadia",
    "Oskar",
    "Priya",
    "Quentin",
    "Rosa",
    "Sven",
    "Tariq",
]
LAST = [
    "Adeyemi",
    "Bauer",
    "Castillo",
    "Dubois",
    "Eriksen",
    "Fontaine",
    "Gallo",
    "Haddad",
    "Ivanova",
    "Jensen",
    "Kowalski",
    "Laine",
    "Moreau",
    "Novak",
    "Okafor",
    "Petrov",
    "Quist",
    "Rinaldi",
    "Sato",
    "Torres",
]
CITIES = [
    "Lisbon",
    "Krakow",
    "Porto Alegre",
    "Mombasa",
    "Tromso",
    "Valparaiso",
    "Gdansk",
    "Leipzig",
    "Kyoto",
    "Cordoba",
    "Tbilisi",
    "Adelaide",
    "Bergen",
    "Tangier",
    "Cluj",
    "Halifax",
]
FIELDS = [
    "marine biology",
    "medieval history",
    "structural engineering",
    "linguistics",
    "astrophysics",
    "economics",
    "organic chemistry",
    "architecture",
    "philosophy",
    "computer science",
]
SCHOOLS = [
    "the University of Bologna",
    "the Technical University of Delft",
    "the University of Cape Town",
    "McGill University",
    "the University of Tartu",
    "Seoul National University",
    "the Sorbonne",
]
EMPLOYERS = [
    "the Northern Observatory",
    "the Institute of Coastal Research",
    "the National Library",
    "Helios Engineering",
    "the Museum of Maps",
    "the Bureau of Statistics",
    "Aurora Robotics",
]
AWARDS = ["the Halden Medal", "the Orion Prize", "the Meridian Award", "the Castell Fellowship"]

BIRTH = [
    "{name} was born in {city} in {year}.",
    "Born in {year} in {city}, {name} grew up near the sea.",
    "{name}, a native of {city}, was born in {year}.",
]
STUDY = [
    "{pron} studied {field} at {school}.",
    "At {school}, {pron2} read {field}.",
    "{pron} earned a degree in {field} from {school}.",
]
WORK = [
    "In {wyear}, {pron2} joined {employer} as a researcher.",
    "{pron} worked at {employer} from {wyear}.",
    "{employer} hired {obj} in {wyear}.",
]
AWARD = [
    "{pron} received {award} in {ayear}.",
    "In {ayear} {pron2} was awarded {award}.",
    "{award} went to {obj} in {ayear}.",
]
MOVE = ["Later {pron2} moved to {city2}.", "{pron} eventually settled in {city2}."]


def _person(rng):
    she = rng.random() < 0.5
    year = rng.randint(1920, 1995)
    fact = {
        "name": "%s %s" % (rng.choice(FIRST), rng.choice(LAST)),
        "city": rng.choice(CITIES),
        "year": str(year),
        "field": rng.choice(FIELDS),
        "school": rng.choice(SCHOOLS),
        "employer": rng.choice(EMPLOYERS),
        "wyear": str(year + rng.randint(22, 35)),
        "award": rng.choice(AWARDS),
        "ayear": str(year + rng.randint(36, 50)),
        "city2": rng.choice(CITIES),
        "pron": "She" if she else "He",
        "pron2": "she" if she else "he",
        "obj": "her" if she else "him",
    }
    sentences = []
    for templates in (BIRTH, STUDY, WORK, AWARD, MOVE):
        template = rng.choice(templates)
        if rng.random() < 0.5:  # the name again instead of a pronoun
            template = template.replace("{pron}", "{name}").replace("{pron2}", "{name}").replace("{obj}", "{name}")
        sentences.append(template.format(**fact))
    sentences = [s[0].upper() + s[1:] for s in sentences]
    return fact, " ".join(sentences)


def _variants(span):
    """SQuAD-style gold answers: the span, and without its leading article, when it has one."""
    out = [span]
    if span.startswith("the "):
        out.append(span[4:])
    return out


def _questions(rng, fact):
    n = fact["name"]
    pool = [
        (["Where was %s born?" % n, "In which city was %s born?" % n], fact["city"]),
        (["When was %s born?" % n, "In what year was %s born?" % n], fact["year"]),
        (["What did %s study?" % n, "Which subject did %s study?" % n], fact["field"]),
        (["Where did %s study?" % n, "At which university did %s study?" % n], fact["school"]),
        (["Who hired %s in %s?" % (n, fact["wyear"]), "Where did %s work?" % n], fact["employer"]),
        (
            [
                "When did %s join %s?" % (n, fact["employer"]),
                "In which year did %s start at %s?" % (n, fact["employer"]),
            ],
            fact["wyear"],
        ),
        (["What award did %s receive?" % n, "Which prize was given to %s?" % n], fact["award"]),
        (["Where did %s move later?" % n, "In which city did %s settle?" % n], fact["city2"]),
    ]
    chosen = rng.sample(pool, rng.randint(3, 6))
    return [(rng.choice(questions), _variants(answer)) for questions, answer in chosen]


def make_dataset(rng, n_articles, prefix):
    data = []
    for a in range(n_articles):
        paragraphs = []
        for p in range(rng.randint(2, 4)):
            fact, context = _person(rng)
            qas = []
            for q, (question, answers) in enumerate(_questions(rng, fact)):
                start = context.find(answers[0])
                qas.append(
                    {
                        "id": "%s%03d-%d-%d" % (prefix, a, p, q),
                        "question": question,
                        "answers": [{"text": t, "answer_start": context.find(t)} for t in answers]
                        if start >= 0
                        else [{"text": t, "answer_start": -1} for t in answers],
                    }
                )
            paragraphs.append({"context": context, "qas": qas})
        data.append({"title": "article_%s%03d" % (prefix, a), "paragraphs": paragraphs})
    return {"version": "1.1", "data": data}


# ---------------------------------------------------------------------------
# The extractors
# ---------------------------------------------------------------------------
_WORD = re.compile(r"[\w']+")
STOP = {
    "the",
    "a",
    "an",
    "in",
    "at",
    "of",
    "to",
    "did",
    "was",
    "what",
    "which",
    "who",
    "where",
    "when",
    "year",
    "city",
    "is",
    "by",
    "for",
}


def _sentences(context):
    return re.findall(r"[^.]+\.", context)


def _words(text):
    return [w.lower() for w in _WORD.findall(text)]


def _stems(text):
    """Words cut to 4 letters, so that *study* meets *studied*."""
    return set(w[:4] for w in _words(text) if w not in STOP)


def first_sentence(question, context):
    return _sentences(context)[0].strip()


def overlap_sentence(question, context):
    asked = _stems(question)
    return max(_sentences(context), key=lambda s: len(asked & _stems(s))).strip()


def overlap_trimmed(question, context):
    asked = set(_words(question))
    sentence = overlap_sentence(question, context)
    return " ".join(w for w in sentence.rstrip(".").split() if w.lower().strip(",") not in asked)


def typed_span(question, context):
    sentence = overlap_sentence(question, context)
    q = question.lower()
    if q.startswith("when") or "year" in q:
        years = re.findall(r"\b1[89]\d\d\b|\b20\d\d\b", sentence)
        return years[-1] if years else sentence
    spans = re.findall(r"(?:the )?(?:[A-Z][\w']+(?: of| the)?\s?)+", sentence)
    names = set(_words(question))
    spans = [s.strip() for s in spans if not set(_words(s)) <= names and s.strip() not in ("He", "She", "In", "At")]
    if q.startswith(("what did", "which subject")):
        match = re.search(r"(?:studied|read|degree in) ([a-z ]+?)(?: at| from|\.)", sentence)
        return match.group(1) if match else sentence
    return spans[0] if spans else sentence


SYSTEMS = {"overlap_sentence": overlap_sentence, "overlap_trimmed": overlap_trimmed, "typed_span": typed_span}


def predictions(dataset, system):
    out = {}
    for article in dataset["data"]:
        for paragraph in article["paragraphs"]:
            for qa in paragraph["qas"]:
                out[qa["id"]] = system(qa["question"], paragraph["context"])
    return out


def _write_json(path, value):
    with io.open(path, "w", encoding="utf-8", newline="\n") as handle:
        json.dump(value, handle, ensure_ascii=False, indent=1, sort_keys=False)
        handle.write("\n")


def main():
    rng = random.Random(2024)
    train = make_dataset(rng, 40, "tr")
    test = make_dataset(rng, 120, "te")
    ref = os.path.join(HERE, "reference_data")
    pub = os.path.join(HERE, "public_data")
    subs = os.path.join(HERE, "sample_submissions")
    for folder in (ref, pub, subs):
        os.makedirs(folder, exist_ok=True)
    _write_json(os.path.join(ref, "gold.json"), test)
    _write_json(os.path.join(ref, "baseline.json"), predictions(test, first_sentence))
    _write_json(os.path.join(pub, "train.json"), train)
    public_test = {
        "version": "1.1",
        "data": [
            {
                "title": a["title"],
                "paragraphs": [
                    {"context": p["context"], "qas": [{"id": q["id"], "question": q["question"]} for q in p["qas"]]}
                    for p in a["paragraphs"]
                ],
            }
            for a in test["data"]
        ],
    }
    _write_json(os.path.join(pub, "test.json"), public_test)
    systems = dict(SYSTEMS, first_sentence=first_sentence)
    for name, system in sorted(systems.items()):
        text = json.dumps(predictions(test, system), ensure_ascii=False, indent=1) + "\n"
        with zipfile.ZipFile(os.path.join(subs, name + ".zip"), "w", zipfile.ZIP_DEFLATED) as z:
            info = zipfile.ZipInfo("predictions.json", date_time=(2025, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, text.encode("utf-8"))
    n = sum(len(p["qas"]) for a in test["data"] for p in a["paragraphs"])
    print("test: %d articles, %d questions" % (len(test["data"]), n))


if __name__ == "__main__":
    main()
