"""leaderboard_ci.scoring.readers and leaderboard_ci.scoring.formats: finding, decoding, parsing and aligning files.

Standard library, numpy and pytest only: these tests also run under the stock
image's Python 3.7 / numpy 1.17 (``/tmp/venv37/bin/python -m pytest tests/test_readers.py``).
"""

import codecs
import hashlib
import os
import sys

import numpy as np
import pytest

PROGRAM = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scoring_program")
if PROGRAM not in sys.path:
    sys.path.insert(0, PROGRAM)

from leaderboard_ci.scoring import formats, text_files  # noqa: E402
from leaderboard_ci.scoring.config import parse_config  # noqa: E402
from leaderboard_ci.scoring.errors import ConfigError, SubmissionError  # noqa: E402
from leaderboard_ci.scoring.readers import find_prediction_file, read_baseline, read_gold, read_predictions  # noqa: E402

IDS = ["a1", "b2", "c3", "d4", "e5", "f6"]
GOLD = ["pos", "neg", "neu", "pos", "pos", "neg"]
PRED = ["pos", "pos", "neu", "neg", "pos", "neg"]
LABELS = ("neg", "neu", "pos")
EXPECTED = np.array([LABELS.index(p) for p in PRED], dtype=np.intp)


def make_config(metric="f1_macro", **data):
    data["metric"] = metric
    return parse_config(data)


def write(folder, name, content, encoding="utf-8"):
    path = os.path.join(str(folder), name)
    parent = os.path.dirname(path)
    if not os.path.isdir(parent):
        os.makedirs(parent)
    with open(path, "wb") as handle:
        handle.write(content if isinstance(content, bytes) else content.encode(encoding))
    return path


def table(rows, header="id,label", sep=",", eol="\n"):
    lines = ([header.replace(",", sep)] if header else []) + [sep.join(r) for r in rows]
    return eol.join(lines) + eol


@pytest.fixture
def ref(tmp_path):
    folder = tmp_path / "ref"
    folder.mkdir()
    write(folder, "gold.csv", table(zip(IDS, GOLD)))
    return str(folder)


@pytest.fixture
def gold(ref):
    return read_gold(ref, make_config())


def read(tmp_path, name, content, gold, config=None, encoding="utf-8"):
    path = write(tmp_path, name, content, encoding)
    return read_predictions(path, config or make_config(), gold)


def message(excinfo):
    return excinfo.value.message


# ---------------------------------------------------------------------------
# Formats
# ---------------------------------------------------------------------------
class TestFormats:
    def test_csv_aligned_by_id(self, tmp_path, gold):
        got = read(tmp_path, "p.csv", table(zip(IDS, PRED)), gold)
        assert got.dtype == np.intp
        np.testing.assert_array_equal(got, EXPECTED)

    def test_shuffled_rows_with_ids_give_the_same_array(self, tmp_path, gold):
        rows = list(zip(IDS, PRED))
        shuffled = [rows[i] for i in (3, 0, 5, 1, 4, 2)]
        np.testing.assert_array_equal(read(tmp_path, "p.csv", table(shuffled), gold), EXPECTED)

    def test_tsv(self, tmp_path, gold):
        np.testing.assert_array_equal(read(tmp_path, "p.tsv", table(zip(IDS, PRED), sep="\t"), gold), EXPECTED)

    @pytest.mark.parametrize("name", ["p.txt", "predictions", "p.out"])
    def test_one_value_per_line_aligned_by_order(self, tmp_path, gold, name):
        np.testing.assert_array_equal(read(tmp_path, name, "\n".join(PRED) + "\n", gold), EXPECTED)

    def test_configured_lines_format_overrides_the_extension(self, tmp_path, gold):
        config = make_config(files={"format": "lines"})
        np.testing.assert_array_equal(read(tmp_path, "p.csv", "\n".join(PRED), gold, config), EXPECTED)

    @pytest.mark.parametrize("sep", ["\t", ","])
    def test_txt_with_a_delimited_header_is_delimited(self, tmp_path, gold, sep):
        rows = list(zip(IDS, PRED))[::-1]
        np.testing.assert_array_equal(read(tmp_path, "p.txt", table(rows, sep=sep), gold), EXPECTED)

    def test_quoted_fields_with_commas(self, tmp_path):
        folder = tmp_path / "ref"
        write(folder, "gold.csv", 'id,label\n1,"a, b"\n2,c\n3,"a, b"\n')
        config = make_config(labels=["a, b", "c"])
        gold = read_gold(str(folder), config)
        got = read(tmp_path, "p.csv", 'label,id\nc,3\n"a, b",1\n"c",2\n', gold, config)
        np.testing.assert_array_equal(got, [0, 1, 1])

    def test_extra_columns_are_ignored_and_header_case_is_forgiven(self, tmp_path, gold):
        rows = ["%s,0.%d,%s,x" % (p, k, i) for k, (i, p) in enumerate(zip(IDS, PRED))]
        text = "Label,score,ID,notes\n" + "\n".join(rows) + "\n"
        np.testing.assert_array_equal(read(tmp_path, "p.csv", text, gold), EXPECTED)

    @pytest.mark.parametrize("column", ["prediction", "pred"])
    def test_alternative_prediction_column_names(self, tmp_path, gold, column):
        text = table(zip(IDS, PRED), header="id," + column)
        np.testing.assert_array_equal(read(tmp_path, "p.csv", text, gold), EXPECTED)

    def test_configured_prediction_column(self, tmp_path, gold):
        config = make_config(files={"prediction_column": "guess"})
        text = "id,label,guess\n" + "".join("%s,neu,%s\n" % (i, p) for i, p in zip(IDS, PRED))
        np.testing.assert_array_equal(read(tmp_path, "p.csv", text, gold, config), EXPECTED)

    def test_json_list_of_objects(self, tmp_path, gold):
        text = "[\n" + ",\n".join('{"id": "%s", "label": "%s", "p": 0.5}' % r for r in zip(IDS, PRED)) + "\n]"
        np.testing.assert_array_equal(read(tmp_path, "p.json", text, gold), EXPECTED)

    def test_json_list_of_values(self, tmp_path, gold):
        text = "[%s]" % ", ".join('"%s"' % p for p in PRED)
        np.testing.assert_array_equal(read(tmp_path, "p.json", text, gold), EXPECTED)

    def test_json_object_mapping_ids(self, tmp_path, gold):
        text = "{%s}" % ", ".join('"%s": "%s"' % r for r in list(zip(IDS, PRED))[::-1])
        np.testing.assert_array_equal(read(tmp_path, "p.json", text, gold), EXPECTED)

    def test_jsonl_objects_and_values(self, tmp_path, gold):
        objects = "".join('{"id": "%s", "label": "%s"}\n' % r for r in zip(IDS, PRED))
        values = "".join('"%s"\n' % p for p in PRED)
        np.testing.assert_array_equal(read(tmp_path, "p.jsonl", objects, gold), EXPECTED)
        np.testing.assert_array_equal(read(tmp_path, "v.jsonl", values, gold), EXPECTED)

    def test_json_detected_without_extension(self, tmp_path, gold):
        text = "[%s]" % ", ".join('"%s"' % p for p in PRED)
        np.testing.assert_array_equal(read(tmp_path, "predictions", text, gold), EXPECTED)
        jsonl = "".join('{"id": "%s", "label": "%s"}\n' % r for r in zip(IDS, PRED))
        np.testing.assert_array_equal(read(tmp_path, "predictions.dat", jsonl, gold), EXPECTED)

    def test_json_integer_ids_and_labels(self, tmp_path):
        write(tmp_path / "ref", "gold.csv", "id,label\n1,0\n2,2\n3,1\n")
        config = make_config()
        gold = read_gold(str(tmp_path / "ref"), config)
        got = read(
            tmp_path, "p.json", '[{"id": 3, "label": 1}, {"id": 1, "label": 0}, {"id": 2, "label": 1}]', gold, config
        )
        np.testing.assert_array_equal(got, [0, 1, 1])

    def test_json_single_object_is_explained(self, tmp_path, gold):
        with pytest.raises(SubmissionError) as excinfo:
            read(tmp_path, "p.json", '{"id": "a1", "label": "pos"}', gold)
        assert message(excinfo) == (
            'p.json line 1: the file is a single JSON object; expected a list of objects like {"id": ..., "label": ...}'
        )

    def test_json_is_read_value_by_value_and_stops_at_the_first_problem(self, tmp_path, gold):
        with pytest.raises(SubmissionError) as excinfo:
            read(tmp_path, "p.json", '["pos",\n"pos",\n"neg" "neu"]', gold)
        assert message(excinfo) == "p.json line 3: not valid JSON (expected ',' or ']')"
        with pytest.raises(SubmissionError) as excinfo:
            read(tmp_path, "p.json", '["nope",\n"pos",\n"neg" "neu"]', gold)
        assert message(excinfo).startswith("p.json line 1: label 'nope' is not one of")

    def test_regression_values(self, tmp_path):
        write(tmp_path / "ref", "gold.csv", "id,score\na,1.5\nb,-2\nc,3e2\n")
        config = make_config("mae", files={"gold_column": "score"})
        gold = read_gold(str(tmp_path / "ref"), config)
        assert gold.kind == "regression" and gold.values.dtype == np.float64
        np.testing.assert_array_equal(gold.values, [1.5, -2.0, 300.0])
        got = read(tmp_path, "p.csv", "id,prediction\nc, 1e-3 \na,+4\nb,-0.25\n", gold, config)
        assert got.dtype == np.float64
        np.testing.assert_array_equal(got, [4.0, -0.25, 0.001])


# ---------------------------------------------------------------------------
# Encodings and line ends
# ---------------------------------------------------------------------------
class TestEncodings:
    @pytest.mark.parametrize(
        "prefix,encoding",
        [
            (b"", "utf-8"),
            (codecs.BOM_UTF8, "utf-8"),
            (codecs.BOM_UTF16_LE, "utf-16-le"),
            (codecs.BOM_UTF16_BE, "utf-16-be"),
        ],
    )
    @pytest.mark.parametrize("eol", ["\n", "\r\n", "\r"])
    def test_accepted_encodings_and_line_ends(self, tmp_path, gold, prefix, encoding, eol):
        data = prefix + table(zip(IDS, PRED), eol=eol).encode(encoding)
        np.testing.assert_array_equal(read(tmp_path, "p.csv", data, gold), EXPECTED)

    @pytest.mark.parametrize("chunk", [1, 2, 3, 5, 7, 16])
    @pytest.mark.parametrize("encoding,prefix", [("utf-8", b""), ("utf-16-le", codecs.BOM_UTF16_LE)])
    def test_chunk_boundaries_inside_characters_and_crlf(self, tmp_path, monkeypatch, chunk, encoding, prefix):
        monkeypatch.setattr(text_files, "_CHUNK", chunk)
        text = "first\r\nsecond caf\u00e9\r\n\u4e2d\u6587\r\r\nlast\r\r \U0001f600"
        path = write(tmp_path, "x.txt", prefix + text.encode(encoding))
        got = list(formats.iter_lines(formats.Source(path, "x.txt")))
        # \r\r\n (Python's csv writer on Windows without newline='') is one line end; a \r alone is text in a file
        # whose first line end is \r\n (as sacrebleu reads it; issue 37), and a line end in a classic Mac file
        assert got == [(1, "first"), (2, "second caf\u00e9"), (3, "\u4e2d\u6587"), (4, "last\r\r \U0001f600")]
        path = write(tmp_path, "mac.txt", prefix + text.replace("\r\r\n", "\r").replace("\r\n", "\r").encode(encoding))
        got = list(formats.iter_lines(formats.Source(path, "mac.txt")))
        assert got == [
            (1, "first"),
            (2, "second caf\u00e9"),
            (3, "\u4e2d\u6587"),
            (4, "last"),
            (5, ""),
            (6, " \U0001f600"),
        ]

    @pytest.mark.parametrize("chunk", [1, 3, 7, 1 << 20])
    @pytest.mark.parametrize("eol", ["\n", "\r\n", "\r\r\n", "\r"])
    def test_both_block_readers_give_the_one_nul_sentence(self, tmp_path, monkeypatch, chunk, eol):
        """Lines and blocks (iter_lines) and chunks (TextFile.text) share one prelude: the same sentence, same line."""
        monkeypatch.setattr(text_files, "_CHUNK", chunk)
        lines = ["first", "second\r\rstill", "", "th\x00ird", "last"] if eol != "\r" else ["a", "", "b\x00", "c"]
        path = write(tmp_path, "n.txt", eol.join(lines).encode())
        said = []
        for read_all in (lambda f: list(iter(f)), lambda f: f.text(), lambda f: list(f.blocks())):
            with pytest.raises(SubmissionError) as excinfo:
                read_all(text_files.TextFile(text_files.Source(path, "n.txt")))
            said.append(message(excinfo))
        nul_line = next(k for k, line in enumerate(lines, 1) if "\x00" in line)
        assert (
            said
            == [
                "n.txt line %d: the line holds a NUL byte (\\x00), which a text file of predictions cannot contain; "
                "save the file as plain UTF-8 text" % nul_line
            ]
            * 3
        )

    def test_latin1_names_the_byte_and_line(self, tmp_path, gold):
        text = table(zip(IDS, PRED)).replace("neu", "n\u00e9u")
        with pytest.raises(SubmissionError) as excinfo:
            read(tmp_path, "p.csv", text, gold, encoding="latin-1")
        assert message(excinfo) == "p.csv is not UTF-8 text (byte 0xe9 at line 4); save it as UTF-8"

    def test_undecodable_byte_after_a_chunk_boundary(self, tmp_path, gold, monkeypatch):
        monkeypatch.setattr(text_files, "_CHUNK", 4)
        data = table(zip(IDS, PRED)).encode() + b"x\xff\n"
        with pytest.raises(SubmissionError) as excinfo:
            read(tmp_path, "p.csv", data, gold)
        assert "(byte 0xff at line 8)" in message(excinfo)

    def test_utf16_with_a_lone_surrogate(self, tmp_path, gold):
        data = codecs.BOM_UTF16_LE + "id,label\n".encode("utf-16-le") + b"\x00\xd8a\x00"
        with pytest.raises(SubmissionError) as excinfo:
            read(tmp_path, "p.csv", data, gold)
        assert message(excinfo) == "p.csv is not valid UTF-16 text (at line 2); save it as UTF-8"

    def test_utf16_without_bom(self, tmp_path, gold):
        with pytest.raises(SubmissionError) as excinfo:
            read(tmp_path, "p.csv", table(zip(IDS, PRED)).encode("utf-16-le"), gold)
        assert message(excinfo) == "p.csv is UTF-16 text without a byte-order mark; save it as UTF-8"

    @pytest.mark.parametrize(
        "data", [b"id,label\n\x00\x01\x02\x03", bytes(bytearray(range(1, 32)) * 10), b"\x7fELF\x02\x01\x01\x00\x00\x00"]
    )
    def test_binary_files(self, tmp_path, gold, data):
        with pytest.raises(SubmissionError) as excinfo:
            read(tmp_path, "p.csv", data, gold)
        assert message(excinfo) == "p.csv is a binary file, not a text file of predictions"

    def test_zip_and_excel_files(self, tmp_path, gold):
        with pytest.raises(SubmissionError) as excinfo:
            read(tmp_path, "p.xlsx", b"PK\x03\x04rest", gold)
        assert message(excinfo).startswith("p.xlsx is a zip archive (or an Excel .xlsx file), not a text file")

    def test_blank_lines(self, tmp_path, gold):
        np.testing.assert_array_equal(read(tmp_path, "p.txt", "\n".join(PRED) + "\n\n \n", gold), EXPECTED)
        with pytest.raises(SubmissionError) as excinfo:
            read(tmp_path, "q.txt", "\n".join(PRED[:2] + [" "] + PRED[2:]), gold)
        assert message(excinfo).startswith("q.txt line 3: the line is blank; remove blank lines")


# ---------------------------------------------------------------------------
# Participant mistakes (the corpus in tests/bad_inputs covers many more)
# ---------------------------------------------------------------------------
class TestMistakes:
    def expect(self, tmp_path, gold, name, content, text, config=None):
        with pytest.raises(SubmissionError) as excinfo:
            read(tmp_path, name, content, gold, config)
        assert message(excinfo) == text

    def test_size_limit_is_checked_before_reading(self, tmp_path, gold):
        path = os.path.join(str(tmp_path), "p.csv")
        with open(path, "wb") as handle:
            handle.truncate(312500000)  # sparse: all NUL bytes, so reading it would say "binary"
        with pytest.raises(SubmissionError) as excinfo:
            read_predictions(path, make_config(), gold)
        assert message(excinfo) == "p.csv is 312.5 MB; the limit is 200 MB"

    def test_reading_stops_at_the_first_extra_row(self, tmp_path, gold):
        data = ("\n".join(PRED + ["pos"]) + "\n" + "neg\n" * 400000).encode() + b"\xff\n"
        with pytest.raises(SubmissionError) as excinfo:
            read(tmp_path, "p.txt", data, gold)
        assert message(excinfo).startswith("p.txt line 7: more predictions than the 6 test items")

    def test_missing_and_extra_ids(self, tmp_path, gold):
        rows = list(zip(IDS, PRED))
        self.expect(
            tmp_path,
            gold,
            "p.csv",
            table(rows[:2] + rows[4:]),
            "p.csv is missing 2 of the 6 test ids (e.g. 'c3', 'd4'); give one prediction for every id",
        )
        self.expect(
            tmp_path,
            gold,
            "p.csv",
            table(rows + [("zz", "pos")]),
            "p.csv line 8: id 'zz' is not a test id; expected ids like 'a1'",
        )

    def test_number_spellings(self, tmp_path):
        write(tmp_path / "ref", "gold.csv", "id,label\n1,1.0\n2,2.0\n")
        config = make_config(labels=["1.0", "2.0"])
        gold = read_gold(str(tmp_path / "ref"), config)
        self.expect(
            tmp_path,
            gold,
            "p.csv",
            "id,label\n1,1\n2,2.0\n",
            "p.csv line 2: label '1' is not one of: 1.0, 2.0 (write 1.0, not 1)",
            config,
        )

    def test_labels_found_in_the_gold_are_never_listed(self, tmp_path):
        write(tmp_path / "ref", "gold.csv", "id,label\n1,1.0\n2,2.0\n")
        config = make_config()
        gold = read_gold(str(tmp_path / "ref"), config)
        self.expect(
            tmp_path,
            gold,
            "p.csv",
            "id,label\n1,1\n2,2.0\n",
            "p.csv line 2: label '1' is not one of the task's labels",
            config,
        )
        self.expect(
            tmp_path,
            gold,
            "p.csv",
            "id,label\n1,\n2,2.0\n",
            "p.csv line 2: the prediction is empty; expected one of the task's labels",
            config,
        )

    def test_many_labels_are_not_all_listed(self, tmp_path):
        labels = ["c%02d" % k for k in range(30)]
        write(tmp_path / "ref", "gold.csv", table((str(k), l) for k, l in enumerate(labels)))
        config = make_config(labels=labels)
        gold = read_gold(str(tmp_path / "ref"), config)
        with pytest.raises(SubmissionError) as excinfo:
            read(tmp_path, "p.txt", "\n".join(["c00", "C01"] + labels[2:]), gold, config)
        assert message(excinfo).startswith("p.txt line 2: label 'C01' is not one of the 30 labels (c00, c01, ")
        assert message(excinfo).endswith("c19, ...) (labels are case-sensitive; did you mean 'c01'?)")

    def test_one_column_with_header_needs_ids_when_gold_has_them(self, tmp_path, gold):
        self.expect(
            tmp_path,
            gold,
            "p.txt",
            "label\n" + "\n".join(PRED),
            "p.txt line 1: the header has no id column 'id' (found: label); the header should be 'id,label'",
        )

    def test_one_column_with_header_by_order_without_ids(self, tmp_path):
        write(tmp_path / "ref", "gold.txt", "\n".join(GOLD))
        config = make_config(files={"gold": "gold.txt"})
        gold = read_gold(str(tmp_path / "ref"), config)
        assert gold.ids is None
        got = read(tmp_path, "p.csv", "id,label\n" + "".join("x%d,%s\n" % r for r in enumerate(PRED)), gold, config)
        np.testing.assert_array_equal(got, EXPECTED)

    def test_regression_values_out_of_range(self, tmp_path):
        write(tmp_path / "ref", "gold.csv", "id,label\na,1\nb,2\n")
        config = make_config("rmse")
        gold = read_gold(str(tmp_path / "ref"), config)
        self.expect(
            tmp_path,
            gold,
            "p.csv",
            "id,label\na,1\nb,1%s\n" % ("0" * 400),
            "p.csv line 3: the prediction '1000000000000000000000000000000000000000...' is out of range "
            "(the limit is 1e100 in absolute value)",
            config,
        )
        self.expect(
            tmp_path, gold, "p.csv", "id,label\na,1\nb,1_000\n", "p.csv line 3: '1_000' is not a number", config
        )
        self.expect(
            tmp_path,
            gold,
            "p.json",
            '{"a": 1, "b": NaN}',
            "p.json line 1: the prediction is NaN; expected a finite number",
            config,
        )


# ---------------------------------------------------------------------------
# The gold standard
# ---------------------------------------------------------------------------
class TestGold:
    def test_gold_standard_fields(self, ref, gold):
        assert gold.labels == LABELS
        assert gold.values.dtype == np.intp
        np.testing.assert_array_equal(gold.values, [LABELS.index(g) for g in GOLD])
        assert gold.ids == tuple(IDS)
        assert gold.groups is None and gold.group_values is None
        assert gold.source == "gold.csv"
        with open(os.path.join(ref, "gold.csv"), "rb") as handle:
            assert gold.sha256 == hashlib.sha256(handle.read()).hexdigest()

    def test_configured_label_order_and_unused_labels(self, ref):
        gold = read_gold(ref, make_config(labels=["pos", "neg", "neu", "other"]))
        assert gold.labels == ("pos", "neg", "neu", "other")
        np.testing.assert_array_equal(gold.values, [("pos", "neg", "neu").index(g) for g in GOLD])

    def test_numeric_labels_sort_numerically(self, tmp_path):
        write(tmp_path, "gold.csv", "id,label\n1,10\n2,9\n3,1.5\n4,9\n5,-2\n")
        assert read_gold(str(tmp_path), make_config()).labels == ("-2", "1.5", "9", "10")
        write(tmp_path, "gold.csv", "id,label\n1,10\n2,9\n3,b\n")
        assert read_gold(str(tmp_path), make_config()).labels == ("10", "9", "b")

    def test_gold_label_missing_from_config_labels(self, ref):
        with pytest.raises(ConfigError) as excinfo:
            read_gold(ref, make_config(labels=["pos", "neg"]))
        assert message(excinfo) == (
            "ref/gold.csv line 4: the label is not in the labels list of config.yaml; add it to labels"
        )
        assert "neu" not in message(excinfo)

    @pytest.mark.parametrize(
        "metric,text",
        [
            (
                {"name": "f1", "average": "macro", "labels": ["pos", "mixed"]},
                "config.yaml: metric f1_macro names a class",
            ),
            ("f1_binary", "config.yaml: metric f1_binary names a class"),
        ],
    )
    def test_metric_labels_are_checked_against_the_gold_labels(self, ref, metric, text):
        config = parse_config({"metric": metric, "pos_label": "pos"})
        with pytest.raises(ConfigError) as excinfo:
            read_gold(ref, config)
        # without configured labels the set is the gold's, which no message may list
        assert message(excinfo).startswith(text)
        assert "set labels in config.yaml" in message(excinfo)
        assert "neu" not in message(excinfo) and "neg" not in message(excinfo)

    def test_missing_gold(self, tmp_path):
        write(tmp_path, "answers.csv", "id,label\n")
        with pytest.raises(ConfigError) as excinfo:
            read_gold(str(tmp_path), make_config())
        assert message(excinfo) == (
            "the gold file ref/gold.csv (files.gold) is missing from the reference data (ref/ holds: answers.csv)"
        )

    def test_duplicate_ids(self, tmp_path):
        write(tmp_path, "gold.csv", "id,label\na,x\nb,y\na,y\n")
        with pytest.raises(ConfigError) as excinfo:
            read_gold(str(tmp_path), make_config())
        assert message(excinfo) == (
            "ref/gold.csv line 4: id 'a' appears again (first on line 2); gold ids must be unique"
        )

    def test_missing_id_column(self, tmp_path):
        write(tmp_path, "gold.csv", "ident,label\na,x\nb,y\n")
        with pytest.raises(ConfigError) as excinfo:
            read_gold(str(tmp_path), make_config())
        assert message(excinfo) == (
            "ref/gold.csv line 1: the header has no id column 'id' (found 2 columns); the header should be 'id,label'"
        )

    def test_without_id_column_setting_ids_are_not_kept(self, ref):
        assert read_gold(ref, make_config(files={"id_column": None})).ids is None

    def test_one_value_per_line_gold_has_no_ids(self, tmp_path):
        write(tmp_path, "gold.txt", "\n".join(GOLD) + "\n")
        gold = read_gold(str(tmp_path), make_config(files={"gold": "gold.txt"}))
        assert gold.ids is None and gold.labels == LABELS

    def test_gold_messages_never_quote_values(self, tmp_path):
        write(tmp_path, "gold.csv", "id,score\na,1.5\nb,secret-value\n")
        with pytest.raises(ConfigError) as excinfo:
            read_gold(str(tmp_path), make_config("mae", files={"gold_column": "score"}))
        assert message(excinfo) == (
            "ref/gold.csv line 3: the value is not a finite number (the metric is a regression metric)"
        )
        write(tmp_path, "gold.csv", "secret,label-x\n")
        with pytest.raises(ConfigError) as excinfo:
            read_gold(str(tmp_path), make_config())
        assert "secret" not in message(excinfo) and "label-x" not in message(excinfo)

    def test_empty_gold(self, tmp_path):
        write(tmp_path, "gold.csv", "id,label\n")
        with pytest.raises(ConfigError) as excinfo:
            read_gold(str(tmp_path), make_config())
        assert message(excinfo) == "ref/gold.csv has no items"


class TestGroups:
    GOLD = "id,label,lang\na,x,en\nb,y,de\nc,x,en\nd,y,fr\n"

    def gold(self, tmp_path, groups, text=None, metric="f1_macro"):
        write(tmp_path, "gold.csv", text or self.GOLD)
        return read_gold(str(tmp_path), make_config(metric, groups=groups))

    def test_sorted_unique_groups(self, tmp_path):
        gold = self.gold(tmp_path, "lang")
        assert gold.group_values == ("de", "en", "fr")
        assert gold.groups.dtype == np.intp
        np.testing.assert_array_equal(gold.groups, [1, 0, 1, 2])

    def test_configured_group_order(self, tmp_path):
        gold = self.gold(tmp_path, {"column": "lang", "values": ["fr", "en", "de"]})
        np.testing.assert_array_equal(gold.groups, [1, 2, 1, 0])

    def test_gold_group_missing_from_config(self, tmp_path):
        with pytest.raises(ConfigError) as excinfo:
            self.gold(tmp_path, {"column": "lang", "values": ["en", "de"]})
        assert message(excinfo) == "ref/gold.csv has group values that groups.values in config.yaml does not list: 'fr'"

    def test_listed_group_absent_from_gold(self, tmp_path):
        with pytest.raises(ConfigError) as excinfo:
            self.gold(tmp_path, {"column": "lang", "values": ["en", "de", "fr", "it"]})
        assert message(excinfo) == "config.yaml: groups.values lists 'it', which no item of ref/gold.csv has"

    def test_missing_group_column(self, tmp_path):
        with pytest.raises(ConfigError) as excinfo:
            self.gold(tmp_path, "language")
        assert message(excinfo) == "ref/gold.csv line 1: the header has no group column 'language' (found 3 columns)"

    def test_group_keys_too_long(self, tmp_path):
        text = "id,label,lang\na,x,a_very_long_group_name_here\nb,y,en\n"
        with pytest.raises(ConfigError) as excinfo:
            self.gold(tmp_path, "lang", text=text, metric="balanced_accuracy")
        assert "over Codabench's 36" in message(excinfo)

    def test_groups_need_columns(self, tmp_path):
        write(tmp_path, "gold.txt", "x\ny\n")
        with pytest.raises(ConfigError) as excinfo:
            read_gold(str(tmp_path), make_config(groups="lang", files={"gold": "gold.txt"}))
        assert message(excinfo).startswith("ref/gold.txt has no columns, so it cannot hold the group column 'lang'")


# ---------------------------------------------------------------------------
# The baseline
# ---------------------------------------------------------------------------
class TestBaseline:
    def config(self, **files):
        return make_config(baseline={"file": "baseline.csv", "name": "majority"}, files=files or None)

    def test_read_like_a_submission(self, ref, gold):
        write(ref, "baseline.csv", table(list(zip(IDS, PRED))[::-1]))
        np.testing.assert_array_equal(read_baseline(ref, self.config(), gold), EXPECTED)

    def test_problems_are_the_organizers(self, ref, gold):
        write(ref, "baseline.csv", table(list(zip(IDS, PRED))[:-1]))
        with pytest.raises(ConfigError) as excinfo:
            read_baseline(ref, self.config(), gold)
        assert message(excinfo) == (
            "the baseline 'majority' (baseline.file) cannot be used: ref/baseline.csv is "
            "missing 1 of the 6 test ids (e.g. 'f6'); give one prediction for every id"
        )

    def test_missing_baseline_file(self, ref, gold):
        with pytest.raises(ConfigError) as excinfo:
            read_baseline(ref, self.config(), gold)
        assert message(excinfo) == (
            "the baseline file ref/baseline.csv (baseline.file) is missing from the reference data"
        )

    def test_size_limit_is_for_participants_only(self, ref, gold):
        write(ref, "baseline.csv", table(zip(IDS, PRED)) + " " * 20000)
        got = read_baseline(ref, self.config(max_megabytes=0.01), gold)
        np.testing.assert_array_equal(got, EXPECTED)


# ---------------------------------------------------------------------------
# Finding the prediction file
# ---------------------------------------------------------------------------
class TestFind:
    def res(self, tmp_path, files):
        folder = str(tmp_path / "res")
        os.makedirs(folder)
        for name, content in files.items():
            write(folder, name, content)
        write(folder, "metadata", "elapsedTime: 1\n")
        return folder

    def find(self, tmp_path, files, **settings):
        folder = self.res(tmp_path, files)
        path = find_prediction_file(folder, make_config(files=settings or None))
        return os.path.relpath(path, folder)

    def error(self, tmp_path, files, **settings):
        with pytest.raises(SubmissionError) as excinfo:
            self.find(tmp_path, files, **settings)
        return message(excinfo)

    def test_the_only_file(self, tmp_path):
        assert (
            self.find(
                tmp_path,
                {
                    "answers.tsv": "x",
                    ".DS_Store": "x",
                    "._answers.tsv": "x",
                    "__MACOSX/._answers.tsv": "x",
                    "Thumbs.db": "x",
                },
            )
            == "answers.tsv"
        )

    def test_one_nested_folder(self, tmp_path):
        assert self.find(
            tmp_path, {"sub/p.csv": "x", "sub/.DS_Store": "x", "__MACOSX/sub/._p.csv": "x"}
        ) == os.path.join("sub", "p.csv")

    def test_data_files_win_over_other_files(self, tmp_path):
        assert self.find(tmp_path, {"p.csv": "x", "README.md": "x", "model.py": "x"}) == "p.csv"

    def test_named_file(self, tmp_path):
        assert self.find(tmp_path, {"p.csv": "x", "other.csv": "x"}, predictions="p.csv") == "p.csv"
        assert self.find(tmp_path / "2", {"sub/p.csv": "x", "sub/x.csv": "x"}, predictions="p.csv") == os.path.join(
            "sub", "p.csv"
        )

    def test_named_file_missing(self, tmp_path):
        assert self.error(tmp_path, {"P.CSV": "x"}, predictions="p.csv") == (
            "the submission has no file named 'p.csv' (found: P.CSV); name your prediction file p.csv and put it "
            "at the top of the zip"
        )

    def test_several_candidates(self, tmp_path):
        files = dict(("p%d.csv" % k, "x") for k in range(7))
        assert self.error(tmp_path, files) == (
            "the submission has 7 candidate prediction files (p0.csv, p1.csv, p2.csv, p3.csv, p4.csv and 2 more) "
            "and none has the header 'id,label'; submit a zip holding only your prediction file"
        )

    def test_empty_submission(self, tmp_path):
        assert self.error(tmp_path, {"__MACOSX/._p.csv": "x"}).startswith("the submission is empty")
        with pytest.raises(SubmissionError):
            find_prediction_file(str(tmp_path / "nowhere"), make_config())

    def test_empty_folder(self, tmp_path):
        folder = self.res(tmp_path, {})
        os.makedirs(os.path.join(folder, "sub", "__MACOSX"))
        with pytest.raises(SubmissionError) as excinfo:
            find_prediction_file(folder, make_config())
        assert message(excinfo).startswith("the submission is empty")

    def test_header_without_rows(self, tmp_path, gold):
        with pytest.raises(SubmissionError) as excinfo:
            read(tmp_path, "p.csv", "id,label\n", gold)
        assert message(excinfo) == "p.csv has a header but no predictions; expected one line per test item (6)"
        with pytest.raises(SubmissionError) as excinfo:
            read(tmp_path, "p.json", "[]", gold)
        assert message(excinfo) == "p.json has no predictions; expected one per test item (6)"

    def test_deep_nesting(self, tmp_path):
        assert self.error(tmp_path, {"a/b/c/p.csv": "x"}) == (
            "the prediction file is nested too deep (in a/b/); put it at the top of the zip"
        )

    @pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symbolic links")
    def test_symbolic_links(self, tmp_path):
        folder = self.res(tmp_path, {"real.csv": "x"})
        os.symlink("real.csv", os.path.join(folder, "p.csv"))
        with pytest.raises(SubmissionError) as excinfo:
            find_prediction_file(folder, make_config())
        assert message(excinfo) == "p.csv is a symbolic link; submit the file itself, not a link"
        os.remove(os.path.join(folder, "p.csv"))
        os.makedirs(os.path.join(folder, "sub"))
        os.remove(os.path.join(folder, "real.csv"))
        os.symlink(os.path.join("..", "..", "ref", "gold.csv"), os.path.join(folder, "sub", "gold.csv"))
        with pytest.raises(SubmissionError) as excinfo:
            find_prediction_file(folder, make_config())
        assert message(excinfo) == "sub/gold.csv is a symbolic link; submit the file itself, not a link"

    def test_messages_name_the_file_relative_to_res(self, tmp_path, gold):
        folder = self.res(tmp_path, {"sub/p.csv": "id,label\na1,pos\n"})
        path = find_prediction_file(folder, make_config())
        with pytest.raises(SubmissionError) as excinfo:
            read_predictions(path, make_config(), gold)
        assert message(excinfo).startswith("sub/p.csv is missing 5 of the 6 test ids")
        with pytest.raises(SubmissionError) as excinfo:  # a plain path below res/: the same name
            read_predictions(str(os.path.join(folder, "sub", "p.csv")), make_config(), gold)
        assert message(excinfo).startswith("sub/p.csv is missing")

    def test_messages_name_the_file_relative_to_any_submission_folder(self, tmp_path, gold):
        folder = str(tmp_path / "submission_17")
        write(folder, "team/p.csv", "id,label\na1,pos\n")
        path = find_prediction_file(folder, make_config())
        with pytest.raises(SubmissionError) as excinfo:
            read_predictions(path, make_config(), gold)
        assert message(excinfo).startswith("team/p.csv is missing 5 of the 6 test ids")
        assert str(tmp_path) not in message(excinfo)


class TestEscaping:
    """One rule for everything a message echoes (text_files.escape / quote / list_names / one_line)."""

    @pytest.mark.parametrize(
        "raw,shown",
        [
            ("id", "id"),
            ("caf\u00e9 \u4e2d", "caf\u00e9 \u4e2d"),
            ("a\nb", "a\\nb"),
            ("\x1b[31mx", "\\x1b[31mx"),
            ("\ufeffid", "\\ufeffid"),
            ("la\u200bbel", "la\\u200bbel"),
            ("q\u202e1", "q\\u202e1"),
            ("x\u2028y", "x\\u2028y"),
            ("a\udcffb", "a\\udcffb"),
            ("tab\there", "tab\\there"),
            ("nb\u00a0sp", "nb\\xa0sp"),
        ],
    )
    def test_invisible_characters_are_made_visible(self, raw, shown):
        assert text_files.escape(raw) == shown
        assert text_files.quote(raw) == "'%s'" % shown
        assert text_files.escape(raw).isprintable()

    def test_long_text_is_shortened_and_names_are_listed_escaped(self):
        assert text_files.quote("x" * 100) == "'%s...'" % ("x" * 40)
        assert text_files.list_names(["\ufeffid", "a\nb", "c"], limit=2) == "\\ufeffid, a\\nb and 1 more"
        assert text_files.one_line("line one\nline two\r\x1b") == "line one\\nline two\\r\\x1b"
        source = text_files.Source("/x", "p" * 100 + "\n.csv")
        assert "\n" not in str(source.at(3, "bad")) and str(source.at(3, "bad")).endswith("p\\n.csv line 3: bad")
