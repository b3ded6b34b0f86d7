"""The corpus of malformed (and oddly formed but valid) submissions.

Each :class:`Case` is a submission folder, built into a temp dir by
:func:`build`, with the task it is scored on and what must happen:

* ``expect`` (a regex) and ``code`` 1: the participant's mistake, reported as
  one sentence on stderr;
* ``code`` 2: the organizer's mistake (bad config or gold), with ``config`` /
  ``ref`` overriding the task's;
* ``accept``: a file that must be read and scored exactly like the clean
  submission of its task (encodings, line ends, shuffled rows, zip layouts).

The gold standards have distinctive ids (``q7x-001``...) and, for
regression, distinctive values, so that :mod:`leaks` can search every output
for them.  A few inputs are clearer as literal files (``files/``); the test
``test_checked_in_files_match_the_corpus`` checks they still match the gold.
"""

import io
import math
import os
import re
import zipfile
from collections import namedtuple

HERE = os.path.dirname(os.path.abspath(__file__))
FILES = os.path.join(HERE, "files")

# ---------------------------------------------------------------------------
# The tasks: gold standards, clean submissions and configs
# ---------------------------------------------------------------------------
N = 30
IDS = tuple("q7x-%03d" % (i + 1) for i in range(N))
LABELS = ("against", "favor", "none")
GOLD_CODES = tuple((i * 7 + i // 3 + (i * i) % 5) % 3 for i in range(N))
GOLD_LABELS = tuple(LABELS[c] for c in GOLD_CODES)
#: The clean submission: the gold with every fourth item wrong.
PRED_LABELS = tuple(LABELS[(c + 1) % 3] if i % 4 == 0 else LABELS[c] for i, c in enumerate(GOLD_CODES))
GOLD_VALUES = tuple("%.6f" % (10 + 3.7 * i + 2.5 * math.sin(i * 1.3) + 0.001234 * i) for i in range(N))
PRED_VALUES = tuple("%.4f" % (float(v) + 1.7 * math.cos(i * 2.1)) for i, v in enumerate(GOLD_VALUES))
INT_GOLD = tuple(str(c) for c in GOLD_CODES)
INT_PRED = tuple(str(c) for c in (LABELS.index(p) for p in PRED_LABELS))

CLS_CONFIG = """\
metric: f1_macro
extra_metrics: [accuracy]
labels: [against, favor, none]
bootstrap: {n_resamples: 200}
"""
REG_CONFIG = """\
metric: mae
extra_metrics: [pearson]
bootstrap: {n_resamples: 200}
files: {gold_column: score}
"""
INT_CONFIG = """\
metric: f1_macro
extra_metrics: [accuracy]
bootstrap: {n_resamples: 200}
"""


def rows_text(rows, header=("id", "label"), sep=",", eol="\n"):
    """A delimited file: the header, then one line per row."""
    lines = ([sep.join(header)] if header else []) + [sep.join(row) for row in rows]
    return eol.join(lines) + eol


def pairs(ids=IDS, values=PRED_LABELS):
    return list(zip(ids, values))


TASKS = {
    "cls": {
        "config": CLS_CONFIG,
        "gold": rows_text(pairs(IDS, GOLD_LABELS)),
        "gold_values": GOLD_LABELS,
        "clean": rows_text(pairs()),
    },
    "reg": {
        "config": REG_CONFIG,
        "gold": rows_text(pairs(IDS, GOLD_VALUES), header=("id", "score")),
        "gold_values": GOLD_VALUES,
        "clean": rows_text(pairs(IDS, PRED_VALUES), header=("id", "score")),
    },
    "int": {
        "config": INT_CONFIG,
        "gold": rows_text(pairs(IDS, INT_GOLD)),
        "gold_values": INT_GOLD,
        "clean": rows_text(pairs(IDS, INT_PRED)),
    },
}

# ---------------------------------------------------------------------------
# Cases
# ---------------------------------------------------------------------------
Case = namedtuple("Case", "name files expect code task config ref accept zip")


class Link(object):
    """A symbolic link to ``target`` (a relative path, or absolute when it starts with ``{outside}``)."""

    def __init__(self, target):
        self.target = target


class CheckedIn(object):
    """A literal file from ``files/``."""

    def __init__(self, name):
        self.name = name

    def read(self):
        with open(os.path.join(FILES, self.name), "rb") as handle:
            return handle.read()


def case(name, files, expect=None, code=1, task="cls", config=None, ref=None, accept=False, zip=False):
    return Case(name, files, expect, code, task, config, ref, accept, zip)


def _replace(rows, index, row):
    rows = list(rows)
    rows[index] = row
    return rows


def _csv(rows, **kw):
    return rows_text(rows, **kw)


_P = pairs()
_REG = pairs(IDS, PRED_VALUES)
_REG_HEADER = ("id", "score")
_CLEAN = TASKS["cls"]["clean"]
_SHUFFLED = [_P[i] for i in (list(range(1, N, 2)) + list(range(0, N, 2)))[::-1]]

CASES = [
    # -- the submission's files -------------------------------------------
    case(
        "empty_file",
        {"predictions.csv": ""},
        r"^predictions\.csv is empty; expected the header 'id,label' and one line per test item$",
    ),
    case(
        "only_blank_lines",
        {"predictions.csv": "\n  \n\n"},
        r"^predictions\.csv is empty; expected the header 'id,label' and one line per test item$",
    ),
    case(
        "empty_txt",
        {"predictions.txt": b"\xef\xbb\xbf"},
        r"^predictions\.txt is empty; expected one prediction per test item$",
    ),
    case("empty_zip", {}, r"^the submission is empty: the zip holds no prediction file"),
    case(
        "only_macosx",
        {"__MACOSX/._predictions.csv": b"\x00\x05\x16\x07junk", ".DS_Store": b"\x00\x00"},
        r"^the submission is empty",
    ),
    case("lone_metadata", {"metadata": "elapsedTime: 1\n"}, r"^the submission is empty"),
    case(
        "two_candidates",
        {"predictions.csv": _CLEAN, "predictions_v2.csv": _CLEAN},
        r"^the submission has 2 candidate prediction files \(predictions\.csv, predictions_v2\.csv\) and each "
        r"has the header 'id,label'; submit a zip holding only your prediction file$",
    ),
    case(
        "gold_name_next_to_predictions",
        {"gold.csv": _CLEAN, "predictions.csv": _CLEAN},
        r"^the submission has 2 candidate prediction files \(gold\.csv, predictions\.csv\)",
    ),
    case(
        "deeply_nested",
        {"a/b/predictions.csv": _CLEAN},
        r"^the prediction file is nested too deep \(in a/b/\); put it at the top of the zip",
    ),
    case(
        "two_folders",
        {"a/predictions.csv": _CLEAN, "b/predictions.csv": _CLEAN},
        r"^the submission has 2 folders holding a file named 'predictions\.csv' \(a/predictions\.csv, "
        r"b/predictions\.csv\); expected one prediction file, at the top of the zip or in a single folder",
    ),
    case(
        "symlink_to_real_file",
        {"predictions.csv": Link("{outside}/real.csv")},
        r"^predictions\.csv is a symbolic link; submit the file itself, not a link$",
    ),
    case(
        "symlink_to_gold",
        {"predictions.csv": Link("../ref/gold.csv")},
        r"^predictions\.csv is a symbolic link; submit the file itself",
    ),
    case("symlinked_folder_to_ref", {"sub": Link("../ref")}, r"^sub is a symbolic link"),
    case(
        "named_file_missing",
        {"answer.csv": _CLEAN},
        r"^the submission has no file named 'predictions\.csv' \(found: answer\.csv\); name your prediction "
        r"file predictions\.csv",
        config=CLS_CONFIG + "files: {predictions: predictions.csv}\n",
    ),
    case(
        "too_large",
        {"predictions.csv": _CLEAN * 40},
        r"^predictions\.csv is 0\.0\d+ MB; the limit is 0\.01 MB$",
        config=CLS_CONFIG + "files: {max_megabytes: 0.01}\n",
    ),
    # -- encodings and binary content ---------------------------------------
    case(
        "latin1",
        {"predictions.csv": CheckedIn("latin1.csv")},
        r"^predictions\.csv is not UTF-8 text \(byte 0xe9 at line 4\); save it as UTF-8$",
    ),
    case(
        "utf16_without_bom",
        {"predictions.csv": CheckedIn("utf16_nobom.csv")},
        r"^predictions\.csv is UTF-16 text without a byte-order mark; save it as UTF-8$",
    ),
    case(
        "binary_junk",
        {"predictions.csv": CheckedIn("binary_junk.bin")},
        r"^predictions\.csv is a binary file, not a text file of predictions$",
    ),
    case(
        "zip_inside_zip",
        {"predictions.zip": CheckedIn("inner.zip")},
        r"^predictions\.zip is a zip archive \(or an Excel \.xlsx file\), not a text file of predictions",
    ),
    case(
        "nul_after_first_block",
        {"predictions.csv": _CLEAN + "#" * (1 << 20) + "\x00\n"},
        r"^predictions\.csv line 32: the line holds a NUL byte \(\\x00\)",
    ),
    # -- CSV structure -------------------------------------------------------
    case(
        "semicolons_in_csv",
        {"predictions.csv": _csv(_P, sep=";")},
        r"^predictions\.csv line 1: the columns are separated by semicolons \(';'\), but a CSV file must "
        r"separate them by commas \(','\)$",
    ),
    case(
        "tabs_in_csv",
        {"predictions.csv": _csv(_P, sep="\t")},
        r"^predictions\.csv line 1: the columns are separated by tabs, but a CSV file must separate them by "
        r"commas",
    ),
    case(
        "commas_in_tsv",
        {"predictions.tsv": _csv(_P)},
        r"^predictions\.tsv line 1: the columns are separated by commas \(','\), but a TSV file must separate "
        r"them by tabs$",
    ),
    case(
        "missing_header",
        {"predictions.csv": _csv(_P, header=None)},
        r"^predictions\.csv line 1: the first line is data, not a header; start the file with the header "
        r"'id,label'$",
    ),
    case(
        "missing_id_column",
        {"predictions.csv": _csv([(p,) for _, p in _P], header=("label",))},
        r"^predictions\.csv line 1: the header has no id column 'id' \(found: label\); the header should be "
        r"'id,label'$",
    ),
    case(
        "missing_prediction_column",
        {"predictions.csv": _csv(_P, header=("id", "answer"))},
        r"^predictions\.csv line 1: the header has no prediction column 'label' or 'prediction' or 'pred' "
        r"\(found: id, answer\); the header should be 'id,label'$",
    ),
    case(
        "header_names_column_twice",
        {"predictions.csv": _csv([r + ("x",) for r in _P], header=("id", "label", "Label"))},
        r"^predictions\.csv line 1: the header names the column 'label' twice; expected each column once, "
        r"e\.g\. the header 'id,label'$",
    ),
    case(
        "extra_field_in_row",
        {"predictions.csv": _csv(_replace(_P, 10, _P[10] + ("0.9",)))},
        r"^predictions\.csv line 12: expected 2 fields, found 3 \(a value containing commas \(','\) must be "
        r"in double quotes\)$",
    ),
    case(
        "missing_field_in_row",
        {"predictions.csv": _csv(_replace(_P, 3, (_P[3][0],)))},
        r"^predictions\.csv line 5: expected 2 fields, found 1$",
    ),
    case(
        "blank_line_in_the_middle",
        {"predictions.csv": _CLEAN.replace("\nq7x-009,", "\n\nq7x-009,")},
        r"^predictions\.csv line 10: the line is blank; remove blank lines",
    ),
    # -- ids ------------------------------------------------------------------
    case(
        "missing_ids",
        {"predictions.csv": _csv(_P[:3] + _P[4:9] + _P[10:20] + _P[21:])},
        r"^predictions\.csv is missing 3 of the 30 test ids \(e\.g\. 'q7x-004', 'q7x-010', 'q7x-021'\); "
        r"give one prediction for every id$",
    ),
    case(
        "extra_ids",
        {"predictions.csv": _csv(_P + [("zz-1", "favor"), ("zz-2", "none")])},
        r"^predictions\.csv line 32: id 'zz-1' is not a test id; expected ids like 'q7x-001'$",
    ),
    case(
        "wrong_id_format",
        {"predictions.csv": _csv([(str(i + 1), p) for i, (_, p) in enumerate(_P)])},
        r"^predictions\.csv line 2: id '1' is not a test id; expected ids like 'q7x-001'$",
    ),
    case(
        "duplicate_ids",
        {"predictions.csv": _csv(_replace(_P, 7, (IDS[2], "favor")))},
        r"^predictions\.csv line 9: id 'q7x-003' appears again \(first on line 4\); give one prediction per id$",
    ),
    case(
        "empty_id",
        {"predictions.csv": _csv(_replace(_P, 4, ("", "favor")))},
        r"^predictions\.csv line 6: the id is empty; expected the id of a test item in the id column$",
    ),
    # -- rows by order ----------------------------------------------------------
    case(
        "fewer_rows",
        {"predictions.txt": "\n".join(PRED_LABELS[:28]) + "\n"},
        r"^predictions\.txt has 28 predictions, expected 30 \(one per test item, in the order of the test set\)$",
    ),
    case(
        "more_rows",
        {"predictions.txt": "\n".join(PRED_LABELS + ("none", "favor")) + "\n"},
        r"^predictions\.txt line 31: more predictions than the 30 test items; expected exactly 30 predictions",
    ),
    case(
        "json_list_too_short",
        {"predictions.json": '["favor", "none"]'},
        r"^predictions\.json has 2 predictions, expected 30",
    ),
    # -- labels -----------------------------------------------------------------
    case(
        "unknown_label",
        {"predictions.csv": _csv(_replace(_P, 15, (IDS[15], "favour")))},
        r"^predictions\.csv line 17: label 'favour' is not one of: against, favor, none$",
    ),
    case(
        "case_variant",
        {"predictions.csv": _csv(_replace(_P, 2, (IDS[2], "Favor")))},
        r"^predictions\.csv line 4: label 'Favor' is not one of: against, favor, none \(labels are "
        r"case-sensitive; did you mean 'favor'\?\)$",
    ),
    case(
        "numeric_label_as_float",
        {"predictions.csv": _csv(_replace(pairs(IDS, INT_PRED), 5, (IDS[5], "1.0")))},
        # no labels configured: the labels are the gold's, which no message lists
        r"^predictions\.csv line 7: label '1\.0' is not one of the task's labels$",
        task="int",
    ),
    case(
        "empty_value",
        {"predictions.csv": _csv(_replace(_P, 4, (IDS[4], "")))},
        r"^predictions\.csv line 6: the prediction is empty; expected one of: against, favor, none$",
    ),
    case(
        "ids_without_header_in_txt",
        {"predictions.txt": _csv(_P, header=None)},
        r"^predictions\.txt line 1: the line holds an id and a prediction, but the file has no header; start "
        r"the file with the header 'id,label'$",
    ),
    # -- JSON ---------------------------------------------------------------------
    case(
        "json_syntax_error",
        {"predictions.json": '[\n{"id": "q7x-001", "label": "favor"},\n{"id": "q7x-002" "label": "none"}\n]'},
        r"^predictions\.json line 3: not valid JSON \(Expecting ',' delimiter, column 18\)$",
    ),
    case(
        "json_missing_key",
        {"predictions.json": "[%s]" % ", ".join('{"id": "%s", "answer": "%s"}' % p for p in _P)},
        r"^predictions\.json line 1: the object has no 'label' or 'prediction' or 'pred' key \(found keys: id, "
        r"answer\); expected objects like \{\"id\": \.\.\., \"label\": \.\.\.\}$",
    ),
    case(
        "jsonl_named_json",
        {"predictions.json": "".join('{"id": "%s", "label": "%s"}\n' % p for p in _P)},
        r"^predictions\.json line 2: not valid JSON \(extra data after the end\); for one JSON value per line, "
        r"name the file \.jsonl$",
    ),
    case(
        "jsonl_bad_line",
        {"predictions.jsonl": "".join('{"id": "%s", "label": "%s"}\n' % p for p in _P[:3]) + "{id: q7x-004}\n"},
        r"^predictions\.jsonl line 4: not valid JSON \(Expecting property name enclosed in double quotes\)$",
    ),
    # -- regression -----------------------------------------------------------------
    case(
        "regression_nan",
        {"predictions.csv": _csv(_replace(_REG, 6, (IDS[6], "NaN")), header=_REG_HEADER)},
        r"^predictions\.csv line 8: the prediction is NaN; expected a finite number$",
        task="reg",
    ),
    case(
        "regression_inf",
        {"predictions.csv": _csv(_replace(_REG, 2, (IDS[2], "-inf")), header=_REG_HEADER)},
        r"^predictions\.csv line 4: the prediction is infinite; expected a finite number$",
        task="reg",
    ),
    case(
        "regression_out_of_range",
        {"predictions.csv": _csv(_replace(_REG, 0, (IDS[0], "1e300")), header=_REG_HEADER)},
        r"^predictions\.csv line 2: the prediction '1e300' is out of range \(the limit is 1e100 in absolute "
        r"value\)$",
        task="reg",
    ),
    case(
        "regression_non_numeric",
        {"predictions.csv": _csv(_replace(_REG, 9, (IDS[9], "high")), header=_REG_HEADER)},
        r"^predictions\.csv line 11: 'high' is not a number$",
        task="reg",
    ),
    case(
        "regression_decimal_comma",
        {"predictions.tsv": _csv(_replace(_REG, 1, (IDS[1], "3,5")), header=_REG_HEADER, sep="\t")},
        r"^predictions\.tsv line 3: '3,5' is not a number \(use a dot as the decimal separator\)$",
        task="reg",
    ),
    case(
        "regression_empty_value",
        {"predictions.csv": _csv(_replace(_REG, 3, (IDS[3], "")), header=_REG_HEADER)},
        r"^predictions\.csv line 5: the prediction is empty; expected a number$",
        task="reg",
    ),
    case(
        "regression_missing_header",
        {"predictions.csv": _csv(_REG, header=None)},
        r"^predictions\.csv line 1: the first line is data, not a header; start the file with the header "
        r"'id,score'$",
        task="reg",
    ),
    # -- accepted with normalization: must score exactly like the clean file ---------
    case("utf8_bom", {"predictions.csv": b"\xef\xbb\xbf" + _CLEAN.encode("utf-8")}, accept=True),
    case("crlf", {"predictions.csv": _CLEAN.replace("\n", "\r\n")}, accept=True),
    case("cr_only", {"predictions.csv": _CLEAN.replace("\n", "\r")}, accept=True),
    case("utf16_le_bom", {"predictions.csv": CheckedIn("utf16_bom.csv")}, accept=True),
    case("utf16_be_bom", {"predictions.csv": b"\xfe\xff" + _CLEAN.encode("utf-16-be")}, accept=True),
    case("shuffled_ids", {"predictions.csv": _csv(_SHUFFLED)}, accept=True),
    case("one_nested_folder_zip", {"my_submission/predictions.csv": _CLEAN}, accept=True, zip=True),
    case(
        "macosx_junk_next_to_file",
        {
            "predictions.csv": _CLEAN,
            "__MACOSX/._predictions.csv": b"\x00\x05junk",
            ".DS_Store": b"\x00\x00\x00\x01Bud1",
            "Thumbs.db": b"\x00",
        },
        accept=True,
        zip=True,
    ),
    case("only_file_named_like_gold", {"gold.csv": _CLEAN}, accept=True),
    case("trailing_blank_lines_and_spaces", {"predictions.csv": _CLEAN.replace(",", " , ") + "\n\n  \n"}, accept=True),
    case(
        "extra_columns_and_quotes",
        {"predictions.csv": "".join(['id,"label",confidence\n'] + ['"%s",%s,"0,5"\n' % p for p in _SHUFFLED])},
        accept=True,
    ),
    case("one_label_per_line", {"predictions.txt": "\n".join(PRED_LABELS) + "\n"}, accept=True),
    case("tsv_header_in_txt", {"predictions.txt": _csv(_SHUFFLED, sep="\t")}, accept=True),
    case(
        "json_objects",
        {"predictions.json": "[%s]" % ",\n".join('{"id": "%s", "label": "%s"}' % p for p in _SHUFFLED)},
        accept=True,
    ),
    case("json_mapping", {"predictions.json": "{%s}" % ", ".join('"%s": "%s"' % p for p in _SHUFFLED)}, accept=True),
    case("jsonl_values", {"predictions.jsonl": "".join('"%s"\n' % p for p in PRED_LABELS)}, accept=True),
    case("regression_json_numbers", {"predictions.json": "[%s]" % ", ".join(PRED_VALUES)}, task="reg", accept=True),
    case(
        "regression_prediction_header",
        {"predictions.csv": _csv(_REG[::-1], header=("id", "prediction"))},
        task="reg",
        accept=True,
    ),
    case("integer_labels_in_json", {"predictions.json": "[%s]" % ", ".join(INT_PRED)}, task="int", accept=True),
    # -- the organizer's mistakes (exit code 2) ------------------------------------------
    case(
        "gold_missing",
        {"predictions.csv": _CLEAN},
        r"^Scoring configuration error \(for the competition organizers\): the gold file ref/gold\.csv "
        r"\(files\.gold\) is missing from the reference data \(ref/ holds: answers\.csv\)$",
        code=2,
        ref={"answers.csv": TASKS["cls"]["gold"]},
    ),
    case(
        "gold_duplicate_ids",
        {"predictions.csv": _CLEAN},
        r"^Scoring configuration error \(for the competition organizers\): ref/gold\.csv line 7: id 'q7x-002' "
        r"appears again \(first on line 3\); gold ids must be unique$",
        code=2,
        ref={"gold.csv": rows_text(_replace(pairs(IDS, GOLD_LABELS), 5, (IDS[1], GOLD_LABELS[5])))},
    ),
    case(
        "gold_missing_id_column",
        {"predictions.csv": _CLEAN},
        r"^Scoring configuration error .*: ref/gold\.csv line 1: the header has no id column 'id' \(found 1 "
        r"column\); the header should be 'id,label'$",
        code=2,
        ref={"gold.csv": rows_text([(g,) for g in GOLD_LABELS], header=("label",))},
    ),
    case(
        "gold_label_not_in_config",
        {"predictions.csv": _CLEAN},
        # the organizer's message names the line, never the gold label (participants read stderr too)
        r"^Scoring configuration error .*: ref/gold\.csv line 13: the label is not in the labels list of "
        r"config\.yaml; add it to labels$",
        code=2,
        ref={"gold.csv": rows_text(_replace(pairs(IDS, GOLD_LABELS), 11, (IDS[11], "neutral")))},
    ),
    case(
        "gold_not_utf8",
        {"predictions.csv": _CLEAN},
        r"^Scoring configuration error .*: ref/gold\.csv is not UTF-8 text \(byte 0xe9 at line 5\); "
        r"save it as UTF-8$",
        code=2,
        ref={"gold.csv": TASKS["cls"]["gold"].encode("utf-8").replace(b"q7x-004", b"q7x-\xe904")},
    ),
    case(
        "group_value_not_in_gold",
        {"predictions.csv": _CLEAN},
        r"^Scoring configuration error .*: config\.yaml: groups\.values lists 'fr', which no item of "
        r"ref/gold\.csv has$",
        code=2,
        config=CLS_CONFIG + "groups: {column: lang, values: [en, de, fr]}\n",
        ref={
            "gold.csv": rows_text(
                [(i, g, "en" if k % 2 else "de") for k, (i, g) in enumerate(pairs(IDS, GOLD_LABELS))],
                header=("id", "label", "lang"),
            )
        },
    ),
    case(
        "config_unknown_key",
        {"predictions.csv": _CLEAN},
        r"^Scoring configuration error .*: config\.yaml: 'metrics' is not a known key \(did you mean 'metric'\?\); "
        r"allowed: metric, ",
        code=2,
        config=CLS_CONFIG + "metrics: [accuracy]\n",
    ),
    case(
        "config_unknown_metric",
        {"predictions.csv": _CLEAN},
        r"^Scoring configuration error .*: config\.yaml: metric: unknown metric 'f2_macro' "
        r"\(did you mean 'f1_macro'\?\); known metrics: ",
        code=2,
        config=CLS_CONFIG.replace("metric: f1_macro", "metric: f2_macro"),
    ),
    case(
        "config_zero_resamples",
        {"predictions.csv": _CLEAN},
        r"^Scoring configuration error .*: config\.yaml: bootstrap\.n_resamples must be an integer from 1 to "
        r"1000000, got 0$",
        code=2,
        config=CLS_CONFIG.replace("n_resamples: 200", "n_resamples: 0"),
    ),
    case(
        "config_confidence_level_above_one",
        {"predictions.csv": _CLEAN},
        r"^Scoring configuration error .*: config\.yaml: bootstrap\.confidence_level must be a number > 0 and "
        r"< 1, got 1\.5$",
        code=2,
        config=CLS_CONFIG.replace("{n_resamples: 200}", "{n_resamples: 200, confidence_level: 1.5}"),
    ),
    case(
        "baseline_with_unknown_label",
        {"predictions.csv": _CLEAN},
        r"^Scoring configuration error .*: the baseline 'majority' \(baseline\.file\) cannot be used: "
        r"ref/baseline\.csv line 3: label 'FAVOR' is not one of: against, favor, none",
        code=2,
        config=CLS_CONFIG + "baseline: {file: baseline.csv, name: majority}\n",
        ref={
            "gold.csv": TASKS["cls"]["gold"],
            "baseline.csv": rows_text([(i, "none") for i in IDS[:1]] + [(i, "FAVOR") for i in IDS[1:]]),
        },
    ),
]


# ---------------------------------------------------------------------------
# The classes of issue 14 (participant inputs), at least three new cases each
# ---------------------------------------------------------------------------
import json as _json  # noqa: E402

_RECORDS = [{"id": i, "label": p} for i, p in _P]
_SHUFFLED_RECORDS = [{"id": i, "label": p} for i, p in _SHUFFLED]
_IGNORE_CONFIG = CLS_CONFIG + "files: {unscored_ids: ignore}\n"
_DECOYS = [("dec-%03d" % k, LABELS[k % 3]) for k in range(12)]
_BAD_LINE = "id,label\nq7x-001,bad\n"


def _pandas_split(records):
    return _json.dumps(
        {
            "columns": ["id", "label"],
            "index": list(range(len(records))),
            "data": [[r["id"], r["label"]] for r in records],
        }
    )


def _pandas_index(records):
    return _json.dumps(dict((str(k), r) for k, r in enumerate(records)))


def _pandas_columns(records):
    return _json.dumps(
        {
            "id": dict((str(k), r["id"]) for k, r in enumerate(records)),
            "label": dict((str(k), r["label"]) for k, r in enumerate(records)),
        }
    )


def _pandas_table(records):
    return _json.dumps(
        {
            "schema": {
                "fields": [
                    {"name": "index", "type": "integer"},
                    {"name": "id", "type": "string"},
                    {"name": "label", "type": "string"},
                ],
                "primaryKey": ["index"],
                "pandas_version": "1.4.0",
            },
            "data": [dict(r, index=k) for k, r in enumerate(records)],
        }
    )


#: Case name -> the class of issue 14 it exercises (1-8).
ISSUE14 = {}


def _c(klass, *args, **kwargs):
    made = case(*args, **kwargs)
    ISSUE14[made.name] = klass
    return made


CASES += [
    # -- 1. no participant file causes an internal error ------------------------------
    _c(
        1,
        "json_nested_thousands_deep",
        {"predictions.json": "[" * 20000 + "]" * 20000},
        r"^predictions\.json line 1: the JSON value is nested too deeply \(lists or objects inside each other "
        r"hundreds of levels deep\); expected one prediction per item$",
    ),
    _c(
        1,
        "jsonl_nested_thousands_deep",
        {
            "predictions.jsonl": "".join('{"id": "%s", "label": "%s"}\n' % p for p in _P[:4])
            + '{"id": "q7x-005", "label": '
            + "[" * 20000
            + "]" * 20000
            + "}\n"
        },
        r"^predictions\.jsonl line 5: the JSON value is nested too deeply",
    ),
    _c(
        1,
        "json_object_nested_deep",
        {"predictions.json": '{"q7x-001": ' + '{"a": ' * 20000 + "1" + "}" * 20001},
        r"^predictions\.json line 1: the JSON value is nested too deeply",
    ),
    _c(
        1,
        "json_integer_of_thousands_of_digits",
        {"predictions.json": "[%s]" % ("7" * 6000)},
        r"^predictions\.json line 1: label '7{40}\.\.\.' is not one of: against, favor, none$",
    ),
    _c(
        1,
        "jsonl_id_of_thousands_of_digits",
        {"predictions.jsonl": '{"id": %s, "label": "favor"}\n' % ("1" * 6000)},
        r"^predictions\.jsonl line 1: id '1{40}\.\.\.' is not a test id; expected ids like 'q7x-001'$",
    ),
    _c(
        1,
        "regression_json_integer_of_thousands_of_digits",
        {"predictions.json": "[%s]" % ", ".join([("9" * 5000)] + list(PRED_VALUES[1:]))},
        r"^predictions\.json line 1: the prediction '9{40}\.\.\.' is out of range \(the limit is 1e100 in absolute "
        r"value\)$",
        task="reg",
    ),
    _c(
        1,
        "regression_csv_digits_beyond_float",
        {"predictions.csv": _csv(_replace(_REG, 4, (IDS[4], "1" * 5000)), header=_REG_HEADER)},
        r"^predictions\.csv line 6: the prediction '1{40}\.\.\.' is out of range",
        task="reg",
    ),
    # -- 2. one line, nothing raw from the participant ----------------------------------
    _c(
        2,
        "zip_member_name_with_newline",
        {"pre\ndictions.csv": _BAD_LINE},
        r"^pre\\ndictions\.csv line 2: label 'bad' is not one of: against, favor, none$",
        zip=True,
    ),
    _c(
        2,
        "zip_member_name_with_terminal_escape",
        {"\x1b[31mpredictions.csv": _BAD_LINE},
        r"^\\x1b\[31mpredictions\.csv line 2: label 'bad' is not one of",
        zip=True,
    ),
    _c(
        2,
        "zero_width_space_in_header",
        {"predictions.csv": _CLEAN.replace("id,label", "id,la\u200bbel", 1)},
        r"^predictions\.csv line 1: the header has no prediction column 'label' or 'prediction' or 'pred' "
        r"\(found: id, la\\u200bbel\); the header should be 'id,label'$",
    ),
    _c(
        2,
        "bom_inside_header",
        {"predictions.csv": _CLEAN.replace("id,label", "\ufeffident,label", 1)},
        r"^predictions\.csv line 1: the header has no id column 'id' \(found: ident, label\)",
    ),
    _c(
        2,
        "terminal_escape_in_label",
        {"predictions.csv": _csv(_replace(_P, 3, (IDS[3], "\x1b[2Jfavor")))},
        r"^predictions\.csv line 5: label '\\x1b\[2Jfavor' is not one of: against, favor, none$",
    ),
    _c(
        2,
        "right_to_left_override_in_id",
        {"predictions.csv": _csv(_replace(_P, 2, ("q7x-\u202e003", "none")))},
        r"^predictions\.csv line 4: id 'q7x-\\u202e003' is not a test id",
    ),
    _c(2, "very_long_file_name", {"p" * 240 + ".csv": _BAD_LINE}, r"^p{38}\.\.\.p{34}\.csv line 2: label 'bad'"),
    _c(2, "doubled_bom", {"predictions.csv": b"\xef\xbb\xbf\xef\xbb\xbf" + _CLEAN.encode("utf-8")}, accept=True),
    # -- 3. the right file, or a precise reason ------------------------------------------
    _c(
        3,
        "readme_at_top_predictions_in_folder",
        {"README.md": "# My system\n", "results/predictions.csv": _CLEAN},
        accept=True,
        zip=True,
    ),
    _c(
        3,
        "predictions_next_to_readme_txt",
        {"README.txt": "trained with care\n", "predictions.csv": _CLEAN},
        accept=True,
    ),
    _c(
        3,
        "editor_and_os_files_next_to_folder",
        {
            "LICENSE": "MIT\n",
            "predictions.csv~": "old\n",
            "~$predictions.xlsx": "lock",
            "Thumbs.db": b"\x00\x01",
            "desktop.ini": "[x]\n",
            "out/predictions.csv": _CLEAN,
        },
        accept=True,
        zip=True,
    ),
    _c(
        3,
        "the_file_with_the_columns_is_chosen",
        {"predictions.csv": _CLEAN, "notes.csv": "step,loss\n1,0.3\n"},
        accept=True,
    ),
    _c(
        3,
        "only_a_hidden_file",
        {".predictions.csv": _CLEAN},
        r"^the submission holds no prediction file: its only file, \.predictions\.csv, is hidden \(the name starts "
        r"with a dot\) and is ignored; add your prediction file under a plain name such as predictions\.csv$",
        zip=True,
    ),
    _c(
        3,
        "only_a_readme",
        {"README.md": "see the paper\n"},
        r"^the submission holds no prediction file: its only file, README\.md, is a documentation or editor file, "
        r"never read as predictions",
    ),
    _c(
        3,
        "two_files_with_the_columns",
        {"dev.csv": _CLEAN, "test.csv": _CLEAN},
        r"^the submission has 2 candidate prediction files \(dev\.csv, test\.csv\) and each has the header "
        r"'id,label'; submit a zip holding only your prediction file$",
    ),
    # -- 4. producers' quirks ----------------------------------------------------------------
    _c(4, "csv_writer_on_windows_cr_cr_lf", {"predictions.csv": _CLEAN.replace("\n", "\r\r\n")}, accept=True),
    _c(
        4,
        "json_predictions_wrapper",
        {"predictions.json": _json.dumps({"predictions": _SHUFFLED_RECORDS})},
        accept=True,
    ),
    _c(4, "pandas_orient_split", {"predictions.json": _pandas_split(_SHUFFLED_RECORDS)}, accept=True),
    _c(4, "pandas_orient_index", {"predictions.json": _pandas_index(_SHUFFLED_RECORDS)}, accept=True),
    _c(4, "pandas_orient_columns", {"predictions.json": _pandas_columns(_SHUFFLED_RECORDS)}, accept=True),
    _c(4, "pandas_orient_table", {"predictions.json": _pandas_table(_SHUFFLED_RECORDS)}, accept=True),
    _c(
        4,
        "pandas_orient_values",
        {"predictions.json": _json.dumps([[r["id"], r["label"]] for r in _RECORDS])},
        r"^predictions\.json line 1: each item is a JSON list; expected a JSON list of objects like "
        r"\{\"id\": \.\.\., \"label\": \.\.\.\} \(pandas: df\.to_json\(orient='records'\)\)",
    ),
    _c(
        4,
        "probability_per_class_header",
        {"predictions.csv": "id,0,1,2\n" + "".join("%s,0.2,0.3,0.5\n" % i for i in IDS)},
        r"^predictions\.csv line 1: the header has one column per class \(0, 1, 2\), as a file of class "
        r"probabilities or scores has; this competition expects one prediction per item: the header 'id,label'",
        task="int",
    ),
    _c(
        4,
        "probability_per_class_json_keys",
        {"predictions.json": _json.dumps([{"id": i, "against": 0.2, "favor": 0.3, "none": 0.5} for i in IDS])},
        r"^predictions\.json line 1: the object has one key per class \(against, favor, none\)",
    ),
    _c(
        4,
        "nul_byte_inside_a_line",
        {"predictions.csv": _CLEAN.replace("q7x-007,", "q7x-007\x00,")},
        r"^predictions\.csv line 8: the line holds a NUL byte \(\\x00\), which a text file of predictions cannot "
        r"contain",
    ),
    _c(
        4,
        "field_over_the_csv_limit",
        {"predictions.csv": _csv(_replace(_P, 5, (IDS[5], '"' + "x" * 140000 + '"')))},
        r"^predictions\.csv line 7: a field is longer than 131,072 characters, the most one CSV field may hold",
    ),
    _c(
        4,
        "quote_never_closed",
        {"predictions.csv": _CLEAN + 'q7x-099,"favor\n'},
        r"^predictions\.csv line 32: a double quote opened on this line is never closed; remove the quote or close "
        r"it$",
    ),
    _c(
        4,
        "quote_closed_lines_later",
        {"predictions.csv": _CLEAN.replace("q7x-010,", 'q7x-010,"', 1).replace("q7x-013,", 'q7x-013",', 1)},
        r"^predictions\.csv line 11: a double quote opened on this line is not closed on it \(the value runs on to "
        r"line 14\)",
    ),
    # -- 5. bounded time and memory (the full sizes are in benchmarks/) ------------------------
    _c(5, "three_million_trailing_blank_lines", {"predictions.csv": _CLEAN + "\n" * 3000000}, accept=True),
    _c(
        5,
        "json_list_far_too_long",
        {"predictions.json": "[%s]" % ", ".join(['"favor"'] * 300000)},
        r"^predictions\.json line 1: more predictions than the 30 test items; expected exactly 30 predictions",
    ),
    _c(
        5,
        "one_line_of_five_megabytes",
        {"predictions.txt": "favor " * 900000},
        r"^predictions\.txt line 1: the line is longer than 4,194,304 characters",
    ),
    _c(
        5,
        "csv_far_too_long_stops_at_the_first_unknown_id",
        {"predictions.csv": _csv(_P + [("x%07d" % k, "none") for k in range(200000)])},
        r"^predictions\.csv line 32: id 'x0000000' is not a test id",
    ),
    # -- 6. no item-level oracle, no gold facts ------------------------------------------------
    _c(
        6,
        "label_absent_from_unlisted_gold",
        {"predictions.csv": _csv(_replace(pairs(IDS, INT_PRED), 8, (IDS[8], "3")))},
        r"^predictions\.csv line 10: label '3' is not one of the task's labels$",
        task="int",
    ),
    _c(
        6,
        "empty_prediction_unlisted_labels",
        {"predictions.csv": _csv(_replace(pairs(IDS, INT_PRED), 2, (IDS[2], "")))},
        r"^predictions\.csv line 4: the prediction is empty; expected one of the task's labels$",
        task="int",
    ),
    _c(
        6,
        "decoys_are_ignored",
        {"predictions.csv": _csv(_SHUFFLED[:10] + _DECOYS + _SHUFFLED[10:])},
        accept=True,
        config=_IGNORE_CONFIG,
    ),
    _c(
        6,
        "decoys_missing_a_scored_id",
        {"predictions.csv": _csv(_P[:7] + _P[8:] + _DECOYS)},
        r"^predictions\.csv has no prediction for some of the test ids; give one prediction for every id of the "
        r"test set$",
        config=_IGNORE_CONFIG,
    ),
    _c(
        6,
        "decoys_repeated_unscored_id",
        {"predictions.csv": _csv(_P + _DECOYS + [_DECOYS[3]])},
        r"^predictions\.csv line 44: the id appears again \(first on line 35\); give one prediction per id$",
        config=_IGNORE_CONFIG,
    ),
    _c(
        6,
        "decoys_repeated_scored_id",
        {"predictions.csv": _csv(_P + _DECOYS + [_P[3]])},
        r"^predictions\.csv line 44: the id appears again \(first on line 5\); give one prediction per id$",
        config=_IGNORE_CONFIG,
    ),
    _c(
        6,
        "decoys_quoted_crlf_like_r_write_csv",
        {
            "predictions.csv": '"id","label"\r\n'
            + "".join('"%s","%s"\r\n' % p for p in _SHUFFLED[:10] + _DECOYS + _SHUFFLED[10:])
        },
        accept=True,
        config=_IGNORE_CONFIG,
    ),
    _c(
        6,
        "decoys_bad_value_on_an_unscored_line",
        {"predictions.csv": _csv(_P + _replace(_DECOYS, 5, ("dec-005", "bad")))},
        r"^predictions\.csv line 37: label 'bad' is not one of: against, favor, none$",
        config=_IGNORE_CONFIG,
    ),
    _c(
        5,
        "decoys_more_rows_than_files_max_ids",
        {"predictions.csv": _csv(_P + _DECOYS)},
        r"^predictions\.csv line 42: more than 40 predictions, the most this competition accepts \(one per public "
        r"test id\); give one prediction per test id$",
        config=CLS_CONFIG + "files: {unscored_ids: ignore, max_ids: 40}\n",
    ),
    _c(
        6,
        "decoys_file_without_ids",
        {"predictions.txt": "\n".join(PRED_LABELS) + "\n"},
        r"^predictions\.txt has no ids; this competition matches predictions to test items by id",
        config=_IGNORE_CONFIG,
    ),
    _c(
        6,
        "metric_labels_checked_without_listing_the_gold",
        {"predictions.csv": _CLEAN},
        r"^Scoring configuration error .*: config\.yaml: metric f1_macro names a class \(labels or pos_label\) that "
        r"ref/gold\.csv does not have",
        code=2,
        task="int",
        config="metric: {name: f1, average: macro, labels: ['0', '7']}\nbootstrap: {n_resamples: 200}\n",
    ),
    # -- 7. organizer messages name the right file ----------------------------------------------
    _c(
        7,
        "tab_in_ref_config",
        {"predictions.csv": _CLEAN},
        r"^Scoring configuration error .*: ref/config\.yaml line 2 is not valid YAML",
        code=2,
        ref={"gold.csv": TASKS["cls"]["gold"], "config.yaml": "metric: f1_macro\n\textra_metrics: [accuracy]\n"},
    ),
    _c(
        7,
        "ref_config_not_a_mapping",
        {"predictions.csv": _CLEAN},
        r"^Scoring configuration error .*: ref/config\.yaml must be a mapping of keys to values, got list$",
        code=2,
        ref={"gold.csv": TASKS["cls"]["gold"], "config.yaml": "- metric: f1_macro\n"},
    ),
    _c(
        7,
        "ref_config_not_utf8",
        {"predictions.csv": _CLEAN},
        r"^Scoring configuration error .*: ref/config\.yaml is not UTF-8 text$",
        code=2,
        ref={"gold.csv": TASKS["cls"]["gold"], "config.yaml": b"metric: f1_macro # caf\xe9\n"},
    ),
    _c(
        7,
        "tab_in_program_config",
        {"predictions.csv": _CLEAN},
        r"^Scoring configuration error .*: config\.yaml line 3 is not valid YAML",
        code=2,
        config="metric: f1_macro\nlabels: [against, favor, none]\n\tbootstrap: {n_resamples: 200}\n",
    ),
]
#: Archives (class 8): what unpacks them is the worker (emulated by local_worker), the end-of-phase
#: ingestion and the reference-data extraction; see tests/test_bad_inputs.py::test_archives_*.
ARCHIVES = {
    "encrypted_member": dict(flags=0x1),
    "aes_member": dict(method=99),
    "deflate64_member": dict(method=9),
    "ppmd_member": dict(method=98),
}


def raw_zip(members):
    """A zip written byte by byte: ``members`` are ``(name, data, flags, method)``; data are stored as is.

    The headers may claim encryption or a compression method that was not
    used, as a zip made by another tool (or a broken one) would.
    """
    import struct
    import zlib

    out, central = io.BytesIO(), []
    for name, data, flags, method in members:
        raw = name.encode("utf-8")
        offset = out.tell()
        crc = zlib.crc32(data)
        out.write(
            struct.pack("<4s5H3L2H", b"PK\x03\x04", 20, flags, method, 0, 0x21, crc, len(data), len(data), len(raw), 0)
            + raw
            + data
        )
        central.append(
            struct.pack(
                "<4s6H3L5H2L",
                b"PK\x01\x02",
                0x031E,
                20,
                flags,
                method,
                0,
                0x21,
                crc,
                len(data),
                len(data),
                len(raw),
                0,
                0,
                0,
                0,
                0o100644 << 16,
                offset,
            )
            + raw
        )
    start = out.tell()
    for record in central:
        out.write(record)
    size = out.tell() - start
    out.write(struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, len(central), len(central), size, start, 0))
    return out.getvalue()


# ---------------------------------------------------------------------------
# Building the folders
# ---------------------------------------------------------------------------
def _content(value):
    if isinstance(value, CheckedIn):
        return value.read()
    if isinstance(value, bytes):
        return value
    return value.encode("utf-8")


def write_tree(folder, files, outside=None):
    """Write ``files`` (relative path -> content) into ``folder``."""
    if not os.path.isdir(folder):
        os.makedirs(folder)
    for name, value in files.items():
        path = os.path.join(folder, name)
        parent = os.path.dirname(path)
        if not os.path.isdir(parent):
            os.makedirs(parent)
        if isinstance(value, Link):
            os.symlink(value.target.replace("{outside}", outside or folder), path)
            continue
        with open(path, "wb") as handle:
            handle.write(_content(value))
    return folder


def build(case, workdir):
    """The case's submission (a folder, or a zip when ``case.zip``) under ``workdir``; returns its path."""
    outside = os.path.join(workdir, "outside")
    write_tree(outside, {"real.csv": TASKS[case.task]["clean"]})
    folder = write_tree(os.path.join(workdir, "submission"), case.files, outside=outside)
    if not case.zip:
        return folder
    path = os.path.join(workdir, "submission.zip")
    with zipfile.ZipFile(path, "w") as archive:
        for name in sorted(case.files):
            archive.writestr(name, _content(case.files[name]))
    return path


def reference_files(case):
    """The ``ref/`` files of a case: its own, or its task's gold."""
    if case.ref is not None:
        return case.ref
    return {"gold.csv": TASKS[case.task]["gold"]}


def config_text(case):
    return case.config if case.config is not None else TASKS[case.task]["config"]


def checked_in_sources():
    """What each literal file in ``files/`` must decode to (used to check them)."""
    latin = _csv(_replace(_P, 2, (IDS[2], "caf\u00e9")))
    return {
        "latin1.csv": latin.encode("latin-1"),
        "utf16_nobom.csv": _CLEAN.encode("utf-16-le"),
        "utf16_bom.csv": b"\xff\xfe" + _CLEAN.encode("utf-16-le"),
    }


def make_checked_in_files():
    """Write ``files/`` (run once by hand: ``python tests/bad_inputs/cases.py``)."""
    for name, data in checked_in_sources().items():
        with open(os.path.join(FILES, name), "wb") as handle:
            handle.write(data)
    junk = bytes(bytearray((i * 73 + 41) % 256 for i in range(2048)))
    with open(os.path.join(FILES, "binary_junk.bin"), "wb") as handle:
        handle.write(b"\x7fELF\x02\x01\x01\x00" + junk)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("predictions.csv", _CLEAN)
    with open(os.path.join(FILES, "inner.zip"), "wb") as handle:
        handle.write(buffer.getvalue())


def names_are_unique():
    names = [c.name for c in CASES]
    return len(names) == len(set(names)) and all(re.match(r"^[a-z0-9_]+$", n) for n in names)


if __name__ == "__main__":
    make_checked_in_files()
