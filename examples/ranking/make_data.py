"""Build the ranking example's data: a passage collection, queries, qrels and real retrieval runs.

The text is real and ships with Python itself: ``pydoc_data.topics``, the 79
help topics of the Python language reference (``help("assert")``).  Each
topic's page is split into paragraphs, the *passages* (the documents); each
topic's title (``The "assert" statement``) is a *query*.  The relevance
judgments follow the pages' structure, a known-item design:

* grade 2: the first three passages of the topic's own page (its definition);
* grade 1: its next twelve passages;
* grade 0 (judged, not relevant): its next fifteen passages;
* every other passage is unjudged (not relevant, as in trec_eval).

The runs are real retrieval systems over the passages, written by this
script with the standard library and numpy only: Okapi BM25 (k1 = 0.9,
b = 0.4), TF-IDF cosine, a term-overlap count (many ties: the trec_eval tie
rule decides its order) and a random ranking.  Each retrieves 100 passages
per query.

Usage::

    python examples/ranking/make_data.py        # rewrites the files below

Writes ``public_data/{queries.tsv, passages.tsv}``, ``reference_data/qrels.txt``,
``reference_data/baseline.txt`` (the term-overlap run) and
``sample_submissions/{bm25, tfidf_json, term_overlap, random}.zip``.  The
help topics differ a little between Python versions; the files in the
repository were made with the version named in ``README.md``.
"""

import io
import json
import math
import os
import re
import sys
import zipfile
from collections import Counter

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
DEPTH = 100
SEED = 20261123
STOPWORDS = frozenset(
    """a an and are as at be by for from has have in is it its of on or that the this to was were
which with not no can if else when then than they their there these those may must also any all such into
only other one two been but do does so see used use using""".split()
)


def tokens(text):
    return [t for t in re.findall(r"[a-z][a-z0-9_]+", text.lower()) if t not in STOPWORDS]


def collection():
    """``(queries, passages, qrels)`` from the Python help topics."""
    from pydoc_data.topics import topics

    queries, passages, qrels = [], [], {}
    for topic in sorted(topics):
        paragraphs = [p.strip("\n") for p in re.split(r"\n\s*\n", topics[topic]) if p.strip()]
        title = paragraphs[0].splitlines()[0].strip()
        body = [p for p in paragraphs[1:] if len(tokens(p)) >= 3]
        if len(body) < 3:
            continue
        qid = topic
        queries.append((qid, title))
        judged = {}
        for i, text in enumerate(body):
            key = len(passages)
            passages.append((key, " ".join(text.split())))
            if i < 3:
                judged[key] = 2
            elif i < 15:
                judged[key] = 1
            elif i < 30:
                judged[key] = 0
        qrels[qid] = judged
    # Opaque passage ids in a shuffled order, so that an id says nothing about its topic.
    order = np.random.default_rng(SEED).permutation(len(passages))
    name = dict((key, "p%04d" % order[key]) for key in range(len(passages)))
    passages = sorted((name[key], text) for key, text in passages)
    qrels = dict((q, dict((name[k], r) for k, r in judged.items())) for q, judged in qrels.items())
    return queries, passages, qrels


class Index:
    """Term statistics of the passages."""

    def __init__(self, passages):
        self.ids = [d for d, _ in passages]
        self.tf = [Counter(tokens(text)) for _, text in passages]
        self.length = np.array([sum(c.values()) for c in self.tf], dtype=np.float64)
        df = Counter()
        for counts in self.tf:
            df.update(counts.keys())
        self.n = len(passages)
        self.df = df
        self.postings = {}
        for i, counts in enumerate(self.tf):
            for term, count in counts.items():
                self.postings.setdefault(term, []).append((i, count))

    def idf(self, term):
        return math.log(1.0 + (self.n - self.df[term] + 0.5) / (self.df[term] + 0.5))

    def bm25(self, query, k1=0.9, b=0.4):
        scores = np.zeros(self.n)
        avg = self.length.mean()
        for term in set(tokens(query)):
            for i, tf in self.postings.get(term, ()):
                scores[i] += self.idf(term) * tf * (k1 + 1) / (tf + k1 * (1 - b + b * self.length[i] / avg))
        return scores

    def tfidf(self, query):
        weights = {}
        for term, tf in Counter(tokens(query)).items():
            if term in self.df:
                weights[term] = (1 + math.log(tf)) * math.log(self.n / self.df[term])
        scores = np.zeros(self.n)
        norms = np.zeros(self.n)
        for i, counts in enumerate(self.tf):
            norms[i] = (
                math.sqrt(sum(((1 + math.log(c)) * math.log(self.n / self.df[t])) ** 2 for t, c in counts.items()))
                or 1.0
            )
        for term, w in weights.items():
            for i, tf in self.postings[term]:
                scores[i] += w * (1 + math.log(tf)) * math.log(self.n / self.df[term])
        return scores / norms

    def overlap(self, query):
        scores = np.zeros(self.n)
        for term in set(tokens(query)):
            for i, _ in self.postings.get(term, ()):
                scores[i] += 1.0
        return scores


def top(index, scores, depth=DEPTH):
    """The ``depth`` best passages as ``[(docid, score)]``, in trec_eval's order (score, then id, descending)."""
    ranked = sorted(((float(s), index.ids[i]) for i, s in enumerate(scores) if s > 0), reverse=True)[:depth]
    return [(d, s) for s, d in ranked]


def trec_run(runs, tag):
    out = io.StringIO()
    for qid, docs in runs:
        for rank, (doc, score) in enumerate(docs, 1):
            out.write("%s Q0 %s %d %.6f %s\n" % (qid, doc, rank, score, tag))
    return out.getvalue()


def write_zip(path, name, text):
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
        info.compress_type = zipfile.ZIP_DEFLATED
        archive.writestr(info, text)


def main():
    queries, passages, qrels = collection()
    index = Index(passages)
    rng = np.random.default_rng(SEED)
    systems = {
        "bm25": [(q, top(index, index.bm25(text))) for q, text in queries],
        "tfidf": [(q, top(index, index.tfidf(text))) for q, text in queries],
        "term_overlap": [(q, top(index, index.overlap(text))) for q, text in queries],
        "random": [
            (
                q,
                [
                    (index.ids[i], float(DEPTH - r))
                    for r, i in enumerate(rng.choice(index.n, size=DEPTH, replace=False))
                ],
            )
            for q, _ in queries
        ],
    }
    for folder in ("public_data", "reference_data", "sample_submissions"):
        os.makedirs(os.path.join(HERE, folder), exist_ok=True)
    with open(os.path.join(HERE, "public_data", "queries.tsv"), "w") as handle:
        handle.writelines("%s\t%s\n" % (q, text) for q, text in queries)
    with open(os.path.join(HERE, "public_data", "passages.tsv"), "w") as handle:
        handle.writelines("%s\t%s\n" % (d, text) for d, text in passages)
    with open(os.path.join(HERE, "reference_data", "qrels.txt"), "w") as handle:
        for qid, _ in queries:
            handle.writelines("%s 0 %s %d\n" % (qid, d, r) for d, r in sorted(qrels[qid].items()))
    with open(os.path.join(HERE, "reference_data", "baseline.txt"), "w") as handle:
        handle.write(trec_run(systems["term_overlap"], "term_overlap"))
    samples = os.path.join(HERE, "sample_submissions")
    write_zip(os.path.join(samples, "bm25.zip"), "run.txt", trec_run(systems["bm25"], "bm25"))
    write_zip(os.path.join(samples, "term_overlap.zip"), "run.txt", trec_run(systems["term_overlap"], "overlap"))
    write_zip(os.path.join(samples, "random.zip"), "run.txt", trec_run(systems["random"], "random"))
    as_json = dict((q, dict(docs)) for q, docs in systems["tfidf"])
    write_zip(os.path.join(samples, "tfidf_json.zip"), "run.json", json.dumps(as_json, indent=0, sort_keys=True))
    print(
        "%d queries, %d passages, %d judgments (Python %s)"
        % (len(queries), len(passages), sum(len(j) for j in qrels.values()), sys.version.split()[0])
    )


if __name__ == "__main__":
    main()
