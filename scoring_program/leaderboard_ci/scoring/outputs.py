"""Which keys the scoring program writes, and the leaderboard column each one is.

One list, :func:`written_columns`, says which ``scores.json`` keys a configuration
writes, in order.  The program writes exactly those keys
(:meth:`leaderboard_ci.scoring.evaluation.SubmissionResult.leaderboard_scores`),
``leaderboard-ci columns`` and ``leaderboard-ci init`` turn them into leaderboard
columns, and the bundle check uses them to know each column's direction.

The ``outputs:`` section of ``config.yaml`` chooses the keys; its keys, defaults and
meanings are the fields of :class:`OutputSettings`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from .errors import ConfigError
from .schema import Check, Choice, Flag, section_keys, setting, validate_section

__all__ = [
    "OutputSettings",
    "Column",
    "parse_outputs",
    "check_output_groups",
    "written_columns",
    "written_keys",
    "OUTPUT_KEYS",
    "BASELINE_CHOICES",
    "column_key",
    "group_slug",
]

BASELINE_CHOICES = ("all", "official", "none")
#: Codabench's limit on a column title.
MAX_TITLE = 36

#: (part, key suffix) in the order the program writes them for one metric and group.
_SCORE_PARTS = (("score", ""), ("ci_low", "_ci_low"), ("ci_high", "_ci_high"), ("se", "_se"))
_BASE_PARTS = (
    ("vs_base", "_vs_base"),
    ("vs_base_ci_low", "_vs_base_ci_low"),
    ("vs_base_ci_high", "_vs_base_ci_high"),
    ("vs_base_p", "_vs_base_p"),
)


class _GroupChoice(Check):
    """``outputs.groups``: true, false, or the group values whose keys are written."""

    kind = "true, false or list of group values"

    def __call__(self, value, where):
        if isinstance(value, bool):
            return value
        values = [value] if isinstance(value, (str, int)) else value
        if not isinstance(values, (list, tuple)) or not values or any(isinstance(g, bool) for g in values):
            raise ConfigError("%s must be true, false or a list of group values, got %r" % (where, value))
        return tuple(str(g) for g in values)


def _no_baseline(value):
    return "none" if value is False or value is None else value


@dataclass(frozen=True)
class OutputSettings:
    """Which keys the program writes to ``scores.json``, and so the leaderboard's columns (``KEY``: a metric's key)."""

    ci: bool = setting(True, "`KEY_ci_low` and `KEY_ci_high`, the interval.", Flag())
    se: bool = setting(
        False, "`KEY_se`, the bootstrap standard error (the standard deviation of the replicates).", Flag()
    )
    groups: object = setting(
        True, "true: every group's keys; false: none; a list: those group values only.", _GroupChoice()
    )  # True, False, or a tuple of group values
    baseline: str = setting(
        "all",
        "all: the comparison with the baseline for every metric and group; official: "
        "for the official metric only (and its groups); none: no comparison.",
        Choice(BASELINE_CHOICES, _no_baseline),
    )
    baseline_ci: bool = setting(
        True, "`KEY_vs_base_ci_low` and `KEY_vs_base_ci_high`, the interval of the difference.", Flag()
    )

    def wants_group(self, value):
        if self.groups is True:
            return True
        if self.groups is False:
            return False
        return str(value) in self.groups


#: The keys of the ``outputs:`` section.
OUTPUT_KEYS = section_keys(OutputSettings)


@dataclass(frozen=True)
class Column:
    """One key the program writes, and what it means."""

    key: str
    metric: object  # MetricSpec
    group: Optional[str]
    part: str  # score, ci_low, ci_high, se, vs_base, vs_base_ci_low, vs_base_ci_high, vs_base_p

    @property
    def sorting(self):
        """Codabench's ``sorting``: ``desc`` puts the highest value first.

        A score and its interval bounds follow the metric's direction; a difference
        with the baseline is oriented so that positive is better (``desc``); a
        p-value and a standard error are better small (``asc``).
        """
        if self.part in ("score", "ci_low", "ci_high"):
            return "desc" if self.metric.direction == "higher" else "asc"
        if self.part in ("vs_base", "vs_base_ci_low", "vs_base_ci_high"):
            return "desc"
        return "asc"

    def title(self, confidence_level=0.95):
        """A column title of at most 36 characters (Codabench's limit)."""
        level = "%g%%" % (100 * confidence_level)
        tails = {
            "score": "",
            "ci_low": " %s CI low" % level,
            "ci_high": " %s CI high" % level,
            "se": " SE",
            # what the column holds, positive = better: the baseline minus X when lower is better
            "vs_base": " minus baseline" if self.metric.direction == "higher" else " below baseline",
            "vs_base_ci_low": " diff. %s CI low" % level,
            "vs_base_ci_high": " diff. %s CI high" % level,
            "vs_base_p": " p (beats baseline)",
        }
        head = self.metric.title
        if head[:1].islower():
            head = head[:1].upper() + head[1:]
        group = "" if self.group is None else " [%s]" % self.group
        tail = tails[self.part]
        title = head + group + tail
        if len(title) <= MAX_TITLE:
            return title
        room = MAX_TITLE - len(tail)
        if len(head) + 2 <= room and self.group is not None:
            # Keep the metric's name, shorten the group value.
            keep = room - len(head) - 4
            return "%s [%s…]%s" % (head, str(self.group)[: max(keep, 1)], tail)
        return (head + group)[: room - 1] + "…" + tail


def group_slug(value):
    """A group value as it appears in score keys: lower case, [a-z0-9_] only."""
    out = "".join(ch if ch.isalnum() and ch.isascii() else "_" for ch in str(value).strip().lower())
    out = "_".join(part for part in out.split("_") if part)
    return out or "group"


def column_key(metric_key, group=None, suffix=""):
    """The ``scores.json`` key of a metric, for a group, with a suffix such as ``_ci_low``."""
    key = metric_key if group is None else "%s_%s" % (metric_key, group_slug(group))
    return key + suffix


def parse_outputs(value, source):
    """Validate the ``outputs:`` section; returns :class:`OutputSettings`."""
    return validate_section(OutputSettings, value, "outputs", source)


def check_output_groups(outputs, group_values, source):
    """Every group value that ``outputs.groups`` lists must be a group of the gold file."""
    if outputs.groups in (True, False):
        return
    known = [str(v) for v in (group_values or ())]
    for value in outputs.groups:
        if value not in known:
            raise ConfigError(
                "%s: outputs.groups lists %r, which is not one of the groups (%s)"
                % (source, value, ", ".join(known) or "no groups are configured")
            )


def written_columns(config, group_values=None):
    """The keys the program writes for ``config``, in order, as :class:`Column` objects.

    Parameters
    ----------
    config : Config
    group_values : sequence of str, optional
        The groups of the gold file (``GoldStandard.group_values``); none without groups.

    Returns
    -------
    tuple of Column
        For each metric, the score (and its interval, SE) on all items, then on each
        written group; then the baseline comparisons, if any, in the same order.
    """
    outputs = config.outputs
    groups = [None]
    if config.groups is not None:
        groups += [g for g in (group_values or ()) if outputs.wants_group(g)]
    score_parts = [
        p
        for p in _SCORE_PARTS
        if p[0] == "score" or (p[0].startswith("ci_") and outputs.ci) or (p[0] == "se" and outputs.se)
    ]
    base_parts = [p for p in _BASE_PARTS if not p[0].startswith("vs_base_ci_") or outputs.baseline_ci]
    out = []
    for spec in config.metrics:
        for group in groups:
            for part, suffix in score_parts:
                out.append(Column(column_key(spec.key, group, suffix), spec, group, part))
    if config.baseline is not None and outputs.baseline != "none":
        compared = config.metrics if outputs.baseline == "all" else config.metrics[:1]
        for spec in compared:
            for group in groups:
                for part, suffix in base_parts:
                    out.append(Column(column_key(spec.key, group, suffix), spec, group, part))
    return tuple(out)


def written_keys(config, group_values=None):
    """Only the keys of :func:`written_columns`."""
    return tuple(c.key for c in written_columns(config, group_values))
