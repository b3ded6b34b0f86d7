"""Organizer and developer tools: the local Codabench worker, the bundle builder and checker.

Rule: modules here may import every other layer; nothing in the package imports ``tools`` (only
the ``leaderboard-ci`` console script and the tests do).
"""
