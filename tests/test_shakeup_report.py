"""The shake-up's page, tables and figures at 2 and 60 participants (the example covers 9).

Every figure text inside its canvas; the rank-change figure and the tables show the best private
ranks and every flagged participant above ``top``, and say so; with two participants the page says
there is no verdict on tau instead of giving one; the page escapes names.
"""

import numpy as np
import pytest

from leaderboard_ci.phase.shakeup import shakeup
from leaderboard_ci.report.shakeup_html import render_shakeup_page
from leaderboard_ci.report.shakeup_plots import shakeup_figures
from leaderboard_ci.report.shakeup_tables import shakeup_tables, shown_rows
from leaderboard_ci.report.shakeup_words import agreement_sentence


def _result(m, seed=0, n=600):
    rng = np.random.default_rng(seed)
    gold = rng.integers(0, 3, n)
    split = np.where(rng.random(n) < 0.4, "public", "private")
    runs = {}
    for p in range(m):
        acc = 0.5 + 0.4 * p / max(m - 1, 1)
        name = (
            "<team & %02d>" % p
            if p == 0
            else ("a_rather_long_team_name_with_a_run_label_%02d" % p if p % 5 == 0 else "team_%02d" % p)
        )
        runs[name] = [
            np.where(rng.random(n) < acc, gold, (gold + rng.integers(1, 3, n)) % 3).tolist() for _ in range(1 + p % 4)
        ]
    if m > 2:  # a participant that fixes public items: flagged, and ranked low on the private board
        base = np.where(rng.random(n) < 0.5, gold, (gold + 1) % 3)
        fix = (split == "public") & (rng.random(n) < 0.8)
        cheat = base.copy()
        cheat[fix] = gold[fix]
        runs["zz_prober"] = [base.tolist(), cheat.tolist()]
    # B = 1,500: Benjamini-Hochberg over 61 participants flags one gap from B >= 1,219 (the note)
    b = 1500 if m > 2 else 200
    return shakeup(gold.tolist(), runs, split=split.tolist(), metric="f1_macro", n_resamples=b, seed=5)


@pytest.mark.parametrize("m", [2, pytest.param(60, marks=pytest.mark.slow)])
def test_figures_fit_and_the_cut_keeps_the_flagged(m):
    from test_report_layout import _clipped_texts

    result = _result(m)
    top = 20 if m > 2 else None
    figures = shakeup_figures(result, top)
    for name, fig in figures.items():
        assert _clipped_texts(fig) == [], (name, m)
    rows, truncated = shown_rows(result, top)
    assert truncated == (m > 20)
    drawn = [a.get_gid() for a in figures["rank_change"].findobj() if str(a.get_gid()).startswith("rank:private:")]
    assert sorted(g.split(":", 2)[2] for g in drawn) == sorted(rows["participant"])
    if m > 2:
        flagged = set(result.participants.loc[result.participants["flagged"], "participant"])
        assert "zz_prober" in flagged and flagged <= set(rows["participant"])
        table = shakeup_tables(result, top)["participants"]
        assert len(table.rows) == len(rows) and any("participants shown" in n for n in table.notes)
        html = render_shakeup_page(result, figures={}, top=top)
        assert 'class="note truncated"' in html


def test_too_few_resamples_for_the_participants_say_so():
    from leaderboard_ci.phase.shakeup.analysis import _resolution_notes, resamples_to_flag_one

    assert resamples_to_flag_one(61, 0.05) == 1219
    assert _resolution_notes(1219, 61, 0.05) == []
    (note,) = _resolution_notes(200, 61, 0.05)
    assert "B >= 1,219" in note and "1/201" in note


def test_two_participants_give_no_verdict_on_tau_and_names_are_escaped():
    result = _result(2)
    assert result.competition["agreement"] is None
    sentence = agreement_sentence(result)
    assert "no verdict" in sentence and "larger than noise" not in sentence
    html = render_shakeup_page(result, figures={})
    assert "&lt;team &amp; 00&gt;" in html and "<team & 00>" not in html
    assert result.to_dict()["competition"]["kendall_tau"] is None
