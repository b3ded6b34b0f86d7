"""The per-submission program: configuration, readers, evaluation, Codabench adapter, detailed results.

Rule: modules here import only the standard library, numpy, PyYAML, ``core``, ``tasks`` and ``scoring``;
Python 3.7 syntax.  This, with ``core`` and ``tasks``, is all the drop-in ``scoring_program.zip`` carries.
"""
