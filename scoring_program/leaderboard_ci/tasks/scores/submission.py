"""What participants of a ``scores`` task submit: the page text and the sample file ``init`` writes."""

from __future__ import annotations

from ..prediction_tables import TableWords, table_format, table_sample
from ..protocol import SubmissionFormat
from .files import PROBABILITY_METRICS
from .metrics import ScoresSettings, _positive_code

__all__ = ["submission_format"]


def submission_format(gold, files, metrics):
    """What participants submit: one score column (binary) or one probability column per class."""
    labels = list(gold.labels or ())
    names = set(spec.name for spec in metrics)
    probabilities = sorted(names & set(PROBABILITY_METRICS))
    id_column = files.id_column if gold.ids is not None else None
    one_column = len(labels) == 2 and "log_loss" not in names
    if one_column:
        positive = labels[_positive_code(list(metrics), labels)]
        columns, row = ["score"], [0.5]
        what = "a column `score`: the %s of the positive class `%s` (or one column per class, named by the labels)" % (
            "probability" if probabilities else "score (any real number; higher means more likely)",
            positive,
        )
    else:
        columns = labels
        row = [1.0 / len(labels)] * len(labels)
        what = "one column per class, named by its label (%s), in any order, holding the probability of that class" % (
            ", ".join("`%s`" % label for label in labels)
        )
    rules = []
    if probabilities:
        rules.append("Every value must be a probability between 0 and 1 (%s)." % ", ".join(probabilities))
    if "log_loss" in names and not one_column:
        tolerance = ScoresSettings.of(gold).sum_tolerance
        rules.append(
            "For log loss each row must **sum to 1 within %g**: write the probabilities at full precision "
            "(Python's `repr`, or `%%.10f`); rounded to three decimals, a row such as `0.333,0.333,0.333` sums "
            "to 0.999 and the file is refused. A probability of 0 for the true class costs about 36 "
            "(scores are clipped at machine epsilon): avoid writing exactly 0." % tolerance
        )
    fmt, name = table_format(files, "predictions.csv")
    words = TableWords(fmt)
    header = ([id_column] if id_column else []) + columns
    if id_column:
        rows = [[i] + row for i in gold.ids]
        where = "one %s per test item, in any order, with the id column `%s` and %s" % (words.row, id_column, what)
    else:
        rows = [row] * int(gold.values.shape[0])
        where = "one %s per test item, in the order of the test items, with %s" % (words.row, what)
    sample, example = table_sample(fmt, header, rows)
    return SubmissionFormat(
        unit="test item",
        units="test items",
        goal="Give, for each of the {n} test items, %s."
        % ("a score for the positive class" if one_column else "the probability of each class"),
        description="A %s file with %s%s. %s\n\n```\n%s\n```\n"
        % (words.noun, "a header and " if words.header else "", where, " ".join(rules), example),
        file_name=name,
        sample=sample,
        public_files=(("test_ids.txt", "\n".join(gold.ids) + "\n"),) if id_column else (),
    )
