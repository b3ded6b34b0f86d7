"""config.yaml: defaults, the ref/ override, and organizer-facing errors naming key and allowed values."""

import os

import pytest
import yaml

from leaderboard_ci.scoring.config import (
    CORRECTION_METHODS,
    DEFAULT_SEED,
    column_key,
    group_slug,
    load_config,
    parse_config,
)
from leaderboard_ci.scoring.errors import ConfigError

PROGRAM = os.path.join(os.path.dirname(__file__), os.pardir, "scoring_program")


def test_shipped_config_loads():
    cfg = load_config(PROGRAM)
    assert cfg.official.key == "f1_macro"
    assert cfg.bootstrap.n_resamples == 10000 and cfg.bootstrap.seed == DEFAULT_SEED
    assert cfg.bootstrap.method == "percentile" and cfg.bootstrap.confidence_level == 0.95


def test_defaults():
    cfg = parse_config({"metric": "accuracy"})
    assert cfg.files.gold == "gold.csv" and cfg.files.id_column == "id"
    assert cfg.files.prediction_columns == ("label", "prediction", "pred")
    assert cfg.analysis.corrections == ("maxt", "holm", "bonferroni", "fdr_bh")
    assert cfg.analysis.primary == "maxt"
    assert (
        parse_config({"metric": "accuracy", "analysis": {"corrections": ["bonferroni", "holm"]}}).analysis.primary
        == "holm"
    )
    assert cfg.analysis.family == "all_pairs" and cfg.analysis.test == "bootstrap"
    assert cfg.groups is None and cfg.baseline is None


def test_ref_config_overrides_key_by_key(tmp_path):
    program, ref = tmp_path / "program", tmp_path / "ref"
    program.mkdir()
    ref.mkdir()
    (program / "config.yaml").write_text(
        yaml.safe_dump({"metric": "f1_macro", "bootstrap": {"n_resamples": 500, "seed": 1}})
    )
    (ref / "config.yaml").write_text(yaml.safe_dump({"metric": "accuracy", "bootstrap": {"seed": 9}}))
    cfg = load_config(str(program), str(ref))
    assert cfg.official.key == "accuracy"
    assert (cfg.bootstrap.n_resamples, cfg.bootstrap.seed) == (500, 9)
    assert "ref/config.yaml" in cfg.source


def test_statsmodels_accepts_every_correction_we_allow():
    from statsmodels.stats.multitest import multipletests

    pvalues = [0.001, 0.01, 0.02, 0.04, 0.2, 0.7]
    for method in CORRECTION_METHODS:
        reject, adjusted, _, _ = multipletests(pvalues, alpha=0.05, method=method)
        assert len(adjusted) == len(pvalues)


@pytest.mark.parametrize(
    "data,message",
    [
        ({}, "'metric' is required"),
        (
            {"metric": "accuracy", "bootstrapp": {}},
            r"'bootstrapp' is not a known key \(did you mean 'bootstrap'\?\); allowed: metric",
        ),
        (
            {"metric": "accuracy", "bootstrap": {"n_resamples": 0}},
            r"n_resamples must be an integer from 1 to 1000000, got 0",
        ),
        ({"metric": "accuracy", "bootstrap": {"n_resamples": 1.5}}, "n_resamples must be an integer"),
        (
            {"metric": "accuracy", "bootstrap": {"confidence_level": 1.5}},
            "confidence_level must be a number > 0 and < 1",
        ),
        (
            {"metric": "accuracy", "bootstrap": {"method": "studentized"}},
            "method must be one of: percentile, basic, bca",
        ),
        ({"metric": "accuracy", "bootstrap": {"seed": -1}}, "seed must be an integer"),
        ({"metric": "accuracy", "bootstrap": {"seed": None}}, "seed must be an integer"),
        ({"metric": "accuracy", "bootstrap": {"n_jobs": 0}}, "n_jobs"),
        (
            {"metric": "accuracy", "bootstrap": {"alpha": 0.1}},
            r"bootstrap.alpha is not a known key \(did you mean 'analysis.alpha'\?\); allowed: n_resamples, ",
        ),
        ({"metric": "accuracy", "labels": ["a"]}, "at least two class labels"),
        ({"metric": "accuracy", "labels": [True, False]}, r"labels\[0\] is True because YAML reads yes/no"),
        ({"metric": "accuracy", "labels": ["a", "a"]}, "lists a class twice"),
        ({"metric": "accuracy", "files": {"gold": "../secret.csv"}}, "file name inside its folder"),
        ({"metric": "accuracy", "files": {"format": "xlsx"}}, "format must be one of"),
        ({"metric": "accuracy", "analysis": {"corrections": ["hs"]}}, "corrections must be one of: maxt, bonferroni"),
        ({"metric": "accuracy", "analysis": {"family": "everything"}}, "family must be one of: all_pairs"),
        ({"metric": "accuracy", "analysis": {"test": "t-test"}}, "test must be one of: bootstrap, permutation"),
        ({"metric": "accuracy", "analysis": {"alpha": 1}}, "alpha must be a number"),
        ({"metric": "accuracy", "extra_metrics": ["accuracy"]}, "two metrics have the key 'accuracy'"),
        ({"metric": "accuracy", "extra_metrics": ["mae"]}, "metrics of different task types"),
        (
            {
                "metric": "f1_macro",
                "labels": ["a", "b"],
                "extra_metrics": [{"name": "f1", "average": "macro", "labels": ["c"]}],
            },
            "label 'c' is not one of",
        ),
        ({"metric": "accuracy", "groups": {"column": "lang", "values": ["EN", "en"]}}, "collide as score keys"),
        (
            {"metric": {"name": "f1_macro", "key": "a_longer_metric_key_name_here"}},
            "give metric .a_longer_metric_key_name_here. a shorter key .key: at most 28",
        ),
        ({"metric": "accuracy", "zero_division": "warn"}, "zero_division must be 0 or 1"),
        (  # a setting several task types own names them all, not one of them
            {"metric": "rmse", "hierarchy": {"a": "b"}},
            "hierarchy is a setting of task classification or multilabel or soft_labels; this configuration's task "
            "is regression",
        ),
    ],
)
def test_errors_name_the_key_and_allowed_values(data, message):
    with pytest.raises(ConfigError, match=message) as info:
        parse_config(data, source="config.yaml")
    assert str(info.value).startswith("config.yaml")


def test_group_keys_must_fit():
    with pytest.raises(ConfigError, match="or the group value 'a very long group name'"):
        parse_config({"metric": "f1_macro", "groups": {"column": "g", "values": ["a very long group name"]}})


def test_baseline_suffixes_count_only_with_a_baseline():
    key = "k" * 28  # 28 + len("_ci_high") = 36 fits; 28 + len("_vs_base_ci_high") does not
    parse_config({"metric": {"name": "accuracy", "key": key}})
    with pytest.raises(ConfigError, match="at most 20 characters"):
        parse_config({"metric": {"name": "accuracy", "key": key}, "baseline": "b.csv"})


def test_invalid_yaml_names_the_line(tmp_path):
    (tmp_path / "config.yaml").write_text("metric: f1_macro\nbootstrap: {n_resamples: 10\n")
    with pytest.raises(ConfigError, match=r"config.yaml line \d+ is not valid YAML"):
        load_config(str(tmp_path))


def test_missing_config(tmp_path):
    with pytest.raises(ConfigError, match="has no config.yaml"):
        load_config(str(tmp_path))


def test_column_keys():
    assert column_key("f1_macro") == "f1_macro"
    assert column_key("f1_macro", "English (US)", "_ci_low") == "f1_macro_english_us_ci_low"
    assert group_slug("  ES ") == "es" and group_slug("???") == "group"


@pytest.mark.parametrize(
    "data,message",
    [
        ({"files": {"unscored_ids": "keep"}}, "files.unscored_ids must be one of: error, ignore, got 'keep'"),
        ({"files": {"unscored_ids": "ignore", "id_column": None}}, "files.unscored_ids: ignore needs ids"),
        ({"detailed_results": {"min_count": 0}}, "detailed_results.min_count must be an integer from 1"),
        ({"detailed_results": {"per_class": "no"}}, "detailed_results.per_class must be true or false"),
        ({"detailed_results": {"rows": 3}}, "detailed_results.rows is not a known key"),
    ],
)
def test_participant_input_settings(data, message):
    with pytest.raises(ConfigError) as excinfo:
        parse_config(dict({"metric": "accuracy"}, **data))
    assert message in str(excinfo.value)


def test_participant_input_defaults():
    config = parse_config({"metric": "accuracy"})
    assert config.files.unscored_ids == "error"
    # the per-class table is the organizer's opt-in: it is an item oracle (tests/test_probes.py)
    assert (config.detailed_results.per_class, config.detailed_results.min_count) == (False, 10)


def test_a_mistake_in_ref_config_names_ref_config(tmp_path):
    program, ref = tmp_path / "program", tmp_path / "ref"
    program.mkdir()
    ref.mkdir()
    (program / "config.yaml").write_text("metric: accuracy\nextra_metrics: []\n")
    (ref / "config.yaml").write_text("metric: accuracy\n\textra_metrics: []\n")
    with pytest.raises(ConfigError) as excinfo:
        load_config(str(program), str(ref))
    assert str(excinfo.value).startswith("ref/config.yaml line 2 is not valid YAML: ")
    (ref / "config.yaml").write_text("metric: accuracy\n")
    (program / "config.yaml").write_text("metric: accuracy\n\textra_metrics: []\n")
    with pytest.raises(ConfigError) as excinfo:
        load_config(str(program), str(ref))
    assert str(excinfo.value).startswith("config.yaml line 2 is not valid YAML: ")


# ---------------------------------------------------------------------------
# The schema: one place for keys, defaults, types and documentation
# ---------------------------------------------------------------------------
def test_every_key_is_documented_and_checked():
    from leaderboard_ci.scoring.config import Config, sections
    from leaderboard_ci.scoring.schema import setting_fields

    for name, cls in [("(top level)", Config)] + list(sections().items()):
        for f, s in setting_fields(cls):
            assert s.doc or s.rows or s.section, "%s.%s has no documentation" % (name, f.name)
            assert s.check is not None or s.section is not None or s.rows or hasattr(cls, "_finish"), (
                "%s.%s is not checked" % (name, f.name)
            )


def test_a_missing_section_is_its_dataclass_defaults():
    from leaderboard_ci.scoring.config import sections

    config = parse_config({"metric": "accuracy"})
    for name, cls in sections().items():
        expected = None if name in ("groups", "baseline") else cls()
        assert getattr(config, name) == expected
        if expected is not None:  # an empty mapping gives the same
            assert getattr(parse_config({"metric": "accuracy", name: {}}), name) == expected


def test_config_from_options_puts_each_option_in_its_section():
    from leaderboard_ci.scoring.config import config_from_options

    config = config_from_options(
        "f1_macro",
        extra_metrics=["accuracy"],
        labels=("a", "b"),
        n_resamples=200,
        seed=3,
        alpha=0.01,
        corrections="holm",
        zero_division=1,
    )
    assert (config.bootstrap.n_resamples, config.bootstrap.seed) == (200, 3)
    assert (config.analysis.alpha, config.analysis.corrections, config.analysis.primary) == (0.01, ("holm",), "holm")
    assert config.labels == ("a", "b") and config.zero_division == 1.0 and config.source == "analyze()"
    assert [m.key for m in config.metrics] == ["f1_macro", "accuracy"]
    assert config_from_options("ndcg@10", relevance_threshold=2).task_settings.relevance_threshold == 2
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'n_resample' \(did you mean 'n_resamples'\?\)"):
        config_from_options("accuracy", n_resample=10)
    with pytest.raises(ConfigError, match=r"^analyze\(\): analysis.alpha must be a number > 0 and < 1, got 2"):
        config_from_options("accuracy", alpha=2)


def test_option_names_are_unambiguous():
    from leaderboard_ci.scoring.config import OPTION_SECTIONS, option_names, section_keys, sections

    keys = [k for name in OPTION_SECTIONS for k in section_keys(sections()[name])]
    assert len(keys) == len(set(keys)) and set(keys) <= set(option_names())


def test_read_and_merge_configs(tmp_path):
    from leaderboard_ci.scoring.config import merge_configs, read_config

    (tmp_path / "a.yaml").write_text("metric: accuracy\nbootstrap: {n_resamples: 50, seed: 1}\n")
    base = read_config(str(tmp_path / "a.yaml"))
    merged = merge_configs(base, {"bootstrap": {"seed": 2}}, {"labels": ["x", "y"]})
    assert merged == {"metric": "accuracy", "bootstrap": {"n_resamples": 50, "seed": 2}, "labels": ["x", "y"]}
    assert base["bootstrap"]["seed"] == 1  # the arguments are not changed
    (tmp_path / "b.yaml").write_text("- metric\n")
    with pytest.raises(ConfigError, match="^shown.yaml must be a mapping of keys to values, got list$"):
        read_config(str(tmp_path / "b.yaml"), "shown.yaml")


@pytest.mark.parametrize(
    "data,message",
    [
        (
            {"files": {"gold_colum": "x"}},
            "files.gold_colum is not a known key (did you mean 'gold_column'?); allowed: ",
        ),
        ({"relevance_treshold": 2}, "'relevance_treshold' is not a known key (did you mean 'relevance_threshold'?)"),
        ({"n_resamples": 2}, "'n_resamples' is not a known key (did you mean 'bootstrap.n_resamples'?)"),
        (
            {"bootstrap": 3},
            "bootstrap must be a mapping (keys: n_resamples, confidence_level, method, seed, n_jobs, "
            "cluster, strata, cluster_correction, design_file), got 3",
        ),
        ({"groups": 3}, "groups must be a column name or a mapping (keys: column, values), got 3"),
    ],
)
def test_unknown_keys_get_a_suggestion(data, message):
    with pytest.raises(ConfigError) as excinfo:
        parse_config(dict({"metric": "accuracy"}, **data))
    assert message in str(excinfo.value)
