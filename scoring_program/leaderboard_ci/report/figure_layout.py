"""What the report's figures show, decided without matplotlib: colours, names, sizes and scales.

:mod:`leaderboard_ci.report.plots` draws with these; keeping them apart lets the tests
check the layout decisions (which system is off the scale, how a name is cut) directly.
"""

from __future__ import annotations

import math
import textwrap
from collections import OrderedDict
from dataclasses import dataclass
from typing import Optional

import numpy as np

from ..core.numeric import is_finite_number
from .formatting import format_p

__all__ = [
    "histogram_edges",
    "WINNER",
    "TIED",
    "OTHER",
    "BASELINE",
    "RED",
    "GREEN",
    "INK",
    "FIGURES",
    "HEATMAP_VALUES_MAX",
    "HEATMAP_STARS_MAX",
    "NAME_LIMIT",
    "MINUS",
    "short_name",
    "short_names",
    "ranked_axis",
    "oriented_difference",
    "figure_title",
    "name_fontsize",
    "NAME_FONT_MIN",
    "heatmap_scale",
    "HeatmapScale",
    "ci_contains_zero",
    "name_width",
    "decimals_for",
    "off_scale",
    "far_off",
    "fit_texts",
    "counted_replicates",
    "p_value_tail",
    "PValueTail",
]

WINNER = "#1f4e9c"
TIED = "#5b9bd5"
OTHER = "#6e7781"
BASELINE = "#b36b00"
RED = "#c62828"
GREEN = "#2e7d32"
INK = "#1f2328"
#: The figures of a target, in the order the report shows them: name -> (function, caption).
FIGURES = OrderedDict(
    [
        ("ordered_ci", "Scores with confidence intervals"),
        ("rank_sets", "Rank confidence sets, simultaneous and marginal"),
        ("vs_winner", "Differences to the winner"),
        ("pair_heatmap", "All pairwise differences"),
        ("bootstrap_difference", "Bootstrap distribution of the winner's advantage over the runner-up"),
        ("unit_distribution", "Distribution of the per-unit values (per query)"),
    ]
)
#: Above this many compared systems the heatmap shows stars only; above the next, nothing.
HEATMAP_VALUES_MAX = 12
HEATMAP_STARS_MAX = 45
NAME_LIMIT = 32
MINUS = "\u2212"


def _middle(name, limit, tail):
    """``name`` cut in the middle to ``limit`` characters, keeping its last ``tail`` ones."""
    if len(name) <= limit:
        return name
    tail = max(1, min(tail, limit - 2))
    return name[: limit - 1 - tail] + "\u2026" + name[len(name) - tail :]


def short_name(name, limit=NAME_LIMIT):
    """A name for a figure: cut in the middle to ``limit`` characters (an ellipsis), ``$`` escaped.

    The end of the name is kept (a third of ``limit``): runs of one team are told apart by
    their suffix (``..._run_03``).  Matplotlib reads text between two ``$`` as mathematics; a
    system called ``a $x$ b`` must show its dollar signs.  :func:`short_names` makes
    the labels of a whole figure distinct.
    """
    return _middle(str(name), limit, max(1, limit // 3)).replace("$", r"\$")


def short_names(names, limit=NAME_LIMIT):
    """Labels for ``names`` of at most ``limit`` characters, distinct when the names are.

    Each long name is cut in the middle (:func:`short_name`); names whose labels
    collide keep a longer end, and when their ends agree too, the part where
    they first differ (``head…middle…end``).  ``$`` escaped.

    >>> short_names(["team_with_a_quite_long_description_01", "team_with_a_quite_long_description_02"], 20)
    ['team_with_a_q…ion_01', 'team_with_a_q…ion_02']
    """
    names = [str(n) for n in names]
    tail = max(1, limit // 3)
    labels = [_middle(n, limit, tail) for n in names]
    for _ in range(2):
        seen = {}
        for i, label in enumerate(labels):
            seen.setdefault(label, []).append(i)
        clashes = [group for group in seen.values() if len(set(names[i] for i in group)) > 1]
        if not clashes:
            break
        for group in clashes:
            members = [names[i] for i in group]
            for t in range(tail + 1, limit - 3):
                cut = [_middle(n, limit, t) for n in members]
                if len(set(cut)) == len(set(members)):
                    break
            else:  # same start and end: show where they first differ
                cut = [_window(n, members, limit) for n in members]
            for i, label in zip(group, cut):
                labels[i] = label
    return [label.replace("$", r"\$") for label in labels]


def _window(name, members, limit):
    """``head…part…end`` of ``name``, the part around its first difference from the other ``members``."""
    if len(name) <= limit:
        return name
    first = min(
        next((k for k, (a, b) in enumerate(zip(name, other)) if a != b), min(len(name), len(other)))
        for other in members
        if other != name
    )
    head, end = 4, 4
    room = limit - head - end - 2
    start = max(head, min(first - room // 2, len(name) - end - room))
    return name[:head] + "\u2026" + name[start : start + room] + "\u2026" + name[len(name) - end :]


def oriented_difference(metric, better, worse, limit=24):
    """``"A − B"`` written so that it is positive when ``better`` is better, for ``metric``'s direction.

    Higher is better: ``better − worse``; lower is better (MAE): ``worse − better``, so the
    literal subtraction on the axis and the sign of the numbers agree.
    """
    a, b = short_name(better, limit), short_name(worse, limit)
    first, second = (a, b) if getattr(metric, "sign", 1.0) > 0 else (b, a)
    return "%s %s %s" % (first, MINUS, second)


def figure_title(target):
    """The target's title (metric and group) as figure text."""
    return short_name(target.title, 80)


#: The smallest name label (points): 12 px at the report's 110 dpi, so that labels stay readable on the page.
NAME_FONT_MIN = 8.0


def name_fontsize(count):
    """Tick label size for ``count`` names: 10 points up to 15 names, down to :data:`NAME_FONT_MIN`.

    The figures grow with the number of names (a row is 0.27 inch) rather than the labels shrinking.
    """
    if count <= 15:
        return 10.0
    return float(max(NAME_FONT_MIN, 10.0 - (count - 15) * 0.14))


@dataclass(frozen=True)
class HeatmapScale:
    """The colour scale of the pairwise heatmap.

    Attributes
    ----------
    vmax : float
        The end of the scale (``[0, vmax]`` or ``[-vmax, vmax]``).
    sequential : bool
        Every difference is >= 0: one hue from 0 (no half of the scale wasted on
        negative values that do not occur).
    clipped : ndarray of bool
        The cells beyond ``vmax`` (a far-off system's), drawn at the end colour and hatched.
    extend : str
        The colour bar's arrows: ``"neither"``, ``"max"`` or ``"both"``.
    """

    vmax: float
    sequential: bool
    clipped: np.ndarray
    extend: str


def heatmap_scale(values, rows, cols, far=()):
    """The colour scale of a lower-triangular matrix ``values`` (NaN off the pairs), see :class:`HeatmapScale`.

    The scale covers the cells between systems that are not ``far`` (far off the
    others, :func:`far_off`), so that one broken run or trivial baseline does not wash
    every other cell out; their cells beyond it are clipped.  Without such systems
    (or when only they have cells) it covers every cell.
    """
    values = np.asarray(values, dtype=float)
    finite = np.isfinite(values)
    far = set(far)
    near = np.array([r not in far for r in rows])[:, None] & np.array([c not in far for c in cols])[None, :]
    core = np.abs(values[finite & near])
    every = np.abs(values[finite])
    top = float(core.max()) if core.size and core.max() > 0 else (float(every.max()) if every.size else 1.0)
    top = top if top > 0 else 1.0
    clipped = finite & (np.abs(np.where(finite, values, 0.0)) > top * (1 + 1e-9))
    sequential = bool(every.size) and float(np.min(values[finite])) >= 0.0
    positive = bool((clipped & (values > 0)).any())
    negative = bool((clipped & (values < 0)).any())
    extend = "both" if positive and negative else ("max" if positive else ("min" if negative else "neither"))
    if sequential and extend == "min":  # pragma: no cover - a negative cell makes it diverging
        extend = "neither"
    return HeatmapScale(top, sequential, clipped, extend)


def ci_contains_zero(low, high):
    """Whether the interval ``[low, high]`` contains 0 (False when it is undefined)."""
    return is_finite_number(low) and is_finite_number(high) and float(low) <= 0.0 <= float(high)


def name_width(names, fontsize):
    """Rough width in inches of the longest label."""
    longest = max([len(n) for n in short_names(names)] + [4])
    return longest * fontsize * 0.62 / 72.0


def decimals_for(values):
    """Decimals to show numbers of the magnitude of ``values`` with about 3 significant digits."""
    finite = [abs(float(v)) for v in values if is_finite_number(v)]
    top = max(finite) if finite else 1.0
    if top == 0:
        return 3
    return int(min(4, max(0, 2 - math.floor(math.log10(top)))))


def off_scale(frame, name, keep=()):
    """Whether system ``name``'s row lies far outside the others': (side, (low, high)) or None.

    ``frame`` has ``name``, ``ci_low``, ``ci_high`` and a point column
    (``score`` or ``diff``).  The row is off the scale when its whole
    interval is more than the others' span (``keep`` values included, e.g.
    0) away from them; the returned limits cover the others only.  This keeps
    a trivial baseline (say a majority classifier) from squashing every other
    interval into a corner.
    """
    if name is None or name not in set(frame["name"]) or len(frame) < 3:
        return None
    point = "score" if "score" in frame.columns else "diff"
    rest = frame[frame["name"] != name]
    values = [float(v) for c in ("ci_low", "ci_high", point) for v in rest[c] if is_finite_number(v)] + list(keep)
    row = frame[frame["name"] == name].iloc[0]
    own = [float(row[c]) for c in ("ci_low", "ci_high", point) if is_finite_number(row[c])]
    if not values or not own:
        return None
    low, high = min(values), max(values)
    span = high - low
    if span <= 0:
        return None
    if max(own) < low - span:
        return "left", (low, high)
    if min(own) > high + span:
        return "right", (low, high)
    return None


#: A far-off system's interval is clear of the others' range by this share of its span ...
FAR_GAP = 0.1
#: ... and would widen the axis by more than this share of it.
FAR_WIDENS = 0.5


def far_off(frame, protect=(), keep=()):
    """The systems far outside the others, to be marked at the axis' edge: ``({name: side}, (low, high))``.

    Generalizes :func:`off_scale` to any system (a broken run near 0 as well as a
    trivial baseline) and to several at once: the ``k`` lowest (or highest) systems
    by their point are off the scale when every one of their intervals lies clear of
    the remaining systems' range (``keep`` values included, e.g. 0), by more than
    :data:`FAR_GAP` of its span, and drawing them would widen the axis by more than
    :data:`FAR_WIDENS` of that span (the comparisons that matter would shrink to a
    third of the axis or less); the
    largest such ``k`` up to a third of the systems is taken on each side.  Systems in
    ``protect`` (the winner) are never taken off.  The limits cover the remaining
    systems.  ``({}, None)`` when nothing is far off.
    """
    point = "score" if "score" in frame.columns else "diff"
    rows = []
    for row in frame.itertuples(index=False):
        own = [float(getattr(row, c)) for c in ("ci_low", "ci_high", point) if is_finite_number(getattr(row, c))]
        if own and is_finite_number(getattr(row, point)):
            rows.append((str(row.name), float(getattr(row, point)), min(own), max(own)))
    if len(rows) < 3:
        return {}, None
    rows.sort(key=lambda r: r[1])
    protected = set(str(p) for p in protect)
    limit = max(1, len(rows) // 3)

    def limits(rest):
        values = [v for r in rest for v in (r[2], r[3])] + [float(k) for k in keep]
        return min(values), max(values)

    def far(low_group, high_group):
        taken = set(r[0] for r in low_group + high_group)
        rest = [r for r in rows if r[0] not in taken]
        if len(rest) < 2 or taken & protected:
            return None
        low, high = limits(rest)
        span = high - low
        if span <= 0:
            return None
        gap = FAR_GAP * span
        if not all(r[3] < low - gap for r in low_group) or not all(r[2] > high + gap for r in high_group):
            return None  # not clear of the others
        wider = max([low - r[2] for r in low_group] + [r[3] - high for r in high_group])
        return (low, high) if wider > FAR_WIDENS * span else None

    low_k = next((k for k in range(limit, 0, -1) if far(rows[:k], [])), 0)
    high_k = next((k for k in range(limit, 0, -1) if far([], rows[len(rows) - k :])), 0)
    while low_k or high_k:
        bounds = far(rows[:low_k], rows[len(rows) - high_k :] if high_k else [])
        if bounds is not None:
            sides = dict((r[0], "left") for r in rows[:low_k])
            sides.update((r[0], "right") for r in (rows[len(rows) - high_k :] if high_k else []))
            return sides, bounds
        if low_k >= high_k:
            low_k -= 1
        else:
            high_k -= 1
    return {}, None


def _is_text(artist):
    """A matplotlib Text (duck-typed, so that this module does not import matplotlib)."""
    return (
        hasattr(artist, "get_text")
        and hasattr(artist, "set_text")
        and hasattr(artist, "get_window_extent")
        and hasattr(artist, "get_horizontalalignment")
    )


def _tick_label_ids(fig):
    ids = set()
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                ids.update((id(tick.label1), id(tick.label2)))
    return ids


def _lay_out(fig):
    """Run the figure's layout and text placement without rasterizing it (matplotlib >= 3.6; else a full draw).

    The texts' extents and constrained layout come out as in a full draw; only the pixels, which
    :func:`fit_texts` never reads, are skipped (the saved figure is drawn afresh).
    """
    if hasattr(fig, "draw_without_rendering"):
        fig.draw_without_rendering()
    else:
        fig.canvas.draw()


def fit_texts(fig, rounds=4):
    """Wrap every title, axis label and legend entry that would leave the canvas; widen as a last resort.

    Works on any matplotlib figure without importing matplotlib (texts are found by their
    methods).  Constrained layout makes room for tick labels but not for a title or label wider
    than the figure: those are wrapped at a width measured on the canvas, and the
    figure is redrawn until every text lies inside it.
    """
    for _ in range(rounds):
        _lay_out(fig)
        renderer = fig.canvas.get_renderer()
        width = fig.bbox.width
        ticks = _tick_label_ids(fig)
        changed = False
        worst = 0.0
        for text in fig.findobj(_is_text):
            content = text.get_text()
            if not text.get_visible() or not content.strip() or id(text) in ticks:
                continue
            box = text.get_window_extent(renderer)
            if box.x0 >= -0.5 and box.x1 <= width + 0.5:
                continue
            worst = max(worst, box.width - width, -box.x0, box.x1 - width)
            room = (width - max(box.x0, 0.0) - 6.0) if text.get_horizontalalignment() == "left" else 0.9 * width
            longest = max(len(line) for line in content.split("\n"))
            chars = int(longest * room / max(box.width, 1.0))
            if chars >= 12 and chars < longest:
                text.set_text(
                    "\n".join(
                        textwrap.fill(line, chars, break_long_words=True, break_on_hyphens=False)
                        for line in content.split("\n")
                    )
                )
                changed = True
        if not changed:
            if worst > 0.5:
                fig.set_figwidth(fig.get_figwidth() + (worst + 12.0) / fig.dpi)
                continue
            return fig
    return fig


#: The side each method's one-sided p-value of "the winner is better" reads, and the inversion point.
_TAILS = {"percentile": "0", "bca": "0", "normal": "0", "basic": "2\u03b4"}


@dataclass(frozen=True)
class PValueTail:
    """What the bootstrap-difference figure shades, and how the p-value in its title follows from it.

    Attributes
    ----------
    method : str
        The interval the p-value inverts (``bootstrap.method``).
    two : bool
        Whether the title's p-value is two-sided.
    edge : float
        The inversion point: 0, or ``2δ`` for ``basic``.
    below : bool
        The shaded tail is ``d* <= edge`` (the one-sided p of "the winner is better");
        else ``d* >= edge`` (the other side, when it gives the two-sided p).
    mask : ndarray of bool
        The finite replicates in that tail.
    share : float
        ``mask.mean()``.
    p : float
        The p-value in the title (``p_bootstrap``).
    p_one : float or None
        The one-sided p-value of the shaded tail (None when the title's p is two-sided
        and at its floor or cap, so that it does not give it).
    label : str
        Legend text of the shaded bars (or, for ``normal``, of the shaded area).
    relation : str
        Legend text (lines): how ``p`` follows from what is shaded.
    """

    method: str
    two: bool
    edge: float
    below: bool
    mask: np.ndarray
    share: float
    p: float
    p_one: Optional[float]
    label: str
    relation: str


def _finite_differences(target):
    """Winner minus runner-up on the replicates where every system is finite (as :mod:`..core.pairs`)."""
    reps = np.asarray(target.replicates, dtype=float)
    reps = reps[np.all(np.isfinite(reps), axis=1)]
    return target.metric.sign * (reps[:, 0] - reps[:, 1])


def _approx(p, share):
    """``=`` when the p-value is the share itself, ``≈`` when interpolation moved it (by less than 1/B)."""
    return "=" if abs(p - share) <= 1e-12 else "\u2248"


def p_value_tail(target, method="percentile", two=False):
    """The replicates of winner minus runner-up that the bootstrap p-value reads, and how.

    The p-value inverts the interval (:mod:`leaderboard_ci.core.intervals`): for
    ``percentile`` the one-sided p of "the winner is better" is ``sup{q : Q(q) <= 0}``,
    the share of replicates ``d* <= 0`` interpolated between order statistics (within
    ``1/(B + 1)`` of the raw share); ``basic`` is the same at ``2δ``, read on the
    other side (``d* >= 2δ``); ``bca`` maps the percentile share through the BCa level
    map; ``normal`` is ``Phi(-δ/SE)``, the normal curve's tail below 0 (the bars are
    not counted).  The two-sided p is ``2 * min(p_greater, p_less)``: the tail shaded is
    the one of the winner's side (``δ >= 0``), or the other one when its share, not
    this one's, gives the p-value.

    Parameters
    ----------
    target : TargetAnalysis
        With replicates and at least two systems.
    method : {"percentile", "basic", "bca", "normal"}
        The analysis' ``bootstrap.method``.
    two : bool
        Whether ``p_bootstrap`` is two-sided.

    Returns
    -------
    PValueTail
    """
    if method not in _TAILS:
        raise ValueError("method must be one of: %s, got %r" % (", ".join(_TAILS), method))
    d = _finite_differences(target)
    first = target.vs_winner.iloc[0]
    delta = float(first["diff"])
    p = float(first["p_bootstrap"] if "p_bootstrap" in target.vs_winner.columns else first["p_value"])
    count = d.size
    floor = 1.0 / (count + 1.0)
    edge = 2.0 * delta if method == "basic" else 0.0
    # the tail of "the winner is better": d* <= 0 (percentile, bca, normal), d* >= 2δ (basic)
    winner_side = method != "basic"
    below = winner_side if delta >= 0 else not winner_side
    p_one = p
    if two:
        p_one = p / 2.0 if floor < p < 1.0 else None
        if p_one is not None and method in ("percentile", "basic") and count:
            shares = {b: float(np.mean(d <= edge if b else d >= edge)) for b in (below, not below)}
            if abs(shares[below] - p_one) > floor and abs(shares[not below] - p_one) <= floor:
                below = not below  # the other side gives the smaller one-sided p
    if not two:
        below = winner_side  # the one-sided p is always "the winner is better"
    mask = d <= edge if below else d >= edge
    share = float(mask.mean()) if count else float("nan")
    where = ("\u2264 " if below else "\u2265 ") + _TAILS[method]
    sides = "two-sided" if two else "one-sided"
    shown = "%s of %s = %s" % ("{:,}".format(int(mask.sum())), "{:,}".format(count), format_p(share, 4))
    if two and p_one is None:
        reason = "its floor 1/(B+1)" if p <= floor else "its cap 1"
        head = "p (%s) = %s,\n%s" % (sides, format_p(p), reason)
    elif two:
        head = "p (%s) = 2 \u00d7 %s = %s" % (sides, format_p(p_one, 4), format_p(p))
    else:
        head = "p (%s) = %s" % (sides, format_p(p))
    if method == "normal":
        label = "normal curve N(\u03b4, SE\u00b2), area %s shaded" % where
        phi = "\u03a6(%s)" % ("\u2212\u03b4/SE" if below else "\u03b4/SE")
        if p_one is None:
            relation = head + "\n(normal approximation)"
        elif two:
            relation = "%s\n%s = %s, the shaded area (normal approx.)" % (head, format_p(p_one, 4), phi)
        else:
            relation = "%s = %s,\nthe shaded area (normal approx.)" % (head, phi)
    else:
        label = "replicates %s: %s" % (where, shown)
        if p_one is None:
            relation = head
        elif method == "bca":
            relation = (
                "%s\n%s = BCa level map of the shaded share" % (head, format_p(p_one, 4))
                if two
                else "%s = BCa level map\nof the shaded share" % head
            )
        elif not mask.any():
            relation = "%s, the floor 1/(B+1):\nno replicate is shaded" % head
        elif abs(p_one - share) <= floor + 1e-12 and format_p(p_one, 4) == format_p(share, 4):
            # the same digits: say it once ("0.2569 ≈ 0.2569" read as a contradiction)
            relation = (
                "%s,\nthe shaded share" % head if not two else "%s\n%s, the shaded share" % (head, format_p(p_one, 4))
            )
        elif abs(p_one - share) <= floor + 1e-12:
            relation = (
                "%s %s %s,\nthe shaded share (interpolated)" % (head, _approx(p_one, share), format_p(share, 4))
                if not two
                else "%s\n%s %s %s, the shaded share (interpolated)"
                % (head, format_p(p_one, 4), _approx(p_one, share), format_p(share, 4))
            )
        else:  # e.g. identical systems: p = 1 by the identical-copy rule
            relation = head
    return PValueTail(method, bool(two), edge, bool(below), mask, share, p, p_one, label, relation)


def counted_replicates(target, two, method="percentile"):
    """Which finite replicates of winner minus runner-up the figure shades: :func:`p_value_tail`'s mask."""
    return p_value_tail(target, method, two).mask


def ranked_axis(ax, names, winner, baseline, fontsize):
    """A y axis of system names from best (top) to worst: the winner bold, the baseline coloured."""
    m = len(names)
    ax.set_yticks(range(m))
    ax.set_yticklabels(short_names(names), fontsize=fontsize)
    for label, name in zip(ax.get_yticklabels(), names):
        if name == winner:
            label.set_fontweight("bold")
            label.set_color(WINNER)
        elif name == baseline:
            label.set_color(BASELINE)
    ax.set_ylim(m - 0.5, -0.5)
    ax.grid(axis="x", color="#e6e9ed", lw=0.8)
    ax.set_axisbelow(True)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)


#: The PNG text chunk naming the marks a figure draws in its cells (``values stars``, ``stars``, or empty).
MARKS_KEY = "leaderboard-ci:marks"
#: The PNG text chunk with the right edge, in pixels of the image, of what a reader needs (a colour bar).
KEY_RIGHT_KEY = "leaderboard-ci:key-right-px"


def set_png_text(fig, key, value):
    """Record a fact about what ``fig`` draws, written into its PNG by ``plots.figure_png`` (the page reads it)."""
    texts = dict(getattr(fig, "leaderboard_ci_png_text", {}))
    texts[key] = str(value)
    fig.leaderboard_ci_png_text = texts


def png_texts(fig, dpi, texts):
    """``texts`` and the PNG text chunks ``fig`` recorded, with the right edge of its key (an axes of gid "key")."""
    texts = dict(texts, **getattr(fig, "leaderboard_ci_png_text", {}))
    keys = [ax for parent in fig.axes for ax in [parent] + list(parent.child_axes) if ax.get_gid() == "key"]
    if keys:
        fig.set_dpi(dpi)
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        texts[KEY_RIGHT_KEY] = "%.0f" % max(ax.get_tightbbox(renderer).x1 for ax in keys)
    return texts


def heatmap_marks(k):
    """What the cells of a ``k``-system pair heatmap show: ``values stars``, ``stars`` or nothing (too small)."""
    return "values stars" if k <= HEATMAP_VALUES_MAX else "stars" if k <= HEATMAP_STARS_MAX else ""


def heatmap_key_box(k, cell):
    """``(inset box in axes fractions, horizontal)`` of a ``k``-system pair heatmap's colour bar (``cell`` inches).

    Up to :data:`HEATMAP_VALUES_MAX` systems the bar stands at the matrix's right.  A larger matrix is wider than
    an 800 px window, so the bar lies across the empty upper triangle, near the names on the left, from the row
    below the ones the bar and its label cover (on the right it was off-screen).
    """
    if k <= HEATMAP_VALUES_MAX:
        return [1.03, 0.1, 0.035 if k > 8 else 0.05, 0.8], False
    height = k * cell  # inches of the matrix
    left = min(0.6, (int(np.ceil(0.8 / cell)) + 2.0) / k)
    return [left, 1 - 0.22 / height, min(0.9 - left, 2.6 / height), 0.09 / height], True


def histogram_edges(values, bins):
    """Bin edges: one bin per lattice point when the values lie on a lattice, else ``bins`` bins.

    Differences of counting metrics (accuracy) take values on a lattice of
    step 1/n; equal-width bins that do not match it alias into gaps and spikes.
    """
    low, high = float(values.min()), float(values.max())
    if high <= low:
        return np.array([low - 0.5, high + 0.5])
    magnitude = max(abs(low), abs(high))
    decimals = 10 - int(math.floor(math.log10(magnitude))) if magnitude > 0 else 10
    unique = np.unique(np.round(values, decimals))  # floating noise would split lattice points
    if 2 <= unique.size <= 400:
        steps = np.diff(unique)
        step = float(steps.min())
        ratio = steps / step
        if step > 0 and np.allclose(ratio, np.round(ratio), rtol=0, atol=1e-6) and (high - low) / step <= 400:
            count = int(round((high - low) / step)) + 1
            return low - step / 2.0 + step * np.arange(count + 1)
    return np.linspace(low, high, bins + 1)
