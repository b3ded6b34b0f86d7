"""leaderboard-ci: bootstrap confidence intervals and significance tests for competition leaderboards.

The per-submission scoring path imports only the standard library, numpy and
PyYAML (it runs in the stock Codabench images, Python 3.7 and numpy 1.17).
The end-of-phase analysis (pandas, statsmodels, matplotlib) is imported lazily.
"""

from ._version import __version__

__all__ = ["__version__"]
