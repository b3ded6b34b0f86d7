"""Generate the sequence-labelling example competition (synthetic NER, real trained taggers).

No pip package ships a CoNLL-style NER corpus that works offline (NLTK's
conll2002 needs a download), so the corpus is generated: news-like English
sentences from templates, with person, location, organization and
miscellaneous entities drawn from small name lists, some of them ambiguous
(``Jordan`` is a person and a country, ``Apple`` a company and a fruit)
and about half of them made-up names, in sentences of which a fifth are in
lower or upper case,
grouped into documents that start with ``-DOCSTART-``.  The systems are real:
scikit-learn classifiers trained on the training split over token features
(the word, its shape, affixes and its neighbours), tagging each token on its
own, so their output can break the IOB2 scheme (an ``I-`` after ``O``) the way
real taggers do.

Run from the repository root (deterministic; rewrites the data files):

    python3 examples/sequence/make_example.py
"""

import io
import os
import random
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))

FIRST = [
    "John",
    "Maria",
    "Ahmed",
    "Li",
    "Sofia",
    "Peter",
    "Anna",
    "Carlos",
    "Yuki",
    "Fatima",
    "Jordan",
    "Grace",
    "Ivan",
    "Chen",
    "Laura",
    "Omar",
    "Paris",
    "Victoria",
    "Kim",
    "Mark",
]
LAST = [
    "Smith",
    "Garcia",
    "Khan",
    "Wang",
    "Rossi",
    "Muller",
    "Silva",
    "Tanaka",
    "Novak",
    "Brown",
    "Lopez",
    "Ford",
    "Wood",
    "Young",
    "Street",
    "Banks",
    "Hill",
    "Lee",
]
LOC = [
    "London",
    "Paris",
    "Madrid",
    "Jordan",
    "Berlin",
    "Tokyo",
    "Lagos",
    "Lima",
    "Cairo",
    "Oslo",
    "Georgia",
    "Victoria",
    "Sydney",
    "Quebec",
    "Nairobi",
    "Chad",
    "New York",
    "Buenos Aires",
    "Hong Kong",
    "South Africa",
]
ORG_HEAD = [
    "Apple",
    "Siemens",
    "Reuters",
    "Acme",
    "Orion",
    "Delta",
    "Nova",
    "Atlas",
    "Ford",
    "Banco Central",
    "United",
    "Zenith",
    "Summit",
    "Pioneer",
]
ORG_TAIL = ["", "", "Inc", "Corp", "Bank", "Group", "Airlines", "Motors", "Holdings", "Foundation"]
MISC = [
    "French",
    "German",
    "Olympics",
    "Euro",
    "Japanese",
    "Nobel Prize",
    "World Cup",
    "Spanish",
    "Kenyan",
    "Christmas",
    "Brazilian",
    "Grand Prix",
]
WORDS = [
    "said",
    "on",
    "the",
    "a",
    "in",
    "of",
    "to",
    "and",
    "for",
    "with",
    "after",
    "before",
    "new",
    "report",
    "market",
    "shares",
    "rose",
    "fell",
    "percent",
    "talks",
    "week",
    "year",
    "minister",
    "team",
    "match",
    "won",
    "lost",
    "plan",
    "deal",
    "visit",
    "apple",
    "street",
    "hill",
    "wood",
    "banks",
    "young",
    "grace",
    "delta",
    "summit",
    "united",
    "pioneer",
    "late",
    "early",
    "official",
    "government",
    "company",
    "city",
]
TEMPLATES = [
    "PER said on Monday that ORG would open an office in LOC .",
    "ORG shares rose 3 percent in LOC after the MISC report .",
    "PER , the LOC minister , met PER in LOC .",
    "The MISC team beat LOC 2 - 1 in the final of the MISC .",
    "ORG and ORG signed a deal worth 10 million MISC .",
    "PER won the MISC ahead of PER .",
    "In LOC , officials of ORG said the plan was late .",
    "PER told Reuters that the market in LOC fell .",
    "The company said on Friday it would buy ORG .",
    "Shares of ORG fell after PER left the board .",
    "PER arrived in LOC for talks with ORG .",
    "It was a year of new records , the report said .",
]


SYLLABLES = ["ka", "lo", "mi", "ren", "to", "sa", "vel", "dor", "an", "ish", "bu", "zel", "qua", "nor", "pe"]


def _pseudo(rng):
    """A made-up capitalized name: half of the entities use one, so taggers must read context and shape."""
    return "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 3))).capitalize()


def _entity(rng, kind):
    words, labels = _listed_entity(rng, kind)
    if rng.random() < 0.45:
        words = [_pseudo(rng) if k == 0 or rng.random() < 0.5 else w for k, w in enumerate(words)]
    return words, labels


def _listed_entity(rng, kind):
    if kind == "PER":
        words = [rng.choice(FIRST), rng.choice(LAST)] if rng.random() < 0.7 else [rng.choice(LAST)]
    elif kind == "LOC":
        words = rng.choice(LOC).split()
    elif kind == "ORG":
        words = (rng.choice(ORG_HEAD) + " " + rng.choice(ORG_TAIL)).split()
    else:
        words = rng.choice(MISC).split()
    return words, ["B-" + kind] + ["I-" + kind] * (len(words) - 1)


def sentence(rng):
    tokens, tags = [], []
    for slot in rng.choice(TEMPLATES).split():
        if slot in ("PER", "LOC", "ORG", "MISC"):
            words, labels = _entity(rng, slot)
        else:
            words, labels = [slot], ["O"]
        tokens.extend(words)
        tags.extend(labels)
    # filler words keep the sentences from being all templates
    for _ in range(rng.randint(0, 4)):
        at = rng.randint(0, len(tokens))
        if at < len(tags) and tags[at].startswith("I-"):
            continue
        tokens.insert(at, rng.choice(WORDS))
        tags.insert(at, "O")
    if rng.random() < 0.12:  # headlines in lower case
        tokens = [t.lower() for t in tokens]
    elif rng.random() < 0.08:  # and in capitals
        tokens = [t.upper() for t in tokens]
    return tokens, tags


def documents(rng, n_docs):
    return [[sentence(rng) for _ in range(rng.randint(8, 24))] for _ in range(n_docs)]


def write_conll(path, docs, with_tags=True, tags_only=False, tags_of=None):
    with io.open(path, "w", encoding="utf-8", newline="\n") as handle:
        k = 0
        for doc in docs:
            handle.write("-DOCSTART- O\n\n" if with_tags else "-DOCSTART-\n\n")
            for tokens, tags in doc:
                predicted = tags_of[k] if tags_of is not None else tags
                k += 1
                for token, tag in zip(tokens, predicted):
                    if tags_only:
                        handle.write(tag + "\n")
                    elif with_tags:
                        handle.write("%s %s\n" % (token, tag))
                    else:
                        handle.write(token + "\n")
                handle.write("\n")


def features(tokens, i):
    word = tokens[i]
    feats = {
        "w=" + word.lower(): 1,
        "shape=" + ("X" if word[:1].isupper() else "x"): 1,
        "suf3=" + word[-3:]: 1,
        "pre2=" + word[:2]: 1,
        "first": float(i == 0),
        "title": float(word.istitle()),
    }
    for offset in (-1, 1):
        j = i + offset
        other = tokens[j].lower() if 0 <= j < len(tokens) else "<pad>"
        feats["w%+d=%s" % (offset, other)] = 1
        if 0 <= j < len(tokens):
            feats["title%+d" % offset] = float(tokens[j].istitle())
    return feats


def train_systems(train, test):
    from sklearn.feature_extraction import DictVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.naive_bayes import BernoulliNB
    from sklearn.svm import LinearSVC
    from sklearn.tree import DecisionTreeClassifier

    def rows(docs):
        x, y = [], []
        for doc in docs:
            for tokens, tags in doc:
                for i in range(len(tokens)):
                    x.append(features(tokens, i))
                    y.append(tags[i])
        return x, y

    x_train, y_train = rows(train)
    x_test, _ = rows(test)
    vec = DictVectorizer()
    a, b = vec.fit_transform(x_train).tocsr(), vec.transform(x_test).tocsr()
    for m in (a, b):  # some SciPy/scikit-learn pairs refuse int64 sparse indices
        m.indices, m.indptr = m.indices.astype("int32"), m.indptr.astype("int32")
    models = {
        "logistic_regression": LogisticRegression(max_iter=300, C=0.3),
        "linear_svm": LinearSVC(C=0.05),
        "naive_bayes": BernoulliNB(alpha=0.5),
        "shallow_tree": DecisionTreeClassifier(max_depth=12, random_state=0),
    }
    out = {}
    for name, model in models.items():
        flat = list(model.fit(a, y_train).predict(b))
        sentences, k = [], 0
        for doc in test:
            for tokens, _ in doc:
                sentences.append(flat[k : k + len(tokens)])
                k += len(tokens)
        out[name] = sentences
    return out


def gazetteer(train, test):
    """The baseline: tag every word seen inside an entity in training with its most frequent tag."""
    from collections import Counter, defaultdict

    seen = defaultdict(Counter)
    for doc in train:
        for tokens, tags in doc:
            for token, tag in zip(tokens, tags):
                seen[token][tag] += 1
    return [[seen[t].most_common(1)[0][0] if t in seen else "O" for t in tokens] for doc in test for tokens, _ in doc]


def _zip(path, name, text_path):
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        info = zipfile.ZipInfo(name, date_time=(2025, 1, 1, 0, 0, 0))
        info.compress_type = zipfile.ZIP_DEFLATED
        with open(text_path, "rb") as handle:
            z.writestr(info, handle.read())


def main():
    rng = random.Random(2023)
    train = documents(rng, 120)
    test = documents(rng, 60)
    ref = os.path.join(HERE, "reference_data")
    pub = os.path.join(HERE, "public_data")
    subs = os.path.join(HERE, "sample_submissions")
    for folder in (ref, pub, subs):
        os.makedirs(folder, exist_ok=True)
    write_conll(os.path.join(ref, "gold.conll"), test)
    write_conll(os.path.join(pub, "train.conll"), train)
    write_conll(os.path.join(pub, "test.conll"), test, with_tags=False)
    write_conll(os.path.join(ref, "baseline.conll"), test, tags_of=gazetteer(train, test))
    tmp = os.path.join(HERE, "predictions.conll")
    for name, tags in sorted(train_systems(train, test).items()):
        write_conll(tmp, test, tags_of=tags)
        _zip(os.path.join(subs, name + ".zip"), "predictions.conll", tmp)
    write_conll(tmp, test, tags_of=gazetteer(train, test))
    _zip(os.path.join(subs, "gazetteer.zip"), "predictions.conll", tmp)
    os.remove(tmp)
    n_sent = sum(len(d) for d in test)
    print("test: %d documents, %d sentences, %d tokens" % (len(test), n_sent, sum(len(s[0]) for d in test for s in d)))


if __name__ == "__main__":
    main()
