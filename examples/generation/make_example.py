"""Generate the text-generation example competition (synthetic translation-like corpus, 7 systems).

No pip package ships a parallel corpus that works offline, so the data are
generated: English sentences about invented people, places and events, from
varied templates, with typographic punctuation (curly quotes, dashes,
ellipses), numbers with separators, and a few names in Chinese characters.
Each test segment has two references: the sentence and a paraphrase of it
(synonyms, another word order).  The "source" side given to participants is
the sentence written in a toy pseudo-language (every word mapped by a fixed
cipher), so the task reads like translation.

The systems are deterministic degradations of the first reference, of
increasing damage, so that their ranking is known:

* ``paraphraser``: the second reference, lightly edited (best);
* ``synonyms``: every content word replaced by a synonym with probability 0.3;
* ``reorder``: adjacent words swapped with probability 0.25;
* ``drop_words``: each word dropped with probability 0.2;
* ``truncate``: the sentence cut after 60% of its words;
* ``lowercase_nopunct``: lower-cased, punctuation removed, 10% empty outputs;
* ``word_salad`` (the baseline): the reference words shuffled, half replaced.

Run from the repository root (deterministic; rewrites the data files):

    python3 examples/generation/make_example.py
"""

import io
import json
import os
import random
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))

PEOPLE = [
    "Amara Okafor",
    "Bruno Castillo",
    "Chiara Rinaldi",
    "Dmitri Petrov",
    "Elif Haddad",
    "Farid Novak",
    "Greta Laine",
    "Hugo Moreau",
    "Ines Torres",
    "Jonas Bauer",
    "Keiko Sato",
    "Lucia Gallo",
    "王小明",
    "李华",
]
PLACES = ["Lisbon", "Krakow", "Porto Alegre", "Mombasa", "Tromsø", "Québec", "Kyoto", "Valparaíso", "北京"]
THINGS = [
    "the old bridge",
    "a new library",
    "the harbour museum",
    "the night market",
    "a wind farm",
    "the central station",
    "a community garden",
    "the river festival",
]
SYNONYMS = {
    "built": "constructed",
    "opened": "inaugurated",
    "visited": "toured",
    "said": "stated",
    "large": "big",
    "small": "little",
    "new": "recent",
    "old": "ancient",
    "people": "residents",
    "quickly": "rapidly",
    "about": "roughly",
    "city": "town",
    "plan": "project",
    "began": "started",
    "many": "numerous",
    "important": "significant",
    "famous": "renowned",
    "announced": "declared",
}
TEMPLATES = [
    ("{p} visited {t} in {pl} last {day}.", "Last {day}, {p} toured {t} in {pl}."),
    ("The city of {pl} opened {t} in {year}.", "In {year}, {t} was inaugurated in the town of {pl}."),
    ("“We built it for the people,” said {p}.", "{p} stated: “We constructed it for the residents.”"),
    (
        "About {n} people came to {t} — many of them from {pl}.",
        "Roughly {n} residents came to {t}; numerous came from {pl}.",
    ),
    ("{p} announced a new plan for {t}…", "A recent project for {t} was declared by {p}…"),
    ("In {pl}, {t} is famous and very important.", "{t} is renowned and significant in {pl}."),
    (
        "The work on {t} began quickly in {year}, said {p}.",
        "{p} stated that the work on {t} started rapidly in {year}.",
    ),
    ("Is {t} in {pl} large or small?", "Is {t} in {pl} big or little?"),
]
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]


def make_corpus(rng, n):
    segments = []
    for k in range(n):
        a, b = rng.choice(TEMPLATES)
        fields = dict(
            p=rng.choice(PEOPLE),
            pl=rng.choice(PLACES),
            t=rng.choice(THINGS),
            day=rng.choice(DAYS),
            year=rng.randint(1950, 2024),
            n="{:,}".format(rng.randint(12, 25000)),
        )
        first, second = a.format(**fields), b.format(**fields)
        segments.append(
            {"id": "s%04d" % k, "references": [first[0].upper() + first[1:], second[0].upper() + second[1:]]}
        )
    return segments


def cipher(text):
    """The toy 'source language': each word reversed and doubled vowels (deterministic, invertible enough)."""
    out = []
    for word in text.split():
        core = word[::-1]
        out.append("".join(c + c if c in "aeiou" else c for c in core))
    return " ".join(out)


def _words(text):
    return text.split()


def paraphraser(rng, refs):
    words = _words(refs[1])
    if words and rng.random() < 0.3:
        i = rng.randrange(len(words))
        words[i] = SYNONYMS.get(words[i], words[i])
    return " ".join(words)


def synonyms(rng, refs):
    return " ".join(SYNONYMS.get(w, w) if rng.random() < 0.3 else w for w in _words(refs[0]))


def reorder(rng, refs):
    words = _words(refs[0])
    i = 0
    while i < len(words) - 1:
        if rng.random() < 0.25:
            words[i], words[i + 1] = words[i + 1], words[i]
            i += 1
        i += 1
    return " ".join(words)


def drop_words(rng, refs):
    return " ".join(w for w in _words(refs[0]) if rng.random() >= 0.2)


def truncate(rng, refs):
    words = _words(refs[0])
    return " ".join(words[: max(1, int(round(0.6 * len(words))))])


def lowercase_nopunct(rng, refs):
    if rng.random() < 0.1:
        return ""
    text = "".join(c for c in refs[0].lower() if c.isalnum() or c.isspace())
    return " ".join(text.split())


FILLERS = ["thing", "place", "very", "and", "the", "of", "went", "was"]


def word_salad(rng, refs):
    words = _words(refs[0])
    rng.shuffle(words)
    return " ".join(w if rng.random() < 0.5 else rng.choice(FILLERS) for w in words)


SYSTEMS = {
    "paraphraser": paraphraser,
    "synonyms": synonyms,
    "reorder": reorder,
    "drop_words": drop_words,
    "truncate": truncate,
    "lowercase_nopunct": lowercase_nopunct,
}
BASELINE = ("word_salad", word_salad)


def outputs(corpus, system, seed):
    rng = random.Random(seed)
    return [system(rng, s["references"]) for s in corpus]


def _write_lines(path, lines):
    with io.open(path, "w", encoding="utf-8", newline="\n") as f:
        for line in lines:
            f.write(line + "\n")


def main():
    rng = random.Random(2025)
    train = make_corpus(rng, 200)
    test = make_corpus(rng, 800)
    ref = os.path.join(HERE, "reference_data")
    pub = os.path.join(HERE, "public_data")
    subs = os.path.join(HERE, "sample_submissions")
    for folder in (ref, pub, subs):
        os.makedirs(folder, exist_ok=True)
    with io.open(os.path.join(ref, "references.jsonl"), "w", encoding="utf-8", newline="\n") as f:
        for s in test:
            f.write(json.dumps(s, ensure_ascii=False) + "\n")
    _write_lines(os.path.join(ref, "baseline.txt"), outputs(test, BASELINE[1], 99))
    _write_lines(os.path.join(pub, "test.source.txt"), [cipher(s["references"][0]) for s in test])
    _write_lines(os.path.join(pub, "train.source.txt"), [cipher(s["references"][0]) for s in train])
    _write_lines(os.path.join(pub, "train.target.txt"), [s["references"][0] for s in train])
    for k, (name, system) in enumerate(sorted(SYSTEMS.items())):
        text = "".join(line + "\n" for line in outputs(test, system, k))
        with zipfile.ZipFile(os.path.join(subs, name + ".zip"), "w", zipfile.ZIP_DEFLATED) as z:
            info = zipfile.ZipInfo("hypotheses.txt", date_time=(2025, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, text.encode("utf-8"))
    print("test: %d segments, 2 references each; %d systems and a baseline" % (len(test), len(SYSTEMS)))


if __name__ == "__main__":
    main()
