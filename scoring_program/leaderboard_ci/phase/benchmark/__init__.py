"""Benchmarks of several tasks and test sets analysed together (``leaderboard-ci benchmark``)."""
