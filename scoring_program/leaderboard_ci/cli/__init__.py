"""The command line, one module per command: the package's outermost layer.

=========================  ======================================================================
module                     command
=========================  ======================================================================
:mod:`.main`               ``leaderboard-ci`` (its subcommands; ``python -m leaderboard_ci.cli``)
:mod:`.organizer`          ``leaderboard-ci init``, ``columns``, ``bundle``
:mod:`.score`              ``leaderboard-ci score``
:mod:`.end_of_phase`       ``leaderboard-ci-end-of-phase`` (``leaderboard-ci end-of-phase``)
:mod:`.shakeup`            ``leaderboard-ci shakeup`` (its arguments also join the end of phase)
:mod:`.compare`            ``leaderboard-ci-compare`` (``leaderboard-ci compare``)
:mod:`.benchmark`          ``leaderboard-ci benchmark``
:mod:`.plan`               ``leaderboard-ci plan``
:mod:`.demo`               ``leaderboard-ci demo``
:mod:`.sample_competition` ``leaderboard-ci sample-competition``
=========================  ======================================================================

Each module has ``make_parser()`` and ``main(argv=None) -> exit code``; :mod:`.common` holds what
they share (an organizer's mistake is one sentence on stderr and exit code 2; a closed standard
output ends a command quietly, :mod:`leaderboard_ci.console`).

Rule: modules here may import every other layer; nothing in the package imports ``cli`` (only the
console scripts, ``scripts/`` and the tests do).
"""
