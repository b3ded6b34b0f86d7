"""benchmark.yaml is read through the config schema: config.yaml's sentences, a generated reference section."""

import io
import os

import pytest

from leaderboard_ci.phase.benchmark.definition import (
    AggregateSettings,
    BenchmarkSettings,
    BenchmarkTaskSettings,
    CriticalDifferenceSettings,
    load_benchmark,
)
from leaderboard_ci.scoring.errors import ConfigError
from leaderboard_ci.scoring.schema import section_keys
from leaderboard_ci.tools.benchmark_reference import COMMAND, main, replace_section, section

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAGE = os.path.join(ROOT, "docs", "tasks", "benchmarks.md")
TASK = "tasks:\n  - {name: a, reference: r, submissions: s%s}\n"


def test_the_checked_in_section_is_the_generated_one():
    with io.open(PAGE, encoding="utf-8") as handle:
        checked_in = handle.read()
    assert section() in checked_in and replace_section(checked_in) == checked_in, (
        "docs/tasks/benchmarks.md's benchmark.yaml section is out of date; regenerate it with:\n    %s" % COMMAND
    )


def test_the_section_names_every_key(tmp_path, capsys):
    text = section()
    for prefix, cls in (
        ("", BenchmarkSettings),
        ("tasks[i].", BenchmarkTaskSettings),
        ("aggregate.", AggregateSettings),
        ("critical_difference.", CriticalDifferenceSettings),
    ):
        for key in section_keys(cls):
            assert "| `%s%s` |" % (prefix, key) in text
    page = tmp_path / "page.md"
    with io.open(PAGE, encoding="utf-8") as handle:
        page.write_text(handle.read().replace("| `title` |", "| `stale` |"), encoding="utf-8")
    assert main(["--write", str(page)]) == 0
    assert section() in page.read_text(encoding="utf-8")
    assert main([]) == 0 and section() in capsys.readouterr().out


def test_the_example_reads_as_before():
    d = load_benchmark(os.path.join(ROOT, "examples", "benchmark", "benchmark.yaml"))
    assert (d.seed, d.n_resamples, d.confidence_level, d.aggregate_of, d.cd_test, d.cd_alpha) == (
        12345,
        2000,
        0.95,
        None,
        "nemenyi",
        0.05,
    )
    assert [t.label for t in d.tasks][:2] == ["digits (en)", "digits (es)"] and len(d.tasks) == 8
    t = d.tasks[0]
    assert t.baselines == ("baseline_majority.csv", "baseline_stratified.csv") and t.weight == 1.0
    assert t.reference == os.path.join(ROOT, "examples", "benchmark", "en", "digits", "reference_data")
    assert not t.shared and t.file is None and t.phase is None and t.key == "tasks[0]"


@pytest.mark.parametrize(
    "text, message",
    [
        ("tasks: {a: 1}\n", r"^benchmark\.yaml: tasks must be a non-empty list of tasks, got \{'a': 1\}$"),
        ("sed: 1\n" + TASK % "", r"^benchmark\.yaml: 'sed' is not a known key \(did you mean 'seed'\?\); allowed: "),
        ("test: wilcoxon\n" + TASK % "", r"did you mean 'critical_difference\.test'\?"),
        (TASK % ", baseline: [b.csv]", r"^benchmark\.yaml: tasks\[0\]\.baseline is not a known key \(did you mean "),
        ("seed: -1\n" + TASK % "", r"^benchmark\.yaml: seed must be an integer from 0 to \d+, got -1$"),
        ("seed: yes\n" + TASK % "", r"seed must be an integer"),
        ("confidence_level: 1.5\n" + TASK % "", r"confidence_level must be a number > 0 and < 1, got 1\.5$"),
        ("n_resamples: 0\n" + TASK % "", r"n_resamples must be an integer from 1 to"),
        ("aggregate: {of: median}\n" + TASK % "", r"^benchmark\.yaml: aggregate\.of must be one of: gain, score"),
        ("aggregate: gain\n" + TASK % "", r"^benchmark\.yaml: aggregate must be a mapping \(keys: of\)"),
        ("critical_difference: {alpha: 2}\n" + TASK % "", r"critical_difference\.alpha must be a number"),
        ("critical_difference: {test: t}\n" + TASK % "", r"critical_difference\.test must be one of: nemenyi, wilc"),
        (TASK % ", colour: red", r"tasks\[0\]\.colour is not a known key; allowed: name, reference"),
        (TASK % ", weight: 0", r"^benchmark\.yaml: tasks\[0\]\.weight must be a number > 0"),
        (TASK % ", weight: .nan", r"tasks\[0\]\.weight must be a number"),
        (TASK % ", reference_point: .inf", r"tasks\[0\]\.reference_point must be a number"),
        (TASK % ", file: ../x.csv", r"tasks\[0\]\.file must be the name \(or glob\)"),
        (TASK % ", phase: forty", r"tasks\[0\]\.phase must be a Codabench phase id"),
        (TASK % ", baselines: [/etc/passwd]", r"tasks\[0\]\.baselines must be a file name inside its folder"),
        (TASK % ", language: no", r"tasks\[0\]\.language is False because YAML reads yes/no"),
        ("tasks: [3]\n", r"^benchmark\.yaml: tasks\[0\] must be a mapping \(keys: name, "),
        ("tasks:\n  - {name: a, submissions: s}\n", r"^benchmark\.yaml: tasks\[0\] needs reference$"),
        ("tasks:\n  - {name: a, reference: r}\n", r"tasks\[0\] needs submissions \(or a top-level submissions"),
        (TASK % "" + "  - {name: a, reference: q, submissions: t}\n", r"tasks\[1\]: task 'a' appears twice$"),
        ("tasks: [\n", r"^benchmark\.yaml line \d+ is not valid YAML"),
        ("- a\n- b\n", r"^benchmark\.yaml must be a mapping of keys to values, got list$"),
    ],
)
def test_mistakes_are_config_yaml_sentences(tmp_path, text, message):
    path = tmp_path / "benchmark.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=message) as info:
        load_benchmark(str(path))
    assert "\n" not in str(info.value)


def test_binary_and_wrong_encoding_are_one_sentence(tmp_path):
    path = tmp_path / "benchmark.yaml"
    path.write_bytes(b"title: \xff\xfe\x00caf\xe9\n")
    with pytest.raises(ConfigError, match=r"^benchmark\.yaml is not UTF-8 text$"):
        load_benchmark(str(path))
