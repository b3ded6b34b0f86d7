"""The shake-up in sentences: the verdicts the page, the tables' notes and the command line print.

Every sentence is built from the numbers of a
:class:`~leaderboard_ci.phase.shakeup.results.ShakeupResult` (read by attribute;
this module never imports ``phase``), so a verdict cannot disagree with its
numbers: "larger than noise" is said exactly when the one-sided p-value of
Kendall's tau against its noise band is below alpha.
"""

from __future__ import annotations

from ..core.numeric import is_finite_number
from .formatting import MINUS, correction_name, format_ci, format_number, p_phrase

__all__ = [
    "shakeup_larger_than_noise",
    "agreement_sentence",
    "flags_sentence",
    "mean_gap_sentence",
    "submissions_sentence",
    "winners_curse_sentence",
    "best_of_k_sentence",
    "summary_sentences",
    "level_words",
    "number_text",
    "interval_text",
]


def number_text(value, digits=4, signed=False):
    """A number as the shake-up's page and tables show it (true minus sign; an en dash when missing)."""
    return format_number(value, digits, signed).replace("-", MINUS)


def interval_text(low, high, digits=4):
    """``[low, high]`` as :func:`number_text` writes its ends."""
    return format_ci(low, high, digits).replace("-", MINUS)


_n, _ci = number_text, interval_text


def level_words(result):
    return "%g%%" % (100.0 * float(result.settings["confidence_level"]))


def shakeup_larger_than_noise(result):
    """True, False, or None (fewer than 3 participants: no verdict)."""
    agreement = result.competition.get("agreement")
    if agreement is None or not is_finite_number(agreement.tau.p_value):
        return None
    return bool(agreement.tau.p_value < result.settings["alpha"])


def agreement_sentence(result):
    """The one sentence that says whether the shake-up is larger than noise."""
    agreement = result.competition.get("agreement")
    m = result.m
    if agreement is None:
        if m == 1:
            return "With 1 participant there is no ranking to compare."
        return "With %d participants Kendall's \u03c4 can only be +1 or \u22121: no verdict on the shake-up." % m
    tau = agreement.tau
    larger = shakeup_larger_than_noise(result)
    numbers = (
        "Kendall's \u03c4 between the public and the private ranking is %s (%s interval %s); two test sets of "
        "these sizes, with nobody adapting to the public one, give \u03c4 = %s (%s of such draws between %s and %s; "
        "one-sided %s)"
        % (
            _n(tau.value, 3),
            level_words(result),
            _ci(tau.ci_low, tau.ci_high, 3),
            _n(tau.noise, 3),
            level_words(result),
            _n(tau.noise_low, 3),
            _n(tau.noise_high, 3),
            p_phrase(tau.p_value, alpha=result.settings["alpha"]),
        )
    )
    if larger is None:
        return numbers + "."
    if larger:
        return "The shake-up is larger than noise: %s." % numbers
    return "The shake-up is within noise: %s." % numbers


def _who(frame, limit=5):
    names = ["%s (%s)" % (r.participant, _n(r.gap, 4, signed=True)) for r in frame.itertuples(index=False)]
    if len(names) > limit:
        return ", ".join(names[:limit]) + " and %d more" % (len(names) - limit)
    return ", ".join(names)


def flags_sentence(result):
    """How many gaps are beyond noise, and whose (false-discovery control named)."""
    frame = result.participants
    flagged = frame[frame["flagged"]]
    control = "%s, false-discovery rate %g" % (
        "Benjamini-Hochberg"
        if result.settings["correction"] == "fdr_bh"
        else correction_name(result.settings["correction"], long=True),
        result.settings["alpha"],
    )
    sides = "either direction" if result.settings["sides"] == "two" else "private worse than public"
    if flagged.empty:
        return "No participant's private-minus-public gap is beyond what noise explains (%s; %s)." % (sides, control)
    worse = flagged[flagged["direction"] == "worse on private"]
    better = flagged[flagged["direction"] == "better on private"]
    parts = []
    if len(worse):
        parts.append("%d worse on the private set: %s" % (len(worse), _who(worse)))
    if len(better):
        parts.append("%d better on the private set: %s" % (len(better), _who(better)))
    return "%d of %d participants %s a gap beyond what noise explains (%s; %s): %s." % (
        len(flagged),
        result.m,
        "has" if len(flagged) == 1 else "have",
        sides,
        control,
        "; ".join(parts),
    )


def mean_gap_sentence(result):
    """The participants' mean gap, when its interval excludes 0; else None."""
    c = result.competition
    if result.m < 2 or not c["mean_gap_p"] < result.settings["alpha"]:
        return None
    worse = result.metric.sign * c["mean_gap"] < 0
    text = "On average the participants score %s %s on the private set than on the public one (%s interval %s)" % (
        _n(abs(c["mean_gap"])),
        "worse" if worse else "better",
        level_words(result),
        _ci(c["mean_gap_low"], c["mean_gap_high"]),
    )
    if result.mode == "phases":
        text += (
            "; with two phases this can be a difference of difficulty between the two test sets as well as overfitting"
        )
    return text + "."


def submissions_sentence(result):
    """The gap against the number of submissions (Spearman), or None when it cannot be computed."""
    c = result.competition
    rho, p = c.get("gap_vs_submissions_rho"), c.get("gap_vs_submissions_p")
    if rho is None:
        return None
    numbers = (
        "Spearman's \u03c1 between the gap (negative: worse on private) and the public submissions scored = %s, %s"
        % (_n(rho, 2), p_phrase(p, alpha=result.settings["alpha"]))
    )
    if p < result.settings["alpha"] and rho < 0:
        return "Participants who submitted more often lost more from the public to the private set (%s)." % numbers
    if p < result.settings["alpha"]:
        return "Participants who submitted more often lost less from the public to the private set (%s)." % numbers
    return "The gap does not change detectably with the number of submissions (%s)." % numbers


def best_of_k_sentence(result):
    """The largest optimism of a participant's best of k public runs, or None when every participant has one run."""
    frame = result.participants
    many = frame[frame["scored"] > 1]
    if many.empty:
        return None
    row = many.iloc[int(many["best_of_k_bias"].to_numpy().argmax())]
    return (
        "Picking the best of k public submissions makes a public score look better by %s on average for %s "
        "(best of %d), the largest of the %d participants with several submissions."
        % (_n(row["best_of_k_bias"]), row["participant"], int(row["scored"]), len(many))
    )


def winners_curse_sentence(result):
    curse = result.winners_curse
    if curse is None:
        return None
    return (
        "The private winner, %s, scores %s (%s interval %s); picked as the best of %d on the same test set, its "
        "score corrected for that pick is %s (the bootstrap optimism of the best of %d is %s)."
        % (
            curse.winner,
            _n(curse.score),
            level_words(result),
            _ci(curse.ci_low, curse.ci_high),
            curse.m,
            _n(curse.corrected),
            curse.m,
            _n(curse.optimism),
        )
    )


def summary_sentences(result):
    """The verdicts in reading order (the command line prints them, the page leads with them)."""
    out = [agreement_sentence(result), flags_sentence(result)]
    for sentence in (
        mean_gap_sentence(result),
        submissions_sentence(result),
        best_of_k_sentence(result),
        winners_curse_sentence(result),
    ):
        if sentence:
            out.append(sentence)
    return out
