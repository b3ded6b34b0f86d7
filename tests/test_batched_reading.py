"""Batched reading of prediction files says what row-by-row reading says.

``alignment.align_by_id`` checks a batch of rows at once (numpy, dict look-ups)
and ``formats._delimited_table`` splits a block of plain CSV/TSV rows with
``str.split``; a batch or block where anything is unusual is read row by row.
These tests read many generated files both ways and compare the aligned
values, or the message, exactly:

* the batched way, with blocks of a few dozen bytes (``text_files._CHUNK``)
  and batches of a few rows (``text_files.BATCH_ROWS``), so that every file
  mixes plain blocks, csv blocks, batches placed at once and batches read
  row by row;
* the reference: the csv module on every line (``_plain_fields`` off) and
  the row-by-row alignment of commit c8811d6, copied below.

Files mix scored ids, decoy ids, repeats of either, empty ids, bad values on
scored and unscored lines, white space, CRLF / ``\\r\\r\\n`` / ``\\r`` line ends,
quoted fields, a BOM, blank lines, ragged rows; CSV, TSV, JSON Lines and
JSON; classification and regression; ``unscored_ids`` ``error`` and
``ignore``.  Standard library, numpy and pytest only.
"""

import json
import os
import random
import sys
from array import array

import numpy as np
import pytest

PROGRAM = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scoring_program")
if PROGRAM not in sys.path:
    sys.path.insert(0, PROGRAM)

from leaderboard_ci.scoring import alignment, formats, inputs, text_files  # noqa: E402
from leaderboard_ci.scoring.config import parse_config  # noqa: E402
from leaderboard_ci.scoring.errors import SubmissionError  # noqa: E402
from leaderboard_ci.scoring.readers import read_gold, read_predictions  # noqa: E402

IDS = ["it-%02d" % k for k in range(12)]
LABELS = ["neg", "neu", "pos"]
DECOYS = ["dc-%03d" % k for k in range(40)]


# ---------------------------------------------------------------------------
# The reference: row-by-row alignment as of commit c8811d6
# ---------------------------------------------------------------------------
def _reference_repeated_id(source, hashes, lines):
    if not hashes:
        return None
    h = np.frombuffer(hashes, dtype=np.int64)
    order = np.argsort(h, kind="stable")
    sorted_h = h[order]
    again = np.flatnonzero(sorted_h[1:] == sorted_h[:-1]) + 1
    if again.size == 0:
        return None
    line_of = np.frombuffer(lines, dtype=np.int64)
    second = order[again]
    k = int(np.argmin(second))
    first = order[np.searchsorted(sorted_h, sorted_h[again[k]])]
    return source.at(
        int(line_of[second[k]]),
        "the id appears again (first on line %d); give one prediction per id" % int(line_of[first]),
    )


def _reference_missing_ids(source, gold, seen, count):
    missing = gold.n - count
    shown, start = [], 0
    while len(shown) < 3:
        start = seen.find(0, start)
        if start < 0:
            break
        shown.append(gold.ids[start])
        start += 1
    return source.whole(
        "is missing %d of the %d test ids (e.g. %s); give one prediction for every id"
        % (missing, gold.n, ", ".join(alignment.quote(i) for i in shown))
    )


def _reference_align_by_id(source, table, gold, convert, typecode, stack, unscored="error", max_rows=None):
    assert max_rows is None or max_rows > 10**5  # files.max_ids is never reached by these files
    ignore = unscored == "ignore"
    index = dict((ident, position) for position, ident in enumerate(gold.ids))
    seen = bytearray(gold.n)
    positions, lines, values = array("q"), array("q"), array(typecode) if typecode else []
    hashes, hash_lines = array("q"), array("q")
    rows = 0
    for line, ident, text, _ in table.rows:
        if ident == "":
            raise source.at(line, "the id is empty; expected the id of a test item in the id column")
        value = convert(line, text)
        rows += 1
        position = index.get(ident)
        if ignore:
            hashes.append(hash(ident))
            hash_lines.append(line)
            if position is None or seen[position]:
                continue
        elif position is None:
            raise source.at(
                line,
                "id %s is not a test id; expected ids like %s" % (alignment.quote(ident), alignment.quote(gold.ids[0])),
            )
        elif seen[position]:
            raise source.at(
                line,
                "id %s appears again (first on line %d); give one prediction per id"
                % (alignment.quote(ident), lines[positions.index(position)]),
            )
        seen[position] = 1
        positions.append(position)
        lines.append(line)
        values.append(value)
    if ignore:
        repeated = _reference_repeated_id(source, hashes, hash_lines)
        if repeated is not None:
            raise repeated
    if not rows:
        raise alignment._no_rows(source, table, None if ignore else gold.n)
    if len(positions) < gold.n:
        if ignore:
            raise source.whole(
                "has no prediction for some of the test ids; give one prediction for every id of the test set"
            )
        raise _reference_missing_ids(source, gold, seen, len(positions))
    order = np.argsort(np.frombuffer(positions, dtype=np.int64), kind="stable")
    if typecode is None:
        return stack([values[i] for i in order])
    return np.frombuffer(values, dtype=np.float64 if typecode == "d" else np.int64)[order]


# ---------------------------------------------------------------------------
# Generated files
# ---------------------------------------------------------------------------
def _value(rng, task):
    """A prediction: mostly valid, sometimes bad (unknown label, empty, NaN, out of range ...)."""
    if rng.random() < 0.99:
        if task == "cls":
            return rng.choice(LABELS)
        return rng.choice(["%.3f" % rng.uniform(-5, 5), str(rng.randint(-9, 9)), "1e3", "-0.5"])
    if task == "cls":
        return rng.choice(["bad", "", "Pos", "1.0", "neg ", "n\u00e9g"])
    return rng.choice(["", "abc", "nan", "inf", "1e400", "1_000", "2,5", "-Infinity"])


def _rows(rng, task, ignore):
    """``(id, value)`` rows: every gold id once (usually), decoys, and sometimes a mistake."""
    ids = list(IDS)
    if rng.random() < 0.08:
        ids.remove(rng.choice(IDS))  # a missing id
    if ignore or rng.random() < 0.2:
        ids += rng.sample(DECOYS, rng.randint(0, len(DECOYS)))
    rng.shuffle(ids)
    rows = [[ident, _value(rng, task)] for ident in ids]
    for _ in range(rng.choice([0, 0, 0, 1, 2])):
        kind = rng.random()
        if kind < 0.4 and rows:  # a repeat of any id, scored or not
            rows.insert(rng.randint(0, len(rows)), [rng.choice(rows)[0], _value(rng, task)])
        elif kind < 0.55 and rows:
            rows[rng.randrange(len(rows))][0] = ""
        elif kind < 0.7 and rows:
            rows[rng.randrange(len(rows))][0] = rng.choice(["it-99", "IT-01", " it-03 "])
        else:
            rows[rng.randrange(len(rows))][1] = _value(rng, task) if rng.random() < 0.5 else "bad"
    return rows


def _delimited(rng, rows, sep, value_name):
    header = "id%s%s" % (sep, value_name)
    lines = [header]
    for ident, value in rows:
        if rng.random() < 0.05:
            ident = " %s " % ident  # white space around a field
        if sep == "," and rng.random() < 0.05:
            value = '"%s"' % value  # a quoted field
        if sep == "," and rng.random() < 0.01:
            ident = '"%s,x"' % ident  # a quoted delimiter
        lines.append(sep.join([ident, value]))
    if rng.random() < 0.03 and len(lines) > 3:
        lines.insert(rng.randint(2, len(lines) - 1), "")  # a blank line inside
    if rng.random() < 0.03 and len(lines) > 3:
        at = rng.randint(1, len(lines) - 1)
        lines[at] += sep + "extra"  # a ragged row
    if rng.random() < 0.02 and len(lines) > 3:
        at = rng.randint(1, len(lines) - 1)
        lines[at] = lines[at].replace(sep, sep + '"', 1)  # a quote never closed on its line
    end = rng.choice(["\n", "\n", "\r\n", "\r\r\n", "\r"])
    text = end.join(lines) + end * rng.choice([0, 1, 1, 3])
    if rng.random() < 0.15:
        text = "\ufeff" + text
    return text


def _json_lines(rng, rows, value_name):
    lines = [json.dumps({"id": ident, value_name: value}) for ident, value in rows]
    return "\n".join(lines) + "\n"


def _json_document(rng, rows, value_name):
    return json.dumps([{"id": ident, value_name: value} for ident, value in rows])


def _case(seed):
    rng = random.Random(seed)
    task = rng.choice(["cls", "cls", "reg"])
    ignore = rng.random() < 0.6
    form = rng.choice(["csv", "csv", "csv", "tsv", "jsonl", "json"])
    value_name = "label" if task == "cls" else "score"
    rows = _rows(rng, task, ignore)
    if form == "csv":
        text, name = _delimited(rng, rows, ",", value_name), "predictions.csv"
    elif form == "tsv":
        text, name = _delimited(rng, rows, "\t", value_name), "predictions.tsv"
    elif form == "jsonl":
        text, name = _json_lines(rng, rows, value_name), "predictions.jsonl"
    else:
        text, name = _json_document(rng, rows, value_name), "predictions.json"
    chunk = rng.choice([7, 16, 33, 64, 200, 1 << 20])
    batch = rng.choice([1, 2, 5, 17, 1 << 16])
    return task, ignore, name, text, chunk, batch


def _gold(tmp_path, task):
    ref = tmp_path / ("ref-" + task)
    if not ref.exists():
        ref.mkdir()
        rng = random.Random(7)
        if task == "cls":
            body = "".join("%s,%s\n" % (i, rng.choice(LABELS)) for i in IDS)
            (ref / "gold.csv").write_text("id,label\n" + body)
        else:
            body = "".join("%s,%.2f\n" % (i, rng.uniform(-3, 3)) for i in IDS)
            (ref / "gold.csv").write_text("id,score\n" + body)
    return str(ref)


def _config(task, ignore):
    data = {
        "metric": "f1_macro" if task == "cls" else "mae",
        "files": {"unscored_ids": "ignore" if ignore else "error"},
    }
    if task == "cls":
        data["labels"] = list(LABELS)
    else:
        data["files"]["gold_column"] = "score"
    return parse_config(data)


def _outcome(path, config, gold):
    try:
        return "values", read_predictions(path, config, gold).tolist()
    except SubmissionError as exc:
        return "error", exc.message


def _both_ways(monkeypatch, path, config, gold, chunk, batch):
    with monkeypatch.context() as patch:
        patch.setattr(text_files, "_CHUNK", chunk)
        patch.setattr(text_files, "BATCH_ROWS", batch)
        batched = _outcome(path, config, gold)
    with monkeypatch.context() as patch:
        patch.setattr(formats, "_plain_fields", lambda *args: None)
        patch.setattr(inputs, "align_by_id", _reference_align_by_id)
        reference = _outcome(path, config, gold)
    return batched, reference


@pytest.mark.parametrize("block", range(6))
def test_batched_reading_gives_the_values_and_messages_of_row_by_row_reading(block, tmp_path, monkeypatch):
    kinds = {}
    for seed in range(block * 100, block * 100 + 100):
        task, ignore, name, text, chunk, batch = _case(seed)
        ref = _gold(tmp_path, task)
        config = _config(task, ignore)
        gold = read_gold(ref, config)
        path = tmp_path / ("s%d" % seed) / name
        path.parent.mkdir()
        path.write_bytes(text.encode("utf-8"))
        batched, reference = _both_ways(monkeypatch, str(path), config, gold, chunk, batch)
        assert batched == reference, (seed, name, ignore, chunk, batch, text[:300])
        kinds[batched[0]] = kinds.get(batched[0], 0) + 1
    assert kinds.get("values", 0) >= 10 and kinds.get("error", 0) >= 10, kinds  # both outcomes exercised


@pytest.mark.parametrize("ignore", [False, True])
def test_large_files_cross_many_batches(ignore, tmp_path, monkeypatch):
    """Thousands of rows in 1 MB blocks: plain blocks placed at once, then a mistake far down the file."""
    rng = random.Random(11)
    config = _config("cls", ignore)
    gold = read_gold(_gold(tmp_path, "cls"), config)
    decoys = ["x%06d" % k for k in range(60000)] if ignore else []
    rows = [[i, rng.choice(LABELS)] for i in IDS + decoys]
    rng.shuffle(rows)
    mistakes = [None, ("value", "bad"), ("id", ""), ("repeat", None), ("quote", None)]
    for k, mistake in enumerate(mistakes):
        body = [list(r) for r in rows]
        if mistake is not None:
            at = len(body) - 5
            if mistake[0] == "value":
                body[at][1] = "bad"
            elif mistake[0] == "id":
                body[at][0] = ""
            elif mistake[0] == "repeat":
                body.insert(at, [body[3][0], "pos"])
            else:
                body[at][1] = '"%s"' % body[at][1]
        path = tmp_path / ("big%d.csv" % k)
        path.write_text("id,label\n" + "".join("%s,%s\n" % tuple(r) for r in body))
        batched, reference = _both_ways(monkeypatch, str(path), config, gold, 1 << 20, 1 << 16)
        assert batched == reference, mistake


def test_decoy_messages_do_not_depend_on_which_ids_are_scored(tmp_path):
    """A bad value is reported at its line whether its id is scored or a decoy, in the same sentence."""
    config = _config("cls", True)
    gold = read_gold(_gold(tmp_path, "cls"), config)
    messages = []
    for ident in (IDS[4], DECOYS[4]):
        rows = [[i, "pos"] for i in IDS + DECOYS[:10] if i != ident] + [[ident, "bad"]] + [[DECOYS[20], "neg"]]
        path = tmp_path / ident / "predictions.csv"
        path.parent.mkdir()
        path.write_text("id,label\n" + "".join("%s,%s\n" % tuple(r) for r in rows))
        messages.append(_outcome(str(path), config, gold))
    assert messages[0] == messages[1] == ("error", "predictions.csv line 23: label 'bad' is not one of: neg, neu, pos")


def test_line_splitting_matches_the_line_end_expression():
    """``_split_lines`` (str.replace / str.split) equals ``_NEWLINE.split`` on random text, runs of ``\\r`` too."""
    rng = random.Random(3)
    for _ in range(50000):
        text = "".join(rng.choice(["a", "\r", "\n", "b,", " ", "\r\r\n"]) for _ in range(rng.randint(0, 16)))
        assert text_files._split_lines(text) == text_files._NEWLINE.split(text), repr(text)


@pytest.mark.parametrize("sep", [",", "\t"])
def test_plain_fields_agree_with_the_csv_module(sep):
    """Blocks ``_plain_fields`` accepts are split as csv.reader splits them (stripped); unquoted rows of the
    right width are accepted."""
    import csv

    rng = random.Random(5)
    pieces = ["a", "b1", " c", "d ", "", "\u00e9", "\u2003x", "\x0c", sep, '"', "z" * 5, '"q"', '" r "', '""']
    accepted = 0
    for _ in range(20000):
        width = rng.choice([2, 3])
        lines = ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 6))) for _ in range(rng.randint(1, 5))]
        text = "\n".join(lines)
        fields = formats._plain_fields(text, len(lines), sep, width)
        try:
            rows = list(csv.reader(lines, delimiter=sep, skipinitialspace=True, strict=True))
        except csv.Error:
            rows = None
        plain = rows is not None and all(len(row) == width for row in rows) and '"' not in text
        if fields is None:
            assert not plain
            continue
        accepted += 1
        assert rows is not None and all(len(row) == width for row in rows)
        assert fields == [field.strip() for row in rows for field in row]
    assert accepted > 100


@pytest.mark.parametrize("batch", [1, 7, 1 << 16])
def test_decoy_files_stop_at_files_max_ids(batch, tmp_path, monkeypatch):
    """With decoys the rows are bounded by files.max_ids: row max_ids + 1 stops the reading, mistakes before it
    are reported first, and the sentence names no gold count."""
    monkeypatch.setattr(text_files, "BATCH_ROWS", batch)
    data = {"metric": "f1_macro", "labels": list(LABELS), "files": {"unscored_ids": "ignore", "max_ids": 30}}
    config = parse_config(data)
    gold = read_gold(_gold(tmp_path, "cls"), config)
    rows = [[i, "pos"] for i in IDS + DECOYS[:18]]  # 30 rows: accepted
    for form, name, text in (
        ("csv", "p.csv", lambda r: "id,label\n" + "".join("%s,%s\n" % tuple(x) for x in r)),
        ("jsonl", "p.jsonl", lambda r: "".join(json.dumps({"id": x[0], "label": x[1]}) + "\n" for x in r)),
    ):
        path = tmp_path / form / name
        path.parent.mkdir()
        path.write_text(text(rows))
        assert _outcome(str(path), config, gold)[0] == "values"
        path.write_text(text(rows + [[DECOYS[30], "pos"]]))
        first = 2 if form == "csv" else 1
        assert _outcome(str(path), config, gold) == (
            "error",
            "%s line %d: more than 30 predictions, the most this competition accepts (one per public test "
            "id); give one prediction per test id" % (name, first + 30),
        )
        bad = [list(r) for r in rows + [[DECOYS[30], "pos"]]]
        bad[29][1] = "bad"
        path.write_text(text(bad))
        assert _outcome(str(path), config, gold) == (
            "error",
            "%s line %d: label 'bad' is not one of: neg, neu, pos" % (name, first + 29),
        )


def test_files_max_ids_must_cover_the_gold_in_decoy_mode(tmp_path):
    from leaderboard_ci.scoring.errors import ConfigError

    data = {"metric": "f1_macro", "labels": list(LABELS), "files": {"unscored_ids": "ignore", "max_ids": 5}}
    with pytest.raises(
        ConfigError,
        match=r"^config\.yaml: files\.max_ids \(5\) is below the number of items of "
        r"ref/gold\.csv; set it to the number of public test ids$",
    ):
        read_gold(_gold(tmp_path, "cls"), parse_config(data))
    with pytest.raises(ConfigError, match=r"files\.max_ids must be an integer from 1 to 1000000000, got 0"):
        parse_config({"metric": "f1_macro", "files": {"max_ids": 0}})
