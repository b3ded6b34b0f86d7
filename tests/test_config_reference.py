"""docs/configuration.md is generated from the configuration schema and must never go stale."""

import io
import os

from leaderboard_ci.scoring.config import Config, sections
from leaderboard_ci.scoring.schema import section_keys
from leaderboard_ci.tasks.registry import TASKS
from leaderboard_ci.tools.config_reference import COMMAND, main, reference

PAGE = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "docs", "configuration.md")


def test_the_checked_in_page_is_the_generated_one():
    with io.open(PAGE, encoding="utf-8") as handle:
        checked_in = handle.read()
    assert checked_in == reference(), (
        "docs/configuration.md is out of date with the configuration schema; regenerate it from the repository's "
        "root with:\n    %s" % COMMAND
    )


def test_the_page_names_every_key_section_and_task_setting():
    text = reference()
    for key in section_keys(Config):
        assert "| `%s` |" % key in text
    for name, cls in sections().items():
        assert "\n## `%s`\n" % name in text
        for key in section_keys(cls):
            assert "| `%s.%s` |" % (name, key) in text
    for module in TASKS.values():
        assert "\n### `%s`\n" % module.name in text
        for key in module.Settings.keys():
            assert "| `%s` |" % key in text


def test_main_writes_the_page(tmp_path, capsys):
    assert main(["--output", str(tmp_path / "page.md")]) == 0
    assert (tmp_path / "page.md").read_text(encoding="utf-8") == reference()
    assert main([]) == 0
    assert capsys.readouterr().out == reference()
