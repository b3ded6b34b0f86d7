"""Corrections go through statsmodels, within families."""

import numpy as np
import pytest
from statsmodels.stats.multitest import multipletests

from leaderboard_ci.phase.analysis.corrections import adjust, adjust_within


@pytest.mark.parametrize("method", ["bonferroni", "holm", "fdr_bh", "hommel", "fdr_by"])
def test_same_as_statsmodels(method):
    p = np.array([0.001, 0.2, 0.03, 0.04, 0.5, 0.0004])
    np.testing.assert_array_equal(adjust(p, method), multipletests(p, method=method)[1])


def test_none_is_identity_and_nan_is_refused():
    p = np.array([0.1, 0.2])
    np.testing.assert_array_equal(adjust(p, "none"), p)
    with pytest.raises(ValueError, match="NaN"):
        adjust(np.array([0.1, np.nan]), "holm")


def test_families_are_adjusted_separately():
    p = np.array([0.01, 0.02, 0.03, 0.04, 0.05])
    out = adjust_within(p, [np.array([0, 1]), np.array([2, 3, 4])], "bonferroni")
    np.testing.assert_allclose(out, [0.02, 0.04, 0.09, 0.12, 0.15])


def test_display_names_are_statsmodels_own():
    """One table of names (in the report, which does not import statsmodels), equal to statsmodels'."""
    from statsmodels.stats import multitest

    from leaderboard_ci.report.formatting import CORRECTION_NAMES
    from leaderboard_ci.scoring.config import CORRECTION_METHODS, CORRECTIONS

    aliases = {alias: group[0] for group in multitest._alias_list for alias in group}
    for method in CORRECTION_METHODS:
        assert CORRECTION_NAMES[method] == multitest.multitest_methods_names[aliases[method]], method
    assert set(CORRECTION_NAMES) == set(CORRECTIONS) | {"none"}
    assert set(CORRECTIONS) - set(CORRECTION_METHODS) == {"maxt"}  # ours, not statsmodels'
    assert CORRECTION_NAMES["maxt"] == "Romano-Wolf max-t step-down"
