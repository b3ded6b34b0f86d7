"""Generate the preference-arena example competition (a synthetic battle log with known strengths).

Fourteen chat models with known Bradley-Terry strengths (on the Elo scale) meet in
30,000 battles, as in an arena where users vote on two anonymous answers:

* pairs are not uniform: newer models are sampled more often, and strong models meet
  strong ones more often (as LMArena's sampler favours informative pairs);
* the winner follows the Bradley-Terry model with a tie zone: a battle is a tie with a
  probability that shrinks with the strength gap (about 30 % for equal models), and a
  third of the ties of two weak models (a third of the other ties) are "tie (bothbad)";
* the side (model_a or model_b) is random;
* each answer has a length in tokens and a count of bold spans, drawn after the vote from a
  second generator (so the votes do not depend on them): the preferred answer tends to be
  longer and bolder, the verbosity bias LMArena's style control corrects for (the columns
  ``tokens_a, tokens_b, bold_a, bold_b``; the scoring program ignores them,
  ``arena_report.py --style tokens,bold`` uses them).

The battle log is the gold (``reference_data/battles.csv``); six participants submitted a
model each (``sample_submissions/<model>.zip`` holds ``model.txt``, the model's name); the
other models are the organizer's references, in the log but not on the leaderboard, and
``reference_data/baseline.txt`` names one of them as the baseline every submission is
compared with.  ``STRENGTHS`` is the truth the coverage test of the task checks against.

Run from the repository root (deterministic; rewrites the data files):

    python3 examples/preference/make_example.py
"""

import csv
import io
import os
import zipfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
#: True strengths on the Elo scale (mean 1000 is not required: only differences matter).
STRENGTHS = {
    "atlas-70b-chat": 1180.0,
    "borealis-8x22b": 1150.0,
    "cirrus-34b": 1120.0,
    "delta-lm-13b": 1060.0,
    "ember-7b-instruct": 1010.0,
    "fjord-mini": 990.0,
    "gale-2-9b": 1100.0,
    "halo-1.5-pro": 1165.0,
    "ion-3b": 900.0,
    "juniper-8b": 1040.0,
    "kite-v2": 1085.0,
    "lumen-32b-instruct": 1130.0,
    "mistral-like-7b": 1000.0,
    "nova-405b": 1200.0,
}
#: Participants' models (one submission each); the others are the organizer's references.
SUBMITTED = ("atlas-70b-chat", "cirrus-34b", "gale-2-9b", "halo-1.5-pro", "juniper-8b", "lumen-32b-instruct")
BASELINE = "mistral-like-7b"
N_BATTLES = 30000


def simulate(strengths, n_battles, rng, tie_scale=200.0, tie_max=0.3):
    """``(model_a, model_b, outcome)`` index arrays (outcome codes 0 to 3 as in tasks.preference.fit.OUTCOMES)."""
    s = np.asarray(strengths, dtype=np.float64)
    m = s.shape[0]
    popularity = rng.gamma(2.0, 1.0, m)
    closeness = np.exp(-np.abs(s[:, None] - s[None, :]) / 150.0) + 0.3
    weight = popularity[:, None] * popularity[None, :] * closeness
    np.fill_diagonal(weight, 0.0)
    flat = weight.ravel() / weight.sum()
    pair = rng.choice(m * m, size=n_battles, p=flat)
    a, b = pair // m, pair % m
    d = s[a] - s[b]
    p_tie = tie_max * np.exp(-np.abs(d) / tie_scale)
    p_a = (1.0 - p_tie) / (1.0 + 10.0 ** (-d / 400.0))
    u = rng.random(n_battles)
    outcome = np.where(u < p_a, 0, np.where(u < p_a + p_tie, 2, 1))
    weak = (s[a] + s[b]) / 2.0 < np.median(s)
    bothbad = (outcome == 2) & (rng.random(n_battles) < np.where(weak, 0.5, 0.2))
    return a, b, np.where(bothbad, 3, outcome)


def style(outcome, rng):
    """Tokens and bold spans of answers A and B: the winner's answer is longer and bolder on average."""
    n = outcome.shape[0]
    lift_a = np.where(outcome == 0, 1.35, np.where(outcome == 1, 1.0 / 1.35, 1.0))
    tokens_a = np.round(rng.gamma(3.0, 150.0, n) * lift_a).astype(int) + 1
    tokens_b = np.round(rng.gamma(3.0, 150.0, n) / lift_a).astype(int) + 1
    bold_a = rng.poisson(1.5 * lift_a)
    bold_b = rng.poisson(1.5 / lift_a)
    return tokens_a, tokens_b, bold_a, bold_b


def main():
    rng = np.random.default_rng(20261126)
    names = sorted(STRENGTHS)
    a, b, outcome = simulate([STRENGTHS[n] for n in names], N_BATTLES, rng)
    tokens_a, tokens_b, bold_a, bold_b = style(outcome, np.random.default_rng(7))
    winners = ("model_a", "model_b", "tie", "tie (bothbad)")
    with io.open(os.path.join(HERE, "reference_data", "battles.csv"), "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(["battle_id", "model_a", "model_b", "winner", "tokens_a", "tokens_b", "bold_a", "bold_b"])
        for k in range(N_BATTLES):
            writer.writerow(
                ["b%05d" % k, names[a[k]], names[b[k]], winners[outcome[k]]]
                + [tokens_a[k], tokens_b[k], bold_a[k], bold_b[k]]
            )
    with io.open(os.path.join(HERE, "reference_data", "baseline.txt"), "w", encoding="utf-8") as handle:
        handle.write(BASELINE + "\n")
    for model in SUBMITTED:
        info = zipfile.ZipInfo("model.txt", date_time=(2026, 11, 26, 0, 0, 0))
        with zipfile.ZipFile(os.path.join(HERE, "sample_submissions", model + ".zip"), "w") as archive:
            archive.writestr(info, model + "\n")


if __name__ == "__main__":
    main()
