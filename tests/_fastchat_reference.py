"""FastChat's definition of the arena's Bradley-Terry scores, as a test oracle (scikit-learn, pandas).

``mle_elo`` follows ``compute_mle_elo`` of ``fastchat/serve/monitor/elo_analysis.py`` (lm-sys/FastChat
before the move to ``rating_systems.py``): three pivot tables of the battles (A wins, B wins, ties of
either kind, the ties table added to its transpose), ``2 * A wins + 2 * B wins^T + ties`` as the
weight of "row beats column", two rows per ordered pair of models in a logistic regression without
intercept or penalty whose features are ``+ln(BASE)`` for the row model and ``-ln(BASE)`` for the
column model, and ``SCALE * coef + INIT_RATING``.  Written here from that definition; ``tol`` and
``max_iter`` are FastChat's (1e-6, scikit-learn's default 100) and so is the solver (scikit-learn's
default, L-BFGS, which stalls about 1e-4 Elo points from the maximum) unless a test asks for a tighter
fit: ``solver="newton-cg"``, a Newton solver of the same model and weights.
"""

import math
import warnings

import numpy as np

OUTCOMES = ("model_a", "model_b", "tie", "tie (bothbad)")


def mle_elo(
    model_a, model_b, winner, scale=400.0, base=10.0, init_rating=1000.0, tol=1e-6, max_iter=100, solver="lbfgs"
):
    """``{model: Elo score}`` of the battles ``(model_a[i], model_b[i], winner[i])`` (strings)."""
    import pandas as pd
    from sklearn.linear_model import LogisticRegression

    df = pd.DataFrame({"model_a": list(model_a), "model_b": list(model_b), "winner": list(winner)})
    a_win = pd.pivot_table(df[df.winner == "model_a"], index="model_a", columns="model_b", aggfunc="size", fill_value=0)
    ties = df[df.winner.isin(["tie", "tie (bothbad)"])]
    if len(ties) == 0:
        tie = pd.DataFrame(0, index=a_win.index, columns=a_win.columns)
    else:
        tie = pd.pivot_table(ties, index="model_a", columns="model_b", aggfunc="size", fill_value=0)
        tie = tie + tie.T
    b_win = pd.pivot_table(df[df.winner == "model_b"], index="model_a", columns="model_b", aggfunc="size", fill_value=0)
    win = a_win * 2 + b_win.T * 2 + tie
    models = pd.Series(np.arange(len(win.index)), index=win.index)
    p = len(models)
    x = np.zeros([p * (p - 1) * 2, p])
    y = np.zeros(p * (p - 1) * 2)
    weights = []
    row = 0
    for m_a in win.index:
        for m_b in win.columns:
            if m_a == m_b or math.isnan(win.loc[m_a, m_b]) or math.isnan(win.loc[m_b, m_a]):
                continue
            x[row, models[m_a]] = math.log(base)
            x[row, models[m_b]] = -math.log(base)
            y[row] = 1.0
            weights.append(win.loc[m_a, m_b])
            x[row + 1, models[m_a]] = math.log(base)
            x[row + 1, models[m_b]] = -math.log(base)
            y[row + 1] = 0.0
            weights.append(win.loc[m_b, m_a])
            row += 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # scikit-learn >= 1.8 renames penalty=None
        lr = LogisticRegression(fit_intercept=False, penalty=None, tol=tol, max_iter=max_iter, solver=solver)
        lr.fit(x[:row], y[:row], sample_weight=np.asarray(weights, dtype=np.float64))
    return dict(zip(models.index, scale * lr.coef_[0] + init_rating))


def style_control_elo(a, b, o, f, m, weights=None):
    """Style-controlled ``(Elo scores, style coefficients)``: FastChat's ``fit_contextual_bt`` objective
    (log loss, ties as y = 1/2, plus ``reg / 2 |params|^2`` with reg = 0.5) as scikit-learn's
    ``LogisticRegression(C=2, fit_intercept=False)`` (the same objective doubled), a tie written as
    two rows (y = 1 and y = 0) of weight 1/2; ``a, b, o`` model indices and outcome codes (0 to 3),
    ``f`` the style features, ``weights`` per-battle weights (resample counts)."""
    from sklearn.linear_model import LogisticRegression

    n = a.shape[0]
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=np.float64)
    x = np.zeros((n, m + f.shape[1]))
    x[np.arange(n), a] = math.log(10)
    x[np.arange(n), b] = -math.log(10)
    x[:, m:] = f
    tie = o >= 2
    xs = np.concatenate([x[~tie], x[tie], x[tie]])
    ys = np.concatenate([(o[~tie] == 0).astype(float), np.ones(tie.sum()), np.zeros(tie.sum())])
    ws = np.concatenate([w[~tie], 0.5 * w[tie], 0.5 * w[tie]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lr = LogisticRegression(C=2.0, fit_intercept=False, solver="newton-cg", tol=1e-12, max_iter=10000)
        lr.fit(xs, ys, sample_weight=ws)
    return 400 * lr.coef_[0][:m] + 1000, lr.coef_[0][m:]
