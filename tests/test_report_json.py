"""report.json: schema, exact round trip of the numbers, null for non-finite values, reading back."""

import copy
import json
import math
from collections import OrderedDict

import _report_examples as E
import numpy as np
import pandas as pd
import pytest

from leaderboard_ci.phase.analysis import analyze
from leaderboard_ci.report.json_report import (
    SCHEMA_VERSION,
    ReportFormatError,
    _clean,
    check_report,
    primary_correction,
    read_report,
    result_to_json,
    sides_of,
)
from leaderboard_ci.scoring.config import parse_config

#: The shared report examples (lru-cached analyses and pages) are built once: these modules run on one xdist worker.
pytestmark = pytest.mark.xdist_group("report_examples")

NUM = (int, float)
OPT_NUM = (int, float, type(None))
STR = str
OPT_STR = (str, type(None))

# A JSON-schema-like description: a dict is an object with exactly these keys (a key ending in "?"
# is optional), [spec] is an array of spec, ("map", spec) an object with any keys, and a type or
# tuple of types a scalar.
P_ADJUSTED = ("map", OPT_NUM)
COMPARISON = {
    "diff": NUM,
    "ci_low": OPT_NUM,
    "ci_high": OPT_NUM,
    "fw_low": OPT_NUM,
    "fw_high": OPT_NUM,
    "direction_only?": bool,
    "near_copy?": bool,
    "interval": STR,
    "p_value": NUM,
    "p_adjusted": P_ADJUSTED,
    "stars": STR,
    "p_one_sided?": NUM,
    "p_bootstrap?": NUM,
    "p_permutation?": NUM,
    "exact?": bool,
    "p_mcnemar?": NUM,
}
TARGET = {
    "key": STR,
    "metric": STR,
    "metric_name": STR,
    "group": OPT_STR,
    "title": STR,
    "direction": STR,
    "official": bool,
    "confidence_level": NUM,
    "winner": STR,
    "stars_correction": STR,
    "systems": [
        {
            "rank": int,
            "name": STR,
            "score": OPT_NUM,
            "ci_low": OPT_NUM,
            "ci_high": OPT_NUM,
            "letters": STR,
            "tied_with_winner": bool,
            "rank_set": {"simultaneous": (type(None), [int]), "marginal": (type(None), [int])},
        }
    ],
    "family_note": OPT_STR,
    "critical_value": OPT_NUM,
    "vs_winner": [dict(COMPARISON, name=STR, significant=bool)],
    "pairs": [dict(COMPARISON, a=STR, b=STR)],
    "pairs_listed": {"complete": bool, "systems": int, "count": int, "total": int, "file": STR},
    "indicators": {
        "n": int,
        "m": int,
        "possible_comparisons": int,
        "ties_with_winner": ("map", int),
        "non_significant_pairs": ("map", int),
        "winner_minus_median": OPT_NUM,
        "cv": OPT_NUM,
        "ppi": OPT_NUM,
        "ppi_reason?": STR,
    },
    "tied_with_winner": [STR],
    "gains": (
        type(None),
        {
            "baseline": STR,
            "reference_point": NUM,
            "systems": [{"name": STR, "gain": OPT_NUM, "ci_low": OPT_NUM, "ci_high": OPT_NUM, "note": OPT_STR}],
        },
    ),
    "notes": [STR],
}
SCHEMA = {
    "schema_version": STR,
    "generator": {"name": STR, "version": STR},
    "signature": ("map", object),
    "signature_string": STR,
    "settings": {
        "metrics": [STR],
        "labels": (type(None), [STR]),
        "groups": OPT_STR,
        "reference_point": OPT_NUM,
        "primary": STR,
        "sides": STR,
    },
    "n_items": int,
    "systems": [STR],
    "baseline": OPT_STR,
    "official": STR,
    "metrics": ("map", TARGET),
    "groups": (
        type(None),
        {
            "column": OPT_STR,
            "values": [STR],
            "gaps": [
                {
                    "metric": STR,
                    "quantity": STR,
                    "name": STR,
                    "groups": STR,
                    "gap": OPT_NUM,
                    "ci_low": OPT_NUM,
                    "ci_high": OPT_NUM,
                    "p_value": OPT_NUM,
                }
            ],
        },
    ),
    "units": (
        type(None),
        {
            "unit": STR,
            "titles": [STR],
            "rows": [
                {"system": STR, "unit": STR, "precision": OPT_NUM, "recall": OPT_NUM, "f1": OPT_NUM, "predicted": int}
            ],
        },
    ),
    "skipped": [{"submission": STR, "reason": STR}],
}


def conforms(value, spec, where="$"):
    """Raise AssertionError with the path of the first mismatch between ``value`` and ``spec``."""
    if isinstance(spec, tuple) and spec and spec[0] == "map":
        assert isinstance(value, dict), "%s: expected an object" % where
        for k, v in value.items():
            conforms(v, spec[1], "%s.%s" % (where, k))
        return
    if isinstance(spec, tuple) and any(isinstance(s, (dict, list)) for s in spec):
        errors = []
        for option in spec:
            try:
                conforms(value, option, where)
                return
            except AssertionError as exc:
                errors.append(str(exc))
        raise AssertionError("; ".join(errors))
    if isinstance(spec, dict):
        assert isinstance(value, dict), "%s: expected an object, got %r" % (where, value)
        required = {k for k in spec if not k.endswith("?")}
        allowed = {k.rstrip("?") for k in spec}
        missing = required - set(value)
        assert not missing, "%s: missing %s" % (where, sorted(missing))
        extra = set(value) - allowed
        assert not extra, "%s: unexpected %s" % (where, sorted(extra))
        for k, s in spec.items():
            if k.rstrip("?") in value:
                conforms(value[k.rstrip("?")], s, "%s.%s" % (where, k.rstrip("?")))
        return
    if isinstance(spec, list):
        assert isinstance(value, list), "%s: expected an array" % where
        for i, item in enumerate(value):
            conforms(item, spec[0], "%s[%d]" % (where, i))
        return
    if spec in (int, NUM, OPT_NUM) or (isinstance(spec, tuple) and int in spec):
        assert not isinstance(value, bool), "%s: a boolean where a number is expected" % where
    assert isinstance(value, spec), "%s: %r is not %s" % (where, value, spec)
    if isinstance(value, float):
        assert math.isfinite(value), "%s: not finite" % where


@pytest.mark.parametrize("name", sorted(E.ALL))
def test_every_example_conforms_to_the_schema(name):
    result = E.ALL[name]()
    data = json.loads(result.to_json())
    conforms(data, SCHEMA)
    assert data["schema_version"] == SCHEMA_VERSION
    assert data["signature_string"] == str(result.signature)
    assert list(data["metrics"]) == list(result.targets)
    assert data["official"] == next(iter(result.targets))
    check_report(data)


def test_the_schema_check_can_fail():
    data = json.loads(E.classification().to_json())
    broken = copy.deepcopy(data)
    del broken["metrics"]["f1_macro"]["vs_winner"][0]["p_adjusted"]
    with pytest.raises(AssertionError, match="p_adjusted"):
        conforms(broken, SCHEMA)
    broken = copy.deepcopy(data)
    broken["metrics"]["f1_macro"]["systems"][0]["rank"] = True
    with pytest.raises(AssertionError, match="rank"):
        conforms(broken, SCHEMA)


def test_top_level_key_order_is_fixed():
    data = json.loads(E.classification().to_json(), object_pairs_hook=OrderedDict)
    assert list(data)[:6] == ["schema_version", "generator", "signature", "signature_string", "settings", "n_items"]
    assert list(data)[-4:] == ["metrics", "groups", "units", "skipped"]


def test_json_round_trips_to_dict_and_is_deterministic():
    result = E.classification()
    text = result.to_json()
    assert json.loads(text) == json.loads(json.dumps(result.to_dict(), allow_nan=False))
    assert text == result_to_json(result)
    assert text.endswith("\n")
    assert "NaN" not in text and "Infinity" not in text


def test_numbers_equal_the_dataframes_exactly():
    result = E.classification()
    data = json.loads(result.to_json())
    for key, target in result.targets.items():
        block = data["metrics"][key]
        for row, (_, expected) in zip(block["systems"], target.systems.iterrows()):
            assert row["name"] == expected["name"]
            assert row["rank"] == expected["rank"]
            for col in ("score", "ci_low", "ci_high"):
                assert row[col] == expected[col]
            assert row["letters"] == expected["letters"]
            assert row["tied_with_winner"] == bool(expected["tied_with_winner"])
            assert row["rank_set"] == {
                "simultaneous": [expected["rank_set_low"], expected["rank_set_high"]],
                "marginal": [expected["rank_set_marginal_low"], expected["rank_set_marginal_high"]],
            }
        assert len(block["vs_winner"]) == len(target.vs_winner)
        for row, (_, expected) in zip(block["vs_winner"], target.vs_winner.iterrows()):
            assert row["name"] == expected["name"]
            for col in ("diff", "ci_low", "ci_high", "fw_low", "fw_high", "p_value", "p_bootstrap"):
                assert row[col] == expected[col]
            for method, value in row["p_adjusted"].items():
                assert value == expected["p_" + method]
            assert row["stars"] == expected["stars"]
            assert row["significant"] == bool(expected["significant"])
        assert [(p["a"], p["b"]) for p in block["pairs"]] == list(zip(target.pairs["a"], target.pairs["b"]))
        for row, (_, expected) in zip(block["pairs"], target.pairs.iterrows()):
            assert row["diff"] == expected["diff"]
            assert row["p_adjusted"] == {m: expected["p_" + m] for m in ("bonferroni", "holm", "fdr_bh", "maxt")}
            for col in ("ci_low", "ci_high", "fw_low", "fw_high"):
                assert row[col] == expected[col]
            assert row["interval"] == "family_wise"  # the default max-t decides: its interval goes with it
        assert block["indicators"] == json.loads(json.dumps(target.indicators))
        assert block["tied_with_winner"] == list(target.tied_with_winner)
        gains = block["gains"]
        assert gains["baseline"] == "baseline"
        assert gains["reference_point"] == target.gains.attrs["reference_point"]
        assert [g["gain"] for g in gains["systems"]] == [0.0 if v == 0 else v for v in target.gains["gain"]]


def test_orientation_positive_means_better_for_lower_is_better_metrics():
    result = E.regression()
    block = json.loads(result.to_json())["metrics"]["mae"]
    assert block["direction"] == "lower"
    scores = {s["name"]: s["score"] for s in block["systems"]}
    for pair in block["pairs"]:
        assert pair["diff"] == pytest.approx(scores[pair["b"]] - scores[pair["a"]])
        assert pair["diff"] >= 0
    assert block["indicators"]["ppi"] is None
    assert "units" in block["indicators"]["ppi_reason"]


def test_accuracy_carries_mcnemar_and_permutation_carries_its_test():
    data = json.loads(E.classification().to_json())
    assert "p_mcnemar" in data["metrics"]["accuracy"]["vs_winner"][0]
    assert "p_mcnemar" not in data["metrics"]["f1_macro"]["vs_winner"][0]
    perm = json.loads(E.permutation().to_json())
    row = perm["metrics"]["accuracy"]["pairs"][0]
    assert row["p_value"] == row["p_permutation"]
    assert isinstance(row["exact"], bool)
    assert perm["signature"]["test"] == "permutation"


def test_groups_and_skipped_blocks():
    data = json.loads(E.with_groups().to_json())
    assert data["groups"]["values"] == ["en", "es<&>"]
    assert {g["groups"] for g in data["groups"]["gaps"]} == {"en - es<&>"}
    assert data["metrics"]["f1_macro_es"]["group"] == "es<&>"
    skipped = json.loads(E.classification().to_json())["skipped"]
    assert [s["submission"] for s in skipped] == [s for s, _ in E.SKIPPED]


def test_non_finite_values_become_null():
    result = copy.deepcopy(E.two_systems())
    target = result.official
    target.systems.loc[1, "ci_low"] = np.nan
    target.vs_winner.loc[0, "ci_high"] = np.inf
    target.indicators["cv"] = float("nan")
    text = result_to_json(result)  # allow_nan=False would raise on any NaN left
    data = json.loads(text)
    block = data["metrics"]["accuracy"]
    assert block["systems"][1]["ci_low"] is None
    assert block["vs_winner"][0]["ci_high"] is None
    assert block["indicators"]["cv"] is None


def test_clean_converts_numpy_and_negative_zero():
    assert _clean(np.int64(3)) == 3 and type(_clean(np.int64(3))) is int
    assert type(_clean(np.float32(0.5))) is float
    assert _clean(np.bool_(True)) is True
    assert str(_clean(-0.0)) == "0.0"
    assert _clean(pd.NA) is None
    assert _clean(OrderedDict([("b", np.nan), ("a", [np.int8(1)])])) == OrderedDict([("b", None), ("a", [1])])
    with pytest.raises(TypeError):
        _clean(object())


def test_sides_are_recorded():
    data = json.loads(E.classification().to_json())
    assert data["settings"]["sides"] == sides_of(E.classification())
    if data["settings"]["sides"] == "two":  # the one-sided value is kept beside the two-sided one
        row = data["metrics"]["f1_macro"]["pairs"][0]
        assert row["p_one_sided"] <= row["p_value"]
    one = E.one_sided()
    assert sides_of(one) == "one"
    assert "p_one_sided" not in json.loads(one.to_json())["metrics"]["accuracy"]["pairs"][0]


def test_primary_correction_is_read_from_the_stars():
    assert primary_correction(E.classification()) == "maxt"  # the default: the max-t step-down
    config = parse_config(
        {
            "metric": "accuracy",
            "bootstrap": {"n_resamples": 200},
            "analysis": {"corrections": ["bonferroni", "holm"], "primary": "bonferroni"},
        }
    )
    rng = np.random.default_rng(0)
    gold = rng.integers(0, 2, 200)
    systems = {
        "s%d" % i: [str(g if rng.random() < acc else 1 - g) for g in gold]
        for i, acc in enumerate([0.9, 0.8, 0.75, 0.6])
    }
    result = analyze([str(g) for g in gold], systems, config=config)
    assert primary_correction(result) == "bonferroni"
    assert json.loads(result.to_json())["settings"]["primary"] == "bonferroni"


def test_to_json_writes_the_file(tmp_path):
    path = tmp_path / "r.json"
    text = E.two_systems().to_json(str(path))
    assert path.read_text(encoding="utf-8") == text
    assert read_report(str(path))["schema_version"] == SCHEMA_VERSION


def test_read_report_errors_are_one_line(tmp_path):
    cases = {
        "missing.json": None,
        "bad.json": '{"a": ',
        "list.json": "[1, 2]",
        "noversion.json": '{"metrics": {}}',
        "v2.json": json.dumps({"schema_version": "2.0"}),
        "nometrics.json": json.dumps({"schema_version": SCHEMA_VERSION, "metrics": {}}),
    }
    expected = {
        "missing.json": "no such file",
        "bad.json": "not a JSON file",
        "list.json": "not a leaderboard-ci",
        "noversion.json": "no schema_version",
        "v2.json": "reads 1.x",
        "nometrics.json": "no metrics",
    }
    for name, text in cases.items():
        path = tmp_path / name
        if text is not None:
            path.write_text(text, encoding="utf-8")
        with pytest.raises(ReportFormatError) as info:
            read_report(str(path))
        assert expected[name] in str(info.value)
        assert "\n" not in str(info.value)
