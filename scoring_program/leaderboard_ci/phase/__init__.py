"""The end-of-phase analysis: ingestion of stored submissions, paired analysis, corrections, CLI.

Rule: modules here may import ``core``, ``tasks``, ``scoring``, pandas, SciPy, statsmodels, tqdm and
Dask, and ``report`` only inside functions (to write what they computed).
"""
