"""A table written without its header: "the first line is data, not a header", wherever a header is expected.

The class: every reader of a file that must start with a header (the gold of classification, regression,
scores, multilabel and preference, a forecasting gold and history, and a participant's multilabel or
forecasting file) tells a missing header from a header with a wrong column name.  A headerless file's
first line has a number in it, or a value the rows below it repeat in the same column (a label, a series
id, a model); a header has neither.  The gold is read by the same code in ``init``, ``bundle`` and the
scoring program; each is run here on one headerless gold.
"""

import io
import os
import shutil

import pytest
import yaml

from leaderboard_ci.cli.main import main
from leaderboard_ci.scoring import codabench
from leaderboard_ci.tasks.shared.header_rows import first_row_is_data

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = os.path.join(ROOT, "examples")
PROGRAM = os.path.join(ROOT, "scoring_program")
DATA_NOT_HEADER = "line 1: the first line is data, not a header; start the file with the header "

#: case -> (reference data folder, the gold's name, the files to strip of their header, the expected header)
GOLDS = {
    "classification": (os.path.join(ROOT, "competition_bundle", "reference_data"), "gold.csv", "gold.csv", "id,label"),
    "scores": (os.path.join(EXAMPLES, "scores", "reference_data"), "gold.csv", "gold.csv", "id,label"),
    "multilabel": (os.path.join(EXAMPLES, "multilabel", "reference_data"), "gold.csv", "gold.csv", "id,labels"),
    "forecasting-gold": (
        os.path.join(EXAMPLES, "forecasting", "reference_data"),
        "gold.csv",
        "gold.csv",
        "unique_id,ds,y",
    ),
    "forecasting-history": (
        os.path.join(EXAMPLES, "forecasting", "reference_data"),
        "gold.csv",
        "history.csv",
        "unique_id,ds,y",
    ),
    "preference": (
        os.path.join(EXAMPLES, "preference", "reference_data"),
        "battles.csv",
        "battles.csv",
        "model_a,model_b,winner,tokens_a,tokens_b,bold_a,bold_b",  # with the config's style columns
    ),
}


def _strip_header(path, max_rows=400):
    with io.open(path, encoding="utf-8") as handle:
        lines = handle.read().splitlines(True)
    with io.open(path, "w", encoding="utf-8") as handle:
        handle.writelines(lines[1 : max_rows + 1])


def _organizer_files(tmp, case):
    """The case's config (no baseline) and files in ``tmp``, one of them without its header."""
    folder, gold, stripped, _ = GOLDS[case]
    with io.open(os.path.join(folder, "config.yaml"), encoding="utf-8") as handle:
        config = yaml.safe_load(handle)
    config.pop("baseline", None)
    with io.open(os.path.join(tmp, "config.yaml"), "w", encoding="utf-8") as handle:
        yaml.safe_dump(config, handle)
    data = [config[key] for key in ("history",) if config.get(key)]
    for name in [gold] + data:
        shutil.copy(os.path.join(folder, name), os.path.join(tmp, name))
    _strip_header(os.path.join(tmp, stripped))
    return os.path.join(tmp, gold), os.path.join(tmp, "config.yaml"), [os.path.join(tmp, name) for name in data]


@pytest.mark.parametrize("case", sorted(GOLDS))
def test_init_says_a_headerless_gold_has_no_header(tmp_path, case):
    tmp = str(tmp_path)
    gold, config, data = _organizer_files(tmp, case)
    out = io.StringIO()
    extra = [arg for path in data for arg in ("--data", path)]
    code = main(["init", os.path.join(tmp, "competition"), "--gold", gold, "--config", config] + extra, out)
    (line,) = out.getvalue().strip().splitlines()
    assert code == 2 and line.startswith("error: "), line
    assert line.endswith(DATA_NOT_HEADER + repr(GOLDS[case][3])), line
    assert GOLDS[case][2] in line


def test_the_scoring_program_says_a_headerless_gold_has_no_header(tmp_path):
    """The program on a ref/ whose gold lost its header (bundle's check runs the same program)."""
    tmp = str(tmp_path)
    ref = os.path.join(tmp, "input", "ref")
    res = os.path.join(tmp, "input", "res")
    os.makedirs(res)
    shutil.copytree(GOLDS["classification"][0], ref)
    _strip_header(os.path.join(ref, "gold.csv"))
    with io.open(os.path.join(res, "predictions.csv"), "w") as handle:
        handle.write("id,label\n1,pos\n")
    err = io.StringIO()
    code = codabench.run(os.path.join(tmp, "input"), os.path.join(tmp, "output"), PROGRAM, stderr=err)
    assert code == codabench.EXIT_CONFIG
    assert err.getvalue().strip().endswith("ref/gold.csv " + DATA_NOT_HEADER + "'id,label'"), err.getvalue()


def test_a_wrong_column_name_is_still_named(tmp_path):
    """A real header with a misnamed gold column is not taken for data: its column is named."""
    tmp = str(tmp_path)
    gold, config, _ = _organizer_files(tmp, "classification")
    with io.open(gold, encoding="utf-8") as handle:
        rows = handle.read()
    with io.open(gold, "w", encoding="utf-8") as handle:
        handle.write("id,answer\n" + rows)
    out = io.StringIO()
    assert main(["init", os.path.join(tmp, "competition"), "--gold", gold, "--config", config], out) == 2
    assert "line 1: the header has no gold column 'label' (found 2 columns)" in out.getvalue(), out.getvalue()


@pytest.mark.parametrize(
    "first, following, names, expected",
    [
        (["0", "pos"], [["1", "neg"]], (), True),  # a number
        (["doc_a", "pos"], [["doc_b", "neg"], ["doc_c", "pos"]], (), True),  # a label repeated below
        (["Y1", "2017-01-01", "x"], [["Y1", "2018-01-01", "y"]], (), True),  # a series id repeated below
        (["id", "answer"], [["a", "pos"], ["b", "pos"]], ("id", "label"), False),  # names a wanted column
        (["item", "answer"], [["a", "pos"], ["b", "pos"]], ("id", "label"), False),  # names that do not recur
        (["nan", "inf"], [], (), False),  # not finite numbers: names
        (["1_000", "x"], [], (), False),  # not a number the readers accept
    ],
)
def test_first_row_is_data(first, following, names, expected):
    assert first_row_is_data(first, following, names) is expected


def test_first_row_is_data_reads_a_bounded_number_of_rows():
    def rows():
        for k in range(10**9):
            yield ["r%d" % k, "x%d" % k]

    assert first_row_is_data(["a", "b"], rows()) is False


def _participant_message(tmp, folder, name, text, overrides=None):
    """The one sentence the program says of a participant's file ``name`` holding ``text``."""
    from leaderboard_ci.scoring.errors import SubmissionError
    from leaderboard_ci.scoring.readers import read_gold, read_predictions
    from leaderboard_ci.tools.scaffold import load_organizer_config

    ref = os.path.join(tmp, "ref")
    shutil.copytree(folder, ref)
    if overrides:
        path = os.path.join(ref, "config.yaml")
        with io.open(path, encoding="utf-8") as handle:
            config = yaml.safe_load(handle)
        config.setdefault("files", {}).update(overrides)
        with io.open(path, "w", encoding="utf-8") as handle:
            yaml.safe_dump(config, handle)
    config = load_organizer_config(os.path.join(ref, "config.yaml"))
    gold = read_gold(ref, config)
    path = os.path.join(tmp, name)
    with io.open(path, "w", encoding="utf-8") as handle:
        handle.write(text)
    with pytest.raises(SubmissionError) as caught:
        read_predictions(path, config, gold)
    return caught.value.message


@pytest.mark.parametrize(
    "case, name, text, overrides, header",
    [
        ("multilabel", "predictions.csv", "m1,Comedy\nm2,Drama|Comedy\nm3,Comedy\n", None, "id,labels"),
        ("forecasting-gold", "forecasts.csv", "Y1,2023-01-01,3.5\nY1,2024-01-01,4.5\n", None, "unique_id,ds,yhat"),
        # ids not looked up (unscored ids ignored) and labels read from the gold: judged by the file's own rows
        ("classification", "predictions.csv", "x1,pos\nx2,neg\nx3,pos\n", {"unscored_ids": "ignore"}, "id,label"),
    ],
)
def test_a_participant_file_without_its_header_is_told_so(tmp_path, case, name, text, overrides, header):
    message = _participant_message(str(tmp_path), GOLDS[case][0], name, text, overrides)
    assert message == name + " " + DATA_NOT_HEADER + repr(header), message


@pytest.mark.parametrize("header", [True, False])
def test_a_headerless_design_file_is_told_so(tmp_path, header):
    """bootstrap.design_file (query id, topic) written without its header: the headerless-table sentence.

    The same file with its header reads; without it, init names the design file, its line 1 and the
    header 'id,topic' (it used to say only "needs a header with the columns ...").
    """
    tmp = str(tmp_path)
    folder = os.path.join(EXAMPLES, "ranking", "reference_data")
    with io.open(os.path.join(folder, "config.yaml"), encoding="utf-8") as handle:
        config = yaml.safe_load(handle)
    config.pop("baseline", None)
    config["bootstrap"].update(n_resamples=50, cluster="topic", design_file="topics.csv")
    with io.open(os.path.join(tmp, "config.yaml"), "w", encoding="utf-8") as handle:
        yaml.safe_dump(config, handle)
    with io.open(os.path.join(folder, "qrels.txt"), encoding="utf-8") as handle:
        queries = sorted(set(line.split()[0] for line in handle if line.strip()))
    rows = ["%s,t%d" % (query, k // 3) for k, query in enumerate(queries)]
    with io.open(os.path.join(tmp, "topics.csv"), "w", encoding="utf-8") as handle:
        handle.write("\n".join((["id,topic"] if header else []) + rows) + "\n")
    out = io.StringIO()
    args = ["init", os.path.join(tmp, "competition"), "--gold", os.path.join(folder, "qrels.txt")]
    code = main(args + ["--config", os.path.join(tmp, "config.yaml"), "--data", os.path.join(tmp, "topics.csv")], out)
    if header:
        assert code == 0, out.getvalue()
        return
    (line,) = out.getvalue().strip().splitlines()
    assert code == 2 and line.startswith("error: "), line
    assert line.endswith("ref/topics.csv " + DATA_NOT_HEADER + "'id,topic'"), line
    assert queries[0] not in line
