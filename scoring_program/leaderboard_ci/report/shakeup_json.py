"""The shake-up as plain JSON: the ``shakeup`` object of ``report.json`` and the file ``shakeup.json``.

:func:`shakeup_to_dict` gives the object (documented field by field in
``docs/report_json.md``, "shakeup"); the end-of-phase report embeds it under
``shakeup`` when both sets are given, and ``leaderboard-ci shakeup`` writes it
as ``shakeup.json`` with the same header as ``report.json`` (``schema_version``,
``generator``).  Numbers that are not finite are ``null``; floats keep their
full precision.  Gaps are ``private - public`` in the metric's units (for a
metric where lower is better a positive gap is worse on private: ``direction``
says which).
"""

from __future__ import annotations

import json
from collections import OrderedDict

from .._version import __version__
from .json_values import GENERATOR, SCHEMA_VERSION, clean
from .shakeup_words import shakeup_larger_than_noise, summary_sentences

__all__ = ["shakeup_to_dict", "shakeup_document", "shakeup_to_json", "SHAKEUP_KIND"]

#: ``kind`` of the object (and of ``shakeup.json``).
SHAKEUP_KIND = "shakeup"


def _board(row, side):
    return OrderedDict(
        [
            ("run", row["%s_run" % side]),
            ("score", row[side]),
            ("ci_low", row["%s_low" % side]),
            ("ci_high", row["%s_high" % side]),
            ("rank", row["%s_rank" % side]),
            (
                "rank_set",
                OrderedDict(
                    [
                        ("simultaneous", [row["%s_rank_set_low" % side], row["%s_rank_set_high" % side]]),
                        ("marginal", [row["%s_rank_set_marginal_low" % side], row["%s_rank_set_marginal_high" % side]]),
                    ]
                ),
            ),
        ]
    )


def _participant(row):
    return OrderedDict(
        [
            ("participant", row["participant"]),
            ("submissions", row["submissions"]),
            ("scored", row["scored"]),
            ("public", _board(row, "public")),
            ("private", _board(row, "private")),
            ("rank_change", row["rank_change"]),
            (
                "gap",
                OrderedDict(
                    [
                        ("value", row["gap"]),
                        ("ci_low", row["gap_low"]),
                        ("ci_high", row["gap_high"]),
                        ("p_value", row["p_value"]),
                        ("p_fdr_bh", row["p_fdr_bh"]),
                        ("flagged", bool(row["flagged"])),
                        ("direction", row["direction"] or None),
                    ]
                ),
            ),
            (
                "best_of_k",
                OrderedDict(
                    [
                        ("k", row["scored"]),
                        ("optimism", row["best_of_k_bias"]),
                        ("shrinkage", row["best_of_k_shrinkage"]),
                    ]
                ),
            ),
        ]
    )


def _statistic(stat):
    return OrderedDict(
        [
            ("value", stat.value),
            ("ci_low", stat.ci_low),
            ("ci_high", stat.ci_high),
            ("noise", stat.noise),
            ("noise_low", stat.noise_low),
            ("noise_high", stat.noise_high),
            ("p_value", stat.p_value),
        ]
    )


def _competition(result):
    c = result.competition
    agreement = c.get("agreement")
    return OrderedDict(
        [
            ("m", c["m"]),
            ("n_public", c["n_public"]),
            ("n_private", c["n_private"]),
            ("n_resamples_public", c["n_resamples_public"]),
            ("n_resamples_private", c["n_resamples_private"]),
            ("n_paired", c["n_paired"]),
            ("kendall_tau", None if agreement is None else _statistic(agreement.tau)),
            ("spearman_rho", None if agreement is None else _statistic(agreement.rho)),
            ("larger_than_noise", shakeup_larger_than_noise(result)),
            (
                "mean_gap",
                OrderedDict(
                    [
                        ("value", c["mean_gap"]),
                        ("ci_low", c["mean_gap_low"]),
                        ("ci_high", c["mean_gap_high"]),
                        ("p_value", c["mean_gap_p"]),
                    ]
                ),
            ),
            (
                "flagged",
                OrderedDict(
                    [
                        ("total", c["flagged"]),
                        ("worse_on_private", c["flagged_worse"]),
                        ("better_on_private", c["flagged_better"]),
                    ]
                ),
            ),
            (
                "gap_vs_submissions",
                OrderedDict(
                    [("spearman_rho", c.get("gap_vs_submissions_rho")), ("p_value", c.get("gap_vs_submissions_p"))]
                ),
            ),
        ]
    )


def _curse(curse):
    if curse is None:
        return None
    return OrderedDict(
        [
            ("winner", curse.winner),
            ("score", curse.score),
            ("ci_low", curse.ci_low),
            ("ci_high", curse.ci_high),
            ("optimism", curse.optimism),
            ("corrected", curse.corrected),
            ("m", curse.m),
            ("shrinkage", curse.shrinkage),
            ("method", curse.method),
        ]
    )


def _set(scores):
    return OrderedDict(
        [
            ("source", scores.source),
            ("n_items", scores.n_items),
            ("signature", clean(scores.signature.as_dict())),
            ("signature_string", str(scores.signature)),
        ]
    )


def _rows(frame):
    return [
        OrderedDict((c, clean(v)) for c, v in zip(frame.columns, row))
        for row in frame.itertuples(index=False, name=None)
    ]


def shakeup_to_dict(result):
    """The ``shakeup`` object: settings, both sets' signatures, participants, competition, winner's curse."""
    metric = result.metric
    return clean(
        OrderedDict(
            [
                ("kind", SHAKEUP_KIND),
                ("mode", result.mode),
                ("metric", metric.key),
                ("title", metric.title),
                ("direction", metric.direction),
                ("settings", result.settings),
                ("sets", OrderedDict([("public", _set(result.public)), ("private", _set(result.private))])),
                ("participants", [_participant(row) for _, row in result.participants.iterrows()]),
                ("competition", _competition(result)),
                ("winners_curse", _curse(result.winners_curse)),
                ("sentences", summary_sentences(result)),
                ("unmatched", _rows(result.unmatched)),
                ("skipped", _rows(result.skipped)),
                ("notes", list(result.notes)),
            ]
        )
    )


def shakeup_document(result):
    """``shakeup.json``: the header of ``report.json`` then the ``shakeup`` object's fields."""
    out = OrderedDict(
        [
            ("schema_version", SCHEMA_VERSION),
            ("generator", OrderedDict([("name", GENERATOR), ("version", __version__)])),
        ]
    )
    out.update(shakeup_to_dict(result))
    return out


def shakeup_to_json(result):
    """:func:`shakeup_document` as indented JSON text, ending in a newline."""
    return json.dumps(shakeup_document(result), indent=2, allow_nan=False, ensure_ascii=False) + "\n"
