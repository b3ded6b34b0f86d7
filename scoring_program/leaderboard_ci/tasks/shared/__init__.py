"""What several task types share: parsing and statistics helpers that name no task type.

Rule: modules here import only the standard library, numpy, ``core`` and ``tasks``; Python 3.7 syntax.
"""
