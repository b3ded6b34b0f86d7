"""Task types: how values are parsed and encoded, their per-item statistics and metrics.

Rule: modules here import only the standard library, numpy, ``core`` and ``tasks``; Python 3.7 syntax.
"""
