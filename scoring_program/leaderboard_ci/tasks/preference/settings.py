"""The preference task's own ``config.yaml`` keys: the anchor of the Elo scale and the style columns.

Python 3.7, the standard library and numpy only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Tuple

import numpy as np

from ..settings import TaskSettings, setting
from .fit import INIT_RATING

__all__ = ["PreferenceSettings"]


def _anchor_model(value):
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise ValueError("anchor_model must be the name of a model of the battle log, got %r" % (value,))
    return value.strip()


def _anchor_rating(value):
    if value is None:
        return INIT_RATING
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not np.isfinite(value):
        raise ValueError("anchor_rating must be a number (the anchor model's Elo score), got %r" % (value,))
    return float(value)


def _style_columns(value):
    if value is None:
        return ()
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, (list, tuple)) or not all(isinstance(e, str) and e.strip() for e in value):
        raise ValueError(
            "style_columns must be a list of style elements (the log's columns <element>_a and <element>_b), "
            "got %r" % (value,)
        )
    return tuple(e.strip() for e in value)


@dataclass(frozen=True)
class PreferenceSettings(TaskSettings):
    """``anchor_model`` and ``anchor_rating`` (where the Elo scale is pinned) and ``style_columns`` (style_elo)."""

    anchor_model: Optional[str] = setting(
        None,
        "The model whose Elo score is fixed at anchor_rating (default: none, the scores average 1000 as "
        "FastChat's do).",
        parse=_anchor_model,
    )
    anchor_rating: float = setting(
        INIT_RATING,
        "The anchor model's Elo score (default 1000; LMArena anchors mixtral-8x7b-instruct-v0.1 at 1114).",
        parse=_anchor_rating,
    )
    style_columns: Tuple[str, ...] = setting(
        (),
        "Style elements for style_elo (LMArena's style control), e.g. [tokens, bold]: the log's columns "
        "<element>_a and <element>_b.",
        parse=_style_columns,
    )

    def check(self, metrics, labels):
        """``style_elo`` needs ``style_columns``."""
        if any(spec.name == "style_elo" for spec in metrics) and not self.style_columns:
            raise ValueError(
                "metric style_elo needs style_columns: the style elements of the battle log (its columns "
                "<element>_a and <element>_b, e.g. [tokens, bold])"
            )
