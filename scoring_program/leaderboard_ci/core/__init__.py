"""The statistical core: resampling, per-item statistics, replicates, intervals, tests and indicators.

Rule: modules here import only the standard library, numpy and ``core``; they take plain values and
return small frozen results, and do no file access, no printing and no configuration reading.
Python 3.7 syntax (the per-submission program runs them in the stock Codabench images).
"""
